// Integer and Boolean signals end to end (docs/algorithms.md, "Discrete
// signals"): two tally FMUs (tests/fmus/tally.c) coupled through an Integer
// and a Boolean connection, their values in signals.csv, the decision hash,
// the run log, its export (CSV and MAT) and the library API; type-checked
// connections.
#include <gtest/gtest.h>
#include <matio.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "couplet/simulation.hpp"
#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

/// a.count → b.increment, a.odd → b.enable; `extra` goes under slave a.
std::string tallies(const std::string& step, const std::string& a_extra = "") {
  const std::string tally = std::string(COUPLET_TEST_FMU("tally"));
  return "name: tallies\ntime: {start: 0, end: 10}\nslaves:\n  a:\n    fmu: " + tally + "\n" +
         a_extra + "  b:\n    fmu: " + tally +
         "\nconnections:\n  - {from: a.count, to: b.increment}\n"
         "  - {from: a.odd, to: b.enable}\n"
         "algorithm: {type: jacobi, step: " +
         step + "}\nreference: none\n";
}

std::string row_at(const std::filesystem::path& out, const std::string& time) {
  std::ifstream file(out / "signals.csv");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(time + ",", 0) == 0) return line;
  }
  return "";
}

std::string couplet_output(const std::string& arguments) {
  int exit_code = -1;
  std::string output = command_output(std::string(COUPLET_BINARY) + " " + arguments, exit_code);
  EXPECT_EQ(exit_code, 0) << arguments << ":\n" << output;
  return output;
}

std::string line_starting(const std::string& text, const std::string& start) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

// b adds a.count at each tick while a.odd: the values a held at the start of
// the step ending on the tick (held, never extrapolated), so at t = 10 b has
// added the odd counts 1 + 3 + 5 + 7 + 9. Steps of 0.5 and of 1 agree: a
// discrete input changes only at communication points.
TEST(DiscreteSignals, TalliesCoupleIntegerAndBooleanPortsHeldBetweenCommunicationPoints) {
  for (const std::string step : {"0.5", "1"}) {
    const CoupletOutcome outcome =
        couplet_on_text("run", tallies(step), "discrete-tallies-" + step);
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const std::string header = read_file(outcome.out / "signals.csv").substr(0, 80);
    EXPECT_EQ(header.substr(0, header.find('\n')),
              "time,a.level,b.level,a.count,a.phase,a.odd,b.count,b.phase,b.odd");
    // time, a.level, b.level, a.count, a.phase (Enumeration: 1 low, 2 high), a.odd, b...
    EXPECT_EQ(row_at(outcome.out, "0"), "0,0,0,0,1,0,0,1,0") << step;
    EXPECT_EQ(row_at(outcome.out, "3"), "3,1.5,0.5,3,1,1,1,1,1") << step;
    EXPECT_EQ(row_at(outcome.out, "10"), "10,5,12.5,10,2,0,25,2,1") << step;
  }
}

/// tallies() with the model-exchange tally (tally_me) for slave a, b or both.
std::string with_model_exchange(std::string text, int occurrences) {
  const std::string cs = std::string(COUPLET_TEST_FMU("tally"));
  const std::string me = std::string(COUPLET_TEST_FMU("tally_me"));
  std::size_t at = 0;
  for (int k = 0; k < occurrences; ++k) {
    at = text.find(cs, at);
    text.replace(at, cs.size(), me);
  }
  return text;
}

// A model-exchange tally counts as the co-simulation one: its discrete inputs
// set in event mode at each step start (the test FMU refuses them in
// continuous-time mode), its ticks time events, its outputs read at the end.
TEST(DiscreteSignals, ModelExchangeTalliesCountAsTheCoSimulationOnes) {
  for (const std::string step : {"0.5", "1"}) {
    for (const int exchanged : {1, 2}) {
      const CoupletOutcome outcome =
          couplet_on_text("run", with_model_exchange(tallies(step), exchanged),
                          "discrete-me-" + step + "-" + std::to_string(exchanged));
      ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
      EXPECT_EQ(row_at(outcome.out, "0"), "0,0,0,0,1,0,0,1,0") << step;
      EXPECT_EQ(row_at(outcome.out, "3"), "3,1.5,0.5,3,1,1,1,1,1") << step;
      EXPECT_EQ(row_at(outcome.out, "10"), "10,5,12.5,10,2,0,25,2,1") << step;
    }
  }
}

