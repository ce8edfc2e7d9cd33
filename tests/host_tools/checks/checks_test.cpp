// Checks with verdicts (docs/scenarios.md#checks): each kind passing and
// failing on a run with a closed-form solution, the first violation exact to
// the communication point or sample that saw it, stop_on_failure as a safety
// envelope, exit codes 0/3/1, errors naming file and line, and no allocation
// on the stepping thread with 20 checks attached.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "host_tools/checks/check_setup.hpp"
#include "host_tools/stepping_allocations.hpp"  // the counting allocation hook: this file only
#include "runtime/observer_fan_out.hpp"

namespace couplet::testing {
namespace {

// A unit mass without spring or damper, pushed by a constant force of 2 N from
// a gain block (factor 0, offset 2): x(t) = t², v(t) = 2t, exactly (the exact
// solver integrates the linear model with the matrix exponential). Checks see
// the communication points every 0.1 s and the evaluation grid every 1 s.
const char* const kClosedForm = R"(name: closed_form
time: {start: 0, end: 5}
slaves:
  body:
    model: translational.mass
    parameters: {m: 1, c: 0, d: 0, x0: 0, v0: 0}
    solver: {type: exact}
  push:
    model: coupling.linear
    parameters: {factor: 0, offset: 2}
connections:
  - {from: body.x, to: push.u}
  - {from: push.y, to: body.f}
algorithm: {type: jacobi, step: 0.1, input_order: 0}
evaluation: {grid: 1}
)";

/// The line of the first check when `checks:` follows kClosedForm.
int first_check_line() {
  int lines = 0;
  for (const char* c = kClosedForm; *c != '\0'; ++c) lines += *c == '\n' ? 1 : 0;
  return lines + 2;
}

/// kClosedForm with `checks` (YAML list items, one per line) in a fresh
/// directory of its own; returns the scenario's path.
std::string write_scenario(const std::string& name, const std::vector<std::string>& checks,
                           const std::string& base = kClosedForm) {
  const std::filesystem::path directory = fresh_directory("checks-" + name);
  std::filesystem::create_directories(directory);
  std::ofstream file(directory / "scenario.yaml");
  file << base << "checks:\n";
  for (const std::string& check : checks) file << "  - " << check << "\n";
  return (directory / "scenario.yaml").string();
}

nlohmann::json run_checks(const std::string& name, const std::vector<std::string>& checks,
                          const std::vector<std::string>& assignments = {}) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  const std::string path = write_scenario(name, checks);
  return tools::run_scenario(tools::load_scenario(path, overrides),
                             {(std::filesystem::path(path).parent_path() / "out").string(), false});
}

const nlohmann::json& verdict(const nlohmann::json& summary, const std::string& name) {
  for (const nlohmann::json& check : summary.at("checks")) {
    if (check.at("name") == name) return check;
  }
  throw std::runtime_error("no check '" + name + "' in " + summary.dump());
}

void expect_passed(const nlohmann::json& summary, const std::string& name, double worst) {
  const nlohmann::json& check = verdict(summary, name);
  EXPECT_TRUE(check.at("passed").get<bool>()) << check.dump();
  EXPECT_TRUE(check.at("first_violation_time").is_null()) << check.dump();
  EXPECT_NEAR(check.at("worst_value").get<double>(), worst, 1e-9) << check.dump();
}

void expect_failed(const nlohmann::json& summary, const std::string& name, double first_violation,
                   double worst) {
  const nlohmann::json& check = verdict(summary, name);
  EXPECT_FALSE(check.at("passed").get<bool>()) << check.dump();
  EXPECT_EQ(check.at("first_violation_time").get<double>(), first_violation) << check.dump();
  EXPECT_NEAR(check.at("worst_value").get<double>(), worst, 1e-9) << check.dump();
}

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

CommandResult couplet(const std::string& arguments) {
  CommandResult result;
  result.output = command_output(std::string(COUPLET_BINARY) + " " + arguments, result.exit_code);
  return result;
}

nlohmann::json summary_in(const std::filesystem::path& directory) {
  return nlohmann::json::parse(read_file(directory / "summary.json"));
}

