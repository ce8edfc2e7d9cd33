// Rollback in IFOSMONDI (docs/iterative.md): every iteration re-runs the macro step from the
// slaves' saved states, and a rejected step is retried, halved, from them. Undoing
// must be exact: a fresh slave stepped along the accepted path alone reproduces, bit
// for bit, what the slaves of the run reported.
#include <gtest/gtest.h>

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
  IfosmondiSettings settings;
  settings.reference_step = to_ticks(0.2);
  settings.min_step = to_ticks(1e-6);
  settings.max_iterations = 20;
  settings.absolute_tolerance = settings.relative_tolerance = 1e-6;
  Ifosmondi algorithm(settings);
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  const RunResult result = run(system, algorithm, 1.0);

  ASSERT_GT(algorithm.totals().rejected_steps, 3U) << "the test needs rejected steps";
  EXPECT_GT(recorded_a.restores, 10);
  EXPECT_EQ(result.counters.rollbacks, static_cast<std::uint64_t>(recorded_a.restores + recorded_b.restores));
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

}  // namespace
}  // namespace couplet::testing
