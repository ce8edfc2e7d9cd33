// The MPI executor (docs/mpi.md): `mpirun -np N couplet run` gives the
// sequential run's decisions — the same decision_hash and a byte-identical
// signals.csv — with rank 0 alone writing the output directory; a slave failing
// on another rank ends every rank with the same error, without a hang.
//
// The runs are real mpirun jobs of the couplet binary, oversubscribed (the CI
// machine has 2 cores): -np 4 puts two ranks on each core.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "host_tools/mpi/mpi_dispatcher.hpp"
#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet {
namespace {

using testing::command_output;
using testing::fresh_directory;
using testing::read_file;
using testing::scenario_path;

// As root (CI), more ranks than cores, shared memory between the ranks
// (vader) without the single-copy mechanism, which containers often forbid
// (ptrace); a timeout so that a hang fails the test instead of blocking ctest.
std::string mpirun(int ranks) {
  return std::string("timeout 300 ") + COUPLET_MPIEXEC +
         " --allow-run-as-root --oversubscribe --mca btl self,vader"
         " --mca btl_vader_single_copy_mechanism none -np " +
         std::to_string(ranks) + " ";
}

struct CouplingRun {
  int exit_code = 0;
  std::string output;
  std::filesystem::path directory;
};

CouplingRun couplet_run(const std::string& launcher, const std::string& scenario,
                        const std::vector<std::string>& overrides, const std::string& name,
                        const std::string& options = "") {
  CouplingRun run;
  run.directory = fresh_directory(name);
  std::string command = launcher + COUPLET_BINARY + " run " + scenario + " -q -o " +
                        run.directory.string() + " " + options;
  for (const std::string& assignment : overrides) command += " --set " + assignment;
  run.output = command_output(command, run.exit_code);
  return run;
}

nlohmann::json summary_of(const CouplingRun& run) {
  return nlohmann::json::parse(read_file(run.directory / "summary.json"));
}

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++count;
  return count;
}

// The scenarios compared: the fixed-step Jacobi ones, and the other masters
// (rollback, linearization, variable steps), whose decisions are replicated in
// the same way. A case is a scenario of scenarios/ with the overrides that keep
// it short, or `couplet generate` arguments (the generated scenario is run).
struct Case {
  std::string scenario;  ///< file in scenarios/, or the name of a generated case
  std::vector<std::string> overrides;
  std::string generate;  ///< arguments of `couplet generate`, empty for a file
};
const std::vector<Case> kCases = {
    {"two_mass_switch.yaml", {"time.end=20"}, ""},         // Jacobi, feedthrough refresh
    {"rotational_two_mass.yaml", {}, ""},                  // Jacobi
    {"ifosmondi_damper.yaml", {"time.end=2"}, ""},         // save/restore, iterations
    {"missiles_lotka_volterra.yaml", {"time.end=2"}, ""},  // linearize
    {"rotational_two_mass_defect_control.yaml", {"time.end=0.2"}, ""},  // variable steps
    // The Kraft-Schweizer chain: 4 segments and their 3 coupling elements.
    {"chain_jacobi", {}, "chain --bodies 32 --subsystems 4 --end 0.0005 --reference none"},
    // The explicit scheme (inputs extrapolated from past communication values)
    // and the semi-implicit one (save/restore, two predictors, corrector).
    {"chain_explicit",
     {},
     "chain --bodies 32 --subsystems 4 --end 0.0005 --reference none --scheme explicit --order 2"},
    {"chain_semi_implicit",
     {},
     "chain --bodies 32 --subsystems 4 --end 0.0005 --reference none --scheme semi-implicit "
     "--order 2"},
};

std::string scenario_file(const Case& c) {
  if (c.generate.empty()) return scenario_path(c.scenario);
  const std::filesystem::path directory = fresh_directory("mpi-generated-" + c.scenario);
  std::filesystem::create_directories(directory);
  const std::string path = (directory / (c.scenario + ".yaml")).string();
  int code = 0;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " generate " + c.generate + " -o " + path, code);
  EXPECT_EQ(code, 0) << output;
  return path;
}

