// `couplet compare A B`: runs compared signal by signal (max abs, max rel, the
// first time beyond tolerance) and decision by decision (the first plan whose
// calls differ), with the exit codes 0 (within), 3 (beyond), 2 (bad input).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/exact_text.hpp"
#include "host_tools/runlog/decision_diff.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/signal_table.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

CommandResult couplet(const std::string& arguments) {
  const std::string command = std::string(COUPLET_BINARY) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  CommandResult result;
  std::array<char, 4096> buffer{};
  while (const std::size_t read = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two masses, exact solver: the left one starts displaced, so everything moves
// from the first step on. At t = 0.35 s the right mass's wall stiffness
// switches to c_wall_after: a change of c_wall_after changes nothing before.
// Jacobi with ZOH inputs makes two plans per macro step (the steps, then the
// outputs at the new time).
const char* const kScenario = R"(name: compare_masses
time: {start: 0, end: 1}
slaves:
  left:
    model: translational.mass
    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}
    solver: {type: exact}
  right:
    model: translational.coupled_mass
    parameters: {m: 1, c_wall: 1, d_wall: 0.1, c_coupling: 1, d_coupling: 0.2, x0: 0, v0: 0,
                 switch_time: 0.35, c_wall_after: 4, anchor_after: 1}
    solver: {type: exact}
connections:
  - {from: left.x, to: right.x}
  - {from: left.v, to: right.v}
  - {from: right.f, to: left.f}
algorithm: {type: jacobi, step: 0.1, input_order: 0}
evaluation: {grid: 0.1}
)";

class Compare : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto base = fresh_directory("compare");
    std::filesystem::create_directories(base);
    scenario_ = (base / "masses.yaml").string();
    std::ofstream(scenario_) << kScenario;
    run_into("a", "");
    run_into("b", "");
    run_into("stiffer", "--set slaves.right.parameters.c_wall_after=8");
    run_into("heavy", "--set slaves.left.parameters.m=20");
  }

  static std::string directory(const std::string& name) {
    return (run_directory("compare") / name).string();
  }

  static void run_into(const std::string& name, const std::string& overrides) {
    const CommandResult run =
        couplet("run " + scenario_ + " --quiet -o " + directory(name) + " " + overrides);
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }

  static std::string scenario_;
};
std::string Compare::scenario_;

/// max |a − b| of `signal` over two signals.csv, read here independently.
double max_difference(const std::string& a, const std::string& b, const std::string& signal) {
  const tools::SignalTable x = tools::read_signals_csv(a + "/signals.csv");
  const tools::SignalTable y = tools::read_signals_csv(b + "/signals.csv");
  double largest = 0.0;
  for (std::size_t k = 0; k < x.times.size(); ++k)
    largest =
        std::max(largest, std::fabs(x.columns[x.find(signal)][k] - y.columns[y.find(signal)][k]));
  return largest;
}

TEST_F(Compare, EqualRunsAreWithinZeroToleranceWithTheSameDecisions) {
  const CommandResult result = couplet("compare " + directory("a") + " " + directory("b"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "decisions: same decisions (decision hash 0x"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "every signal within")) << result.output;
  for (const char* signal : {"left.x", "left.v", "right.f"}) {
    EXPECT_TRUE(contains(result.output, "  " + std::string(signal))) << signal << " in\n"
                                                                     << result.output;
  }
  EXPECT_FALSE(contains(result.output, "t = ")) << "nothing beyond tolerance:\n" << result.output;
}

/// signal → what the table says in its "first beyond tolerance" column.
std::map<std::string, std::string> first_beyond_column(const std::string& table) {
  std::istringstream lines(table);
  std::map<std::string, std::string> first_beyond;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string name, max_abs, max_rel, rest;
    words >> name >> max_abs >> max_rel;
    std::getline(words, rest);
    first_beyond[name] = rest;
  }
  return first_beyond;
}

/// `signal` at communication time `row` of a run (the values the master
/// handed on: right.f re-evaluated with the inputs at that time, which the
/// grid's sample from inside the step is not), from the run's log.
double communicated(const std::string& run, const std::string& signal, std::size_t row) {
  const tools::ExportTable table =
      tools::communication_table(tools::read_run_log(run + "/run.log"));
  const auto column =
      std::find(table.columns.begin(), table.columns.end(), signal) - table.columns.begin();
  return table.rows.at(row).at(static_cast<std::size_t>(column)).value();
}

