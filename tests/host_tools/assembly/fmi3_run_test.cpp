// FMI 3.0 co-simulation FMUs in runs: the project's integrator3.fmu (y' = k u,
// exact for an input held over the step) driven by a ramp matches the closed
// form of a held input, replays bit for bit, runs in its own couplet-target
// process with the same decisions, rolls back, asks to end the run, and
// refuses what FMI 3.0 cannot take, naming the slave and the FMU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/test_support.hpp"
#include "models/slave_source.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

const std::string kFmu = COUPLET_TEST_FMU("integrator3");

/// A ramp u = t drives the integrator (k = 2, y0 = 0.5) under Jacobi with step h.
std::string ramp_scenario(const std::string& step, const std::string& fmu_extra = "",
                          const std::string& algorithm = "jacobi") {
  return "name: integrator3\ntime: {start: 0, end: 1}\nalgorithm: {type: " + algorithm +
         ", step: " + step +
         "}\nreference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
         "  int:\n    fmu: " +
         kFmu + "\n    parameters: {k: 2, y0: 0.5" + fmu_extra +
         "}\nconnections:\n  - {from: ramp.y, to: int.u}\n"
         "evaluation: {grid: 0.1, signals: [int.y]}\n";
}

// With u held at u(t_i) = t_i over [t_i, t_i + h], y(t_n) = y0 + k h² n(n-1)/2.
TEST(Fmi3CoSimulation, ARampIntoTheIntegratorFollowsTheClosedFormOfAHeldInput) {
  const auto outcome = couplet_on_text("run", ramp_scenario("0.01"), "fmi3-ramp");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  const std::vector<double>& y = columns.at("int.y");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double n = std::round(time[row] / 0.01);
    EXPECT_NEAR(y[row], 0.5 + 2.0 * 1e-4 * n * (n - 1.0) / 2.0, 1e-13) << "t = " << time[row];
  }
  expect_replayed_and_inspected(outcome, "int");
}

TEST(Fmi3CoSimulation, InItsOwnProcessItMakesTheDecisionsOfTheInProcessRun) {
  const auto local = couplet_on_text("run", ramp_scenario("0.02"), "fmi3-local");
  const std::string isolated_text =
      ramp_scenario("0.02");  // the same scenario, the FMU slave isolated below
  std::string text = isolated_text;
  text.replace(text.find("    parameters: {k: 2"), 0, "    isolate: true\n");
  const auto isolated = couplet_on_text("run", text, "fmi3-isolated");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(local.out), hash_of(isolated.out));
  EXPECT_EQ(read_file(local.out / "signals.csv"), read_file(isolated.out / "signals.csv"));
}

TEST(Fmi3CoSimulation, AnFmuThatAsksToEndTheRunStopsItThere) {
  const auto outcome =
      couplet_on_text("run", ramp_scenario("0.1", ", stop_time: 0.5"), "fmi3-stop");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  EXPECT_EQ(summary["status"], "stopped");
  EXPECT_EQ(summary["stopped_by"], "slave 'int' at t = 0.5 s");
}

TEST(Fmi3CoSimulation, RollbackRestoresTheSavedStateExactly) {
  models::SlaveSettings settings;
  settings.slave_name = "int";
  settings.parameters = {{"k", 3.0}, {"y0", 1.0}};
  const auto slave = models::fmu_source(kFmu, models::FmuKind::automatic)->make_slave(settings);
  ASSERT_TRUE(slave->description().capabilities.can_rollback);
  ASSERT_EQ(slave->description().capabilities.output_derivative_order, 1);
  slave->setup(0);
  const std::vector<Polynomial> input{Polynomial::constant(0.0, 2.0)};
  std::vector<double> first(2), again(2);
  const auto step = [&](Time start, Time end, std::vector<double>& out) {
    StepRequest request;
    request.start = start;
    request.end = end;
    request.inputs = input;
    slave->step(request, OutputBuffers{out, {}, {}});
  };
  const Time h = step_to_ticks(0.25);
  slave->save_state();
  step(0, h, first);
  slave->restore_state();
  step(0, h, again);
  EXPECT_EQ(first, again);
  EXPECT_EQ(first[0], 1.0 + 3.0 * 2.0 * 0.25);  // y = y0 + k u h
  EXPECT_EQ(first[1], 6.0);                     // dy/dt = k u
}

TEST(Fmi3CoSimulation, RefusesWhatAnFmi3FmuCannotTakeNamingTheSlave) {
  const auto degree = couplet_on_text(
      "validate", ramp_scenario("0.01", "}\n    capabilities: {max_input_degree: 1"),
      "fmi3-degree");
  EXPECT_EQ(degree.exit_code, 2);
  EXPECT_NE(degree.output.find("slave 'int': FMU '" + kFmu +
                               "': capabilities.max_input_degree 1: an FMI 3.0 FMU takes its "
                               "inputs as values held over the step"),
            std::string::npos)
      << degree.output;
  const auto algorithm =
      couplet_on_text("validate", ramp_scenario("0.01", "", "ifosmondi"), "fmi3-ifosmondi");
  EXPECT_EQ(algorithm.exit_code, 2);
  EXPECT_NE(algorithm.output.find("slave 'int' accepts input polynomials of degree at most 0"),
            std::string::npos)
      << algorithm.output;
  std::string model_exchange = ramp_scenario("0.01");
  model_exchange.replace(model_exchange.find("    parameters: {k: 2"), 0, "    fmu_kind: me\n");
  const auto kind = couplet_on_text("validate", model_exchange, "fmi3-me");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.output.find("fmu_kind: me: couplet runs FMI 3.0 FMUs as co-simulation only"),
            std::string::npos)
      << kind.output;
  const auto unknown = couplet_on_text("validate", ramp_scenario("0.01", ", y: 1"), "fmi3-param");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("parameters: 'y' cannot be set (settable scalar Float64 "
                                "variables: k, y0, u, stop_time)"),
            std::string::npos)
      << unknown.output;
}

}  // namespace
}  // namespace couplet::testing
