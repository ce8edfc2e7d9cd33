// couplet::Simulation (include/couplet/simulation.hpp, docs/library.md): the
// master stepped by its caller decides as `couplet run` does, step_until()
// carries out whole macro steps, outputs are named and read between steps,
// observers run on the stepping thread without allocating, and errors name
// what is wrong.
#include "couplet/simulation.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/simulation/simulation_setup.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"
#include "test_fmus.hpp"

namespace couplet {
namespace {

using testing::fresh_directory;
using testing::read_file;
using testing::scenario_path;

const Simulation::Overrides kShortRun = {{"time.end", "2"}};

Simulation two_mass_switch(const Simulation::Overrides& overrides = kShortRun,
                           const SimulationOptions& options = {}) {
  return Simulation::from_scenario(scenario_path("two_mass_switch.yaml"), overrides, options);
}

/// The value of column `name` at time `t` in a signals.csv, parsed as the
/// Python module and NumPy parse it.
double csv_value(const std::filesystem::path& csv, const std::string& name, double t) {
  std::istringstream lines(read_file(csv));
  std::string line;
  std::getline(lines, line);
  std::vector<std::string> header;
  std::istringstream header_cells(line);
  for (std::string cell; std::getline(header_cells, cell, ',');) header.push_back(cell);
  const auto column =
      static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (std::strtod(cells[0].c_str(), nullptr) == t)
      return std::strtod(cells[column].c_str(), nullptr);
  }
  ADD_FAILURE() << "no row at t = " << t << " in " << csv;
  return 0.0;
}

TEST(Simulation, InitializeStartsAtTheScenarioStart) {
  Simulation simulation = two_mass_switch();
  simulation.initialize();
  EXPECT_EQ(simulation.time(), 0);
  EXPECT_EQ(simulation.end_time(), 2 * kTicksPerSecond);
  EXPECT_FALSE(simulation.finished());
  EXPECT_EQ(simulation.output("left.x"), 1.0);  // x0
  EXPECT_EQ(simulation.scenario_name(), "two_mass_switch");
  EXPECT_EQ(simulation.algorithm_name(), "jacobi");
}

TEST(Simulation, StepUntilInsideAMacroStepCarriesTheWholeStepOut) {
  Simulation simulation = two_mass_switch({{"time.end", "2"}, {"algorithm.step", "0.25"}});
  EXPECT_FALSE(simulation.step_until(to_ticks(0.3)));
  EXPECT_EQ(simulation.time(), to_ticks(0.5));  // 0.3 lies in [0.25, 0.5]: the step ends at 0.5
  EXPECT_FALSE(simulation.step_until(to_ticks(0.5)));  // reached already: nothing
  EXPECT_FALSE(simulation.step_until(to_ticks(0.1)));  // in the past: nothing
  EXPECT_EQ(simulation.time(), to_ticks(0.5));
  EXPECT_EQ(simulation.grid_times().back(), 0.5);
  EXPECT_FALSE(simulation.step_until(to_ticks(0.75)));
  EXPECT_EQ(simulation.time(), to_ticks(0.75));
  EXPECT_TRUE(simulation.step_until(to_ticks(50.0)));  // past the end: stops at the end
  EXPECT_EQ(simulation.time(), 2 * kTicksPerSecond);
  EXPECT_TRUE(simulation.finished());
}

TEST(Simulation, SteppedInHalfSecondsDecidesAsRunScenario) {
  const nlohmann::json cli = testing::run("two_mass_switch.yaml", {"time.end=2"}, "simulation-cli");
  Simulation simulation = two_mass_switch();
  for (int k = 1; !simulation.finished(); ++k) simulation.step_until(to_ticks(0.5 * k));
  EXPECT_EQ(simulation.decision_hash(), cli["decision_hash"].get<std::string>());
  const nlohmann::json summary = nlohmann::json::parse(simulation.summary());
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["macro_steps"], cli["macro_steps"]);
  EXPECT_EQ(summary["errors"]["left.x"]["nrmse_pct"], cli["errors"]["left.x"]["nrmse_pct"]);
  EXPECT_EQ(simulation.grid_times().size(), 201u);
}

TEST(Simulation, OutputBetweenStepsIsTheCommandLinesSignalBitForBit) {
  testing::run("two_mass_switch.yaml", {"time.end=2"}, "simulation-signals");
  const auto csv = testing::run_directory("simulation-signals") / "signals.csv";
  Simulation simulation = two_mass_switch();
  simulation.step_until(to_ticks(1.0));
  ASSERT_EQ(simulation.time(), to_ticks(1.0));
  EXPECT_EQ(simulation.output("left.x"), csv_value(csv, "left.x", 1.0));
  EXPECT_EQ(simulation.output("left.v"), csv_value(csv, "left.v", 1.0));
  EXPECT_EQ(simulation.trace("left.x").back(), csv_value(csv, "left.x", 1.0));
  EXPECT_NE(simulation.output("left.x"), 1.0);  // it moved
}

