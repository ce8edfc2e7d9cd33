// F3ORNITS end to end (issue 4): imposed-step slaves on grids that are not
// multiples of each other, the two-mass switch against NI Jacobi, the car with a
// speed controller, summary counters and configuration errors.
#include "runtime/algorithms/f3ornits.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"
#include "models/catalog.hpp"
#include "models/linear_model.hpp"
#include "models/monolithic_reference.hpp"
#include "runtime/executor.hpp"
#include "runtime/metrics.hpp"

namespace couplet::testing {
namespace {

// ---------------------------------------------------------------------------
// Three slaves: two masses imposing 0.03 s and 0.05 s steps (devices), coupled
// through a variable-step hub mass with a spring/damper to each.
// ---------------------------------------------------------------------------

constexpr double kHubStiffness = 1.0;
constexpr double kHubDamping = 0.3;
constexpr double kEnd = 6.0;  // a multiple of both periods

std::unique_ptr<models::Model> hub_model() {
  models::ModelDescription description{.name = "test.hub",
                                       .summary = "mass tied to two others by springs/dampers",
                                       .inputs = {"xa", "va", "xb", "vb"},
                                       .outputs = {{.name = "fa"}, {.name = "fb"}},
                                       .states = {"x", "v"},
                                       .parameters = {}};
  models::LinearForm form = models::zero_linear_form(2, 4, 2);
  const double c = kHubStiffness, d = kHubDamping, mass = 1.0;
  form.A << 0.0, 1.0, -2.0 * c / mass, -2.0 * d / mass;
  form.B << 0.0, 0.0, 0.0, 0.0,  //
      c / mass, d / mass, c / mass, d / mass;
  form.C << c, d,  //
      c, d;
  form.D << -c, -d, 0.0, 0.0,  //
      0.0, 0.0, -c, -d;
  Eigen::VectorXd initial(2);
  initial << 0.2, 0.0;
  return std::make_unique<models::LinearModel>(description, std::vector<models::LinearForm>{form},
                                               std::vector<double>{}, initial);
}

std::unique_ptr<models::Model> mass_model(double mass, double stiffness, double position) {
  return models::ModelCatalog::builtin().create(
      "translational.mass", {{"m", mass}, {"c", stiffness}, {"d", 0.1}, {"x0", position}});
}

std::vector<std::unique_ptr<models::Model>> three_models() {
  std::vector<std::unique_ptr<models::Model>> result;
  result.push_back(mass_model(2.0, 1.0, 1.0));
  result.push_back(mass_model(3.0, 2.0, -0.5));
  result.push_back(hub_model());
  return result;
}

const std::vector<std::pair<std::string, std::string>> kThreeConnections{
    {"a.x", "hub.xa"}, {"a.v", "hub.va"}, {"b.x", "hub.xb"},
    {"b.v", "hub.vb"}, {"hub.fa", "a.f"}, {"hub.fb", "b.f"}};

System three_slaves() {
  models::SolverSettings solver;
  solver.relative_tolerance = 1e-9;
  solver.absolute_tolerance = 1e-11;
  const std::vector<std::string> names{"a", "b", "hub"};
  const std::vector<double> periods{0.03, 0.05, 0.0};
  auto models = three_models();
  System system;
  for (std::size_t s = 0; s < 3; ++s) {
    models::CapabilityLimits limits;
    limits.imposed_step = periods[s] > 0 ? to_ticks(periods[s]) : 0;
    limits.can_rollback = false;  // devices
    system.add_slave(names[s],
                     models::make_ode_slave(names[s], std::move(models[s]), solver, limits));
  }
  for (const auto& [from, to] : kThreeConnections) system.connect(from, to);
  return system;
}

std::vector<Time> grid(double end, double spacing) {
  std::vector<Time> times;
  for (Time t = 0; t <= to_ticks(end); t += to_ticks(spacing)) times.push_back(t);
  return times;
}

models::MonolithicSolution three_slave_reference(const System& system,
                                                 const std::vector<Time>& times) {
  auto models = three_models();
  std::vector<models::MonolithicSubsystem> subsystems{
      {"a", models[0].get()}, {"b", models[1].get()}, {"hub", models[2].get()}};
  std::vector<models::MonolithicConnection> connections;
  for (const Connection& c : system.connections()) {
    connections.push_back({c.source.slave, c.source.port, c.target.slave, c.target.port});
  }
  std::vector<double> seconds;
  for (const Time t : times) seconds.push_back(to_seconds(t));
  return models::solve_monolithic(subsystems, connections, 0.0, kEnd, seconds);
}

struct ThreeSlaveRun {
  std::uint64_t hash = 0;
  std::uint64_t plans = 0;
  std::vector<std::vector<double>> trace;
  double overruns = 0.0;
  double flagged = 0.0;
  Time last_overrun = 0;
};

ThreeSlaveRun run_three_slaves(double tol_rel) {
  System system = three_slaves();
  F3ornitsSettings settings;
  settings.time_stepper.tol_rel = tol_rel;
  settings.initial_step = 0.05;
  F3ornits algorithm(settings);
  Executor executor(system, algorithm, 0, to_ticks(kEnd), grid(kEnd, 0.01));
  executor.initialize();
  const Time periods[2] = {to_ticks(0.03), to_ticks(0.05)};
  ThreeSlaveRun result;
  while (executor.advance()) {
    ++result.plans;
    const F3ornitsDecision& decision = algorithm.last_decision();
    if (decision.refresh) continue;
    for (const std::size_t s : decision.slaves) {
      const F3ornitsSlaveRecord& record = decision.slave_records[s];
      EXPECT_EQ(record.step_start, decision.time);
      if (s < 2) {  // on its own grid only
        EXPECT_EQ(record.step_start % periods[s], 0) << s << " at " << record.step_start;
        EXPECT_EQ(record.step_end % periods[s], 0) << s << " to " << record.step_end;
      }
      EXPECT_LE(record.step_end, to_ticks(kEnd));
      const std::size_t inputs = system.description(s).inputs.size();
      for (std::size_t i = 0; i < inputs; ++i) {
        const F3ornitsInputRecord& input = decision.input_records[algorithm.input_index(s, i)];
        EXPECT_LE(input.estimate_time, record.step_start);  // eq. 25
        EXPECT_EQ(input.beyond_horizon, record.step_end > input.horizon);
        if (s == 2) {
          // The variable-step slave never evaluates an input past the time its
          // source proposed (nor past the source's next communication).
          EXPECT_LE(record.step_end, input.horizon)
              << system.input_name({s, i}) << " at " << record.step_start;
        } else if (input.beyond_horizon) {
          // A device cannot shorten its period: when its source's proposal falls
          // short of it, it gets the freshest estimate (made at its own grid
          // point) for exactly one period, and the overrun is counted.
          EXPECT_EQ(input.estimate_time, record.step_start) << system.input_name({s, i});
          EXPECT_EQ(record.step_end - record.step_start, periods[s]);
          ++result.flagged;
          result.last_overrun = std::max(result.last_overrun, record.step_start);
        }
      }
    }
  }
  EXPECT_EQ(executor.frontier(), to_ticks(kEnd));
  EXPECT_EQ(executor.counters().rollbacks, 0U);
  AlgorithmReport report;
  algorithm.report(report);
  result.overruns = report.counters.at("horizon_overruns");
  result.hash = executor.decision_hash();
  result.trace = executor.trace().values;
  return result;
}

TEST(F3ornits, ImposedStepsThatAreNotMultiplesOfEachOther) {
  const ThreeSlaveRun run = run_three_slaves(1e-2);
  EXPECT_EQ(run.overruns, run.flagged);
  // At this tolerance the hub's estimates are trusted beyond the devices' periods
  // once its time-stepper has grown its steps again after the start-up (degree-0
  // estimates first, then at most 5 % growth per step, ρ_max = 1.05).
  EXPECT_LT(run.last_overrun, to_ticks(2.0));
  // Close to the monolithic reference.
  const System system = three_slaves();
  const std::vector<Time> times = grid(kEnd, 0.01);
  const models::MonolithicSolution reference = three_slave_reference(system, times);
  for (const auto& [slave, port, limit] : std::vector<std::tuple<std::size_t, std::size_t, double>>{
           {0, 0, 0.05}, {1, 0, 0.05}, {2, 0, 0.2}}) {  // NRMSE %, measured 0.007, 0.013, 0.048
    const std::size_t stride = system.description(slave).outputs.size();
    std::vector<double> cosimulation, exact;
    for (std::size_t k = 0; k < times.size(); ++k) {
      cosimulation.push_back(run.trace[slave][k * stride + port]);
      exact.push_back(reference.outputs[slave][k * stride + port]);
    }
    const SignalError error = compare_to_reference(cosimulation, exact);
    EXPECT_LT(error.nrmse_pct, limit) << system.output_name({slave, port});
  }
  // Deterministic: the same decisions again (and other ones for another tolerance).
  EXPECT_EQ(run_three_slaves(1e-2).hash, run.hash);
  const ThreeSlaveRun tighter = run_three_slaves(1e-3);
  EXPECT_NE(tighter.hash, run.hash);
  // A tighter tolerance shortens the hub's horizons below the devices' periods:
  // overruns are counted, never hidden.
  EXPECT_EQ(tighter.overruns, tighter.flagged);
  EXPECT_GT(tighter.overruns, run.overruns);
}

// ---------------------------------------------------------------------------
// Scenarios through the command-line path.
// ---------------------------------------------------------------------------

// Before the switch, at about the step count of NI Jacobi H = 0.2, F3ORNITS is
// more than 20 times more accurate (issue target; the full table is the harness).
TEST(F3ornits, TwoMassSwitchBeatsNiJacobiAtTheSameStepCount) {
  const auto f3ornits =
      run("two_mass_switch.yaml",
          {"time.end=100", "algorithm.type=f3ornits", "algorithm.normalization=damped_amplitude",
           "algorithm.tol_rel=1e-3", "algorithm.min_step=0.01"},
          "f3ornits-two-mass");
  const auto steps = f3ornits.at("macro_steps").get<double>();
  const auto jacobi = run("two_mass_switch.yaml", {"time.end=100", "algorithm.step=0.2"},
                          "f3ornits-two-mass-jacobi");
  EXPECT_LT(steps, 1.2 * jacobi.at("macro_steps").get<double>());
  EXPECT_LT(20.0 * nrmse(f3ornits, "left.x"), nrmse(jacobi, "left.x"));
  EXPECT_EQ(f3ornits.at("rollbacks").get<int>(), 0);
  EXPECT_EQ(f3ornits.at("algorithm").get<std::string>(), "f3ornits");
  EXPECT_GT(f3ornits.at("counters").at("feedthrough_refreshes").get<double>(), 0.0);
}

// signals.csv columns by name.
std::vector<std::vector<double>> read_signals(const std::string& directory,
                                              const std::vector<std::string>& names) {
  std::ifstream file((run_directory(directory) / "signals.csv").string());
  std::string line;
  std::getline(file, line);
  std::vector<std::string> header;
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = line.find(',', start);
    header.push_back(
        line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
  }
  std::vector<std::size_t> columns;
  for (const std::string& name : names) {
    const auto found = std::find(header.begin(), header.end(), name);
    EXPECT_NE(found, header.end()) << name;
    columns.push_back(static_cast<std::size_t>(found - header.begin()));
  }
  std::vector<std::vector<double>> rows;
  while (std::getline(file, line)) {
    std::vector<double> values;
    for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
      comma = line.find(',', start);
      values.push_back(std::stod(
          line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    }
    std::vector<double> row;
    for (const std::size_t column : columns) row.push_back(values[column]);
    rows.push_back(row);
  }
  return rows;
}

// F3ORNITS §4.1: with ZOH the controller sees a standing car and the speed runs
// away; with F3ORNITS it holds 16 m/s after the transient.
TEST(F3ornits, CarSpeedControl) {
  run("car_speed_control.yaml", {"algorithm={type: jacobi, step: 0.05}"}, "car-zoh");
  const auto zoh = read_signals("car-zoh", {"time", "vehicle.v"});
  EXPECT_GT(zoh.back()[1], 30.0);
  const auto summary = run("car_speed_control.yaml", {}, "car-f3ornits");
  EXPECT_EQ(summary.at("algorithm").get<std::string>(), "f3ornits");
  const auto f3ornits = read_signals("car-f3ornits", {"time", "vehicle.v", "vehicle.v:reference"});
  double deviation = 0.0;
  for (const auto& row : f3ornits) {
    if (row[0] >= 20.0) deviation = std::max(deviation, std::abs(row[1] - 16.0));
  }
  EXPECT_LT(deviation, 1.0);
  // And the monolithic reference (u̇ from the car's analytic speed) agrees.
  EXPECT_LT(nrmse(summary, "vehicle.v"), 0.5);
}

std::string configuration_error(const std::string& scenario,
                                const std::vector<std::string>& assignments) {
  try {
    const tools::Scenario loaded = load(scenario, assignments);
    System system = tools::build_system(loaded, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(loaded.algorithm);
    Executor executor(system, *algorithm, to_ticks(loaded.start), to_ticks(loaded.end), {});
    executor.initialize();
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(F3ornits, BadParametersAreRejectedNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"algorithm.max_degree=2.5", "algorithm.max_degree"},
      {"algorithm.calibration=spline", "algorithm.calibration"},
      {"algorithm.normalization=relative", "algorithm.normalization"},
      {"algorithm.scheduler=eager", "algorithm.scheduler"},
      {"algorithm.smoothing=maybe", "algorithm.smoothing"},
      {"algorithm.tol_rel=-1", "algorithm.tol_rel"},
      {"algorithm.tol_abs=abc", "algorithm.tol_abs"},
      {"algorithm.damping=-0.05", "algorithm.damping"},
      {"algorithm.rho_min=2", "algorithm.rho_min"},
      {"algorithm.rho_max=0.5", "algorithm.rho_max"},
      {"algorithm.initial_step=0", "algorithm.initial_step"},
      {"algorithm.min_step=-1", "algorithm.min_step"},
      {"algorithm.max_step=0", "algorithm.max_step"},
      {"algorithm.tolerance=1e-3", "algorithm.tolerance"},
  };
  for (const auto& [assignment, key] : cases) {
    const std::string message = configuration_error("car_speed_control.yaml", {assignment});
    EXPECT_NE(message.find(key), std::string::npos) << assignment << ": " << message;
  }
  // Smoothing on a slave that accepts less than degree 3 names the slave.
  const std::string message = configuration_error(
      "car_speed_control.yaml",
      {"algorithm.smoothing=true", "slaves.controller.capabilities.max_input_degree=2"});
  EXPECT_NE(message.find("'controller'"), std::string::npos) << message;
  // The keys of the fixed-step algorithms are ignored, so any scenario runs.
  EXPECT_EQ(configuration_error("two_mass_switch.yaml", {"algorithm.type=f3ornits"}), "accepted");
}

}  // namespace
}  // namespace couplet::testing
