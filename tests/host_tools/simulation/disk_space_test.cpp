// A run on a file system that fills (issue 33, docs/cli.md "Output directory"):
// the run log keeps room for its end and the run's results and stops the run
// cleanly before the disk is full — a log with its end record that replays, a
// summary saying why, signals.csv up to there; without a log, a signals.csv
// that does not fit leaves a failed summary naming the cause. Each run writes to
// a small tmpfs mounted in a mount namespace of its own (unshare), whose files
// are copied out before it ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

/// Whether this machine lets a process mount a tmpfs in a namespace of its own.
bool can_mount_tmpfs() {
  int code = -1;
  command_output("unshare -rm sh -c 'mount -t tmpfs -o size=64k tmpfs /tmp && true'", code);
  return code == 0;
}

struct FullDiskRun {
  int exit_code = -1;
  std::string errors;
  std::filesystem::path out;  ///< the run's directory, copied from the tmpfs
  std::string mounted_out;    ///< where it was, as the messages name it
};

/// `couplet run SCENARIO -o MOUNT/out EXTRA` on a tmpfs of `size`.
FullDiskRun run_on_tmpfs(const std::string& name, const std::string& size,
                         const std::string& extra) {
  const auto directory = fresh_directory(name);
  const auto mount_point = directory / "mnt";
  std::filesystem::create_directories(mount_point);
  FullDiskRun run{-1, "", directory / "out", (mount_point / "out").string()};
  const std::string script =
      "mount -t tmpfs -o size=" + size + " tmpfs " + mount_point.string() + " && { " +
      COUPLET_BINARY + " run " + scenario_path("two_mass_switch.yaml") + " -o " + run.mounted_out +
      " " + extra + " 2> " + directory.string() + "/err; echo $? > " + directory.string() +
      "/exit; cp -r " + run.mounted_out + " " + directory.string() + "/; }";
  int code = -1;
  const std::string output = command_output("unshare -rm sh -c '" + script + "'", code);
  EXPECT_EQ(code, 0) << output;
  run.errors = read_file(directory / "err");
  const std::string exit_text = read_file(directory / "exit");
  if (!exit_text.empty()) run.exit_code = std::stoi(exit_text);
  return run;
}

TEST(DiskSpace, TheLogStopsTheRunWhileItsEndAndTheResultsStillFit) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "no mount namespace here (unshare -rm)";
  // 8 MiB: the log (≈ 500 B a macro step) may use what the results leave.
  const FullDiskRun run = run_on_tmpfs("disk-guard", "8m", "");
  EXPECT_EQ(run.exit_code, 1) << run.errors;
  const std::string cause = "the file system of run log '" + run.mounted_out + "/run.log' has ";
  EXPECT_NE(run.errors.find("couplet: run failed: " + cause), std::string::npos) << run.errors;
  EXPECT_NE(run.errors.find(" KiB kept for the end of the log and the run's results at t = "),
            std::string::npos)
      << run.errors;
  EXPECT_NE(
      run.errors.find("the run is stopped. Free space there, or write the run elsewhere (-o DIR)"),
      std::string::npos)
      << run.errors;
  EXPECT_EQ(run.errors.find("incomplete"), std::string::npos) << run.errors;

  const nlohmann::json summary =
      nlohmann::json::parse(read_file(run.out / "summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << "no readable summary.json";
  EXPECT_EQ(summary.value("status", ""), "failed");
  EXPECT_EQ(summary.value("error", "").rfind(cause, 0), 0u) << summary.dump(2);
  const double end_time = summary.value("end_time", -1.0);
  EXPECT_GT(end_time, 1.0);    // it ran for a while: the log had room
  EXPECT_LT(end_time, 200.0);  // and was stopped before the end
  const auto columns = read_columns(run.out / "signals.csv");
  ASSERT_FALSE(columns.at("time").empty());
  EXPECT_DOUBLE_EQ(columns.at("time").back(), end_time);

  int code = -1;
  const std::string inspect = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (run.out / "run.log").string(), code);
  EXPECT_NE(inspect.find("status       failed: " + cause), std::string::npos) << inspect;
  const std::string replay = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + (run.out / "run.log").string(), code);
  EXPECT_EQ(code, 0) << replay;
  EXPECT_NE(replay.find("every decision before its end was reproduced"), std::string::npos)
      << replay;
}

TEST(DiskSpace, ResultsThatDoNotFitLeaveAFailedSummaryNamingTheCause) {
  if (!can_mount_tmpfs()) GTEST_SKIP() << "no mount namespace here (unshare -rm)";
  // 256 KiB: summary.json fits, signals.csv (≈ 1.4 MB) does not.
  const FullDiskRun run = run_on_tmpfs("disk-no-log", "256k", "--no-log");
  const std::string cause =
      "cannot write '" + run.mounted_out + "/signals.csv': No space left on device";
  EXPECT_EQ(run.exit_code, 1) << run.errors;
  EXPECT_NE(run.errors.find(cause), std::string::npos) << run.errors;
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(run.out / "summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << "no readable summary.json";
  EXPECT_EQ(summary.value("status", ""), "failed");
  EXPECT_EQ(summary.value("error", ""), cause);
  EXPECT_FALSE(std::filesystem::exists(run.out / "signals.csv"));  // no partial file left
}

}  // namespace
}  // namespace couplet::testing