TEST_F(Compare, AChangedParameterGivesTheFirstDivergenceAndTheFirstDifferingPlan) {
  const CommandResult result = couplet("compare " + directory("a") + " " + directory("stiffer"));
  EXPECT_EQ(result.exit_code, 3) << result.output;
  // The switch at 0.35 s first shows at the grid time 0.4 s in the right mass's
  // force, which the left mass feels over its next step.
  const auto first_beyond = first_beyond_column(result.output);
  EXPECT_EQ(first_beyond.at("right.f"), "  t = 0.4 s") << result.output;
  EXPECT_EQ(first_beyond.at("left.x"), "  t = 0.5 s") << result.output;
  EXPECT_EQ(first_beyond.at("left.v"), "  t = 0.5 s") << result.output;
  // Macro step 5 (plans 9 and 10) starts at 0.4 s: the left mass's ZOH input is
  // each run's right.f communicated at 0.4 s (communication row 4).
  EXPECT_TRUE(contains(result.output,
                       "decisions: first different decisions: plan 9 at t = 0.4 s: step of slave "
                       "'left' to t = 0.5 s: input 'left.f' coefficient 0: " +
                           exact_text(communicated(directory("a"), "right.f", 4)) + " vs " +
                           exact_text(communicated(directory("stiffer"), "right.f", 4)) + "\n"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "3 of 3 signals beyond")) << result.output;
}

TEST_F(Compare, AChangedMassDiffersFromTheInitialization) {
  const CommandResult result = couplet("compare " + directory("a") + " " + directory("heavy"));
  EXPECT_EQ(result.exit_code, 3) << result.output;
  // The initial output evaluation hands the right slave left.x as a Taylor
  // polynomial: its coefficient 2 is x''(0)/2 = -c x0 / (2 m).
  EXPECT_TRUE(contains(result.output,
                       "decisions: first different decisions: the initialization at t = 0 s: "
                       "evaluate_outputs of slave 'right': input 'right.x' coefficient 2: " +
                           exact_text(-1.0 / 20.0) + " vs " + exact_text(-1.0 / 40.0) + "\n"))
      << result.output;
  EXPECT_EQ(first_beyond_column(result.output).at("left.x"), "  t = 0.1 s") << result.output;
}

// Read in step, two logs give the difference the logs read whole give, also
// far into them: past the plan records a stream lets go of.
TEST_F(Compare, StreamedLogsGiveTheFirstDifferenceOfTheWholeLogs) {
  run_into("fine", "--set algorithm.step=0.00002");
  run_into("fine-stiffer",
           "--set algorithm.step=0.00002 --set slaves.right.parameters.c_wall_after=8");
  const std::string a = directory("fine") + "/run.log";
  const std::string b = directory("fine-stiffer") + "/run.log";
  const auto whole =
      tools::first_decision_difference(tools::read_run_log(a), tools::read_run_log(b));
  tools::RunLogStream stream_a(a), stream_b(b);
  const auto streamed = tools::first_decision_difference(stream_a, stream_b);
  ASSERT_TRUE(whole.has_value());
  ASSERT_TRUE(streamed.has_value());
  EXPECT_GT(whole->plan, 30000U) << "the switch at 0.35 s, 2 plans per 20 us macro step";
  EXPECT_EQ(streamed->plan, whole->plan);
  EXPECT_EQ(streamed->time, whole->time);
  EXPECT_EQ(streamed->what, whole->what);
  EXPECT_NEAR(to_seconds(whole->time), 0.35, 1e-4) << tools::plan_text(*whole);
}

