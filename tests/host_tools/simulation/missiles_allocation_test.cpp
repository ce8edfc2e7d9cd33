// MISSILES on the real-time path (runtime/algorithms/missiles.hpp): after the
// first macro step, linearizing, computing the estimators, solving the coupled
// system and stepping allocate nothing — with the run log recording every
// call, as in `couplet run`.
#include "host_tools/stepping_allocations.hpp"

namespace couplet::testing {
namespace {

TEST(MissilesAllocation, LinearSlavesAllocateNothingAfterTheFirstStep) {
  const SteppingAllocations run = allocations_after_warm_up(
      "missiles_linear.yaml", {"algorithm={type: missiles, step: 0.001}", "time.end=0.5"}, true);
  EXPECT_EQ(run.allocations, 0);
  EXPECT_EQ(run.counters.macro_steps, 500U);
}

// Nonlinear slaves (finite-difference linearizations) change their linearization
// every step: the estimators are recomputed every step, in place.
TEST(MissilesAllocation, NonlinearSlavesAllocateNothingAfterTheFirstStep) {
  const SteppingAllocations run =
      allocations_after_warm_up("missiles_lotka_volterra.yaml",
                                {"algorithm={type: missiles, step: 0.01}", "time.end=2"}, true);
  EXPECT_EQ(run.allocations, 0);
  EXPECT_EQ(run.counters.macro_steps, 200U);
}

}  // namespace
}  // namespace couplet::testing