TEST(Simulation, RunWritesTheFilesOfCoupletRun) {
  testing::run("two_mass_switch.yaml", {"time.end=2"}, "simulation-files-cli");
  const auto directory = fresh_directory("simulation-files-library");
  Simulation simulation = two_mass_switch(kShortRun, {directory.string(), true, true});
  EXPECT_FALSE(std::filesystem::exists(directory / "signals.csv"));  // not before the end
  EXPECT_TRUE(simulation.run());
  EXPECT_EQ(read_file(directory / "signals.csv"),
            read_file(testing::run_directory("simulation-files-cli") / "signals.csv"));
  const nlohmann::json summary = nlohmann::json::parse(read_file(directory / "summary.json"));
  EXPECT_EQ(summary["decision_hash"], simulation.decision_hash());
  EXPECT_GT(std::filesystem::file_size(directory / "run.log"), 0u);
}

TEST(Simulation, WithoutAnOutputDirectoryWritesNothing) {
  const auto directory = fresh_directory("simulation-nothing");
  std::filesystem::create_directories(directory);
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(directory);
  Simulation simulation = two_mass_switch({{"time.end", "0.1"}});
  simulation.run();
  std::filesystem::current_path(before);
  EXPECT_TRUE(std::filesystem::is_empty(directory));
  EXPECT_EQ(nlohmann::json::parse(simulation.summary())["status"], "completed");
}

TEST(Simulation, ARunLogNeedsAnOutputDirectory) {
  try {
    two_mass_switch(kShortRun, {"", true, true});
    FAIL() << "no error";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("a run log needs an output directory"),
              std::string::npos)
        << error.what();
  }
}

