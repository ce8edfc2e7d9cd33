// Stimuli in scenarios: the step response of scenarios/step_response.yaml under
// variable-step defect control (a communication time on the step), run and
// validated by the couplet program from another directory; stimulus.table's
// `file` and `interpolation` settings, resolved against the scenario file, and
// its errors naming both the scenario element and the CSV file's line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/scenario/stimulus_breakpoints.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"

namespace couplet::testing {
namespace {

const char* const kStepResponse = "step_response.yaml";

/// The communication times the master reached, in ticks.
std::vector<Time> communication_times(const tools::Scenario& scenario) {
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
  executor.initialize();
  std::vector<Time> times;
  while (executor.advance()) times.push_back(executor.frontier());
  return times;
}

bool contains(const std::vector<Time>& times, Time time) {
  return std::find(times.begin(), times.end(), time) != times.end();
}

TEST(StepResponse, TheVariableStepLandsOnTheStep) {
  const tools::Scenario scenario = load(kStepResponse, {});
  EXPECT_EQ(tools::stimulus_breakpoints(scenario), (std::vector<Time>{to_ticks(0.5)}));
  const std::vector<Time> times = communication_times(scenario);
  EXPECT_TRUE(contains(times, to_ticks(0.5)));
  EXPECT_EQ(times.back(), to_ticks(5.0));
  // Variable: the controller grew the step from its 1 ms start.
  std::vector<Time> steps(times.size());
  std::adjacent_difference(times.begin(), times.end(), steps.begin());
  EXPECT_GT(*std::max_element(steps.begin() + 1, steps.end()), to_ticks(0.01));
  // A breakpoint off every round time is landed on as well.
  const std::vector<Time> shifted =
      communication_times(load(kStepResponse, {"slaves.force.parameters.time=0.5000004"}));
  EXPECT_TRUE(contains(shifted, to_ticks(0.5000004)));
}

// The other variable-step masters land on the step too: F3ORNITS's slaves
// (the stimulus, whose output is read, at least) and IFOSMONDI's macro steps.
TEST(StepResponse, F3ornitsAndIfosmondiLandOnTheStep) {
  for (const std::string algorithm :
       {"{type: f3ornits}", "{type: ifosmondi, step: 0.03}", "{type: ifosmondi_jfm, step: 0.03}"}) {
    for (const std::string time : {"0.5", "0.5000004"}) {
      const std::vector<Time> times = communication_times(
          load(kStepResponse, {"algorithm=" + algorithm, "slaves.force.parameters.time=" + time}));
      EXPECT_TRUE(contains(times, to_ticks(std::stod(time)))) << algorithm << " " << time;
      EXPECT_EQ(times.back(), to_ticks(5.0)) << algorithm;
    }
  }
}

TEST(StepResponse, AFixedStepKeepsItsGrid) {
  const std::vector<Time> times = communication_times(
      load(kStepResponse,
           {"algorithm={type: defect_control, step: 0.3, input_order: 1}", "time.end=1.2"}));
  EXPECT_EQ(times, (std::vector<Time>{to_ticks(0.3), to_ticks(0.6), to_ticks(0.9), to_ticks(1.2)}));
}

TEST(StepResponse, APulseTrainGivesEveryEdgeInsideTheRun) {
  const tools::Scenario scenario = load(
      kStepResponse, {"slaves.force={model: stimulus.pulse, parameters: {period: 1, width: 0.25, "
                      "start: 0.5}}"});
  EXPECT_EQ(tools::stimulus_breakpoints(scenario),
            (std::vector<Time>{to_ticks(0.5), to_ticks(0.75), to_ticks(1.5), to_ticks(1.75),
                               to_ticks(2.5), to_ticks(2.75), to_ticks(3.5), to_ticks(3.75),
                               to_ticks(4.5), to_ticks(4.75)}));
  const std::vector<Time> times = communication_times(scenario);
  for (const Time edge : tools::stimulus_breakpoints(scenario))
    EXPECT_TRUE(contains(times, edge)) << to_seconds(edge);
}

// The real-time path: after the first steps, stepping a stimulus (and landing
// on its breakpoints) allocates nothing.
TEST(StepResponse, StimuliAllocateNothingAfterTheFirstSteps) {
  for (const std::string force : {"{model: stimulus.pulse, parameters: {period: 0.2, width: 0.05}}",
                                  "{model: stimulus.sine, parameters: {frequency: 2}}",
                                  "{model: stimulus.ramp, parameters: {start: 1, stop: 2}}"}) {
    const tools::Scenario scenario =
        load(kStepResponse, {"slaves.force=" + force, "slaves.mass.solver.type=cvode"});
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
    executor.initialize();
    while (executor.counters().macro_steps < 2) ASSERT_TRUE(executor.advance());
    const long before = allocations();
    while (executor.advance()) {
    }
    EXPECT_EQ(allocations() - before, 0) << force;
    EXPECT_GT(executor.counters().macro_steps, 20U) << force;
  }
}

// Exact output derivatives serve every input order and master. Jacobi steps
// and defect control take the force at the step start: on the 0.01 s grid the
// step at 0.5 s falls on a communication time and only the plant's solver
// error is left. Gauss–Seidel takes the force at the step end, which puts the
// jump one macro step early (10 N over 0.01 s: 0.1 N s, an oscillation of
// 0.1 / ω = 0.05 m); F3ORNITS chooses its own steps and lands on the breakpoint.
TEST(StepResponse, EveryInputOrderAndMasterRunsOnAStimulus) {
  const std::vector<std::pair<std::string, double>> masters{
      {"{type: jacobi, step: 0.01, input_order: 0}", 1e-5},
      {"{type: jacobi, step: 0.01, input_order: 2}", 1e-5},
      {"{type: defect_control, step: 0.01, input_order: 2}", 1e-5},
      {"{type: gauss_seidel, step: 0.01, input_order: 1}", 0.03},
      {"{type: f3ornits}", 1e-5}};  // 8e-7: landing on the step (0.03 crossing it)
  for (const auto& [algorithm, bound] : masters) {
    const nlohmann::json summary =
        run(kStepResponse, {"algorithm=" + algorithm, "slaves.mass.solver.type=cvode"},
            "step-response-orders");
    EXPECT_EQ(summary.at("status"), "completed") << algorithm;
    EXPECT_LT(rmse(summary, "mass.x"), bound) << algorithm;
    EXPECT_EQ(rmse(summary, "force.y"), 0.0) << algorithm;
  }
}

// A stimulus served by couplet-target behind a UDP link announces its edges on
// the target as locally: the master takes the same decisions.
TEST(StepResponse, APulseBehindALinkTakesTheLocalDecisions) {
  const std::string pulse =
      "slaves.force={model: stimulus.pulse, parameters: {period: 0.4, width: 0.1, high: 10, "
      "start: 0.5}}";
  const nlohmann::json local = run(kStepResponse, {pulse}, "pulse-local");
  const nlohmann::json remote =
      run(kStepResponse, {pulse, "slaves.force.link={spawn: true, udp: \"127.0.0.1:0\"}"},
          "pulse-remote");
  ASSERT_TRUE(remote.contains("links")) << remote.dump();
  EXPECT_GT(remote.at("links").at("force").at("requests").get<double>(), 700);
  EXPECT_EQ(remote.at("decision_hash"), local.at("decision_hash"));
  EXPECT_EQ(remote.at("macro_steps"), local.at("macro_steps"));
  EXPECT_LT(rmse(remote, "mass.x"), 1e-8);
}

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

/// Runs `couplet ARGUMENTS` in `directory`.
CommandResult couplet_in(const std::filesystem::path& directory, const std::string& arguments) {
  CommandResult result;
  result.output = command_output(
      "cd '" + directory.string() + "' && " + std::string(COUPLET_BINARY) + " " + arguments,
      result.exit_code);
  return result;
}

TEST(StepResponse, RunsAndValidatesFromAnotherDirectory) {
  const std::filesystem::path elsewhere = fresh_directory("step-response");
  std::filesystem::create_directories(elsewhere);
  const std::string scenario = scenario_path(kStepResponse);
  const CommandResult validated = couplet_in(elsewhere, "validate " + scenario);
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  const CommandResult ran = couplet_in(elsewhere, "run " + scenario + " -o out");
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(elsewhere / "out" / "summary.json"));
  // Landing on the step, the co-simulation follows the reference closely.
  EXPECT_LT(summary.at("errors").at("mass.x").at("rmse").get<double>(), 1e-3);
  EXPECT_EQ(summary.at("errors").at("force.y").at("rmse").get<double>(), 0.0);
  std::filesystem::remove_all(elsewhere);
}

// --- stimulus.table in a scenario --------------------------------------------

/// The column `name` of signals.csv at the row of time `t`.
double signal_at(const std::filesystem::path& signals, const std::string& name, double t) {
  std::ifstream file(signals);
  std::string line;
  std::getline(file, line);
  std::vector<std::string> header;
  std::stringstream names(line);
  for (std::string cell; std::getline(names, cell, ',');) header.push_back(cell);
  const auto column = std::find(header.begin(), header.end(), name) - header.begin();
  while (std::getline(file, line)) {
    std::vector<double> row;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    if (std::abs(row[0] - t) < 1e-9) return row.at(static_cast<std::size_t>(column));
  }
  ADD_FAILURE() << "no row at t = " << t << " in " << signals;
  return NAN;
}

// scenarios/table_force.yaml plays scenarios/table_force.csv (linear between
// the rows 0, 10, 10, -5, 0 N at 0, 1, 2, 2.5, 4 s; the last held after).
TEST(TableForce, PlaysTheProfileBesideTheScenario) {
  const nlohmann::json summary = run("table_force.yaml", {}, "table-force");
  EXPECT_EQ(rmse(summary, "profile.force"), 0.0);
  EXPECT_LT(rmse(summary, "mass.x"), 1e-4);
  const std::filesystem::path signals = run_directory("table-force") / "signals.csv";
  for (const auto& [t, force] : std::vector<std::pair<double, double>>{
           {0.5, 5.0}, {1.5, 10.0}, {2.25, 2.5}, {2.5, -5.0}, {3.25, -2.5}, {5.0, 0.0}}) {
    EXPECT_NEAR(signal_at(signals, "profile.force", t), force, 1e-12) << t;
  }
}

class TableScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fresh_directory(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_ / "tables");
    std::ofstream(directory_ / "tables" / "drive.csv") << "time,f\n0,0\n0.5,0\n0.5000001,2\n1,2\n";
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string write_scenario(const std::string& slave_settings) const {
    const std::string path = (directory_ / "table.yaml").string();
    std::ofstream(path) << "time: {start: 0, end: 1}\n"
                           "slaves:\n"
                           "  drive:\n"
                        << slave_settings
                        << "  mass: {model: translational.mass}\n"
                           "connections:\n"
                           "  - {from: drive.f, to: mass.f}\n"
                           "algorithm: {type: jacobi, step: 0.25}\n";
    return path;
  }

