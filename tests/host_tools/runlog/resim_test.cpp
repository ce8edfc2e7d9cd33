// `couplet resim` (docs/run-log.md, "Re-simulating one slave"): one slave of a
// recorded run, driven alone by the requests the recorded master made on it.
// Unchanged, it reproduces its recorded outputs bit for bit — a built-in model,
// FMUs (co-simulation and model exchange), a slave that ran behind a link — and
// a changed mass gives exactly the open-loop answer the closed form predicts.
#include "host_tools/runlog/resim.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

using tools::ResimOptions;

/// signals.csv as columns by name, in row order.
struct Table {
  std::vector<std::string> names;
  std::map<std::string, std::vector<double>> columns;
  std::size_t rows() const { return columns.at("time").size(); }
};

Table read_table(const std::filesystem::path& path) {
  std::ifstream file(path);
  Table table;
  std::string line;
  std::getline(file, line);
  std::stringstream header(line);
  for (std::string name; std::getline(header, name, ',');) table.names.push_back(name);
  while (std::getline(file, line)) {
    std::stringstream row(line);
    std::string cell;
    for (const std::string& name : table.names) {
      std::getline(row, cell, ',');
      table.columns[name].push_back(std::strtod(cell.c_str(), nullptr));
    }
  }
  return table;
}

std::string log_path(const std::string& run) {
  return (run_directory(run) / "run.log").string();
}

nlohmann::json resim(const std::string& run, const std::string& slave,
                     const std::vector<std::string>& assignments = {}) {
  ResimOptions options;
  options.output_directory = fresh_directory(run + "-resim-" + slave).string();
  for (const std::string& assignment : assignments)
    options.overrides.push_back(tools::parse_override(assignment));
  return tools::resimulate_slave(tools::read_run_log(log_path(run)), slave, options);
}

Table resim_table(const std::string& run, const std::string& slave) {
  return read_table(run_directory(run + "-resim-" + slave) / "signals.csv");
}

/// The rows signals.csv must hold, from the log alone: per call on the slave,
/// in order, an output evaluation at the slave's time, a step's samples, then
/// its end; the recorded value of output `port`.
std::vector<std::pair<double, double>> expected_rows(const tools::RunLog& log, std::size_t slave,
                                                     std::size_t port) {
  const std::size_t outputs = log.slaves[slave].description.outputs.size();
  std::vector<std::pair<double, double>> rows;
  Time now = 0;
  Time saved = 0;
  for (const tools::LoggedCall& call : log.calls) {
    if (call.slave != slave) continue;
    switch (call.kind) {
      case tools::CallKind::setup:
        now = call.start;
        break;
      case tools::CallKind::evaluate_outputs:
        rows.emplace_back(to_seconds(now), call.end_outputs[port]);
        break;
      case tools::CallKind::step:
        for (std::size_t k = 0; k < call.sample_times.size(); ++k)
          rows.emplace_back(to_seconds(call.sample_times[k]), call.samples[k * outputs + port]);
        rows.emplace_back(to_seconds(call.end), call.end_outputs[port]);
        now = call.end;
        break;
      case tools::CallKind::save_state:
        saved = now;
        break;
      case tools::CallKind::restore_state:
        now = saved;
        break;
      case tools::CallKind::linearize:
      case tools::CallKind::discrete_outputs:
        break;
    }
  }
  return rows;
}

std::size_t calls_on(const tools::RunLog& log, std::size_t slave) {
  std::size_t calls = 0;
  for (const tools::LoggedCall& call : log.calls) calls += call.slave == slave ? 1 : 0;
  return calls;
}

