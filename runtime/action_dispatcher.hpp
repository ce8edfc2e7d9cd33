#pragma once
// The seam between the executor's bookkeeping and the slave calls themselves
// (docs/executors.md).
//
// The executor carries out a plan's batch in waves: maximal runs of consecutive
// actions in which every slave appears at most once (a slave with several
// actions in one batch — restore, then step — starts a new wave at its second
// one, so its actions keep their order). For each wave it
//   1. prepares every action in plan order on the stepping thread (decision
//      hash, request checks, sample times, observer step_began, ...),
//   2. hands the wave to an ActionDispatcher, which makes the slave calls only —
//      one ActionCalls::call per action, in any order, on any thread, or (an MPI
//      dispatcher) on another process that then sends the results back,
//   3. completes every action in plan order on the stepping thread (observer
//      notifications, counters, slave times, frontier, evaluation grid). The
//      first failed call in plan order is rethrown there, after the actions
//      before it were completed: the same error, the same run log, whichever
//      thread or process made the call.
// Steps 1 and 3 depend only on the plan and on the result buffers, so every
// process of a distributed run can do them itself once the results are in.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string_view>

#include "runtime/algorithm.hpp"

namespace couplet {

/// What one action's slave call writes: the buffers a dispatcher that makes the
/// call elsewhere must bring back (sized before the call; a span is empty when
/// the action writes nothing there). Time-keeping (output_time, the slave's
/// time) is bookkeeping the executor does itself.
struct ActionResults {
  std::span<double> outputs;  ///< step, evaluate_outputs: StepSlot::outputs (all derivative rows)
  std::span<double>
      samples;  ///< step: one row per sample time of the request as sent (algorithm's and grid's)
  std::span<double> linearization;           ///< linearize: StepSlot::linearization
  std::span<std::int64_t> discrete_outputs;  ///< step: the discrete outputs at its end
};

/// The slave calls of one wave, prepared by the executor. `action` arguments
/// must be elements of the wave passed to ActionDispatcher::carry_out (by
/// reference: the position in the wave identifies the action).
class ActionCalls {
 public:
  /// Makes `action`'s slave call. Touches only that slave (its object, its
  /// StepSlot results, its scratch), so the calls of one wave may run
  /// concurrently on different threads; each at most once. Never throws: an
  /// exception is kept for the action (see failed()).
  virtual void call(const PlannedAction& action) noexcept = 0;
  /// The buffers `action`'s call writes.
  virtual ActionResults results(const PlannedAction& action) const = 0;
  /// Marks `action` as failed with `error` (a dispatcher whose call failed on
  /// another process: the executor rethrows it in plan order like a local one).
  virtual void fail(const PlannedAction& action, std::exception_ptr error) noexcept = 0;
  /// Whether `action`'s call failed.
  virtual bool failed(const PlannedAction& action) const noexcept = 0;

 protected:
  ~ActionCalls() = default;
};

/// Makes the slave calls of a wave. Called on the stepping thread; returns when
/// every call of the wave was made (or, after a failure, when no call is running
/// any more: calls after the first failed one in plan order may be skipped,
/// their results are never used). Must not allocate after construction.
class ActionDispatcher {
 public:
  virtual ~ActionDispatcher() = default;
  virtual std::string_view name() const = 0;
  /// Whether this process calls `slave` itself (setup and the split-phase
  /// announcements go only to those); a distributed dispatcher answers for the
  /// slaves its process owns.
  virtual bool calls_slave(std::size_t /*slave*/) const { return true; }
  virtual void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) = 0;
  /// After the setup of a slave with discrete outputs, on every process in
  /// slave order: the process that called the slave holds their start values
  /// in `discrete_outputs`; a distributed dispatcher gives them to the others.
  virtual void share_discrete_start_values(std::size_t /*slave*/,
                                           std::span<std::int64_t> /*discrete_outputs*/) {}
};

/// One call after the other on the stepping thread, stopping at the first failure
/// (the slaves after it are not called, as if the plan had stopped there).
class SequentialDispatcher final : public ActionDispatcher {
 public:
  std::string_view name() const override { return "sequential"; }
  void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) override {
    for (const PlannedAction& action : wave) {
      calls.call(action);
      if (calls.failed(action)) return;
    }
  }
};

}  // namespace couplet