class MpiExecutor : public ::testing::TestWithParam<int> {};

/// `text` written as NAME.yaml in a fresh directory; its path.
std::string written_scenario(const std::string& name, const std::string& text) {
  const std::filesystem::path directory = fresh_directory("mpi-" + name + "-scenario");
  std::filesystem::create_directories(directory);
  const std::string path = (directory / (name + ".yaml")).string();
  std::ofstream(path) << text;
  return path;
}

TEST_P(MpiExecutor, SameDecisionsAndSignalsAsTheSequentialRun) {
  const int ranks = GetParam();
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.scenario + " on " + std::to_string(ranks) + " ranks");
    const std::string name = c.scenario.substr(0, c.scenario.find('.'));
    const std::string scenario = scenario_file(c);
    const CouplingRun sequential = couplet_run("", scenario, c.overrides, "mpi-seq-" + name);
    ASSERT_EQ(sequential.exit_code, 0) << sequential.output;
    const CouplingRun distributed = couplet_run(mpirun(ranks), scenario, c.overrides,
                                                "mpi-" + std::to_string(ranks) + "-" + name);
    ASSERT_EQ(distributed.exit_code, 0) << distributed.output;

    const nlohmann::json expected = summary_of(sequential);
    const nlohmann::json got = summary_of(distributed);
    EXPECT_EQ(got["decision_hash"], expected["decision_hash"]);
    EXPECT_EQ(got["slave_steps"], expected["slave_steps"]);
    EXPECT_EQ(got["rollbacks"], expected["rollbacks"]);
    const std::string signals = read_file(sequential.directory / "signals.csv");
    EXPECT_GT(signals.size(), 100u);
    EXPECT_TRUE(read_file(distributed.directory / "signals.csv") == signals)
        << "signals.csv differs";

    // Rank 0 alone writes and prints: one summary table, the run's files only.
    EXPECT_EQ(occurrences(distributed.output, "decision hash"), 1u) << distributed.output;
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(distributed.directory))
      files.insert(entry.path().filename().string());
    EXPECT_EQ(files,
              (std::set<std::string>{".couplet.lock", "run.log", "signals.csv", "summary.json"}));
    EXPECT_EQ(got["executor"]["type"], "mpi");
    EXPECT_EQ(got["executor"]["ranks"], ranks);

    // The log rank 0 wrote replays bit for bit.
    int replay_code = 0;
    const std::string replay =
        command_output(std::string(COUPLET_BINARY) + " replay " +
                           (distributed.directory / "run.log").string() + " --verify",
                       replay_code);
    EXPECT_EQ(replay_code, 0) << replay;
  }
}

// Two tally FMUs coupled through an Integer and a Boolean connection, on
// different ranks (rank 0, which writes the log, owns neither with -np 4), and
// b's count held on a pass-through's Real input: the discrete start values
// and step results travel like the Real ones.
TEST_P(MpiExecutor, DiscreteSignalsCrossRanksWithTheSequentialDecisions) {
  const int ranks = GetParam();
  const std::string scenario = written_scenario("tallies",
                                                "name: tallies\n"
                             "time: {start: 0, end: 10}\n"
                             "slaves:\n"
                             "  a: {fmu: " COUPLET_TEST_FMU("tally") ", parameters: {increment: 3}}\n"
                             "  b: {fmu: " COUPLET_TEST_FMU("tally") "}\n"
                             "  pass: {model: coupling.linear}\n"
                             "connections:\n"
                             "  - {from: a.count, to: b.increment}\n"
                             "  - {from: a.odd, to: b.enable}\n"
                             "  - {from: b.count, to: pass.u}\n"
                             "algorithm: {type: jacobi, step: 0.5}\n"
                             "reference: none\n");
  const CouplingRun sequential = couplet_run("", scenario, {}, "mpi-seq-tallies");
  ASSERT_EQ(sequential.exit_code, 0) << sequential.output;
  const CouplingRun distributed =
      couplet_run(mpirun(ranks), scenario, {}, "mpi-" + std::to_string(ranks) + "-tallies");
  ASSERT_EQ(distributed.exit_code, 0) << distributed.output;
  EXPECT_EQ(summary_of(distributed)["decision_hash"], summary_of(sequential)["decision_hash"]);
  const std::string signals = read_file(sequential.directory / "signals.csv");
  EXPECT_NE(signals.find("\n10,15,"), std::string::npos) << "a.level at t = 10";
  EXPECT_TRUE(read_file(distributed.directory / "signals.csv") == signals) << "signals.csv differs";
  int replay_code = 0;
  const std::string replay =
      command_output(std::string(COUPLET_BINARY) + " replay " +
                         (distributed.directory / "run.log").string() + " --verify",
                     replay_code);
  EXPECT_EQ(replay_code, 0) << replay;
}

