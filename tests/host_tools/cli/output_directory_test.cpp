// A run's output directory holds the files of one run only: whatever the
// previous run left (its log, summary, signals, report) does not survive a new
// run, be it complete, without a log, or failed; a scenario refused before its
// first step leaves the directory as it was; a second run given the directory
// of a run in progress is refused before it deletes anything.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

int couplet(const std::string& arguments, const std::filesystem::path& output) {
  const std::string command =
      std::string(COUPLET_BINARY) + " " + arguments + " > " + output.string() + " 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::set<std::string> files_in(const std::filesystem::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(directory))
    names.insert(entry.path().filename().string());
  return names;
}

nlohmann::json read_summary(const std::filesystem::path& directory) {
  std::ifstream file(directory / "summary.json");
  return nlohmann::json::parse(file, nullptr, false);
}

std::string first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

/// A complete run of two_mass_switch (1 s, 100 steps) into `directory`, with a
/// report and a file of the user's beside it.
void previous_run(const std::filesystem::path& directory) {
  const std::filesystem::path output = directory.string() + ".previous";
  ASSERT_EQ(couplet("run " + scenario_path("two_mass_switch.yaml") + " --set time.end=1 -o " +
                        directory.string(),
                    output),
            0)
      << read_file(output);
  std::ofstream(directory / "report.html") << "<html>the previous run</html>\n";
  std::ofstream(directory / "notes.txt") << "mine\n";
  ASSERT_EQ(files_in(directory), (std::set<std::string>{".couplet.lock", "notes.txt", "report.html",
                                                        "run.log", "signals.csv", "summary.json"}));
}

TEST(OutputDirectory, RunWithoutLogLeavesNoStaleFile) {
  const auto directory = fresh_directory("outdir-no-log");
  previous_run(directory);
  const std::filesystem::path output = directory.string() + ".out";
  ASSERT_EQ(
      couplet("run " + scenario_path("two_mass_switch.yaml") +
                  " --set time.end=1 --set algorithm.step=0.02 --no-log -o " + directory.string(),
              output),
      0)
      << read_file(output);
  // The previous run's log and report are gone; the user's file stays.
  EXPECT_EQ(files_in(directory),
            (std::set<std::string>{".couplet.lock", "notes.txt", "signals.csv", "summary.json"}));
  const nlohmann::json summary = read_summary(directory);
  EXPECT_EQ(summary.value("status", ""), "completed");
  EXPECT_EQ(summary.value("macro_steps", 0), 50);
  EXPECT_FALSE(summary.contains("run_log"));
}

TEST(OutputDirectory, FailedRunLeavesOnlyItsOwnFiles) {
  const auto directory = fresh_directory("outdir-failed");
  previous_run(directory);
  const std::filesystem::path output = directory.string() + ".out";
  // Fixed-point IFOSMONDI above its convergence radius: fails on the first step.
  ASSERT_EQ(couplet("run " + scenario_path("ifosmondi_damper.yaml") +
                        " --set algorithm.type=ifosmondi --set algorithm.solver=null -o " +
                        directory.string(),
                    output),
            1)
      << read_file(output);
  EXPECT_EQ(files_in(directory), (std::set<std::string>{".couplet.lock", "notes.txt", "run.log",
                                                        "signals.csv", "summary.json"}));
  const nlohmann::json summary = read_summary(directory);
  EXPECT_EQ(summary.value("scenario", ""), "ifosmondi_damper");
  EXPECT_EQ(summary.value("status", ""), "failed");
  EXPECT_NE(summary.value("error", "").find("no convergence on the step"), std::string::npos)
      << summary.dump();
  EXPECT_EQ(first_line(directory / "signals.csv").rfind("time,body.", 0), 0u)
      << first_line(directory / "signals.csv");
  // The log is this run's: it replays, up to the failure.
  const std::filesystem::path replay = directory.string() + ".replay";
  EXPECT_EQ(couplet("replay " + (directory / "run.log").string() + " --verify", replay), 0)
      << read_file(replay);
}

