// Wall-clock runs (docs/links.md "Wall-clock runs", summary `realtime`): pacing
// changes no decision when every result is in time; real-time
// targets follow the wall clock and the master reports lateness and misses; a
// dead real-time target ends the run naming the slave.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;

std::string signals_of(const std::string& name) {
  return read_file(run_directory(name) / "signals.csv");
}

TEST(WallClockRun, PacingLocalSlavesChangesNoDecision) {
  const std::vector<std::string> settings = {"time.end=0.5", "algorithm.step=0.005"};
  const auto virtual_run = run("two_mass_switch.yaml", settings, "paced-virtual");
  std::vector<std::string> paced = settings;
  paced.push_back("clock={type: wall, realtime_factor: 1.0}");
  const auto wall_run = run("two_mass_switch.yaml", paced, "paced-wall");
  EXPECT_EQ(wall_run.at("decision_hash"), virtual_run.at("decision_hash"));
  EXPECT_EQ(signals_of("paced-wall"), signals_of("paced-virtual"));
  EXPECT_GE(wall_run.at("wall_time_s").get<double>(), 0.5);
  const auto& realtime = wall_run.at("realtime");
  EXPECT_EQ(realtime.at("cycles").get<int>(), 100);
  EXPECT_GE(realtime.at("lateness_us").at("min").get<double>(), 0.0);
  EXPECT_LE(realtime.at("lateness_us").at("median").get<double>(),
            realtime.at("lateness_us").at("max").get<double>());
  EXPECT_FALSE(realtime.at("lateness_histogram").empty());
  EXPECT_FALSE(virtual_run.contains("realtime")) << "virtual time: no realtime section";
}

TEST(WallClockRun, RealtimeFactorScalesTheWallTime) {
  const auto fast = run(
      "two_mass_switch.yaml",
      {"time.end=1", "algorithm.step=0.01", "clock={type: wall, realtime_factor: 4}"}, "paced-x4");
  EXPECT_GE(fast.at("wall_time_s").get<double>(), 0.25);
  EXPECT_LT(fast.at("wall_time_s").get<double>(), 0.6);
}

// A virtual-time target answering well within a generous tolerance: the
// results are those of the local run.
TEST(WallClockRun, VirtualTargetInTimeGivesIdenticalResults) {
  const std::vector<std::string> settings = {"time.end=0.5", "algorithm.step=0.01"};
  const auto local = run("two_mass_switch.yaml", settings, "paced-local");
  std::vector<std::string> remote = settings;
  remote.push_back("clock={type: wall, tolerance: 0.05}");
  remote.push_back("slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}");
  const auto paced = run("two_mass_switch.yaml", remote, "paced-remote");
  EXPECT_EQ(paced.at("realtime").at("missed_results").get<int>(), 0);
  EXPECT_EQ(paced.at("decision_hash"), local.at("decision_hash"));
  EXPECT_EQ(signals_of("paced-remote"), signals_of("paced-local"));
}

// Both slaves on real-time targets at 200 Hz: the models advance on the wall
// clock and inputs apply from their arrival, so the result is close to — not
// identical with — the virtual-time run. Misses are tolerated (hold) on a
// loaded test machine but reported.
TEST(RealtimeTargets, FollowTheWallClockAndReportLateness) {
  const auto summary =
      run("two_mass_switch.yaml",
          {"time.end=1", "algorithm.step=0.005",
           "clock={type: wall, tolerance: 0.002, max_misses: 1000}",
           "slaves.left.link={spawn: true, udp: \"127.0.0.1:0\", realtime: true}",
           "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\", realtime: true}"},
          "realtime-targets");
  const auto& realtime = summary.at("realtime");
  EXPECT_EQ(realtime.at("cycles").get<int>(), 200);
  for (const char* slave : {"left", "right"}) {
    const auto& entry = realtime.at("slaves").at(slave);
    EXPECT_TRUE(entry.at("real_time_target").get<bool>());
    EXPECT_GT(entry.at("input_lateness_us").at("median").get<double>(), 0.0)
        << "inputs arrive after their step starts";
    EXPECT_LT(entry.at("missed_results").get<int>(), 100) << entry.dump();
  }
  EXPECT_EQ(summary.at("evaluation").at("interpolated_slaves").size(), 2U)
      << "real-time targets report outputs at communication times only";
  EXPECT_LT(nrmse(summary, "left.x"), 2.0);
}

TEST(RealtimeTargets, NeedAWallClock) {
  EXPECT_THROW(
      run("two_mass_switch.yaml",
          {"time.end=0.1", "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\", realtime: true}"},
          "realtime-virtual"),
      ConfigurationError);
}

TEST(RealtimeTargets, ADeadTargetEndsTheRunNamingTheSlave) {
  const std::string target_binary =
      std::filesystem::path(COUPLET_BINARY).parent_path() / "couplet-target";
  ChildProcess target({target_binary, "--model", "translational.coupled_mass", "--udp",
                       "127.0.0.1:0", "--realtime"});
  const std::string address = target.ready_address();
  const auto directory = fresh_directory("realtime-killed");
  const std::string errors =
      (std::filesystem::temp_directory_path() / "couplet-test-realtime-killed.err").string();
  ChildProcess couplet(
      {COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "-o", directory.string(),
       "--set", "time.end=30", "--set", "clock={type: wall, max_misses: 100000}", "--set",
       "slaves.right.link={udp: \"" + address + "\", timeout: 0.5}"},
      errors);
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(couplet.running()) << read_file(errors);
  target.signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  const std::optional<int> exit_code = couplet.wait_exit(5s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_EQ(*exit_code, 1);
  EXPECT_LT(seconds, 1.0);
  const std::string message = read_file(errors);
  EXPECT_NE(message.find("slave 'right'"), std::string::npos) << message;
}

}  // namespace
}  // namespace couplet::testing