/// Every output of `slave` re-simulated unchanged: zero difference, the
/// recorded column holds the log's values in the documented row order and the
/// new column the same bits.
void expect_bit_for_bit(const std::string& run, const std::string& slave) {
  const tools::RunLog log = tools::read_run_log(log_path(run));
  std::size_t index = 0;
  while (log.slaves[index].name != slave) ++index;
  const nlohmann::json summary = resim(run, slave);
  EXPECT_EQ(summary.at("status"), "completed") << summary.dump(2);
  EXPECT_EQ(summary.at("requests").get<std::size_t>(), calls_on(log, index));
  const Table table = resim_table(run, slave);
  std::vector<std::string> header = {"time"};
  const auto& outputs = log.slaves[index].description.outputs;
  for (std::size_t port = 0; port < outputs.size(); ++port) {
    const std::string name = slave + "." + outputs[port].name;
    header.push_back(name + ":recorded");
    header.push_back(name);
    EXPECT_EQ(summary.at("max_difference").at(name).get<double>(), 0.0) << name;
    const auto rows = expected_rows(log, index, port);
    ASSERT_EQ(table.rows(), rows.size()) << name;
    ASSERT_GT(rows.size(), 100u);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      ASSERT_EQ(table.columns.at("time")[r], rows[r].first) << name << " row " << r;
      ASSERT_EQ(table.columns.at(name + ":recorded")[r], rows[r].second) << name << " row " << r;
      ASSERT_EQ(table.columns.at(name)[r], rows[r].second) << name << " row " << r;
    }
  }
  EXPECT_EQ(table.names, header);
}

const std::vector<std::string> kShortSwitch = {"time.end=12",
                                               "slaves.right.parameters.switch_time=6"};

TEST(Resim, UnchangedBuiltInSlavesReproduceTheirOutputsBitForBit) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-builtin");
  expect_bit_for_bit("resim-builtin", "left");
  expect_bit_for_bit("resim-builtin", "right");  // feedthrough: output evaluations too
}

TEST(Resim, UnchangedSlavesOfARollbackAlgorithmReproduceTheirOutputs) {
  // IFOSMONDI saves at every communication time and restores to iterate the
  // same step: rows after a restore start again from the saved time.
  std::vector<std::string> settings = kShortSwitch;
  settings.push_back("algorithm={type: ifosmondi, step: 0.1}");
  run("two_mass_switch.yaml", settings, "resim-defect");
  const tools::RunLog log = tools::read_run_log(log_path("resim-defect"));
  bool restored = false;
  for (const tools::LoggedCall& call : log.calls)
    restored |= call.kind == tools::CallKind::restore_state;
  EXPECT_TRUE(restored) << "the case should exercise rollbacks";
  expect_bit_for_bit("resim-defect", "left");
  expect_bit_for_bit("resim-defect", "right");
}

TEST(Resim, UnchangedFmuSlavesReproduceTheirOutputsBitForBit) {
  run("two_mass_switch_fmu.yaml",
      {"time.end=12", std::string("slaves.left.fmu=") + COUPLET_TEST_FMU("switch_left"),
       std::string("slaves.right.fmu=") + COUPLET_TEST_FMU("switch_right")},
      "resim-fmu");
  expect_bit_for_bit("resim-fmu", "left");   // co-simulation FMU
  expect_bit_for_bit("resim-fmu", "right");  // model exchange under couplet's CVODE
}

TEST(Resim, ASlaveThatRanBehindALinkIsReSimulatedLocallyBitForBit) {
  std::vector<std::string> settings = kShortSwitch;
  settings.push_back("slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}");
  run("two_mass_switch.yaml", settings, "resim-linked");
  const nlohmann::json summary = resim("resim-linked", "right");
  EXPECT_EQ(summary.at("recorded_link").get<std::string>().rfind("udp 127.0.0.1:", 0), 0u)
      << summary.dump(2);
  expect_bit_for_bit("resim-linked", "right");
}

TEST(Resim, ACompositeGroupAndALinkedSlaveWithoutRollbackAreReproducedBitForBit) {
  // The IFOSMONDI-JFM group is one slave in the log, re-simulated with its
  // inner algorithm; the arm ran on a spawned target declaring no rollback.
  run("ifosmondi_damper_hil.yaml", {"time.end=2"}, "resim-group");
  expect_bit_for_bit("resim-group", "damper");
  expect_bit_for_bit("resim-group", "arm");
  try {
    resim("resim-group", "body");
    FAIL() << "a group member was re-simulated on its own";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("has no slave 'body' (its slaves: damper, arm); 'body' ran inside the "
                        "composite group 'damper': re-simulate the group"),
              std::string::npos)
        << error.what();
  }
}