TEST(OutputDirectory, RefusedScenarioLeavesTheDirectoryAsItWas) {
  const auto directory = fresh_directory("outdir-refused");
  previous_run(directory);
  const std::filesystem::path output = directory.string() + ".out";
  EXPECT_EQ(couplet("run " + scenario_path("two_mass_switch.yaml") +
                        " --set slaves.left.model=nothing -o " + directory.string(),
                    output),
            2)
      << read_file(output);
  EXPECT_EQ(files_in(directory), (std::set<std::string>{".couplet.lock", "notes.txt", "report.html",
                                                        "run.log", "signals.csv", "summary.json"}));
  EXPECT_EQ(read_summary(directory).value("macro_steps", 0), 100);
}

TEST(OutputDirectory, ReferenceReplacesARunsFiles) {
  const auto directory = fresh_directory("outdir-reference");
  previous_run(directory);
  const std::filesystem::path output = directory.string() + ".out";
  ASSERT_EQ(couplet("reference " + scenario_path("two_mass_switch.yaml") + " --set time.end=1 -o " +
                        directory.string(),
                    output),
            0)
      << read_file(output);
  EXPECT_EQ(files_in(directory),
            (std::set<std::string>{".couplet.lock", "notes.txt", "signals.csv", "summary.json"}));
  EXPECT_EQ(read_summary(directory).value("algorithm", ""), "monolithic");
}

/// Waits until the lock file of `directory` names `pid`: the run holds it.
bool locked_by(const std::filesystem::path& directory, pid_t pid) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (first_line(directory / ".couplet.lock") == std::to_string(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(OutputDirectory, SecondRunOnADirectoryInUseIsRefusedByName) {
  const auto directory = fresh_directory("outdir-in-use");
  previous_run(directory);
  // The first run paces on the wall clock: 2 s of simulated time take 2 s.
  ChildProcess first({COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "--set",
                      "clock.type=wall", "--set", "time.end=2", "-o", directory.string()},
                     directory.string() + ".first");
  ASSERT_TRUE(locked_by(directory, first.pid())) << read_file(directory.string() + ".first");
  const std::string expected = "output directory " + directory.string() +
                               " is in use by another couplet run (pid " +
                               std::to_string(first.pid()) + ")";
  for (const std::string command : {"run", "reference"}) {
    const std::filesystem::path output = directory.string() + "." + command;
    EXPECT_EQ(couplet(command + " " + scenario_path("two_mass_switch.yaml") +
                          " --set time.end=1 -o " + directory.string(),
                      output),
              2)
        << read_file(output);
    EXPECT_NE(read_file(output).find(expected), std::string::npos) << read_file(output);
  }
  // The first run was not disturbed: its files, whole and its own, and the
  // user's file beside them.
  ASSERT_EQ(first.wait_exit(std::chrono::seconds(30)), 0)
      << read_file(directory.string() + ".first");
  EXPECT_EQ(files_in(directory), (std::set<std::string>{".couplet.lock", "notes.txt", "run.log",
                                                        "signals.csv", "summary.json"}));
  const nlohmann::json summary = read_summary(directory);
  EXPECT_EQ(summary.value("status", ""), "completed");
  EXPECT_EQ(summary.value("macro_steps", 0), 200);
  const std::filesystem::path replay = directory.string() + ".replay";
  EXPECT_EQ(couplet("replay " + (directory / "run.log").string() + " --verify", replay), 0)
      << read_file(replay);
  // Once the run is over the directory is free again.
  const std::filesystem::path again = directory.string() + ".again";
  EXPECT_EQ(couplet("run " + scenario_path("two_mass_switch.yaml") + " --set time.end=1 -o " +
                        directory.string(),
                    again),
            0)
      << read_file(again);
}

}  // namespace
}  // namespace couplet::testing
