// Isolated FMUs (`isolate: true`, docs/fmi.md "Isolated FMUs") and hung
// targets (`max_step_time`, docs/links.md "Hung targets"): an FMU that
// segfaults, calls exit() or never returns from fmi2DoStep ends the run with an
// error naming the slave, the FMU and the signal, exit status or limit; the
// summary says failed, the log replays to the failure, and no process is left
// behind. SIGTERM during such a step ends the run within a second.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

/// A private copy of the fault FMU: its path tells this test's couplet-target
/// apart from those of tests running beside it.
std::string faulty_copy(const std::string& name) {
  const auto directory = run_directory(name + "-fmu");
  std::filesystem::create_directories(directory);
  const auto copy = directory / (name + ".fmu");
  std::filesystem::copy_file(std::string(COUPLET_TEST_FMU_DIR) + "/faulty.fmu", copy,
                             std::filesystem::copy_options::overwrite_existing);
  return copy.string();
}

/// The fault FMU `crash` (y = time) drives a mass; it fails with `fail_status`
/// in its step to t = 0.6 s (past `fail_time`). `extra` goes into the FMU
/// slave's entry.
std::string scenario(const std::string& fmu, int fail_status, const std::string& extra,
                     const std::string& fail_time = "0.55") {
  return "name: isolated\ntime: {start: 0, end: 2}\nslaves:\n  crash:\n    fmu: " + fmu +
         "\n    parameters: {fail_time: " + fail_time +
         ", fail_status: " + std::to_string(fail_status) + "}\n" + extra +
         "  body:\n    model: translational.mass\n"
         "connections:\n  - {from: crash.y, to: body.f, factor: 1}\n"
         "algorithm: {type: jacobi, step: 0.1}\nreference: none\n";
}

nlohmann::json summary_of(const CoupletOutcome& outcome) {
  return nlohmann::json::parse(read_file(outcome.out / "summary.json"), nullptr, false);
}

/// The run failed naming `cause`, in the summary too, and its log replays to
/// the failure.
void expect_failed_naming(const CoupletOutcome& outcome, const std::string& cause) {
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_NE(outcome.output.find(cause), std::string::npos) << outcome.output;
  const nlohmann::json summary = summary_of(outcome);
  ASSERT_TRUE(summary.is_object()) << "no readable summary.json";
  EXPECT_EQ(summary.value("status", ""), "failed");
  EXPECT_NE(summary.value("error", "").find(cause), std::string::npos) << summary.dump(2);
  int code = -1;
  const std::string replay = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + (outcome.out / "run.log").string(), code);
  EXPECT_EQ(code, 0) << replay;
  EXPECT_NE(replay.find("the recorded run ended early"), std::string::npos) << replay;
  EXPECT_NE(replay.find(cause), std::string::npos) << replay;
}

TEST(IsolatedFmu, RunsWithTheDecisionsAndSignalsOfTheInProcessRun) {
  const std::string fmu = std::string(COUPLET_TEST_FMU_DIR) + "/faulty.fmu";
  const auto local = couplet_on_text("run", scenario(fmu, 3, ""), "isolated-same-local");
  const auto isolated =
      couplet_on_text("run", scenario(fmu, 3, "    isolate: true\n"), "isolated-same-child");
  // fmi2Error past fail_time: both fail in the same FMU step (the evaluation
  // grid's, 0.01 s), with the FMU's message (over the link, the target's words).
  const std::string refused =
      "faulty.fmu': fmi2DoStep returned fmi2Error at t = 0.55000000000000004 s";
  EXPECT_NE(local.output.find(refused), std::string::npos) << local.output;
  EXPECT_NE(isolated.output.find(refused), std::string::npos) << isolated.output;
  const auto local_run =
      couplet_on_text("run", scenario(fmu, 3, "", "1e300"), "isolated-same-local-ok");
  const auto isolated_run = couplet_on_text("run", scenario(fmu, 3, "    isolate: true\n", "1e300"),
                                            "isolated-same-child-ok");
  ASSERT_EQ(local_run.exit_code, 0) << local_run.output;
  ASSERT_EQ(isolated_run.exit_code, 0) << isolated_run.output;
  EXPECT_EQ(hash_of(local_run.out), hash_of(isolated_run.out));
  EXPECT_EQ(read_file(local_run.out / "signals.csv"), read_file(isolated_run.out / "signals.csv"));
  // The log says where the slave ran.
  int code = -1;
  const std::string inspect = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (isolated_run.out / "run.log").string(), code);
  EXPECT_NE(inspect.find("udp 127.0.0.1:"), std::string::npos) << inspect;
}