// The faulty FMU refuses its step once past t = 0.5 s; it is the last slave, so
// it runs on the last rank, not rank 0, which writes the log.
std::string scenario_with_failing_slave(const std::filesystem::path& directory) {
  std::filesystem::create_directories(directory);
  const std::filesystem::path path = directory / "failing.yaml";
  std::ofstream(path) << "name: failing\n"
                         "time: {start: 0, end: 2}\n"
                         "slaves:\n"
                         "  left:\n"
                         "    model: translational.mass\n"
                         "    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}\n"
                         "  right:\n"
                         "    model: translational.coupled_mass\n"
                         "    parameters: {m: 1, c_wall: 1, d_wall: 0.1, c_coupling: 1, d_coupling: 0.2}\n"
                         "  bad:\n"
                         "    fmu: " COUPLET_TEST_FMU("faulty") "\n"
                         "    parameters: {fail_time: 0.5}\n"
                         "connections:\n"
                         "  - {from: left.x, to: right.x}\n"
                         "  - {from: left.v, to: right.v}\n"
                         "  - {from: right.f, to: left.f}\n"
                         "  - {from: left.x, to: bad.u}\n"
                         "algorithm: {type: jacobi, step: 0.05}\n"
                         "reference: none\n";
  return path.string();
}

TEST_P(MpiExecutor, SlaveFailingOnAnotherRankEndsEveryRankWithItsError) {
  const int ranks = GetParam();
  const std::string scenario = scenario_with_failing_slave(fresh_directory("mpi-failing-scenario"));
  const CouplingRun run =
      couplet_run(mpirun(ranks), scenario, {}, "mpi-failing-" + std::to_string(ranks));
  EXPECT_EQ(run.exit_code, 1) << run.output;  // not 124: no rank waited for the timeout
  const std::string owner = "slave 'bad' (MPI rank " + std::to_string(ranks - 1) + ")";
  EXPECT_NE(run.output.find(owner), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("fmi2DoStep"), std::string::npos) << run.output;
  EXPECT_EQ(occurrences(run.output, "couplet: run failed:"), 1u) << run.output;
  const nlohmann::json summary = summary_of(run);
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_NE(summary["error"].get<std::string>().find(owner), std::string::npos);
  // The log ends with the failure and reads.
  int code = 0;
  const std::string inspect = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (run.directory / "run.log").string(), code);
  EXPECT_EQ(code, 0) << inspect;
  EXPECT_NE(inspect.find("fmi2DoStep"), std::string::npos) << inspect;
}