TEST(Checks, BoundsFailAtTheFirstCommunicationPointPastTheBound) {
  const nlohmann::json summary =
      run_checks("bounds", {"{name: below_six_and_a_half, signal: body.x, max: 6.5}",
                            "{name: in_window, signal: body.x, min: -1, max: 4.5, from: 0, to: 2}",
                            "{name: speed_not_negative, signal: body.v, min: 0}",
                            "{name: late_enough, signal: body.x, min: 1.5, from: 1}"});
  EXPECT_EQ(summary.at("status"), "completed");
  // x = t² passes 6.5 at 2.55 s; the next communication point is 2.6 s.
  expect_failed(summary, "below_six_and_a_half", 2.6, 25.0);
  EXPECT_EQ(verdict(summary, "below_six_and_a_half").at("message"),
            "body.x = 6.76 above max 6.5 at t = 2.6 s");
  expect_passed(summary, "in_window", 4.0);  // nearest to a bound: x(2) = 4, 0.5 below max
  expect_passed(summary, "speed_not_negative", 0.0);
  expect_failed(summary, "late_enough", 1.0, 1.0);
  EXPECT_EQ(verdict(summary, "late_enough").at("kind"), "bounds");
  EXPECT_EQ(verdict(summary, "late_enough").at("signal"), "body.x");
}

TEST(Checks, ASampleInsideAStepSeesTheViolationFirst) {
  // Macro steps of 1 s, evaluation grid 0.25 s: x = t² passes 6 at 2.449 s,
  // first seen by the grid sample at 2.5 s inside the step from 2 to 3 s.
  const nlohmann::json summary = run_checks("sample", {"{name: below_six, signal: body.x, max: 6}"},
                                            {"algorithm.step=1", "evaluation.grid=0.25"});
  expect_failed(summary, "below_six", 2.5, 25.0);
}

TEST(Checks, SettlesAtAndReaches) {
  const nlohmann::json summary = run_checks(
      "settles-at-reaches",
      {"{name: force_settled, signal: push.y, settles: {value: 2, tolerance: 0, by: 1}}",
       "{name: speed_settled, signal: body.v, settles: {value: 4, tolerance: 0.5, by: 1.8}}",
       "{name: at_two, signal: body.x, at: {time: 2, value: 4, tolerance: 1.0e-9}}",
       "{name: between_points, signal: body.x, at: {time: 2.05, value: 4.2025, tolerance: 0.001}}",
       "{name: crosses, signal: body.x, reaches: {above: 6.3, before: 3}}",
       "{name: too_high, signal: body.x, reaches: {above: 10, before: 3}}",
       "{name: never_below, signal: body.x, reaches: {below: -1, before: 1}}"});
  expect_passed(summary, "force_settled", 2.0);
  // v = 2t leaves 4 ± 0.5 after 2.25 s: first seen at 2.3 s; worst v(5) = 10.
  expect_failed(summary, "speed_settled", 2.3, 10.0);
  expect_passed(summary, "at_two", 4.0);
  // Linear between x(2) = 4 and x(2.1) = 4.41: 4.205 at 2.05 s, 0.0025 off t² = 4.2025.
  expect_failed(summary, "between_points", 2.05, 4.205);
  EXPECT_EQ(verdict(summary, "between_points").at("message"),
            "body.x = 4.205 at t = 2.05 s, outside 4.2025 ± 0.001");
  expect_passed(summary, "crosses", 6.76);
  EXPECT_EQ(verdict(summary, "crosses").at("message"),
            "body.x went above 6.3 at t = 2.6 s (body.x = 6.76)");
  expect_failed(summary, "too_high", 3.0, 9.0);  // highest by the deadline: x(3)
  expect_failed(summary, "never_below", 1.0, 0.0);
}