TEST(Simulation, OutputNamesAndUnknownNames) {
  Simulation simulation = two_mass_switch();
  const std::vector<std::string> names = simulation.output_names();
  EXPECT_EQ(names.front(), "left.x");
  EXPECT_EQ(
      simulation.output_index("right.f"),
      static_cast<std::size_t>(std::find(names.begin(), names.end(), "right.f") - names.begin()));
  const auto message = [&](const std::string& name) {
    try {
      simulation.output_index(name);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("left.q").find("slave 'left' has no output 'q' (outputs: x, v"),
            std::string::npos)
      << message("left.q");
  EXPECT_NE(message("nobody.x").find("no slave 'nobody' (slaves: left, right)"), std::string::npos)
      << message("nobody.x");
  EXPECT_NE(message("leftx").find("expected slave.port"), std::string::npos) << message("leftx");
}

TEST(Simulation, OutputBeforeInitializeThrows) {
  const Simulation simulation = two_mass_switch();
  EXPECT_THROW(simulation.output("left.x"), ConfigurationError);
}

TEST(Simulation, ScenarioErrorsNameTheElement) {
  try {
    two_mass_switch({{"algorithm.type", "nonesuch"}});
    FAIL() << "no error";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("two_mass_switch.yaml"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("nonesuch"), std::string::npos) << error.what();
  }
}

/// Copies left.x at each communication point into storage prepared beforehand.
class Probe final : public SimulationObserver {
 public:
  explicit Probe(std::size_t output) : output_(output) {}
  void communication_point(const Simulation& simulation) override {
    if (count_ < times_.size()) {
      times_[count_] = simulation.time();
      values_[count_] = simulation.output(output_);
    }
    ++count_;
  }
  std::size_t count() const { return count_; }
  Time time(std::size_t k) const { return times_[k]; }
  double value(std::size_t k) const { return values_[k]; }

 private:
  std::size_t output_;
  std::size_t count_ = 0;
  std::array<Time, 512> times_{};
  std::array<double, 512> values_{};
};

TEST(Simulation, ObserversSeeEveryCommunicationPointWithoutAllocating) {
  const auto directory = fresh_directory("simulation-observer");
  Simulation simulation = two_mass_switch(kShortRun, {directory.string(), true, true});
  Probe probe(simulation.output_index("left.x"));
  simulation.add_observer(probe);
  simulation.step_until(to_ticks(0.01));  // the first step sizes the buffers
  const long before = testing::allocations();
  simulation.step_until(to_ticks(1.5));
  EXPECT_EQ(testing::allocations() - before, 0);
  simulation.run();
  ASSERT_EQ(probe.count(), 200u);  // 2 s in steps of 0.01 s
  EXPECT_EQ(probe.time(99), to_ticks(1.0));
  EXPECT_EQ(probe.value(99), simulation.trace("left.x")[100]);
  EXPECT_THROW(simulation.add_observer(probe), ConfigurationError);  // after initialize()
}

// FMI 3.0 FMUs (integrator3, rollback and output derivatives on; arrays3,
// whose arrays move whole; sawtooth3, model exchange with time and state
// events; events3, early return into Event Mode; smooth3, inputs set at
// intermediate update; sched3, scheduled execution; clocked3 and sampled3,
// clock ticks as events inside the step) stepped with the run log on: couplet's side
// allocates nothing.
TEST(Simulation, AnFmi3FmuAddsNoAllocationToTheSteppingLoop) {
  const auto directory = fresh_directory("simulation-fmi3");
  std::filesystem::create_directories(directory);
  const auto scenario = directory / "integrator3.yaml";
  std::ofstream(scenario) << "name: integrator3\ntime: {start: 0, end: 2}\nslaves:\n"
                             "  ramp: {model: stimulus.ramp, parameters: {stop: 2, final: 2}}\n"
                             "  int: {fmu: " COUPLET_TEST_FMU("integrator3") "}\n"
                             "  arr: {fmu: " COUPLET_TEST_FMU("arrays3") ", parameters: {n: 4}}\n"
                             "  saw: {fmu: " COUPLET_TEST_FMU("sawtooth3") ", parameters: {period: 0.47}}\n"
                             "  ev: {fmu: " COUPLET_TEST_FMU("events3") "}\n"
                             "  sm: {fmu: " COUPLET_TEST_FMU("smooth3") "}\n"
                             "  se: {fmu: " COUPLET_TEST_FMU("sched3") "}\n"
                             "  cl: {fmu: " COUPLET_TEST_FMU("clocked3") "}\n"
                             "  sa: {fmu: " COUPLET_TEST_FMU("sampled3") "}\n"
                             "connections:\n  - {from: ramp.y, to: int.u}\n"
                             "  - {from: ramp.y, to: \"arr.u[3]\"}\n"
                             "  - {from: ramp.y, to: sm.u}\n"
                             "  - {from: ramp.y, to: se.u}\n"
                             "  - {from: ramp.y, to: cl.r}\n"
                             "  - {from: ramp.y, to: sa.r}\n"
                             "algorithm: {type: jacobi, step: 0.01}\nreference: none\n";
  Simulation simulation =
      Simulation::from_scenario(scenario.string(), {}, {(directory / "out").string(), true, true});
  const std::size_t y = simulation.output_index("int.y");
  const std::size_t element = simulation.output_index("arr.y[3]");
  const std::size_t sawtooth = simulation.output_index("saw.x");
  simulation.step_until(to_ticks(0.5));
  const long before = testing::allocations();
  simulation.step_until(to_ticks(1.5));
  const double at = simulation.output(y);
  const double element_at = simulation.output(element);
  const double sawtooth_at = simulation.output(sawtooth);
  EXPECT_EQ(testing::allocations() - before, 0);
  // k = 1, y0 = 0, u held at t_i: y(1.5) = h² n(n-1)/2 with n = 150; arrays3's
  // y[3]' = 3 u[3].
  EXPECT_NEAR(at, 1e-4 * 150.0 * 149.0 / 2.0, 1e-12);
  EXPECT_NEAR(element_at, 3.0 * 1e-4 * 150.0 * 149.0 / 2.0, 1e-12);
  EXPECT_NEAR(sawtooth_at, 1.5 - 3.0 * 0.47, 1e-9);  // sawtooth3 (model exchange): t mod 0.47
}

// Integer and Boolean connections between two tally FMUs, a rounded Real one
// into the first and b's Integer count held on a pass-through's Real input,
// with the run log recording them: the stepping loop still allocates nothing.
TEST(Simulation, DiscreteSignalsAddNoAllocationToTheSteppingLoop) {
  const auto directory = fresh_directory("simulation-discrete");
  std::filesystem::create_directories(directory);
  const auto scenario = directory / "tallies.yaml";
  std::ofstream(scenario) << "name: tallies\ntime: {start: 0, end: 10}\nslaves:\n"
                             "  knob: {model: stimulus.constant, parameters: {value: 0.2}}\n"
                             "  a: {fmu: " COUPLET_TEST_FMU("tally") "}\n"
                             "  b: {fmu: " COUPLET_TEST_FMU("tally") "}\n"
                             "  pass: {model: coupling.linear}\n"
                             "connections:\n"
                             "  - {from: knob.y, to: a.increment, rounding: ceil}\n"
                             "  - {from: a.count, to: b.increment}\n"
                             "  - {from: a.odd, to: b.enable}\n"
                             "  - {from: b.count, to: pass.u}\n"
                             "algorithm: {type: jacobi, step: 0.01}\nreference: none\n";
  Simulation simulation =
      Simulation::from_scenario(scenario.string(), {}, {(directory / "out").string(), true, true});
  const std::size_t count = simulation.discrete_output_index("b.count");
  const std::size_t passed = simulation.output_index("pass.y");
  simulation.step_until(to_ticks(1.0));
  const long before = testing::allocations();
  simulation.step_until(to_ticks(9.0));
  const std::int64_t at_nine = simulation.discrete_output(count);
  const double passed_at_nine = simulation.output(passed);
  EXPECT_EQ(testing::allocations() - before, 0);
  // pass holds b's count from its last step's start (t = 8.99), exactly.
  EXPECT_EQ(passed_at_nine, 16.0);
  // a counts by ceil(0.2) = 1 (the rounded connection, also allocation-free);
  // b adds 1 + 3 + 5 + 7, the odd counts before t = 9.
  EXPECT_EQ(at_nine, 16);
}

/// Counts the slave calls of a run beside the run log's recorder.
class StepCounter final : public ExecutorObserver {
 public:
  void slave_set_up(std::size_t, Time) override { ++set_ups; }
  void step_began(std::size_t) override {}
  void slave_stepped(std::size_t, const StepRequest&, const OutputBuffers&,
                     const LinkStepReport&) override {
    ++steps;
  }
  void outputs_evaluated(std::size_t, std::span<const Polynomial>,
                         std::span<const double>) override {}
  void slave_linearized(std::size_t, std::span<const Polynomial>,
                        std::span<const double>) override {}
  void state_saved(std::size_t) override {}
  void state_restored(std::size_t) override {}
  std::uint64_t set_ups = 0;
  std::uint64_t steps = 0;
};

TEST(Simulation, ExecutorObserversSeeEverySlaveCallBesideTheRunLog) {
  const auto directory = fresh_directory("simulation-executor-observer");
  Simulation simulation = two_mass_switch(kShortRun, {directory.string(), true, true});
  StepCounter counter;
  simulation.add_executor_observer(counter);
  simulation.run();
  const nlohmann::json summary = nlohmann::json::parse(simulation.summary());
  EXPECT_EQ(counter.set_ups, 2u);
  EXPECT_EQ(counter.steps, summary["slave_steps"].get<std::uint64_t>());
  EXPECT_EQ(counter.steps, 400u);
  // The recorder still sees every call: the log replays to the same hash.
  int code = 0;
  const std::string replay = testing::command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + (directory / "run.log").string(), code);
  EXPECT_EQ(code, 0) << replay;
  EXPECT_NE(replay.find(simulation.decision_hash()), std::string::npos) << replay;
  EXPECT_THROW(simulation.add_executor_observer(counter), ConfigurationError);
}

