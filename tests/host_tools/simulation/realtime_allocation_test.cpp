// Real-time path (docs/architecture.md): after start-up and the first step, the
// stepping loop performs no heap allocation. Proven with a counting hook on the
// global allocation functions of this test program.
#include <gtest/gtest.h>

#include "host_tools/stepping_allocations.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

long allocations_after_first_step(const std::vector<std::string>& assignments,
                                  bool record = false) {
  return allocations_after_warm_up("two_mass_switch.yaml", assignments, record).allocations;
}

TEST(RealtimeAllocation, CountingHookSeesAllocations) {
  const long before = allocations();
  // Direct calls: the compiler may elide the allocation of a new-expression
  // whose object it can see unused (it did, once the hook counted per thread).
  void* first = ::operator new(64);
  void* second = ::operator new(128);
  ::operator delete(second);
  ::operator delete(first);
  EXPECT_GE(allocations() - before, 2);
}

TEST(RealtimeAllocation, JacobiWithCvodeSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                {"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}),
            0);
}

TEST(RealtimeAllocation, JacobiWithEulerSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                {"time.end=20", "algorithm.step=0.05", "slaves.left.solver.type=euler",
                 "slaves.right.solver.type=euler", "slaves.left.solver.substeps=10",
                 "slaves.right.solver.substeps=10"}),
            0);
}

TEST(RealtimeAllocation, RecordingTheRunLogAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                {"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}, true),
            0);
}

// Two record slots: the stepping thread waits for the writer again and again
// (a futex wait, woken by the writer), and still allocates nothing.
TEST(RealtimeAllocation, WaitingForAFullRunLogQueueAllocatesNothing) {
  const SteppingAllocations run = allocations_after_warm_up(
      "two_mass_switch.yaml", {"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"},
      true, 2);
  EXPECT_EQ(run.allocations, 0);
  EXPECT_GT(run.records_waited, 0u);
}

// Extrapolated inputs (Kraft & Schweizer's explicit scheme): the past
// communication values live in fixed-capacity rings, the Lagrange polynomials
// on the stack.
TEST(RealtimeAllocation, JacobiWithExtrapolatedInputsAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(
      allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "algorithm.input_order=2",
                                    "algorithm.inputs=extrapolated"},
                                   true),
      0);
}

TEST(RealtimeAllocation, GaussSeidelWithExtrapolatedInputsAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.type=gauss_seidel",
                                          "algorithm.step=0.05", "algorithm.input_order=3",
                                          "algorithm.inputs=extrapolated"}),
            0);
}

// The semi-implicit scheme on the chain: save, two predictors, evaluation and
// linearization of the coupling elements, eq. 4/5, corrector, update; with the
// run log recording every call.
TEST(RealtimeAllocation, SemiImplicitAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(
      allocations_after_warm_up("chain_semi_implicit.yaml", {"time.end=0.004"}, true).allocations,
      0);
}

TEST(RealtimeAllocation, GaussSeidelAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                {"time.end=20", "algorithm.type=gauss_seidel", "algorithm.step=0.05"}),
            0);
}

// The thread-pool executor: its worker threads wait for each wave on an atomic
// counter, so that handing a wave to them allocates nothing (posting a handler
// to Boost.Asio per wave would allocate one each time). Counted over all threads.
TEST(RealtimeAllocation, ThreadPoolExecutorAllocatesNothingAfterTheFirstStep) {
  for (const char* threads : {"executor.threads=2", "executor.threads=3"}) {
    EXPECT_EQ(
        allocations_after_first_step({"time.end=20", "algorithm.step=0.05",
                                      "algorithm.input_order=1", "executor.type=threads", threads}),
        0)
        << threads;
    EXPECT_EQ(allocations_after_first_step(
                  {"time.end=20", "algorithm.step=0.05", "executor.type=threads", threads}, true),
              0)
        << threads << ", recorded";
  }
}

// On couplet's side; the test FMUs themselves do not allocate in fmi2DoStep either.
TEST(RealtimeAllocation, CoSimulationFmuSlavesAllocateNothingAfterTheFirstStep) {
  const std::string directory = COUPLET_TEST_FMU_DIR;
  EXPECT_EQ(allocations_after_warm_up(
                "two_mass_switch_fmu.yaml",
                {"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1",
                 "slaves.left.fmu=" + directory + "/switch_left.fmu",
                 "slaves.right.fmu=" + directory + "/switch_right.fmu", "slaves.right.fmu_kind=cs"})
                .allocations,
            0);
}

}  // namespace
}  // namespace couplet::testing
