// The shipped hardware-in-the-loop bench (scenarios/two_mass_switch_hil.yaml)
// runs to its end, in real time, on the machine that runs the tests — which in
// CI is a loaded 2-core VM running other tests beside it. The defaults must
// absorb the overruns such a machine produces (miss budget in count and wall
// time, docs/links.md) while the run still matches the monolithic reference.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

TEST(ShippedHilScenario, RunsToItsEndOnThisMachine) {
  const auto directory = fresh_directory("hil_scenario");
  const std::string command = std::string(COUPLET_BINARY) + " run " +
                              scenario_path("two_mass_switch_hil.yaml") + " -o " +
                              directory.string() + " > " + directory.string() + ".out 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << read_file(directory.string() + ".out");

  const nlohmann::json summary = nlohmann::json::parse(read_file(directory / "summary.json"));
  EXPECT_DOUBLE_EQ(summary.at("end_time").get<double>(), 60.0);
  // Inputs apply from their arrival at the targets, so the HIL run differs a
  // little from the virtual-time run, but stays within 0.1 % of the reference.
  EXPECT_LT(nrmse(summary, "left.x"), 0.1);
  EXPECT_LT(nrmse(summary, "left.v"), 0.1);
}

}  // namespace
}  // namespace couplet::testing