TEST(Checks, MatchesATraceLinearlyInterpolated) {
  const std::string path = write_scenario(
      "matches",
      {"{name: traced, signal: body.x, matches: {file: coarse.csv, column: x, tolerance: 0.07}}",
       "{name: traced_tight, signal: body.x, matches: {file: coarse.csv, column: x, tolerance: "
       "0.05}, "
       "from: 0, to: 4}",
       "{name: scaled, signal: body.x, matches: {file: fine.csv, column: x_scaled, tolerance: 0.3, "
       "relative: true}}",
       "{name: scaled_tight, signal: body.x, matches: {file: fine.csv, column: x_scaled, "
       "tolerance: 0.25, relative: true}}"});
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  const auto write_trace = [&](const char* file_name, const char* column, int rows_per_second,
                               double scale) {
    std::ofstream file(directory / file_name);
    file << "time, " << column << "\n";
    for (int k = 0; k <= 5 * rows_per_second; ++k) {
      const double t = k / static_cast<double>(rows_per_second);
      char row[80];
      std::snprintf(row, sizeof row, "%.17g,%.17g\n", t, scale * t * t);
      file << row;
    }
  };
  write_trace("coarse.csv", "x", 2,
              1.0);  // t² at every 0.5 s: interpolation off by (t - a)(a + 0.5 - t)
  write_trace("fine.csv", "x_scaled", 10, 1.4);  // 1.4 t² at every communication point
  const nlohmann::json summary =
      tools::run_scenario(tools::load_scenario(path), {(directory / "out").string(), false});
  // The trace's interpolation error peaks at 0.0625 mid-interval; the
  // communication points see at most 0.06 (0.2 s and 0.3 s into each interval).
  expect_passed(summary, "traced", 0.06);
  expect_failed(summary, "traced_tight", 0.2, 0.06);
  // Relative: |x - 1.4 x| = 0.4/1.4 |trace| = 0.286 |trace| everywhere (0 = 0 at t = 0).
  // Passing, the worst point is where the allowance is used most: at t = 0
  // (0 of 0); failing, where the excess 0.05 t² is largest: |25 - 35| at 5 s.
  expect_passed(summary, "scaled", 0.0);
  expect_failed(summary, "scaled_tight", 0.1, 10.0);
}

TEST(Checks, RunLevelRealtimeAndAccuracy) {
  const std::string base = std::string(kClosedForm) + "clock: {type: wall, realtime_factor: 20}\n";
  const std::string path =
      write_scenario("realtime",
                     {"{name: paced, realtime: {max_overruns: 1000000, max_p99_lateness: 10}}",
                      "{name: never_late, realtime: {max_p99_lateness: 0}}"},
                     base);
  const std::filesystem::path directory = std::filesystem::path(path).parent_path() / "out";
  const nlohmann::json summary =
      tools::run_scenario(tools::load_scenario(path), {directory.string(), false});
  const double p99 = summary.at("realtime").at("lateness_us").at("p99").get<double>() * 1e-6;
  EXPECT_TRUE(verdict(summary, "paced").at("passed").get<bool>()) << summary.dump();
  EXPECT_FALSE(verdict(summary, "paced").contains("signal"));
  EXPECT_EQ(verdict(summary, "paced").at("worst_value").get<double>(), p99);
  EXPECT_FALSE(verdict(summary, "never_late").at("passed").get<bool>());
  EXPECT_TRUE(verdict(summary, "never_late").at("first_violation_time").is_null());
}

TEST(Checks, AccuracyAgainstTheMonolithicReference) {
  const nlohmann::json summary =
      tools::run_scenario(load("two_mass_switch.yaml",
                               {"time.end=5",
                                "checks=[{name: close, accuracy: {signal: left.x, max_nrmse: 100}},"
                                " {name: perfect, accuracy: {signal: left.x, max_nrmse: 0}}]"}),
                          {fresh_directory("checks-accuracy").string(), false});
  const double nrmse_pct = nrmse(summary, "left.x");
  ASSERT_GT(nrmse_pct, 0.0);
  expect_passed(summary, "close", nrmse_pct);
  EXPECT_EQ(verdict(summary, "close").at("signal"), "left.x");
  EXPECT_EQ(verdict(summary, "close").at("kind"), "accuracy");
  EXPECT_FALSE(verdict(summary, "perfect").at("passed").get<bool>());
}

// A safety envelope: the run ends at the communication point that saw the
// violation, with a log that replays, status "stopped" and exit code 3.
TEST(Checks, StopOnFailureEndsTheRunCleanly) {
  const std::string path =
      write_scenario("stop", {"{name: watched, signal: body.v, max: 100}",
                              "{name: envelope, signal: body.x, max: 4.2, stop_on_failure: true}"});
  const std::filesystem::path directory = std::filesystem::path(path).parent_path() / "out";
  const CommandResult run = couplet("run " + path + " --quiet -o " + directory.string());
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("stopped by check 'envelope'"), std::string::npos) << run.output;
  const nlohmann::json summary = summary_in(directory);
  EXPECT_EQ(summary.at("status"), "stopped");
  EXPECT_EQ(summary.at("stopped_by"), "check 'envelope'");
  EXPECT_EQ(summary.at("end_time").get<double>(), 2.1);  // x(2.1) = 4.41 > 4.2
  expect_failed(summary, "envelope", 2.1, 2.1 * 2.1);
  expect_passed(summary, "watched", 4.2);  // what was seen up to the stop
  // signals.csv up to the stop: the grid rows 0, 1 and 2 s.
  const std::string signals = read_file(directory / "signals.csv");
  EXPECT_EQ(std::count(signals.begin(), signals.end(), '\n'), 4) << signals;
  const CommandResult replay = couplet("replay " + (directory / "run.log").string() + " --verify");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("stopped by check 'envelope' at t = 2.1 s"), std::string::npos)
      << replay.output;
  // The report lists the verdicts and marks the first violation on body.x's plot.
  const CommandResult report =
      couplet("report " + directory.string() + " -o " + (directory / "report.html").string());
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string html = read_file(directory / "report.html");
  EXPECT_NE(html.find("<h2>Checks</h2>"), std::string::npos);
  EXPECT_NE(html.find("body.x = 4.41 above max 4.2 at t = 2.1 s"), std::string::npos);
  EXPECT_NE(html.find("check &#39;envelope&#39; first violation"), std::string::npos);
}

