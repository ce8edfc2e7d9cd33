#pragma once
// Carries out an algorithm's plans in virtual time (as fast as possible). Also
// samples every slave's outputs on the evaluation grid: through the step
// request's sample times when the slave reports intermediate samples (dense
// output), otherwise by linear interpolation of the communication points.
//
// A batch is carried out in waves (runtime/action_dispatcher.hpp): the
// bookkeeping of each wave runs on the stepping thread in plan order, the slave
// calls go to an ActionDispatcher — one after the other (the default), on a
// thread pool (runtime/thread_pool_dispatcher.hpp) or over MPI processes. The
// decisions, the observer's calls and the results do not depend on which.
//
// Real-time boundary: initialize() allocates; advance() does not, once the sample
// buffers have grown to the largest step (fixed-step runs: after the first step).
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <vector>

#include "runtime/action_dispatcher.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/decision_hash.hpp"
#include "runtime/system.hpp"

namespace couplet {

/// Evaluation-grid times one step may hold before its sample buffers grow.
inline constexpr std::size_t kGridSamplesPerStepReserved = 64;

struct RunCounters {
  std::uint64_t macro_steps = 0;  ///< times the communication frontier advanced
  std::uint64_t slave_steps = 0;  ///< step calls, repeats included
  std::uint64_t rollbacks = 0;    ///< restore_state calls
  /// Allocations on the stepping path: a step holding more samples than
  /// reserved at initialize() (the algorithm's own, plus
  /// kGridSamplesPerStepReserved evaluation-grid times).
  std::uint64_t sample_buffer_growths = 0;
};

/// Outputs of every slave on the evaluation grid.
struct GridTrace {
  std::vector<Time> times;
  std::vector<std::vector<double>> values;  ///< per slave: [grid point][output]
  bool interpolated(std::size_t slave) const { return interpolated_slaves[slave]; }
  std::vector<bool> interpolated_slaves;  ///< true where communication points were interpolated
  /// Per slave: [grid point][discrete output], the value held there (a step's
  /// new value from its end on).
  std::vector<std::vector<std::int64_t>> discrete_values;
};

/// Sees every call the executor makes on a slave, on the stepping thread, after
/// it returned (the run log's recorder, runtime/recorder.hpp), in plan order
/// whatever the dispatcher. Must neither allocate nor block.
class ExecutorObserver {
 public:
  virtual ~ExecutorObserver() = default;
  virtual void slave_set_up(std::size_t slave, Time start) = 0;
  /// After slave_set_up of a slave with discrete outputs: their start values.
  virtual void discrete_outputs_evaluated(std::size_t /*slave*/,
                                          std::span<const std::int64_t> /*values*/) {}
  /// A step's request is about to leave: at its announcement, or when the step
  /// is carried out if it was not announced.
  virtual void step_began(std::size_t slave) = 0;
  /// `request` as the slave received it (evaluation-grid sample times merged in),
  /// everything it returned and what its link saw.
  virtual void slave_stepped(std::size_t slave, const StepRequest& request,
                             const OutputBuffers& result, const LinkStepReport& link) = 0;
  virtual void outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                                 std::span<const double> outputs) = 0;
  /// A linearize action: the inputs it was given and what the slave returned.
  virtual void slave_linearized(std::size_t slave, std::span<const Polynomial> inputs,
                                std::span<const double> linearization) = 0;
  virtual void state_saved(std::size_t slave) = 0;
  virtual void state_restored(std::size_t slave) = 0;
};

class Executor {
 public:
  /// `grid` (may be empty) lists the evaluation times, increasing, within [start, end].
  Executor(System& system, Algorithm& algorithm, Time start, Time end, std::vector<Time> grid);
  Executor(const Executor&) = delete;  // the wave's calls point back at it
  Executor& operator=(const Executor&) = delete;

  /// Every slave call from initialize() on goes to `observer` (may be null).
  void set_observer(ExecutorObserver* observer) { observer_ = observer; }
  /// Who makes the slave calls, from initialize() on (null: one after the other
  /// on the stepping thread). Must outlive the executor's use.
  void set_dispatcher(ActionDispatcher* dispatcher) {
    dispatcher_ = dispatcher != nullptr ? dispatcher : &sequential_;
  }

  /// Validates the system for the algorithm, sets up slaves, computes consistent
  /// initial outputs and starts the algorithm.
  void initialize();

  /// Carries out one plan. Returns false when the algorithm has finished.
  bool advance();

  /// The latest communication time reached by any slave.
  Time frontier() const { return frontier_; }
  const RunCounters& counters() const { return counters_; }
  std::uint64_t decision_hash() const { return hash_.value(); }
  const GridTrace& trace() const { return trace_; }
  /// Slave `slave`'s discrete outputs at its current time.
  std::span<const std::int64_t> discrete_outputs(std::size_t slave) const {
    return discrete_[slave].outputs;
  }
  std::span<const StepSlot> slots() const { return slots_; }