// Integer and Boolean ports: the recorded discrete inputs drive the slave and
// its discrete outputs are compared like the Real ones, held inside a step.
// Unchanged, the tally b gives signals.csv's b columns; with period 0.5 it
// ticks twice as often on the same inputs, so its count differs.
TEST(Resim, DiscreteInputsDriveTheSlaveAndDiscreteOutputsAreCompared) {
  const std::string tally = COUPLET_TEST_FMU("tally");
  const std::string text =
      "name: tallies\ntime: {start: 0, end: 10}\nslaves:\n  a: {fmu: " + tally +
      "}\n  b: {fmu: " + tally +
      "}\nconnections:\n  - {from: a.count, to: b.increment}\n"
      "  - {from: a.odd, to: b.enable}\nalgorithm: {type: jacobi, step: 0.5}\n"
      "reference: none\n"
      "checks:\n  - {name: tally, signal: b.count, at: {time: 10, value: 25, tolerance: 0}}\n";
  tools::run_scenario(tools::parse_scenario(text, "tallies.yaml"),
                      {fresh_directory("resim-tallies").string(), false});
  const nlohmann::json same = resim("resim-tallies", "b");
  EXPECT_EQ(same.at("status"), "completed") << same.dump(2);
  for (const std::string output : {"b.level", "b.count", "b.phase", "b.odd"})
    EXPECT_EQ(same.at("max_difference").at(output).get<double>(), 0.0) << output;
  const Table table = resim_table("resim-tallies", "b");
  const Table run = read_table(run_directory("resim-tallies") / "signals.csv");
  // The last row of each is t = 10, a step's end: b's count there is 25.
  EXPECT_EQ(table.columns.at("b.count").back(), 25.0);
  EXPECT_EQ(table.columns.at("b.count:recorded").back(), run.columns.at("b.count").back());
  EXPECT_EQ(table.columns.at("b.odd").back(), run.columns.at("b.odd").back());

  EXPECT_TRUE(same.at("checks").at(0).at("passed")) << same.at("checks");

  const nlohmann::json changed = resim("resim-tallies", "b", {"slaves.b.parameters.period=0.5"});
  EXPECT_EQ(changed.at("status"), "completed") << changed.dump(2);
  EXPECT_GT(changed.at("max_difference").at("b.count").get<double>(), 0.0);
  EXPECT_FALSE(changed.at("checks").at(0).at("passed")) << changed.at("checks");
}

TEST(Resim, LinearizeRequestsOfMissilesAreReplayedAndTheOutputsReproduced) {
  run("missiles_linear.yaml", {}, "resim-missiles");
  const tools::RunLog log = tools::read_run_log(log_path("resim-missiles"));
  bool linearized = false;
  for (const tools::LoggedCall& call : log.calls)
    linearized |= call.kind == tools::CallKind::linearize;
  EXPECT_TRUE(linearized) << "the case should exercise linearize requests";
  expect_bit_for_bit("resim-missiles", "left");
  expect_bit_for_bit("resim-missiles", "right");
}

// The left mass free (no spring, no damper to the wall), solved exactly: from
// rest at x0, x(t) = x0 + (1/m) ∫∫ f. Driven open loop by the same recorded
// force, twice the mass moves half as far: x_new − x0 = (x_rec − x0) / 2 and
// v_new = v_rec / 2 at every row.
TEST(Resim, ADoubledMassHalvesTheOpenLoopDisplacement) {
  std::vector<std::string> settings = kShortSwitch;
  settings.push_back("slaves.left.parameters={m: 10, c: 0, d: 0, x0: 1, v0: 0}");
  settings.push_back("slaves.left.solver={type: exact}");
  run("two_mass_switch.yaml", settings, "resim-mass");
  const nlohmann::json summary = resim("resim-mass", "left", {"slaves.left.parameters.m=20"});
  ASSERT_EQ(summary.at("status"), "completed");
  const Table table = resim_table("resim-mass", "left");
  double largest_x = 0;
  double largest_v = 0;
  for (std::size_t r = 0; r < table.rows(); ++r) {
    const double x = table.columns.at("left.x:recorded")[r];
    const double v = table.columns.at("left.v:recorded")[r];
    EXPECT_NEAR(table.columns.at("left.x")[r], 1 + (x - 1) / 2, 1e-12) << "row " << r;
    EXPECT_NEAR(table.columns.at("left.v")[r], v / 2, 1e-12) << "row " << r;
    largest_x = std::max(largest_x, std::fabs(x - 1));
    largest_v = std::max(largest_v, std::fabs(v));
  }
  ASSERT_GT(largest_v, 1e-3) << "the recorded force should move the mass";
  EXPECT_NEAR(summary.at("max_difference").at("left.x").get<double>(), largest_x / 2, 1e-12);
  EXPECT_NEAR(summary.at("max_difference").at("left.v").get<double>(), largest_v / 2, 1e-12);
}

