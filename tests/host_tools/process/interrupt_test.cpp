// SIGINT and SIGTERM during `couplet run`: the run stops at the next macro step,
// exits 130 or 143, and leaves a summary (status "interrupted"), the signals up
// to the cut and a run log that replays; spawned targets are stopped. A master
// killed outright takes its spawned target with it (PR_SET_PDEATHSIG), and a
// target that ignores SIGTERM is killed after a grace period.
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

// Paced on the wall clock, so the run lasts (model time 30 s at 1 s per second)
// however fast the machine is; a signal ends it long before.
const std::vector<std::string> kLongWallClockRun = {"--set", "time.end=30", "--set",
                                                    "clock={type: wall}"};

std::vector<std::string> couplet_run(const std::filesystem::path& directory,
                                     const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"),
                                   "-o", directory.string()};
  argv.insert(argv.end(), kLongWallClockRun.begin(), kLongWallClockRun.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

/// Waits until the run has logged some steps (run.log beyond its header).
void wait_until_stepping(const std::filesystem::path& directory) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::error_code error;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::file_size(directory / "run.log", error) > 8192 && !error) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL() << "the run did not start stepping";
}

nlohmann::json read_summary(const std::filesystem::path& directory) {
  std::ifstream file(directory / "summary.json");
  return nlohmann::json::parse(file, nullptr, false);
}

/// The last time in signals.csv, and its row count (header excluded).
std::pair<double, std::size_t> last_signal_row(const std::filesystem::path& directory) {
  std::ifstream file(directory / "signals.csv");
  std::string line;
  std::string last;
  std::size_t rows = 0;
  std::getline(file, line);
  while (std::getline(file, line)) {
    last = line;
    ++rows;
  }
  return {last.empty() ? -1.0 : std::stod(last.substr(0, last.find(','))), rows};
}

