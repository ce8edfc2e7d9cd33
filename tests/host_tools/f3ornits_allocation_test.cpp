// Real-time path (DESIGN §3): after start-up, F3ORNITS plans and accepts without
// heap allocation. Counted with the global allocation hook of this test program;
// the slaves report no intermediate samples, so that the executor's sample
// buffers (which grow with the largest step) stay out of the count.
#include <gtest/gtest.h>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/sequential_executor.hpp"
#include "support/allocation_counter.hpp"
#include "test_support.hpp"

namespace couplet::testing {
namespace {

long allocations_after_start_up(const std::string& scenario_name, std::vector<std::string> assignments,
                                const std::vector<std::string>& slaves) {
  for (const std::string& slave : slaves) assignments.push_back("slaves." + slave + ".capabilities.intermediate_samples=false");
  const tools::Scenario scenario = load(scenario_name, assignments);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario);
  SequentialExecutor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                              tools::evaluation_grid(scenario));
  executor.initialize();
  // Warm-up: the first rendez-vous (first refresh, first steps).
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(executor.advance());
  const long before = allocations();
  while (executor.advance()) {
  }
  EXPECT_GT(executor.counters().macro_steps, 100U);
  EXPECT_EQ(executor.counters().sample_buffer_growths, 0U);
  return allocations() - before;
}

TEST(F3ornitsAllocation, CountingHookSeesAllocations) {
  const long before = allocations();
  auto* probe = new std::vector<double>(16);
  delete probe;
  EXPECT_GE(allocations() - before, 2);
}

TEST(F3ornitsAllocation, TwoMassSwitchAllocatesNothingAfterStartUp) {
  EXPECT_EQ(allocations_after_start_up("two_mass_switch.yaml",
                                       {"time.end=50", "algorithm.type=f3ornits", "algorithm.tol_rel=1e-3"},
                                       {"left", "right"}),
            0);
}

TEST(F3ornitsAllocation, ClsSmoothingAmplitudeAllocatesNothingAfterStartUp) {
  EXPECT_EQ(allocations_after_start_up("two_mass_switch.yaml",
                                       {"time.end=50", "algorithm.type=f3ornits", "algorithm.calibration=cls",
                                        "algorithm.smoothing=true", "algorithm.normalization=amplitude",
                                        "algorithm.scheduler=synchronous"},
                                       {"left", "right"}),
            0);
}

TEST(F3ornitsAllocation, ImposedStepSlaveAllocatesNothingAfterStartUp) {
  EXPECT_EQ(allocations_after_start_up("car_speed_control.yaml", {"slaves.controller.capabilities.imposed_step=0.05"},
                                       {"vehicle", "controller"}),
            0);
}

}  // namespace
}  // namespace couplet::testing