// The controller-swap use: the built-in left mass replaced by an FMU of the
// same equations (model exchange, under the same CVODE settings). The override
// of `fmu` drops the slave's `model`; the outputs differ, by no more than the
// solver's tolerance allows.
TEST(Resim, AModelReplacedByAnFmuOfTheSameEquationsDiffersWithinTheSolverTolerance) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-swap");
  const nlohmann::json summary =
      resim("resim-swap", "left",
            {std::string("slaves.left.fmu=") + COUPLET_TEST_FMU("switch_left"),
             "slaves.left.fmu_kind=me"});
  ASSERT_EQ(summary.at("status"), "completed") << summary.dump(2);
  for (const char* output : {"left.x", "left.v"}) {
    const double difference = summary.at("max_difference").at(output).get<double>();
    EXPECT_GT(difference, 0.0) << output << ": another integration, not the same bits";
    EXPECT_LT(difference, 1e-9) << output;  // rtol 1e-9, atol 1e-11 on values of order 1
  }
}

TEST(Resim, ADeviceIsRefusedByNameUnlessAnOverrideGivesItAModel) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-device");
  // The same log, its scenario text saying the right mass was a device program
  // (what a bench run with the device SDK records).
  tools::RunLog log = tools::read_run_log(log_path("resim-device"));
  YAML::Node root = YAML::Load(log.scenario_text);
  YAML::Node right = root["slaves"]["right"];
  right.remove("model");
  right.remove("solver");
  right["device"] = "coupled_mass";
  right["link"]["udp"] = "127.0.0.1:5600";
  log.scenario_text = YAML::Dump(root);
  ResimOptions options;
  options.output_directory = fresh_directory("resim-device-out").string();
  try {
    tools::resimulate_slave(log, "right", options);
    FAIL() << "a device slave was re-simulated";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("slave 'right' is device 'coupled_mass'"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("--set slaves.right.model=NAME"), std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(options.output_directory)) << "nothing written";

  options.overrides = {
      tools::parse_override("slaves.right.model=translational.coupled_mass"),
      tools::parse_override("slaves.right.solver={type: cvode, rtol: 1.0e-9, atol: 1.0e-11}")};
  const nlohmann::json summary = tools::resimulate_slave(log, "right", options);
  EXPECT_EQ(summary.at("status"), "completed");
  EXPECT_EQ(summary.at("max_difference").at("right.f").get<double>(), 0.0);
}

// --- the command line: exit codes and messages -------------------------------

std::string couplet(const std::string& arguments, int& exit_code) {
  return command_output(std::string(COUPLET_BINARY) + " " + arguments, exit_code);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ResimCommand, ReSimulatesIntoTheOutputDirectory) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-cli");
  const auto out = fresh_directory("resim-cli-out");
  int exit_code = -1;
  const std::string output =
      couplet("resim " + log_path("resim-cli") + " right -o " + out.string(), exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_TRUE(contains(output, "right.f  max difference 0")) << output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary.at("slave"), "right");
  EXPECT_EQ(summary.at("status"), "completed");
  EXPECT_EQ(read_table(out / "signals.csv").names,
            (std::vector<std::string>{"time", "right.f:recorded", "right.f"}));
}

TEST(ResimCommand, AnUnknownSlaveListsTheLogsSlaves) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-unknown");
  int exit_code = -1;
  const std::string output = couplet("resim " + log_path("resim-unknown") + " middle -o " +
                                         fresh_directory("resim-unknown-out").string(),
                                     exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "has no slave 'middle' (its slaves: left, right)")) << output;
}

TEST(ResimCommand, AnUnreadableLogIsNamed) {
  const auto directory = fresh_directory("resim-unreadable");
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "not.log") << "this is not a run log";
  int exit_code = -1;
  std::string output = couplet(
      "resim " + (directory / "not.log").string() + " left -o " + (directory / "out").string(),
      exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(
      contains(output, "couplet: error: run log '" + (directory / "not.log").string() + "'"))
      << output;
  output = couplet("resim " + (directory / "missing.log").string() + " left", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, (directory / "missing.log").string())) << output;
}

