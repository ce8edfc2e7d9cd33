// Real-time path (DESIGN §3 "Executor"): after start-up and the first step, the
// stepping loop performs no heap allocation. Proven with a counting hook on the
// global allocation functions of this test program.
#include <gtest/gtest.h>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/sequential_executor.hpp"
#include "support/allocation_counter.hpp"
#include "test_support.hpp"

namespace couplet::testing {
namespace {

long allocations_after_first_step(const std::vector<std::string>& assignments) {
  const tools::Scenario scenario = load("two_mass_switch.yaml", assignments);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario);
  SequentialExecutor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                              tools::evaluation_grid(scenario));
  executor.initialize();
  // Warm-up: the whole first macro step, including the re-evaluation of feedthrough
  // outputs at its end (the plans until the second macro step has been stepped).
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(executor.advance());
  const long before = allocations();
  while (executor.advance()) {
  }
  const long after = allocations();
  EXPECT_GT(executor.counters().macro_steps, 100U);
  return after - before;
}

TEST(RealtimeAllocation, CountingHookSeesAllocations) {
  const long before = allocations();
  auto* probe = new std::vector<double>(16);
  delete probe;
  EXPECT_GE(allocations() - before, 2);
}

TEST(RealtimeAllocation, JacobiWithCvodeSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}), 0);
}

TEST(RealtimeAllocation, JacobiWithEulerSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "slaves.left.solver.type=euler",
                                          "slaves.right.solver.type=euler", "slaves.left.solver.substeps=10",
                                          "slaves.right.solver.substeps=10"}),
            0);
}

TEST(RealtimeAllocation, GaussSeidelAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.type=gauss_seidel", "algorithm.step=0.05"}), 0);
}

}  // namespace
}  // namespace couplet::testing