// The safety envelope around a slave behind a link: the spawned target is
// stopped with the run, which ends where and as the local run does.
TEST(Checks, StopOnFailureStopsASpawnedTarget) {
  const std::vector<std::string> checks{
      "{name: envelope, signal: body.x, max: 4.2, stop_on_failure: true}"};
  std::string base = kClosedForm;
  const std::string solver = "    solver: {type: exact}\n";
  base.replace(base.find(solver), solver.size(),
               solver + "    link: {spawn: true, udp: \"127.0.0.1:0\"}\n");
  const std::string remote_path = write_scenario("stop-remote", checks, base);
  const std::string local_path = write_scenario("stop-local", checks);
  nlohmann::json summaries[2];
  for (int k = 0; k < 2; ++k) {
    const std::filesystem::path directory =
        std::filesystem::path(k == 0 ? remote_path : local_path).parent_path() / "out";
    const CommandResult run =
        couplet("run " + (k == 0 ? remote_path : local_path) + " --quiet -o " + directory.string());
    EXPECT_EQ(run.exit_code, 3) << run.output;
    summaries[k] = summary_in(directory);
    EXPECT_EQ(summaries[k].at("status"), "stopped");
    EXPECT_EQ(summaries[k].at("end_time").get<double>(), 2.1);
  }
  ASSERT_TRUE(summaries[0].contains("links")) << summaries[0].dump();
  EXPECT_EQ(summaries[0].at("decision_hash"), summaries[1].at("decision_hash"));
  expect_failed(summaries[0], "envelope", 2.1, 2.1 * 2.1);
}

TEST(Checks, ExitCodes) {
  const auto run_cli = [](const std::string& name, const std::vector<std::string>& checks,
                          const std::string& extra = "") {
    const std::string path = write_scenario(name, checks);
    const std::filesystem::path directory = std::filesystem::path(path).parent_path() / "out";
    const CommandResult result =
        couplet("run " + path + " --quiet --no-log -o " + directory.string() + extra);
    return std::pair{result, summary_in(directory)};
  };
  const auto [passing, passing_summary] =
      run_cli("exit-0", {"{name: small, signal: body.x, max: 26}"});
  EXPECT_EQ(passing.exit_code, 0) << passing.output;
  EXPECT_NE(passing.output.find("1 of 1 passed"), std::string::npos) << passing.output;
  const auto [failing, failing_summary] = run_cli(
      "exit-3", {"{name: small, signal: body.x, max: 26}", "{name: tiny, signal: body.x, max: 1}"});
  EXPECT_EQ(failing.exit_code, 3) << failing.output;
  EXPECT_EQ(failing_summary.at("status"), "completed");
  EXPECT_NE(failing.output.find("couplet: checks failed"), std::string::npos) << failing.output;
  EXPECT_NE(failing.output.find("FAIL"), std::string::npos) << failing.output;

  // A run that fails is 1, its checks (failed or not) reported as far as it went
  // (a compressed log outgrowing its budget; a plain one is refused before the run).
  const std::filesystem::path directory = fresh_directory("checks-exit-1");
  const CommandResult failed =
      couplet("run " + scenario_path("two_mass_switch.yaml") + " --quiet -o " + directory.string() +
              " --compress-log --set limits.run_log_bytes=2000000 --set 'checks=[{name: tiny, "
              "signal: left.x, "
              "max: 0.5}]'");
  EXPECT_EQ(failed.exit_code, 1) << failed.output;
  const nlohmann::json summary = summary_in(directory);
  EXPECT_EQ(summary.at("status"), "failed");
  expect_failed(summary, "tiny", 0.0, 1.0);  // x(0) = 1 at the start
}

