// Real-time path (docs/architecture.md): after start-up, F3ORNITS plans and accepts without
// heap allocation. Counted with the global allocation hook of this test program;
// the slaves report no intermediate samples, so that the executor's sample
// buffers (which grow with the largest step) stay out of the count.
#include <gtest/gtest.h>

#include "host_tools/stepping_allocations.hpp"

namespace couplet::testing {
namespace {

long allocations_after_start_up(const std::string& scenario_name,
                                std::vector<std::string> assignments,
                                const std::vector<std::string>& slaves) {
  for (const std::string& slave : slaves) {
    assignments.push_back("slaves." + slave + ".capabilities.intermediate_samples=false");
  }
  const SteppingAllocations counted = allocations_after_warm_up(scenario_name, assignments);
  EXPECT_EQ(counted.counters.sample_buffer_growths, 0U);
  return counted.allocations;
}

TEST(F3ornitsAllocation, CountingHookSeesAllocations) {
  const long before = allocations();
  auto* probe = new std::vector<double>(16);
  delete probe;
  EXPECT_GE(allocations() - before, 2);
}

TEST(F3ornitsAllocation, TwoMassSwitchAllocatesNothingAfterStartUp) {
  EXPECT_EQ(
      allocations_after_start_up(
          "two_mass_switch.yaml",
          {"time.end=50", "algorithm.type=f3ornits", "algorithm.tol_rel=1e-3"}, {"left", "right"}),
      0);
}

TEST(F3ornitsAllocation, ClsSmoothingAmplitudeAllocatesNothingAfterStartUp) {
  EXPECT_EQ(allocations_after_start_up(
                "two_mass_switch.yaml",
                {"time.end=50", "algorithm.type=f3ornits", "algorithm.calibration=cls",
                 "algorithm.smoothing=true", "algorithm.normalization=amplitude",
                 "algorithm.scheduler=synchronous"},
                {"left", "right"}),
            0);
}

TEST(F3ornitsAllocation, ImposedStepSlaveAllocatesNothingAfterStartUp) {
  EXPECT_EQ(allocations_after_start_up("car_speed_control.yaml",
                                       {"slaves.controller.capabilities.imposed_step=0.05"},
                                       {"vehicle", "controller"}),
            0);
}

}  // namespace
}  // namespace couplet::testing