TEST(ResimCommand, ADamagedLogIsReSimulatedUpToTheDamage) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-damaged");
  const std::string whole = read_file(log_path("resim-damaged"));
  const auto directory = run_directory("resim-damaged");
  // Cut in the middle (a killed run): a warning, the requests before the cut, exit 0.
  std::ofstream(directory / "cut.log", std::ios::binary) << whole.substr(0, whole.size() / 2);
  int exit_code = -1;
  std::string output = couplet(
      "resim " + (directory / "cut.log").string() + " left -o " + (directory / "cut").string(),
      exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_TRUE(
      contains(output, "couplet: warning: " + (directory / "cut.log").string() + ": frame "))
      << output;
  nlohmann::json summary = nlohmann::json::parse(read_file(directory / "cut" / "summary.json"));
  const tools::RunLog log = tools::read_run_log(log_path("resim-damaged"));
  EXPECT_LT(summary.at("requests").get<std::size_t>(), calls_on(log, 0));
  EXPECT_GT(summary.at("requests").get<std::size_t>(), 100u);
  EXPECT_TRUE(summary.contains("log_cut"));
  EXPECT_EQ(summary.at("max_difference").at("left.x").get<double>(), 0.0);

  // A byte flipped in the middle (checksum mismatch): the same, but exit 1 as
  // for every reader of a corrupted log.
  std::string flipped = whole;
  flipped[whole.size() / 2] = static_cast<char>(flipped[whole.size() / 2] ^ 0x40);
  std::ofstream(directory / "flipped.log", std::ios::binary) << flipped;
  output = couplet("resim " + (directory / "flipped.log").string() + " left -o " +
                       (directory / "flipped").string(),
                   exit_code);
  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_TRUE(contains(output, "couplet: warning: " + (directory / "flipped.log").string()))
      << output;
  summary = nlohmann::json::parse(read_file(directory / "flipped" / "summary.json"));
  EXPECT_EQ(summary.at("status"), "completed");
}

TEST(ResimCommand, BadOverridesAreConfigurationErrorsNamingTheKey) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-override");
  const std::string resim = "resim " + log_path("resim-override") + " left -o " +
                            fresh_directory("resim-override-out").string();
  int exit_code = -1;
  std::string output = couplet(resim + " --set slaves.left.parameters.m=heavy", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "slaves.left.parameters.m: expected a number")) << output;
  output = couplet(resim + " --set slaves.left.parameters.stiffness=3", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "slaves.left")) << output;
  EXPECT_TRUE(contains(output, "stiffness")) << output;
  output = couplet(resim + " --set slaves.left.model=no.such_model", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "no.such_model")) << output;
  output = couplet(resim + " --set novalue", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "--set 'novalue': expected key.path=value")) << output;
}

TEST(ResimCommand, TheRunsOwnDirectoryIsRefused) {
  run("two_mass_switch.yaml", kShortSwitch, "resim-same-dir");
  const std::string summary_before = read_file(run_directory("resim-same-dir") / "summary.json");
  int exit_code = -1;
  const std::string output = couplet("resim " + log_path("resim-same-dir") + " left -o " +
                                         run_directory("resim-same-dir").string(),
                                     exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_TRUE(contains(output, "the directory holds the run log")) << output;
  EXPECT_EQ(read_file(run_directory("resim-same-dir") / "summary.json"), summary_before);
}

// A slave that fails when re-simulated: exit 1, the request and its time named,
// the rows up to the failure written.
TEST(ResimCommand, AFailingSlaveNamesTheRequestAndItsTime) {
  const std::string text = "time: {start: 0, end: 1}\nslaves:\n  f:\n    fmu: " +
                           std::string(COUPLET_TEST_FMU("faulty")) +
                           "\nalgorithm: {type: jacobi, step: 0.1}\n";
  const auto directory = fresh_directory("resim-failing");
  tools::run_scenario(tools::parse_scenario(text, "faulty.yaml"), {directory.string(), false});
  int exit_code = -1;
  const std::string output = couplet("resim " + (directory / "run.log").string() +
                                         " f --set slaves.f.parameters.fail_time=0.55 -o " +
                                         (directory / "resim").string(),
                                     exit_code);
  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_TRUE(contains(output, "couplet: resim failed: request ")) << output;
  EXPECT_TRUE(contains(output, "(step from t = 0.5 s to t = 0.6 s): ")) << output;
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(directory / "resim" / "summary.json"));
  EXPECT_EQ(summary.at("status"), "failed");
  EXPECT_TRUE(contains(summary.at("error").get<std::string>(), "step from t = 0.5 s"))
      << summary.dump(2);
  const Table table = read_table(directory / "resim" / "signals.csv");
  ASSERT_GT(table.rows(), 0u);
  EXPECT_EQ(table.columns.at("time").back(), 0.5) << "rows end with the last step that succeeded";
}