 private:
  // The calls of the wave being carried out, for the dispatcher.
  class WaveCalls final : public ActionCalls {
   public:
    explicit WaveCalls(Executor& executor) : executor_(executor) {}
    void begin(std::span<const PlannedAction> wave);
    void call(const PlannedAction& action) noexcept override;
    ActionResults results(const PlannedAction& action) const override;
    void fail(const PlannedAction& action, std::exception_ptr error) noexcept override;
    bool failed(const PlannedAction& action) const noexcept override;
    /// What `action`'s call threw (null: nothing).
    std::exception_ptr failure(const PlannedAction& action) const noexcept {
      return errors_[index(action)];
    }
    void reserve(std::size_t actions) { errors_.assign(actions, nullptr); }

   private:
    std::size_t index(const PlannedAction& action) const noexcept {
      return static_cast<std::size_t>(&action - wave_.data());
    }
    Executor& executor_;
    std::span<const PlannedAction> wave_;
    std::vector<std::exception_ptr> errors_;  ///< per wave position
  };

  void compute_initial_outputs();
  std::size_t wave_end(std::span<const PlannedAction> actions, std::size_t first);
  void run_wave(std::span<const PlannedAction> wave);
  void prepare(const PlannedAction& action);
  void dispatch_and_complete(std::span<const PlannedAction> wave);
  void call_slave(const PlannedAction& action);
  ActionResults results_of(const PlannedAction& action);
  void complete(const PlannedAction& action);
  void complete_step(std::size_t slave);
  bool announce_steps();
  void announce_evaluations();
  std::size_t actions_on(std::size_t slave) const;
  Time time_when_stepped(const PlannedAction& action) const;
  void merge_sample_times(std::size_t slave);
  void prepare_step(std::size_t slave);
  void hash_request(std::size_t slave, const StepSlot& slot);
  void gather_discrete_inputs(std::size_t slave);
  void hold_integer_inputs(std::size_t slave, Time origin);
  std::int64_t rounded_input(std::size_t slave, std::size_t input, PortReference output,
                             Rounding rounding) const;
  void hold_discrete_grid(std::size_t slave, Time from, Time to);
  // Defined here so that they inline: each step builds its request three times.
  StepRequest request_of(std::size_t slave) const {
    const StepSlot& slot = slots_[slave];
    return {slot.start, slot.end, slot.inputs, scratch_[slave].sample_times,
            discrete_[slave].inputs};
  }
  OutputBuffers buffers_of(std::size_t slave) {
    return {slots_[slave].outputs, scratch_[slave].samples, discrete_[slave].outputs};
  }
  void record_grid_samples(std::size_t slave, Time from, Time to, std::span<const double> samples,
                           std::span<const Time> sample_times);
  void interpolate_grid(std::size_t slave, Time from, Time to, std::span<const double> before,
                        std::span<const double> after);

  System& system_;
  Algorithm& algorithm_;
  ExecutorObserver* observer_ = nullptr;
  SequentialDispatcher sequential_;
  ActionDispatcher* dispatcher_ = &sequential_;
  WaveCalls calls_{*this};
  std::vector<std::uint64_t> wave_of_slave_;  ///< the last wave holding each slave (wave_end)
  std::uint64_t wave_number_ = 0;
  bool batch_announced_ = false;
  Time start_;
  Time end_;
  std::vector<StepSlot> slots_;
  Plan plan_;
  DecisionHash hash_;
  RunCounters counters_;
  Time frontier_ = 0;
  std::vector<Time> slave_time_;
  std::vector<Time> saved_time_;
  GridTrace trace_;

  // Per-slave scratch, grown only when a step needs more samples than before.
  struct Scratch {
    std::vector<Time> sample_times;
    std::vector<double> samples;
    std::vector<std::size_t> algorithm_sample_positions;
    std::vector<double> previous_values;
    std::vector<double> saved_outputs;  ///< slot.outputs at save_state, put back by restore_state
  };
  std::vector<Scratch> scratch_;

  // Per-slave discrete signals (docs/algorithms.md, "Discrete signals"): the
  // algorithms never see them; the executor passes them on at each step.
  struct DiscreteSignals {
    /// Per input: what drives it. A discrete output, or (with `rounding`) a
    /// Real output rounded to an Integer; none: the input holds its start value.
    struct Source {
      std::optional<PortReference> output;
      std::optional<Rounding> rounding;
    };
    std::vector<Source> sources;
    /// Real inputs an Integer output drives (System::integer_to_real_connections):
    /// the executor sets them, the algorithms leave them alone.
    struct HeldInput {
      std::size_t input = 0;  ///< index into the Real inputs
      PortReference output;   ///< index into the source's discrete outputs
    };
    std::vector<HeldInput> held_inputs;
    std::vector<std::int64_t> inputs;            ///< the next step's, gathered at its preparation
    std::vector<std::int64_t> outputs;           ///< at the slave's current time
    std::vector<std::int64_t> previous_outputs;  ///< before the step being carried out
    std::vector<std::int64_t> saved_outputs;     ///< at save_state, put back by restore_state
  };
  std::vector<DiscreteSignals> discrete_;
};

}  // namespace couplet