TEST(Simulation, AFailedRunIsOverSaysWhyAndWritesItsSummary) {
  const auto directory = fresh_directory("simulation-failed");
  std::filesystem::create_directories(directory);
  const auto scenario = directory / "faulty.yaml";
  {
    std::ofstream file(scenario);
    file << "name: faulty\ntime: {start: 0, end: 1}\nslaves:\n  s:\n    fmu: "
         << COUPLET_TEST_FMU("faulty")
         << "\n    parameters: {fail_time: 0.5, fail_status: 3}\n"
            "algorithm: {type: jacobi, step: 0.05}\nreference: none\n";
  }
  Simulation simulation =
      Simulation::from_scenario(scenario.string(), {}, {(directory / "out").string(), true, true});
  EXPECT_FALSE(simulation.step_until(to_ticks(0.25)));
  try {
    simulation.step_until(to_ticks(1.0));
    FAIL() << "the failing step threw nothing";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("fmi2DoStep"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(simulation.finished());
  const nlohmann::json summary =
      nlohmann::json::parse(read_file(directory / "out" / "summary.json"));
  EXPECT_EQ(summary["status"], "failed");
  EXPECT_NE(summary["error"].get<std::string>().find("fmi2DoStep"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(simulation.summary()), summary);
  try {
    simulation.run();
    FAIL() << "a failed run stepped on";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("failed"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("make a new Simulation"), std::string::npos)
        << error.what();
  }
}

TEST(Simulation, AFinishedRunStaysFinished) {
  Simulation simulation = two_mass_switch({{"time.end", "0.1"}});
  EXPECT_TRUE(simulation.run());
  const std::string hash = simulation.decision_hash();
  EXPECT_TRUE(simulation.step_until(to_ticks(5.0)));
  EXPECT_TRUE(simulation.run());
  EXPECT_EQ(simulation.decision_hash(), hash);
}

}  // namespace
}  // namespace couplet