  std::string refusal(const std::string& slave_settings) const {
    const std::string path = write_scenario(slave_settings);
    try {
      System system =
          tools::build_system(tools::load_scenario(path), models::ModelCatalog::builtin());
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;
      return message.substr(path.size());
    }
    return "accepted";
  }

  std::filesystem::path directory_;
};

TEST_F(TableScenario, TheFileIsRelativeToTheScenarioAndHoldsByChoice) {
  const tools::Scenario scenario = tools::load_scenario(write_scenario(
      "    model: stimulus.table\n    file: tables/drive.csv\n    interpolation: hold\n"));
  const tools::SlaveSpec& drive = scenario.slaves[0];
  EXPECT_EQ(drive.table_file, (directory_ / "tables" / "drive.csv").string());
  EXPECT_EQ(drive.table_interpolation, models::TableInterpolation::hold);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  Slave& slave = system.slave(0);
  ASSERT_EQ(slave.description().outputs.size(), 1u);
  EXPECT_EQ(slave.description().outputs[0].name, "f");
  slave.setup(0);
  std::array<double, 4> end{};
  std::array<double, 2> samples{};
  const std::array<Time, 2> sample_times{to_ticks(0.5), to_ticks(0.75)};
  slave.step({0, to_ticks(1.0), {}, sample_times}, {end, samples});
  EXPECT_EQ(samples, (std::array<double, 2>{0, 2}));
  EXPECT_EQ(end[0], 2.0);
}