// --- the logged scenario's checks, on the new outputs ------------------------

// A bound on left.x that the recorded swing keeps (1.5 times its largest
// excursion from x0 = 1) fails once the mass is halved: the open-loop swing
// doubles. The first violation is the first row whose new value leaves the
// bound. A check on right.f (another slave) and an accuracy check (about the
// whole run) are listed as not applicable.
TEST(ResimCommand, ChecksOnTheSlavesOutputsAreEvaluatedOnTheNewRows) {
  std::vector<std::string> settings = kShortSwitch;
  settings.push_back("slaves.left.parameters={m: 10, c: 0, d: 0, x0: 1, v0: 0}");
  settings.push_back("slaves.left.solver={type: exact}");
  run("two_mass_switch.yaml", settings, "resim-checks");
  resim("resim-checks", "left");
  const Table recorded = resim_table("resim-checks", "left");
  double swing = 0;
  for (const double x : recorded.columns.at("left.x:recorded"))
    swing = std::max(swing, std::fabs(x - 1));
  ASSERT_GT(swing, 1e-3) << "the recorded force should move the mass";
  const double bound = 1.5 * swing;
  char checks[512];
  std::snprintf(checks, sizeof checks,
                "'checks=[{name: swing, signal: left.x, min: %.17g, max: %.17g}, "
                "{name: force, signal: right.f, max: 1.0e9}, "
                "{name: accurate, accuracy: {signal: left.x, max_nrmse: 100}}]'",
                1 - bound, 1 + bound);

  const auto same = fresh_directory("resim-checks-same");
  int exit_code = -1;
  std::string output = couplet(
      "resim " + log_path("resim-checks") + " left --set " + checks + " -o " + same.string(),
      exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  nlohmann::json summary = nlohmann::json::parse(read_file(same / "summary.json"));
  ASSERT_EQ(summary.at("checks").size(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["checks"][0].at("name"), "swing");
  EXPECT_TRUE(summary["checks"][0].at("passed").get<bool>());
  EXPECT_TRUE(summary["checks"][0].at("first_violation_time").is_null());
  const nlohmann::json& not_applicable = summary.at("checks_not_applicable");
  ASSERT_EQ(not_applicable.size(), 2u) << summary.dump(2);
  EXPECT_EQ(not_applicable[0].at("name"), "force");
  EXPECT_EQ(not_applicable[0].at("reason"),
            "its signal is not an output of the re-simulated slave 'left'");
  EXPECT_EQ(not_applicable[1].at("name"), "accurate");
  EXPECT_EQ(not_applicable[1].at("reason"), "checks of kind 'accuracy' are about the whole run");
  EXPECT_TRUE(contains(output, "force: not applicable")) << output;

  const auto halved = fresh_directory("resim-checks-halved");
  output = couplet("resim " + log_path("resim-checks") + " left --set " + checks +
                       " --set slaves.left.parameters.m=5 -o " + halved.string(),
                   exit_code);
  EXPECT_EQ(exit_code, 3) << output;
  EXPECT_TRUE(contains(output, "FAIL")) << output;
  summary = nlohmann::json::parse(read_file(halved / "summary.json"));
  const Table rows = read_table(halved / "signals.csv");
  std::optional<double> first_outside;
  for (std::size_t r = 0; r < rows.rows() && !first_outside; ++r) {
    if (std::fabs(rows.columns.at("left.x")[r] - 1) > bound)
      first_outside = rows.columns.at("time")[r];
  }
  ASSERT_TRUE(first_outside.has_value()) << "the doubled swing should leave the bound";
  EXPECT_FALSE(summary["checks"][0].at("passed").get<bool>());
  EXPECT_EQ(summary["checks"][0].at("first_violation_time").get<double>(), *first_outside);
}

}  // namespace
}  // namespace couplet::testing