TEST(IsolatedFmu, ASegmentationFaultEndsTheRunNamingSlaveFmuAndSignal) {
  // Under AddressSanitizer (./build.sh sanitize) its handler would turn the
  // target's SIGSEGV into exit(1): the child processes leave the signal alone.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string options = asan != nullptr && *asan != '\0' ? std::string(asan) + ":" : "";
  ::setenv("ASAN_OPTIONS", (options + "handle_segv=0").c_str(), 1);
  const std::string fmu = faulty_copy("isolated-segv");
  const auto outcome =
      couplet_on_text("run", scenario(fmu, 7, "    isolate: true\n"), "isolated-segv");
  expect_failed_naming(outcome, "slave 'crash' (udp 127.0.0.1:");
  expect_failed_naming(outcome, "its process (couplet-target --fmu " + fmu +
                                    ") was killed by signal 11 (SIGSEGV) during step at t = 0.6 s");
  EXPECT_TRUE(processes_running(fmu).empty());
}

TEST(IsolatedFmu, AnExitEndsTheRunWithItsStatus) {
  const std::string fmu = faulty_copy("isolated-exit");
  const auto outcome =
      couplet_on_text("run", scenario(fmu, 9, "    isolate: true\n"), "isolated-exit");
  expect_failed_naming(outcome, "its process (couplet-target --fmu " + fmu +
                                    ") exited with status 3 during step at t = 0.6 s");
  EXPECT_TRUE(processes_running(fmu).empty());
}

TEST(IsolatedFmu, AHungStepIsDeclaredHungAfterMaxStepTimeAndKilled) {
  const std::string fmu = faulty_copy("isolated-hang");
  const auto began = std::chrono::steady_clock::now();
  const auto outcome = couplet_on_text(
      "run", scenario(fmu, 8, "    isolate: true\n    max_step_time: 0.5\n"), "isolated-hang");
  const auto took = std::chrono::steady_clock::now() - began;
  expect_failed_naming(outcome,
                       "the target answered 'working' for 0.5 s (max_step_time) during step at t = "
                       "0.6 s: declared hung; its process (couplet-target --fmu " +
                           fmu + ") was killed");
  // 0.5 s of step, a start-up and a kill: far below a link timeout (2 s) on top.
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_TRUE(processes_running(fmu).empty()) << "the hung couplet-target was left behind";
}

TEST(IsolatedFmu, SigtermDuringAHungStepEndsTheRunWithinASecond) {
  const std::string fmu = faulty_copy("isolated-sigterm");
  const auto directory = fresh_directory("isolated-sigterm");
  std::filesystem::create_directories(directory);
  // No step limit: only the signal can end this run.
  std::ofstream(directory / "scenario.yaml")
      << scenario(fmu, 8, "    isolate: true\n    max_step_time: 0\n");
  const std::string errors = directory.string() + ".err";
  ChildProcess couplet({COUPLET_BINARY, "run", (directory / "scenario.yaml").string(), "-o",
                        (directory / "out").string()},
                       errors);
  // The target hangs from its step to 0.6 s on; give it time to get there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (processes_running(fmu).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_TRUE(couplet.running()) << read_file(errors);
  const auto signalled = std::chrono::steady_clock::now();
  couplet.signal(SIGTERM);
  const std::optional<int> exit_code = couplet.wait_exit(std::chrono::seconds(20));
  ASSERT_TRUE(exit_code.has_value()) << "couplet did not end";
  // kInterruptPatience (0.5 s) and one retransmit interval (50 ms); slack for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - signalled, std::chrono::seconds(3));
  EXPECT_EQ(*exit_code, 1) << read_file(errors);
  const std::string cause =
      "the run was interrupted during step at t = 0.6 s while the target still computed; "
      "the request was abandoned and its process (couplet-target --fmu " +
      fmu + ") was killed";
  EXPECT_NE(read_file(errors).find(cause), std::string::npos) << read_file(errors);
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(directory / "out" / "summary.json"), nullptr, false);
  EXPECT_EQ(summary.value("status", ""), "failed") << summary.dump(2);
  EXPECT_TRUE(processes_running(fmu).empty()) << "the hung couplet-target was left behind";
}

TEST(IsolatedFmu, MisplacedKeysAreRefusedNamingTheLine) {
  const std::string fmu = std::string(COUPLET_TEST_FMU_DIR) + "/faulty.fmu";
  const struct {
    std::string extra;
    std::string message;
  } cases[] = {
      {"    isolate: true\n    link: {udp: \"127.0.0.1:4000\"}\n",
       "scenario.yaml:7: slaves.crash.isolate: a slave behind a link runs in another process "
       "already"},
      {"    isolate: maybe\n", "scenario.yaml:7: slaves.crash.isolate: expected true or false"},
      {"    max_step_time: 5\n",
       "scenario.yaml:7: slaves.crash.max_step_time: applies to a slave in another process "
       "(isolate: "
       "true, or a link): a step of the master's own process cannot be stopped"},
      {"    isolate: true\n    max_step_time: -1\n",
       "scenario.yaml:8: slaves.crash.max_step_time: -1 is out of range"},
  };
  for (const auto& bad : cases) {
    const auto outcome =
        couplet_on_text("validate", scenario(fmu, 3, bad.extra), "isolated-refused");
    EXPECT_EQ(outcome.exit_code, 2) << bad.extra << outcome.output;
    EXPECT_NE(outcome.output.find(bad.message), std::string::npos) << bad.extra << outcome.output;
  }
}

}  // namespace
}  // namespace couplet::testing
