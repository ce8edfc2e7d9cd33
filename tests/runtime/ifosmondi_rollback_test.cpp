// Rollback in IFOSMONDI (docs/iterative.md): every iteration re-runs the macro step from the
// slaves' saved states, and a rejected step is retried, halved, from them. Undoing
// must be exact: a fresh slave stepped along the accepted path alone reproduces, bit
// for bit, what the slaves of the run reported.
#include <gtest/gtest.h>

#include <algorithm>

#include "ifosmondi_test_slaves.hpp"
#include "runtime/algorithms/ifosmondi.hpp"
#include "runtime/algorithms/ifosmondi_jfm.hpp"

namespace couplet::testing {
namespace {

// Stateful slaves: a feeds through (y_a = z_a + 5 u_a), b integrates with a large
// gain (y_b = 20 z_b), so the loop gain of the fixed point grows with the step: long
// steps diverge and are rejected, halved steps converge, and the step grows back by
// 30 % until it fails again. Every retry starts from the restored states.
TEST(IfosmondiRollback, RejectedStepsLeaveEverySlaveBitForBitAsBefore) {
  auto a = std::make_unique<RecordingSlave>(std::make_unique<LagSlave>(1.0, 1.0, 5.0, 1.0));
  auto b = std::make_unique<RecordingSlave>(std::make_unique<LagSlave>(1.0, 20.0, 0.0, 0.0));
  RecordingSlave& recorded_a = *a;
  RecordingSlave& recorded_b = *b;
  System system = loop_of(std::move(a), std::move(b));
  Ifosmondi algorithm(rejecting_step_settings());
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  const RunResult result = run(system, algorithm, 1.0);

  ASSERT_GT(algorithm.totals().rejected_steps, 3U) << "the test needs rejected steps";
  EXPECT_GT(recorded_a.restores, 10);
  EXPECT_EQ(result.counters.rollbacks,
            static_cast<std::uint64_t>(recorded_a.restores + recorded_b.restores));
  const std::size_t accepted = algorithm.totals().converged_steps;
  LagSlave fresh_a(1.0, 1.0, 5.0, 1.0), fresh_b(1.0, 20.0, 0.0, 0.0);
  EXPECT_EQ(replay_accepted_path(recorded_a, observer.steps, fresh_a, 0), accepted);
  EXPECT_EQ(replay_accepted_path(recorded_b, observer.steps, fresh_b, 0), accepted);
}

// The same with Newton–Krylov, whose evaluations include difference-quotient probes.
TEST(IfosmondiRollback, NewtonIterationsAreUndoneBitForBit) {
  auto a = std::make_unique<RecordingSlave>(std::make_unique<LagSlave>(1.0, 1.0, 1.5, 1.0));
  auto b = std::make_unique<RecordingSlave>(std::make_unique<LagSlave>(2.0, 1.0, -1.2, 0.0));
  RecordingSlave& recorded_a = *a;
  RecordingSlave& recorded_b = *b;
  System system = loop_of(std::move(a), std::move(b));
  IfosmondiJfmSettings settings;
  settings.coupling.reference_step = to_ticks(0.05);
  settings.coupling.min_step = to_ticks(1e-6);
  settings.kinsol.method = KinsolMethod::newton;
  IfosmondiJfm algorithm(settings);
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  run(system, algorithm, 1.0);
  const std::size_t accepted = algorithm.totals().converged_steps;
  ASSERT_EQ(accepted, 20U);
  EXPECT_GT(recorded_a.log.size(), 3 * accepted);
  LagSlave fresh_a(1.0, 1.0, 1.5, 1.0), fresh_b(2.0, 1.0, -1.2, 0.0);
  EXPECT_EQ(replay_accepted_path(recorded_a, observer.steps, fresh_a, 0), accepted);
  EXPECT_EQ(replay_accepted_path(recorded_b, observer.steps, fresh_b, 0), accepted);
}

/// Forwards to a slave and adds an Integer output, the steps in its state
/// (saved and restored with it), and an Integer input, logged at every step.
class StepCountingSlave final : public Slave {
 public:
  struct Received {
    Time start = 0;
    std::int64_t seen = 0;       ///< the discrete input of the step
    std::int64_t own_steps = 0;  ///< the steps in this slave's state at its start
  };
  explicit StepCountingSlave(std::unique_ptr<Slave> inner) : inner_(std::move(inner)) {
    description_ = inner_->description();
    description_.discrete_inputs = {{"seen", DiscreteType::integer, "", -1}};
    description_.discrete_outputs = {{"steps", DiscreteType::integer, "", 0}};
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override {
    inner_->evaluate_outputs(inputs, out);
  }
  void evaluate_discrete_outputs(std::span<std::int64_t> out) override { out[0] = steps_; }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    inner_->step(request, result);
    received.push_back({request.start, request.discrete_inputs[0], steps_});
    result.discrete_outputs[0] = ++steps_;
  }
  void save_state() override {
    inner_->save_state();
    saved_steps_ = steps_;
  }
  void restore_state() override {
    inner_->restore_state();
    steps_ = saved_steps_;
  }
  std::vector<Received> received;

 private:
  std::unique_ptr<Slave> inner_;
  SlaveDescription description_;
  std::int64_t steps_ = 0, saved_steps_ = 0;
};

// Discrete signals under rollback (docs/algorithms.md, "Discrete signals"): a
// retried step takes its discrete inputs from the restored sources, so every
// step of b from t, first try or retry, sees the steps a had taken up to t.
TEST(IfosmondiRollback, RetriedStepsTakeDiscreteInputsFromTheRestoredSources) {
  auto a = std::make_unique<StepCountingSlave>(std::make_unique<LagSlave>(1.0, 1.0, 5.0, 1.0));
  auto b = std::make_unique<StepCountingSlave>(std::make_unique<LagSlave>(1.0, 20.0, 0.0, 0.0));
  StepCountingSlave& counted_a = *a;
  StepCountingSlave& counted_b = *b;
  System system = loop_of(std::move(a), std::move(b));
  system.connect("a.steps", "b.seen");
  system.connect("b.steps", "a.seen");
  Ifosmondi algorithm(rejecting_step_settings());
  run(system, algorithm, 1.0);
  ASSERT_GT(algorithm.totals().rejected_steps, 3U) << "the test needs retried steps";
  const auto steps_at = [](const StepCountingSlave& slave, Time start) {
    for (const auto& step : slave.received) {
      if (step.start == start) return step.own_steps;
    }
    return std::int64_t{-1};
  };
  std::size_t retried = 0;  // b's steps from a start an earlier step had
  std::vector<Time> starts;
  for (const auto& step : counted_b.received) {
    EXPECT_EQ(step.seen, steps_at(counted_a, step.start))
        << "b's step from " << step.start << " ns";
    if (std::find(starts.begin(), starts.end(), step.start) != starts.end()) ++retried;
    starts.push_back(step.start);
  }
  for (const auto& step : counted_a.received) {
    EXPECT_EQ(step.seen, steps_at(counted_b, step.start))
        << "a's step from " << step.start << " ns";
  }
  EXPECT_GT(retried, 3U);
}

}  // namespace
}  // namespace couplet::testing