// The monolithic reference has no discrete connections to offer: refused,
// naming one, with the way out.
TEST(DiscreteSignals, TheMonolithicReferenceRefusesDiscreteConnections) {
  std::string text = with_model_exchange(tallies("1"), 2);
  text.replace(text.find("reference: none"), 15, "reference: monolithic");
  const CoupletOutcome outcome = couplet_on_text("run", text, "discrete-me-reference");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_NE(outcome.output.find("the monolithic reference couples Real ports only, and this "
                                "system connects Integer or Boolean ones ('a.count' -> slave 'b'"
                                "): use reference: none"),
            std::string::npos)
      << outcome.output;
}

// Checks on Integer and Boolean signals see the values signals.csv holds:
// held inside a step (an `at` between two values takes the held one, not an
// interpolation), the new one at the step's end; exit 3 for a failed check.
TEST(DiscreteSignals, ChecksJudgeDiscreteSignals) {
  std::string text = tallies("1");
  text +=
      "checks:\n"
      "  - {name: tally, signal: b.count, at: {time: 10, value: 25, tolerance: 0}}\n"
      "  - {name: held, signal: b.count, at: {time: 7.995, value: 9, tolerance: 0}}\n"
      "  - {name: high, signal: a.phase, reaches: {above: 1.5, before: 10}}\n"
      "  - {name: never_odd, signal: a.odd, max: 0}\n";
  const CoupletOutcome outcome = couplet_on_text("run", text, "discrete-checks");
  EXPECT_EQ(outcome.exit_code, 3) << outcome.output;  // never_odd fails
  const auto checks = nlohmann::json::parse(read_file(outcome.out / "summary.json")).at("checks");
  ASSERT_EQ(checks.size(), 4U);
  EXPECT_TRUE(checks[0].at("passed")) << checks[0];
  EXPECT_EQ(checks[0].at("worst_value"), 25.0);
  EXPECT_TRUE(checks[1].at("passed")) << checks[1];  // 9 held over [7, 8), not 12.5
  EXPECT_EQ(checks[1].at("worst_value"), 9.0);
  EXPECT_TRUE(checks[2].at("passed")) << checks[2];
  EXPECT_FALSE(checks[3].at("passed")) << checks[3];
  EXPECT_EQ(checks[3].at("first_violation_time"), 1.0);  // a.count 1 at t = 1
}

// An Enumeration couples as an Integer: `couplet models` lists its items.
TEST(DiscreteSignals, ModelsListsTheItemsOfAnEnumeration) {
  const std::string text = couplet_output(std::string("models ") + COUPLET_TEST_FMU("tally"));
  EXPECT_NE(text.find("items: 1 low, 2 high"), std::string::npos) << text;
}

TEST(DiscreteSignals, RunLogReplaysEveryDiscreteValueBitForBit) {
  const CoupletOutcome outcome = couplet_on_text("run", tallies("0.5"), "discrete-replay");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  int exit_code = -1;
  const std::string replay = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + (outcome.out / "run.log").string(),
      exit_code);
  EXPECT_EQ(exit_code, 0) << replay;
  EXPECT_NE(replay.find(hash_of(outcome.out)), std::string::npos) << replay;
  const std::string inspect = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (outcome.out / "run.log").string(), exit_code);
  EXPECT_EQ(exit_code, 0) << inspect;
  for (const std::string words : {"discrete inputs: increment (Integer) enable (Boolean)",
                                  "a.count → b.increment", "a.odd → b.enable"}) {
    EXPECT_NE(inspect.find(words), std::string::npos) << words << " in\n" << inspect;
  }
}