TEST_F(TableScenario, LinearIsTheDefault) {
  const tools::Scenario scenario = tools::load_scenario(
      write_scenario("    model: stimulus.table\n    file: tables/drive.csv\n"));
  EXPECT_EQ(scenario.slaves[0].table_interpolation, models::TableInterpolation::linear);
}

TEST_F(TableScenario, BadSettingsAndFilesNameTheElementAndTheLine) {
  const std::string csv = (directory_ / "tables" / "bad.csv").string();
  std::ofstream(csv) << "time,f\n0,0\n0.5,x\n";
  EXPECT_EQ(refusal("    model: stimulus.table\n    file: tables/bad.csv\n"),
            ":4: slaves.drive: " + csv + ":3: column 'f': 'x' is not a finite number");
  EXPECT_EQ(refusal("    model: stimulus.table\n"),
            ":4: slaves.drive: stimulus.table needs 'file' (a CSV file, relative to the scenario "
            "file)");
  EXPECT_EQ(refusal("    model: stimulus.table\n    file: tables/drive.csv\n    interpolation: "
                    "cubic\n"),
            ":6: slaves.drive.interpolation: unknown interpolation 'cubic' (hold, linear)");
  EXPECT_EQ(refusal("    model: stimulus.step\n    file: tables/drive.csv\n"),
            ":5: slaves.drive.file: only with model: stimulus.table");
  EXPECT_EQ(
      refusal("    model: stimulus.table\n    file: tables/drive.csv\n    parameters: {a: 1}\n"),
      ":6: slaves.drive.parameters: stimulus.table has no parameters (its settings are "
      "'file' and 'interpolation')");
}

}  // namespace
}  // namespace couplet::testing