TEST_F(Compare, AToleranceThatAdmitsTheDifferenceExitsZero) {
  const double largest = max_difference(directory("a"), directory("heavy"), "left.x");
  ASSERT_GT(largest, 1e-6);
  const std::string signals = " --signals left.x";
  const CommandResult admitted =
      couplet("compare " + directory("a") + " " + directory("heavy") + signals + " --tolerance " +
              exact_text(largest * 1.000001));
  EXPECT_EQ(admitted.exit_code, 0) << admitted.output;
  EXPECT_TRUE(contains(admitted.output, "every signal within")) << admitted.output;
  // The decisions still differ: said, but not a reason to fail.
  EXPECT_TRUE(contains(admitted.output, "first different decisions: the initialization"))
      << admitted.output;
  const CommandResult refused = couplet("compare " + directory("a") + " " + directory("heavy") +
                                        signals + " --tolerance " + exact_text(largest * 0.999999));
  EXPECT_EQ(refused.exit_code, 3) << refused.output;
  EXPECT_TRUE(contains(refused.output, "1 of 1 signals beyond")) << refused.output;
}

TEST_F(Compare, ARelativeToleranceScalesWithTheSecondRun) {
  // |a − b| ≤ REL·|b| everywhere with REL = the largest relative difference.
  const tools::SignalTable x = tools::read_signals_csv(directory("a") + "/signals.csv");
  const tools::SignalTable y = tools::read_signals_csv(directory("heavy") + "/signals.csv");
  double largest = 0.0;
  for (std::size_t k = 0; k < x.times.size(); ++k) {
    const double b = y.columns[y.find("left.x")][k];
    largest = std::max(largest, std::fabs(x.columns[x.find("left.x")][k] - b) / std::fabs(b));
  }
  const std::string runs =
      directory("a") + " " + directory("heavy") + " --signals left.x --relative ";
  EXPECT_EQ(couplet("compare " + runs + exact_text(largest * 1.000001)).exit_code, 0);
  EXPECT_EQ(couplet("compare " + runs + exact_text(largest * 0.999999)).exit_code, 3);
}

TEST_F(Compare, RunLogsCompareLikeTheirDirectories) {
  const CommandResult result = couplet("compare " + directory("a") + "/run.log " +
                                       directory("heavy") + "/run.log --signals left.x");
  EXPECT_EQ(result.exit_code, 3) << result.output;
  EXPECT_TRUE(contains(result.output, "t = 0.1 s")) << result.output;
  EXPECT_TRUE(contains(result.output, "first different decisions: the initialization at t = 0 s"))
      << result.output;
  const CommandResult same = couplet("compare " + directory("a") + "/run.log " + directory("b"));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_TRUE(contains(same.output, "same decisions")) << same.output;
}

TEST_F(Compare, BadInputsExitTwoNamingTheFile) {
  const CommandResult missing = couplet("compare " + directory("a") + " " + directory("nowhere"));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(
      contains(missing.output, directory("nowhere") + "': no such run directory or run log"))
      << missing.output;
  const CommandResult unknown =
      couplet("compare " + directory("a") + " " + directory("b") + " --signals left.q");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_TRUE(contains(unknown.output, "--signals: 'left.q' is not a signal of '" + directory("a") +
                                           "/signals.csv'"))
      << unknown.output;
  const CommandResult negative =
      couplet("compare " + directory("a") + " " + directory("b") + " --tolerance -1");
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  EXPECT_TRUE(contains(negative.output, "couplet: usage error")) << negative.output;
}

TEST_F(Compare, DifferentTimeGridsAreAnErrorNamingBothFiles) {
  const std::string coarse = directory("coarse");
  const CommandResult run =
      couplet("run " + scenario_ + " --quiet --no-log -o " + coarse + " --set evaluation.grid=0.2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const CommandResult result = couplet("compare " + directory("a") + " " + coarse);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(contains(result.output, "the time grids of '" + directory("a") +
                                          "/signals.csv' and '" + coarse +
                                          "/signals.csv' differ: 11 vs 6 times"))
      << result.output;
}

TEST_F(Compare, AMalformedSignalsFileIsNamedWithItsLine) {
  const std::string broken = directory("broken");
  std::filesystem::create_directories(broken);
  std::ofstream(broken + "/signals.csv") << "time,left.x\n0,1\n0.1,one\n";
  const CommandResult result = couplet("compare " + broken + " " + directory("a"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(
      contains(result.output, broken + "/signals.csv:3: column 'left.x': 'one' is not a number"))
      << result.output;
}

}  // namespace
}  // namespace couplet::testing