int command_status(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void expect_interrupted_run(int signal_number, int expected_exit, const char* name) {
  const auto directory = fresh_directory(std::string("interrupt-") + name);
  const std::string errors = directory.string() + ".err";
  ChildProcess couplet(couplet_run(directory), errors);
  wait_until_stepping(directory);
  couplet.signal(signal_number);
  const std::optional<int> exit_code = couplet.wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(exit_code.has_value()) << "couplet did not stop";
  EXPECT_EQ(*exit_code, expected_exit) << read_file(errors);
  EXPECT_NE(
      read_file(errors).find(std::string("couplet: ") + name + " received: run stopped at t = "),
      std::string::npos)
      << read_file(errors);

  const nlohmann::json summary = read_summary(directory);
  ASSERT_TRUE(summary.is_object()) << "no readable summary.json";
  EXPECT_EQ(summary.value("status", ""), "interrupted");
  EXPECT_EQ(summary.value("interrupted_by", ""), name);
  const double end_time = summary.value("end_time", -1.0);
  EXPECT_GT(end_time, 0.0);
  EXPECT_LT(end_time, 30.0);
  EXPECT_GT(summary.value("macro_steps", 0), 0);

  const auto [last_time, rows] = last_signal_row(directory);
  EXPECT_GT(rows, 1u);
  EXPECT_LE(last_time, end_time);
  EXPECT_GT(last_time, end_time - 0.02);  // grid 0.01 s: the rows reach the cut

  const std::string replay = std::string(COUPLET_BINARY) + " replay " +
                             (directory / "run.log").string() + " --verify > " +
                             directory.string() + ".replay 2>&1";
  EXPECT_EQ(command_status(replay), 0) << read_file(directory.string() + ".replay");
  EXPECT_NE(read_file(directory.string() + ".replay").find(std::string("interrupted by ") + name),
            std::string::npos)
      << read_file(directory.string() + ".replay");
  // The end record says interrupted, not failed.
  const std::string inspect = std::string(COUPLET_BINARY) + " inspect " +
                              (directory / "run.log").string() + " > " + directory.string() +
                              ".inspect 2>&1";
  EXPECT_EQ(command_status(inspect), 0);
  EXPECT_NE(read_file(directory.string() + ".inspect").find("status       interrupted: "),
            std::string::npos)
      << read_file(directory.string() + ".inspect");
}

TEST(Interrupt, SigintStopsTheRunAndKeepsItsResults) {
  expect_interrupted_run(SIGINT, 130, "SIGINT");
}

TEST(Interrupt, SigtermStopsTheRunAndKeepsItsResults) {
  expect_interrupted_run(SIGTERM, 143, "SIGTERM");
}

bool process_gone(pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Interrupt, SpawnedTargetIsStopped) {
  const auto directory = fresh_directory("interrupt-spawned");
  const std::string errors = directory.string() + ".err";
  ChildProcess couplet(
      couplet_run(directory, {"--set", "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}"}),
      errors);
  wait_until_stepping(directory);
  const std::vector<pid_t> targets = children_of(couplet.pid());
  ASSERT_EQ(targets.size(), 1u) << "expected one spawned couplet-target";
  couplet.signal(SIGINT);
  const std::optional<int> exit_code = couplet.wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(exit_code.has_value()) << "couplet did not stop";
  EXPECT_EQ(*exit_code, 130) << read_file(errors);
  EXPECT_EQ(read_summary(directory).value("status", ""), "interrupted") << read_file(errors);
  EXPECT_TRUE(process_gone(targets.front()))
      << "couplet-target " << targets.front() << " still runs";
}

TEST(Interrupt, SpawnedTargetDiesWithAMasterKilledOutright) {
  const auto directory = fresh_directory("interrupt-killed-master");
  const std::string errors = directory.string() + ".err";
  ChildProcess couplet(
      couplet_run(directory, {"--set", "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}"}),
      errors);
  wait_until_stepping(directory);
  const std::vector<pid_t> targets = children_of(couplet.pid());
  ASSERT_EQ(targets.size(), 1u) << "expected one spawned couplet-target";
  // SIGKILL: no handler of the master runs, no destructor stops the target.
  couplet.signal(SIGKILL);
  ASSERT_EQ(couplet.wait_exit(std::chrono::seconds(5)), 128 + SIGKILL);
  EXPECT_TRUE(ended_within(targets.front(), std::chrono::seconds(1)))
      << "couplet-target " << targets.front() << " outlived its master by more than a second";
}

TEST(Interrupt, TargetIgnoringSigtermIsKilledAfterTheGracePeriod) {
  const auto directory = fresh_directory("interrupt-stubborn-target");
  // Announces an address where nothing answers, ignores SIGTERM, and would
  // sleep for a minute: the run fails on the link's timeout and must not wait.
  std::filesystem::create_directories(directory);
  const std::filesystem::path program = directory / "stubborn_target.sh";
  std::ofstream(program) << "#!/bin/sh\necho $$ > \"$0.pid\"\ntrap '' TERM\n"
                            "echo \"stubborn ready udp 127.0.0.1:9\"\nexec sleep 60\n";
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  const std::string errors = directory.string() + ".err";
  ChildProcess couplet({COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "-o",
                        (directory / "out").string(), "--set",
                        "slaves.right.link={spawn: true, program: " + program.string() +
                            ", udp: \"127.0.0.1:0\", timeout: 0.5}"},
                       errors);
  const auto began = std::chrono::steady_clock::now();
  const std::optional<int> exit_code = couplet.wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(exit_code.has_value()) << "couplet waited for a target that ignores SIGTERM";
  EXPECT_EQ(*exit_code, 1) << read_file(errors);
  // 0.5 s of link timeout, then 2 s of grace after SIGTERM, then SIGKILL.
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
  EXPECT_NE(read_file(errors).find("nothing heard over udp 127.0.0.1:9"), std::string::npos)
      << read_file(errors);
  const pid_t target = std::stoi(read_file(program.string() + ".pid"));
  EXPECT_TRUE(ended_within(target, std::chrono::milliseconds(100)))
      << "the stubborn target " << target << " still runs";
}

}  // namespace
}  // namespace couplet::testing