// The stopping FMU asks to end the simulation at t = 9 s from the last rank:
// every rank ends the run as stopped, where and as the sequential run does.
TEST_P(MpiExecutor, StopRequestOnAnotherRankEndsEveryRankAsStopped) {
  const int ranks = GetParam();
  const std::string scenario = written_scenario("stopping",
                                                "name: stopping\n"
                             "time: {start: 0, end: 20}\n"
                             "slaves:\n"
                             "  follower: {model: translational.mass}\n"
                             "  counter: {fmu: " COUPLET_TEST_FMU("stopping") ", fmu_kind: cs}\n"
                             "connections:\n"
                             "  - {from: counter.x, to: follower.f, factor: 1}\n"
                             "algorithm: {type: jacobi, step: 0.1}\n"
                             "reference: none\n");
  const CouplingRun sequential = couplet_run("", scenario, {}, "mpi-seq-stop");
  ASSERT_EQ(sequential.exit_code, 0) << sequential.output;
  const CouplingRun distributed =
      couplet_run(mpirun(ranks), scenario, {}, "mpi-" + std::to_string(ranks) + "-stop");
  EXPECT_EQ(distributed.exit_code, 0) << distributed.output;
  const nlohmann::json summary = summary_of(distributed);
  EXPECT_EQ(summary["status"], "stopped");
  EXPECT_EQ(summary["stopped_by"], "slave 'counter' at t = 9 s");
  EXPECT_EQ(summary["end_time"], summary_of(sequential)["end_time"]);
  EXPECT_EQ(summary["decision_hash"], summary_of(sequential)["decision_hash"]);
  EXPECT_TRUE(read_file(distributed.directory / "signals.csv") ==
              read_file(sequential.directory / "signals.csv"));
}

// The run log outgrowing its budget fails rank 0 alone while the other ranks
// wait in the next exchange: rank 0 writes the log's end and the summary, then
// ends the job (MPI_Abort) instead of leaving the others waiting. (Compressed:
// a plain log this large is refused before the run, by its projection.)
TEST_P(MpiExecutor, FailureOfRankZeroAloneEndsTheJobAfterItsLogAndSummary) {
  const int ranks = GetParam();
  const CouplingRun run = couplet_run(mpirun(ranks), scenario_path("two_mass_switch.yaml"),
                                      {"limits.run_log_bytes=2000000"},
                                      "mpi-log-cap-" + std::to_string(ranks), "--compress-log");
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.exit_code, 124) << run.output;  // ended, not timed out
  EXPECT_NE(run.output.find("limits.run_log_bytes"), std::string::npos) << run.output;
  const nlohmann::json summary = summary_of(run);
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_NE(summary["error"].get<std::string>().find("limits.run_log_bytes"), std::string::npos);
  int code = 0;
  const std::string inspect = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (run.directory / "run.log").string(), code);
  EXPECT_EQ(code, 0) << inspect;
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiExecutor, ::testing::Values(2, 4));

TEST(MpiExecutorRefusals, LinkedSlaveIsRefusedUnderMpirun) {
  const CouplingRun run =
      couplet_run(mpirun(2), scenario_path("two_mass_switch_hil.yaml"), {}, "mpi-linked");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("behind a link"), std::string::npos) << run.output;
  EXPECT_EQ(occurrences(run.output, "couplet: configuration error"), 1u) << run.output;
}

TEST(MpiOwnership, ContiguousBlocksOfNearlyEqualSize) {
  for (const std::size_t count : {1u, 2u, 3u, 7u, 8u, 48u, 287u}) {
    for (const int ranks : {1, 2, 3, 4, 16}) {
      std::vector<std::size_t> sizes(static_cast<std::size_t>(ranks), 0);
      int previous = 0;
      for (std::size_t s = 0; s < count; ++s) {
        const int owner = tools::owner_rank(s, count, ranks);
        ASSERT_GE(owner, previous) << count << " slaves, " << ranks << " ranks";  // contiguous
        ASSERT_LT(owner, ranks);
        previous = owner;
        ++sizes[static_cast<std::size_t>(owner)];
      }
      const auto [smallest, largest] = std::minmax_element(sizes.begin(), sizes.end());
      EXPECT_LE(*largest - *smallest, 1u) << count << " slaves, " << ranks << " ranks";
      if (count >= static_cast<std::size_t>(ranks)) {
        EXPECT_GE(*smallest, 1u);
      }
    }
  }
}

}  // namespace
}  // namespace couplet
