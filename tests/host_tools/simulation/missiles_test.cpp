// MISSILES (runtime/algorithms/missiles.hpp; Éguillon, Lacabanne, Tromeur-Dervout,
// J. Comput. Appl. Math. 424 (2023) 115013, doi:10.1016/j.cam.2022.115013):
// the paper's linear mechanical case (table 3) and Lotka–Volterra case (§4.2)
// as `couplet run` runs them, an algebraic loop against its closed form, and
// replay.
#include "runtime/algorithms/missiles.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "models/linear_model.hpp"
#include "models/ode_slave.hpp"
#include "runtime/executor.hpp"

namespace couplet::testing {
namespace {

const char* const kLinear = "missiles_linear.yaml";
const char* const kLotkaVolterra = "missiles_lotka_volterra.yaml";

std::string step_text(double step) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", step);
  return text;
}

std::string missiles(double step) {
  return "algorithm={type: missiles, step: " + step_text(step) + "}";
}
std::string ni_jacobi(double step) {
  return "algorithm={type: jacobi, step: " + step_text(step) + ", input_order: 0}";
}
std::string tight_jfm(double step) {
  return "algorithm={type: ifosmondi_jfm, solver: newton, step: " + step_text(step) +
         ", eps: 1.0e-10}";
}

double worst_nrmse(const nlohmann::json& summary) {
  double worst = 0.0;
  for (const auto& [signal, error] : summary.at("errors").items())
    worst = std::max(worst, error.at("nrmse_pct").get<double>());
  return worst;
}

// Table 3's claim: at equal δt MISSILES is far more accurate than NI Jacobi
// (COSTARICA is exact for linear slaves), and as accurate as IFOSMONDI-JFM
// converged tightly, since both satisfy the same C¹ coupling constraint.
TEST(MissilesLinear, FarMoreAccurateThanNiJacobiAndAsAccurateAsConvergedJfm) {
  const double step = 1e-3;
  const auto implicit = run(kLinear, {missiles(step)}, "missiles-linear");
  const auto jacobi = run(kLinear, {ni_jacobi(step)}, "missiles-linear-jacobi");
  const auto jfm = run(kLinear, {tight_jfm(step)}, "missiles-linear-jfm");
  ASSERT_EQ(implicit.at("status"), "completed");
  for (const std::string signal : {"left.x", "left.v", "right.f"}) {
    EXPECT_LT(100.0 * nrmse(implicit, signal), nrmse(jacobi, signal)) << signal;
    EXPECT_NEAR(nrmse(implicit, signal), nrmse(jfm, signal), 0.01 * nrmse(jfm, signal)) << signal;
  }
  // No rollback: each slave steps once per macro step.
  EXPECT_EQ(implicit.at("rollbacks").get<int>(), 0);
  EXPECT_EQ(implicit.at("slave_steps").get<int>(), 2 * implicit.at("macro_steps").get<int>());
}

// The global error falls as δt⁴ (cubic Hermite inputs, exact estimators), with
// slaves integrated exactly so that nothing else contributes.
TEST(MissilesLinear, FourthOrderInTheCommunicationStep) {
  const std::vector<std::string> exact = {"slaves.left.solver={type: exact}",
                                          "slaves.right.solver={type: exact}"};
  std::vector<double> errors;
  for (const double step : {4e-3, 2e-3, 1e-3}) {
    std::vector<std::string> overrides = exact;
    overrides.push_back(missiles(step));
    errors.push_back(rmse(run(kLinear, overrides, "missiles-order"), "left.x"));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    EXPECT_NEAR(order, 4.0, 0.3) << "errors " << errors[k - 1] << " → " << errors[k];
  }
}

TEST(MissilesLinear, ReplayReproducesEveryDecision) {
  const auto summary = run(kLinear, {missiles(2e-3), "time.end=0.2"}, "missiles-replay");
  ASSERT_EQ(summary.at("status"), "completed");
  const tools::RunLog log =
      tools::read_run_log((run_directory("missiles-replay") / "run.log").string());
  const tools::ReplayOutcome outcome = tools::replay_run_log(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_TRUE(outcome.hash_compared);
  EXPECT_EQ(outcome.macro_steps, 100U);
}

// A rollback-less slave behind a link: the linearization comes over UDP from a
// spawned couplet-target, and every decision is the local run's.
TEST(MissilesLinear, RemoteSlaveDecidesAsLocal) {
  const std::vector<std::string> common = {missiles(2e-3), "time.end=0.2"};
  std::vector<std::string> remote = common;
  remote.push_back("slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}");
  const auto here = run(kLinear, common, "missiles-local");
  const auto there = run(kLinear, remote, "missiles-remote");
  ASSERT_EQ(there.at("status"), "completed");
  EXPECT_EQ(here.at("decision_hash"), there.at("decision_hash"));
  EXPECT_EQ(read_file(run_directory("missiles-local") / "signals.csv"),
            read_file(run_directory("missiles-remote") / "signals.csv"));
}

// Lotka–Volterra (§4.2, table 6's claims): MISSILES at least 10× more accurate
// than NI Jacobi at equal δt, and closer to IFOSMONDI-JFM as δt shrinks.
TEST(MissilesLotkaVolterra, TenTimesMoreAccurateThanNiJacobi) {
  for (const double step : {1e-2, 1e-3}) {
    const auto implicit = run(kLotkaVolterra, {missiles(step)}, "missiles-lv");
    const auto jacobi = run(kLotkaVolterra, {ni_jacobi(step)}, "missiles-lv-jacobi");
    EXPECT_LT(10.0 * worst_nrmse(implicit), worst_nrmse(jacobi)) << "δt = " << step;
  }
}

// V = δx − γ ln x + βy − α ln y is conserved on the exact orbit (the scenario's
// α = 1.5, β = 1, γ = 3, δ = 1): its relative change from the first to the last
// row of signals.csv.
double invariant_drift(const std::filesystem::path& signals) {
  std::ifstream file(signals);
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line.rfind("time,prey.prey,predator.predator", 0), 0U) << line;
  std::vector<double> invariants;
  while (std::getline(file, line)) {
    double time = 0, prey = 0, predator = 0;
    EXPECT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf", &time, &prey, &predator), 3) << line;
    invariants.push_back(prey - 3.0 * std::log(prey) + predator - 1.5 * std::log(predator));
  }
  EXPECT_GT(invariants.size(), 100U);
  return std::abs(invariants.back() - invariants.front()) / std::abs(invariants.front());
}

// Figure 11 at δt = 1e-2: the NI Jacobi orbit spirals outwards, MISSILES' stays
// on the closed cycle.
TEST(MissilesLotkaVolterra, OrbitStaysClosedWhereNiJacobiDrifts) {
  run(kLotkaVolterra, {missiles(1e-2)}, "missiles-orbit");
  run(kLotkaVolterra, {ni_jacobi(1e-2)}, "missiles-orbit-jacobi");
  const double implicit = invariant_drift(run_directory("missiles-orbit") / "signals.csv");
  const double jacobi = invariant_drift(run_directory("missiles-orbit-jacobi") / "signals.csv");
  EXPECT_GT(jacobi, 0.05);
  EXPECT_LT(implicit, 1e-3);
  EXPECT_LT(100.0 * implicit, jacobi);
}

// An algebraic loop through direct feedthrough, which MISSILES solves in its
// linear system: ẋ₁ = −x₁ + u₁, y₁ = x₁ + d u₁; ẋ₂ = −2x₂ + u₂, y₂ = x₂ + d u₂;
// u₁ = y₂, u₂ = y₁. Then y = (I − dP)⁻¹ x with P the swap, and ẋ = M x in closed
// form.
std::unique_ptr<Slave> scalar_slave(const std::string& name, double pole, double feedthrough,
                                    double x0) {
  models::LinearForm form = models::zero_linear_form(1, 1, 1);
  form.A(0, 0) = -pole;
  form.B(0, 0) = 1.0;
  form.C(0, 0) = 1.0;
  form.D(0, 0) = feedthrough;
  models::ModelDescription description{.name = name,
                                       .summary = "scalar test system",
                                       .inputs = {"u"},
                                       .outputs = {{.name = "y"}},
                                       .states = {"x"},
                                       .parameters = {}};
  Eigen::VectorXd initial(1);
  initial << x0;
  auto model = std::make_unique<models::LinearModel>(
      description, std::vector<models::LinearForm>{form}, std::vector<double>{}, initial);
  models::SolverSettings exact;
  exact.kind = models::SolverKind::exact;
  return models::make_ode_slave(name, std::move(model), exact);
}

TEST(Missiles, SolvesAnAlgebraicLoopThroughFeedthrough) {
  const double d = 0.5;
  System system;
  system.add_slave("one", scalar_slave("one", 1.0, d, 1.0));
  system.add_slave("two", scalar_slave("two", 2.0, d, -0.5));
  system.connect("two.y", "one.u");
  system.connect("one.y", "two.u");
  Missiles algorithm(MissilesSettings{.step = to_ticks(0.01)});
  Executor executor(system, algorithm, 0, to_ticks(1.0), {});
  executor.initialize();
  while (executor.advance()) {
  }

  Eigen::Matrix2d swap;
  swap << 0.0, 1.0, 1.0, 0.0;
  const Eigen::Matrix2d outputs_of_state = (Eigen::Matrix2d::Identity() - d * swap).inverse();
  Eigen::Matrix2d dynamics;
  dynamics << -1.0, 0.0, 0.0, -2.0;
  dynamics += swap * outputs_of_state;  // ẋ = diag(−1, −2) x + u, u = P y
  const Eigen::Vector2d state = (dynamics * 1.0).exp() * Eigen::Vector2d(1.0, -0.5);
  const Eigen::Vector2d expected = outputs_of_state * state;
  EXPECT_NEAR(executor.slots()[0].output(0), expected[0], 1e-8);
  EXPECT_NEAR(executor.slots()[1].output(0), expected[1], 1e-8);
  EXPECT_EQ(executor.counters().rollbacks, 0U);
}

TEST(Missiles, RefusesSlavesThatCannotLinearize) {
  const auto summary_error = [] {
    try {
      run("car_speed_control.yaml", {missiles(0.01)}, "missiles-refused");
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string();
  }();
  EXPECT_NE(summary_error.find("cannot linearize"), std::string::npos) << summary_error;
  EXPECT_NE(summary_error.find("algorithm 'missiles' needs it"), std::string::npos)
      << summary_error;
}

}  // namespace
}  // namespace couplet::testing