void expect_refused(const std::string& name, const std::vector<std::string>& checks,
                    const std::string& culprit) {
  const std::string path = write_scenario(name, checks);
  const CommandResult result = couplet("validate " + path);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const std::string expected = path + ":" + std::to_string(first_check_line()) + ": " + culprit;
  EXPECT_NE(result.output.find(expected), std::string::npos)
      << "expected '" << expected << "' in " << result.output;
}

TEST(Checks, BadChecksAreRefusedNamingFileAndLine) {
  expect_refused("unknown-key", {"{name: a, signal: body.x, maxx: 1}"},
                 "checks[0].maxx: unknown key");
  expect_refused("unknown-signal", {"{name: a, signal: body.y, max: 1}"},
                 "checks[0] 'a': signal: 'body.y' is not an output of any slave");
  expect_refused("unknown-slave", {"{name: a, signal: nobody.x, max: 1}"},
                 "checks[0] 'a': signal: 'nobody.x' is not an output of any slave");
  expect_refused(
      "missing-file",
      {"{name: a, signal: body.x, matches: {file: absent.csv, column: x, tolerance: 1}}"},
      "checks[0] 'a': matches.file: cannot read");
  expect_refused(
      "two-kinds", {"{name: a, signal: body.x, max: 1, reaches: {above: 1, before: 2}}"},
      "checks[0]: needs exactly one of min/max, settles, at, matches, reaches, realtime, accuracy "
      "(given: min/max, reaches)");
  expect_refused("no-reference", {"{name: a, accuracy: {signal: body.x, max_nrmse: 1}}"},
                 "checks[0].accuracy: compares against the monolithic reference, which the "
                 "scenario does not ask for");
  expect_refused("virtual-time", {"{name: a, realtime: {max_overruns: 0}}"},
                 "checks[0].realtime: the run is in virtual time");
  expect_refused("late", {"{name: a, signal: body.x, at: {time: 6, value: 0, tolerance: 1}}"},
                 "checks[0].at.time: 6 s is outside the run (allowed: from 0 to 5 s)");
  const std::string twice = write_scenario(
      "same-name", {"{name: a, signal: body.x, max: 1}", "{name: a, signal: body.x, max: 2}"});
  const CommandResult result = couplet("validate " + twice);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find(twice + ":" + std::to_string(first_check_line() + 1) +
                               ": checks[1] 'a': the name is already used by an earlier check"),
            std::string::npos)
      << result.output;
}

// Checks observe: the decisions are those of the run without them, whichever
// executor makes the calls, and the verdicts are the same on the thread pool.
TEST(Checks, ChecksChangeNoDecisionAndNoVerdictAcrossExecutors) {
  std::string twenty = "checks=[";
  for (int k = 0; k < 20; ++k) {
    twenty += (k == 0 ? "" : ", ") + std::string("{name: c") + std::to_string(k) +
              ", signal: " + (k % 2 == 0 ? "left.x" : "left.v") +
              ", max: " + std::to_string(0.5 + 0.05 * k) + "}";
  }
  twenty += "]";
  const std::vector<std::string> base = {"time.end=20", "reference=none"};
  const nlohmann::json plain = tools::run_scenario(
      load("two_mass_switch.yaml", base), {fresh_directory("checks-plain").string(), false});
  std::vector<std::string> with_checks = base;
  with_checks.push_back(twenty);
  const nlohmann::json checked =
      tools::run_scenario(load("two_mass_switch.yaml", with_checks),
                          {fresh_directory("checks-checked").string(), false});
  with_checks.push_back("executor={type: threads, threads: 2}");
  const nlohmann::json threaded =
      tools::run_scenario(load("two_mass_switch.yaml", with_checks),
                          {fresh_directory("checks-threaded").string(), false});
  EXPECT_EQ(plain.at("decision_hash"), checked.at("decision_hash"));
  EXPECT_EQ(plain.at("decision_hash"), threaded.at("decision_hash"));
  EXPECT_EQ(checked.at("checks").size(), 20u);
  EXPECT_EQ(checked.at("checks"), threaded.at("checks"));
  EXPECT_FALSE(plain.contains("checks"));
}