// The report reads the discrete columns of signals.csv and draws them as steps.
TEST(DiscreteSignals, ReportDrawsDiscreteSignalsAsSteps) {
  const CoupletOutcome outcome = couplet_on_text("run", tallies("0.5"), "discrete-report");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  int exit_code = -1;
  const std::string report_path = (outcome.out / "report.html").string();
  const std::string output = command_output(
      std::string(COUPLET_BINARY) + " report " + outcome.out.string() + " -o " + report_path,
      exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  const std::string html = read_file(report_path);
  // The plot options sit HTML-escaped in an attribute.
  EXPECT_NE(html.find("b.count&quot;:{&quot;stepPlot&quot;:true}"), std::string::npos);
  EXPECT_NE(html.find("a.level&quot;:{&quot;stepPlot&quot;:false}"), std::string::npos);
}

// The tallies have no Real inputs: only the discrete inputs tell the two runs
// apart, and the hash sees them.
TEST(DiscreteSignals, DecisionHashCoversDiscreteInputs) {
  const CoupletOutcome plain = couplet_on_text("run", tallies("1"), "discrete-hash-plain");
  const CoupletOutcome again = couplet_on_text("run", tallies("1"), "discrete-hash-again");
  const CoupletOutcome doubled = couplet_on_text(
      "run", tallies("1", "    parameters: {increment: 2}\n"), "discrete-hash-doubled");
  ASSERT_EQ(plain.exit_code + again.exit_code + doubled.exit_code, 0) << doubled.output;
  EXPECT_EQ(hash_of(plain.out), hash_of(again.out));
  EXPECT_NE(hash_of(plain.out), hash_of(doubled.out));
  // a counts in twos, never odd: b never counts.
  EXPECT_EQ(row_at(doubled.out, "10"), "10,10,0,20,2,0,0,1,0");
}

// An input no connection drives holds its start value: the FMU's, or the one
// the scenario gives it.
TEST(DiscreteSignals, UnconnectedInputsHoldTheirStartValues) {
  const std::string text = "name: one\ntime: {start: 0, end: 4}\nslaves:\n  t:\n    fmu: " +
                           std::string(COUPLET_TEST_FMU("tally")) +
                           "\n    parameters: {increment: 3}\n"
                           "algorithm: {type: jacobi, step: 0.5}\nreference: none\n";
  const CoupletOutcome outcome = couplet_on_text("run", text, "discrete-start");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(row_at(outcome.out, "4"), "4,6,12,2,0");
  // A Boolean parameter written as YAML's false.
  std::string disabled = text;
  disabled.replace(disabled.find("{increment: 3}"), 14, "{increment: 3, enable: false}");
  const CoupletOutcome off = couplet_on_text("run", disabled, "discrete-start-disabled");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(row_at(off.out, "4"), "4,0,0,1,0");
}

// The export holds the discrete outputs after the Real ones: --grid is
// signals.csv byte for byte; the communication rows hold at each time what
// the slaves returned there (b.count 25 at t = 10, as in signals.csv).
TEST(DiscreteSignals, ExportHoldsTheDiscreteColumnsAsSignalsCsvDoes) {
  const CoupletOutcome outcome = couplet_on_text("run", tallies("0.5"), "discrete-export");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string log = (outcome.out / "run.log").string();
  EXPECT_EQ(couplet_output("export --grid " + log), read_file(outcome.out / "signals.csv"));
  const std::string table = couplet_output("export " + log);
  const std::string header = table.substr(0, table.find('\n'));
  EXPECT_TRUE(header.ends_with(",pacer_lateness_us,a.count,a.phase,a.odd,b.count,b.phase,b.odd"))
      << header;
  EXPECT_TRUE(line_starting(table, "10,").ends_with(",10,2,0,25,2,1")) << table;
  EXPECT_TRUE(line_starting(table, "3,").ends_with(",3,1,1,1,1,1")) << table;
}

struct MatCloser {
  void operator()(mat_t* file) const { Mat_Close(file); }
};
struct MatFreer {
  void operator()(matvar_t* variable) const { Mat_VarFree(variable); }
};

// In the MAT-file an Integer column is int64 and a Boolean one logical, with
// the values of the CSV.
TEST(DiscreteSignals, MatExportTypesIntegerAndBooleanColumns) {
  const CoupletOutcome outcome = couplet_on_text("run", tallies("1"), "discrete-mat");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string mat_path = (outcome.out / "export.mat").string();
  couplet_output("export --grid " + (outcome.out / "run.log").string() + " --mat " + mat_path);
  const std::unique_ptr<mat_t, MatCloser> file(Mat_Open(mat_path.c_str(), MAT_ACC_RDONLY));
  ASSERT_TRUE(file) << mat_path;
  const std::unique_ptr<matvar_t, MatFreer> count(Mat_VarRead(file.get(), "b_count"));
  ASSERT_TRUE(count);
  EXPECT_EQ(count->class_type, MAT_C_INT64);
  ASSERT_EQ(count->dims[0], 1001U);  // t = 0, 0.01, ..., 10
  EXPECT_EQ(static_cast<const std::int64_t*>(count->data)[1000], 25);
  EXPECT_EQ(static_cast<const std::int64_t*>(count->data)[300], 1);
  const std::unique_ptr<matvar_t, MatFreer> odd(Mat_VarRead(file.get(), "a_odd"));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->class_type, MAT_C_UINT8);
  EXPECT_TRUE(odd->isLogical);
  const auto* flags = static_cast<const std::uint8_t*>(odd->data);
  for (std::size_t k = 0; k <= 10; ++k) EXPECT_EQ(flags[100 * k], k % 2) << "t = " << k;
}

// The library reads discrete outputs between steps with indices of their own;
// asking for one as a Real output says which call reads it.
TEST(DiscreteSignals, TheLibraryReadsDiscreteOutputsBetweenSteps) {
  const auto directory = fresh_directory("discrete-library");
  std::filesystem::create_directories(directory);
  const auto path = directory / "scenario.yaml";
  std::ofstream(path) << tallies("1");
  Simulation simulation = Simulation::from_scenario(path.string(), {}, {});
  EXPECT_EQ(
      simulation.discrete_output_names(),
      (std::vector<std::string>{"a.count", "a.phase", "a.odd", "b.count", "b.phase", "b.odd"}));
  simulation.step_until_seconds(3);
  EXPECT_EQ(simulation.discrete_output("a.count"), 3);
  EXPECT_EQ(simulation.discrete_output("b.count"), 1);
  EXPECT_TRUE(simulation.discrete_output_is_boolean(simulation.discrete_output_index("a.odd")));
  EXPECT_FALSE(simulation.discrete_output_is_boolean(simulation.discrete_output_index("a.count")));
  simulation.run();
  EXPECT_EQ(simulation.discrete_output("b.count"), 25);
  const auto message = [&](auto call) {
    try {
      call();
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([&] {
              simulation.output("a.count");
            }).find("'a.count' is an Integer output: read it with discrete_output()"),
            std::string::npos);
  EXPECT_NE(message([&] {
              simulation.discrete_output("a.level");
            }).find("'a.level' is a Real output: read it with output()"),
            std::string::npos);
  EXPECT_NE(message([&] {
              simulation.discrete_output("a.nothing");
            }).find("its Integer and Boolean outputs: count, phase, odd"),
            std::string::npos);
}

// Under the thread pool the discrete inputs are gathered and the outputs
// returned as in the sequential run: the same hash and signals.csv.
TEST(DiscreteSignals, TheThreadPoolDecidesAsTheSequentialRun) {
  const CoupletOutcome sequential = couplet_on_text("run", tallies("0.5"), "discrete-sequential");
  std::string text = tallies("0.5");
  text += "executor: {type: threads, threads: 2}\n";
  const CoupletOutcome pooled = couplet_on_text("run", text, "discrete-threads");
  ASSERT_EQ(sequential.exit_code + pooled.exit_code, 0) << pooled.output;
  EXPECT_EQ(hash_of(pooled.out), hash_of(sequential.out));
  EXPECT_EQ(read_file(pooled.out / "signals.csv"), read_file(sequential.out / "signals.csv"));
}

/// tallies() with slave b served by a spawned couplet-target over UDP.
std::string with_b_behind_a_link(std::string text) {
  const std::string marker = "  b:\n    fmu: " + std::string(COUPLET_TEST_FMU("tally")) + "\n";
  const std::size_t at = text.find(marker);
  text.insert(at + marker.size(), "    link: {spawn: true, udp: \"127.0.0.1:0\"}\n");
  return text;
}

// Across a UDP link the discrete inputs travel in the step request and the
// outputs in its result (their start values in the Ack of Initialize): the
// same hash and signals.csv as the local run, with b's interface CS or ME,
// and a replay of the remote run's log reproduces it.
TEST(DiscreteSignals, AcrossAUdpLinkTheRunDecidesAsTheLocalOne) {
  const CoupletOutcome local = couplet_on_text("run", tallies("0.5"), "discrete-local");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  for (const std::string kind : {"cs", "me"}) {
    std::string text = with_b_behind_a_link(tallies("0.5"));
    if (kind == "me") text = with_model_exchange(text, 2);
    const CoupletOutcome remote = couplet_on_text("run", text, "discrete-udp-" + kind);
    ASSERT_EQ(remote.exit_code, 0) << remote.output;
    const auto summary = nlohmann::json::parse(read_file(remote.out / "summary.json"));
    EXPECT_TRUE(summary.at("links").contains("b")) << summary.dump();
    EXPECT_EQ(hash_of(remote.out), hash_of(local.out)) << kind;
    EXPECT_EQ(read_file(remote.out / "signals.csv"), read_file(local.out / "signals.csv")) << kind;
    int exit_code = -1;
    const std::string replay = command_output(
        std::string(COUPLET_BINARY) + " replay --verify " + (remote.out / "run.log").string(),
        exit_code);
    EXPECT_EQ(exit_code, 0) << replay;
    EXPECT_NE(replay.find(hash_of(local.out)), std::string::npos) << replay;
  }
}

TEST(DiscreteSignals, ConnectionsBetweenTypesAreRefusedNamingBothEnds) {
  struct Case {
    std::string from, to, words;
  };
  for (const Case& c :
       {Case{"a.count", "b.enable", "'a.count' (Integer) -> 'b.enable' (Boolean)"},
        Case{"a.level", "b.increment", "'a.level' (Real) -> 'b.increment' (Integer)"},
        Case{"a.odd", "b.increment", "'a.odd' (Boolean) -> 'b.increment' (Integer)"}}) {
    std::string text = tallies("1");
    text.replace(text.find("a.count, to: b.increment"), 24, c.from + ", to: " + c.to);
    text.replace(text.find("  - {from: a.odd, to: b.enable}\n"), 32, "");
    const CoupletOutcome outcome = couplet_on_text("validate", text, "discrete-types");
    EXPECT_EQ(outcome.exit_code, 2) << outcome.output;  // a configuration error
    EXPECT_NE(outcome.output.find(c.words + ": the types differ"), std::string::npos)
        << outcome.output;
    EXPECT_NE(outcome.output.find("connections[0]"), std::string::npos) << outcome.output;
  }
}

// stimulus.table with `NAME:Integer` and `NAME:Boolean` columns drives the
// tally's discrete inputs, held from each row (increment 1, 5, 2; enable 1, 0,
// 1 from t = 0, 3, 6): ticks at 1-3 add 1, at 4-6 nothing, at 7-10 add 2, so
// b counts 3 + 8 = 11 by t = 10. A cell that is no whole number is refused
// naming the file, the line and the column.
TEST(DiscreteSignals, AStimulusTablePlaysIntegerAndBooleanColumns) {
  const auto tables = fresh_directory("discrete-table-files");
  std::filesystem::create_directories(tables);
  std::ofstream(tables / "modes.csv")
      << "time,increment:Integer,enable:Boolean\n0,1,1\n3,5,0\n6,2,1\n";
  std::ofstream(tables / "bad.csv") << "time,increment:Integer\n0,1\n3,2.5\n";
  const auto scenario = [&](const std::string& file) {
    return "name: modes\ntime: {start: 0, end: 10}\nslaves:\n  modes:\n    model: stimulus.table\n "
           "   file: " +
           (tables / file).string() +
           "\n    interpolation: hold\n  b: {fmu: " + std::string(COUPLET_TEST_FMU("tally")) +
           "}\nconnections:\n  - {from: modes.increment, to: b.increment}\n"
           "  - {from: modes.enable, to: b.enable}\nalgorithm: {type: jacobi, step: 1}\nreference: "
           "none\n";
  };
  const CoupletOutcome outcome = couplet_on_text("run", scenario("modes.csv"), "discrete-table");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::string header = read_file(outcome.out / "signals.csv").substr(0, 80);
  EXPECT_EQ(header.substr(0, header.find('\n')),
            "time,b.level,modes.increment,modes.enable,b.count,b.phase,b.odd");
  EXPECT_EQ(row_at(outcome.out, "3"), "3,1.5,5,0,3,1,1");
  EXPECT_EQ(row_at(outcome.out, "10"), "10,5.5,2,1,11,2,1");
  const CoupletOutcome bad = couplet_on_text("validate", scenario("bad.csv"), "discrete-table-bad");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find((tables / "bad.csv").string() +
                            ":3: column 'increment': '2.5' is not a whole number"),
            std::string::npos)
      << bad.output;
}

// factor/offset insert a Real conversion between the ends (an Integer output
// may feed it): on a discrete input the error says so, instead of naming the
// conversion's own ports.
TEST(DiscreteSignals, FactorAndOffsetOnADiscreteConnectionAreRefusedSayingWhy) {
  std::string text = tallies("1");
  text.replace(text.find("a.count, to: b.increment}"), 25, "a.count, to: b.increment, factor: 2}");
  const CoupletOutcome outcome = couplet_on_text("validate", text, "discrete-factor");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_NE(outcome.output.find(
                "connections[0]: factor/offset convert Real signals only, and 'b.increment' is an "
                "Integer or Boolean input: connect it without factor and offset"),
            std::string::npos)
      << outcome.output;
}

}  // namespace
}  // namespace couplet::testing