// A rollback takes the checks back: a value the master discarded is no violation.
TEST(Checks, ARolledBackStepIsForgotten) {
  const tools::Scenario scenario = tools::load_scenario(write_scenario(
      "rollback", {"{name: envelope, signal: body.x, max: 1, stop_on_failure: true}"}));
  const System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  tools::CheckEvaluator checks = tools::make_check_evaluator(scenario, system);
  std::vector<double> outputs = {0.0, 0.0};  // body.x, body.v
  checks.slave_set_up(0, 0);
  checks.outputs_evaluated(0, {}, outputs);
  checks.state_saved(0);
  outputs[0] = 7.0;
  const StepRequest request{0, to_ticks(1.0), {}, {}};
  checks.slave_stepped(0, request, OutputBuffers{outputs, {}}, {});
  ASSERT_NE(checks.stopping_check(), nullptr);
  checks.state_restored(0);
  EXPECT_EQ(checks.stopping_check(), nullptr);
  outputs[0] = 0.5;
  checks.slave_stepped(0, StepRequest{0, to_ticks(0.5), {}, {}}, OutputBuffers{outputs, {}}, {});
  const std::vector<tools::CheckVerdict> verdicts = checks.verdicts({to_ticks(0.5), {}, {}, {}});
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_TRUE(verdicts[0].passed) << verdicts[0].message;
  EXPECT_EQ(verdicts[0].worst_value, 0.5);
}

// Real-time path: 20 checks of every signal kind on the recorder's fan-out,
// counted by the allocation hook after the warm-up, on both executors.
TEST(Checks, TwentyChecksAllocateNothingOnTheSteppingThread) {
  const std::filesystem::path trace = fresh_directory("checks-allocation-trace").string() + ".csv";
  {
    std::ofstream file(trace);
    file << "time,x\n0,0\n20,0\n";
  }
  const std::vector<std::string> kinds = {
      "signal: left.x, max: 10",
      "signal: left.v, min: -10, from: 1, to: 15",
      "signal: left.v, settles: {value: 0, tolerance: 10, by: 5}",
      "signal: left.x, at: {time: 3.3, value: 0, tolerance: 5}",
      "signal: right.f, reaches: {above: 100, before: 10}",
      "signal: left.x, matches: {file: " + trace.string() + ", column: x, tolerance: 5}"};
  std::string twenty = "checks=[";
  for (int k = 0; k < 20; ++k) {
    twenty += (k == 0 ? "" : ", ") + std::string("{name: c") + std::to_string(k) + ", " +
              kinds[static_cast<std::size_t>(k) % kinds.size()] + "}";
  }
  twenty += "]";
  for (const char* executor : {"executor=sequential", "executor={type: threads, threads: 2}"}) {
    const tools::Scenario scenario =
        load("two_mass_switch.yaml", {"time.end=20", "algorithm.step=0.05", executor, twenty});
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    const std::unique_ptr<ActionDispatcher> dispatcher = tools::make_dispatcher(scenario.executor);
    Executor executor_(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                       tools::evaluation_grid(scenario));
    executor_.set_dispatcher(dispatcher.get());
    tools::CheckEvaluator checks = tools::make_check_evaluator(scenario, system);
    ASSERT_EQ(checks.size(), 20u);
    Recorder recorder(fresh_directory("checks-allocation").string() + ".log");
    recorder.begin(tools::log_header(scenario, system, *algorithm), system);
    ObserverFanOut observers;
    observers.add(recorder);
    observers.add(checks);
    executor_.set_observer(&observers);
    executor_.initialize();
    recorder.algorithm_started(*algorithm);
    const auto advance = [&] {
      const bool more = executor_.advance();
      if (more) recorder.plan_finished(executor_, *algorithm);
      return more && checks.stopping_check() == nullptr;
    };
    while (executor_.counters().macro_steps < 2) ASSERT_TRUE(advance());
    const long before = allocations();
    while (advance()) {
    }
    const long after = allocations();
    recorder.finish({true, "", executor_.decision_hash(), executor_.counters()});
    EXPECT_EQ(executor_.frontier(), to_ticks(20.0)) << executor;
    EXPECT_EQ(after - before, 0) << executor;
    // The checks did see the run: c4 (right.f above 100) failed at its deadline.
    const std::vector<tools::CheckVerdict> verdicts = checks.verdicts({to_ticks(20.0), {}, {}, {}});
    EXPECT_TRUE(verdicts[0].passed) << verdicts[0].message;
    EXPECT_FALSE(verdicts[4].passed) << verdicts[4].message;
    EXPECT_EQ(verdicts[4].first_violation_time, 10.0);
  }
}

}  // namespace
}  // namespace couplet::testing
