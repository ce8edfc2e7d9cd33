// Defect-controlled variable-step Jacobi (issue 3; Glumac & Kovačić, Defect
// Analysis, Algorithm 1, eqs. 12–39; docs/references.md), run through scenarios as `couplet run`
// runs them, on the rotational two-mass oscillator of the paper's §4.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/algorithms/defect_controlled_jacobi.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"

namespace couplet::testing {
namespace {

const char* const kScenario = "rotational_two_mass_defect_control.yaml";

std::string fixed_step(double step, int order) {
  return "algorithm={type: defect_control, step: " + std::to_string(step) +
         ", input_order: " + std::to_string(order) + "}";
}

std::string variable_step(double tolerance, int order, const std::string& extra = "") {
  return "algorithm={type: defect_control, tol: " + std::to_string(tolerance) +
         ", initial_step: 1.0e-4, input_order: " + std::to_string(order) + extra + "}";
}

std::vector<std::string> with_solver(std::vector<std::string> assignments,
                                     const std::string& solver) {
  assignments.push_back("slaves.tau2omega.solver.type=" + solver);
  assignments.push_back("slaves.omega2tau.solver.type=" + solver);
  return assignments;
}

double output_defect(const nlohmann::json& summary, const std::string& output) {
  return summary.at("defects").at("output").at(output).get<double>();
}

double connection_defect(const nlohmann::json& summary, const std::string& input) {
  return summary.at("defects").at("connection").at(input).get<double>();
}

double counter(const nlohmann::json& summary, const std::string& name) {
  return summary.at("counters").at(name).get<double>();
}

double largest_error(const nlohmann::json& summary) {
  double error = 0.0;
  for (const auto& [signal, value] : summary.at("errors").items())
    error = std::max(error, value.at("rmse").get<double>());
  return error;
}

/// Least-squares slope of log(value) against log(step).
double log_log_slope(const std::vector<double>& steps, const std::vector<double>& values) {
  double mean_x = 0.0, mean_y = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    mean_x += std::log(steps[i]) / static_cast<double>(steps.size());
    mean_y += std::log(values[i]) / static_cast<double>(steps.size());
  }
  double covariance = 0.0, variance = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    covariance += (std::log(steps[i]) - mean_x) * (std::log(values[i]) - mean_y);
    variance += std::pow(std::log(steps[i]) - mean_x, 2);
  }
  return covariance / variance;
}

// Theorem 3/4: with the exact solver (no integration defect), the output-defect
// estimate of the fixed-step variant converges with order n + 1. The paper's
// fig. 5b observation, O(H^{min(m,n)+1}) for the connection defect, holds as well.
TEST(DefectControl, OutputDefectConvergesWithOrderNPlusOne) {
  const std::vector<double> steps{0.01, 0.02, 0.04};
  for (int order = 0; order <= 2; ++order) {
    std::vector<double> tau, omega, connection;
    for (const double step : steps) {
      const auto summary =
          run(kScenario, {fixed_step(step, order)}, "dc-slope-" + std::to_string(order));
      tau.push_back(output_defect(summary, "omega2tau.tau"));
      omega.push_back(output_defect(summary, "tau2omega.omega"));
      connection.push_back(connection_defect(summary, "tau2omega.tau"));
    }
    EXPECT_NEAR(log_log_slope(steps, tau), order + 1, 0.3) << "n = " << order;
    EXPECT_NEAR(log_log_slope(steps, omega), order + 1, 0.3) << "n = " << order;
    EXPECT_NEAR(log_log_slope(steps, connection), order + 1, 0.3) << "n = " << order;
  }
}

// ---------------------------------------------------------------------------
// One macro step computed independently: the two slaves' equations (paper eqs.
// 40–41, signs as in the physical oscillator) integrated exactly with the
// matrix exponential of the system augmented by the input polynomial.

struct LinearSystem {
  Eigen::MatrixXd A, B, C, D;
  Eigen::VectorXd x0;
};

LinearSystem tau2omega() {
  LinearSystem system{Eigen::MatrixXd(2, 2), Eigen::MatrixXd(2, 1), Eigen::MatrixXd(1, 2),
                      Eigen::MatrixXd(1, 1), Eigen::VectorXd(2)};
  system.A << 0.0, 1.0, -1.0 / 10.0, -2.0 / 10.0;  // c = 1, d = 2, J = 10
  system.B << 0.0, 1.0 / 10.0;
  system.C << 0.0, 1.0;
  system.D << 0.0;
  system.x0 << 0.2, 0.1;
  return system;
}

LinearSystem omega2tau() {
  LinearSystem system{Eigen::MatrixXd(3, 3), Eigen::MatrixXd(3, 1), Eigen::MatrixXd(1, 3),
                      Eigen::MatrixXd(1, 1), Eigen::VectorXd(3)};
  // J = 10, c = 1, d = 1, c_k = 1, d_k = 2; state (φ₁, ω₁, φ_o).
  system.A << 0.0, 1.0, 0.0, -2.0 / 10.0, -3.0 / 10.0, 1.0 / 10.0, 0.0, 0.0, 0.0;
  system.B << 0.0, 2.0 / 10.0, 1.0;
  system.C << 1.0, 2.0, -1.0;
  system.D << -2.0;
  system.x0 << 0.1, 0.1, 0.2;
  return system;
}

/// The d-th derivative at t of the input polynomial Σ jet[j] t^j / j!.
double input_at(const std::vector<double>& jet, double t, int d = 0) {
  double value = 0.0;
  for (std::size_t j = static_cast<std::size_t>(d); j < jet.size(); ++j) {
    value += jet[j] * std::pow(t, static_cast<double>(j) - d) /
             std::tgamma(static_cast<double>(j) - d + 1.0);
  }
  return value;
}

/// x(t) for ẋ = A x + B u(t), u the polynomial of `jet`: the state augmented by
/// (u, u', ..., u^(q)) is linear and autonomous; exp by its Taylor series.
Eigen::VectorXd propagate(const LinearSystem& system, const std::vector<double>& jet, double t) {
  const Eigen::Index n = system.x0.size();
  const auto q = static_cast<Eigen::Index>(jet.size());
  Eigen::MatrixXd generator = Eigen::MatrixXd::Zero(n + q, n + q);
  generator.topLeftCorner(n, n) = system.A;
  generator.block(0, n, n, 1) = system.B;
  for (Eigen::Index j = 0; j + 1 < q; ++j) generator(n + j, n + j + 1) = 1.0;
  Eigen::VectorXd state(n + q);
  state.head(n) = system.x0;
  for (Eigen::Index j = 0; j < q; ++j) state(n + j) = jet[static_cast<std::size_t>(j)];
  Eigen::VectorXd term = state;
  Eigen::VectorXd sum = state;
  for (int k = 1; k < 60; ++k) {
    term = generator * term * (t / k);
    sum += term;
  }
  return sum.head(n);
}

/// Output and its first two derivatives at t: y = C x + D u, ẏ = C ẋ + D u̇, ...
std::vector<double> output_jet(const LinearSystem& system, const Eigen::VectorXd& x,
                               const std::vector<double>& jet, double t) {
  const Eigen::VectorXd dx = system.A * x + system.B * input_at(jet, t);
  const Eigen::VectorXd ddx = system.A * dx + system.B * input_at(jet, t, 1);
  return {(system.C * x)(0) + system.D(0) * input_at(jet, t),
          (system.C * dx)(0) + system.D(0) * input_at(jet, t, 1),
          (system.C * ddx)(0) + system.D(0) * input_at(jet, t, 2)};
}

double taylor(const std::vector<double>& jet, int order, double origin, double t) {
  double value = 0.0;
  for (int j = 0; j <= order; ++j)
    value += jet[static_cast<std::size_t>(j)] * std::pow(t - origin, j) / std::tgamma(j + 1.0);
  return value;
}

double simpson_rms(const std::function<double(double)>& f, double from, double to, int intervals) {
  const double h = (to - from) / intervals;
  double sum = std::pow(f(from), 2) + std::pow(f(to), 2);
  for (int i = 1; i < intervals; ++i)
    sum += (i % 2 == 1 ? 4.0 : 2.0) * std::pow(f(from + i * h), 2);
  return std::sqrt(sum * h / 3.0 / (to - from));
}

/// The first macro step [0, H] of Algorithm 1 with m = n = order, computed independently.
struct SingleStep {
  double output_defect_tau = 0.0, output_defect_omega = 0.0;            // estimates, eqs. 30–32
  double connection_defect_tau = 0.0, connection_defect_omega = 0.0;    // eq. 17
  double true_output_defect_tau = 0.0, true_output_defect_omega = 0.0;  // P_n − g(x̃, ũ)
};

SingleStep single_step(double step, int order) {
  const LinearSystem mass2 = tau2omega();
  const LinearSystem mass1 = omega2tau();
  // Consistent jets at t₀ (what the executor computes before the first exchange):
  // ω has no feedthrough, so ω, τ, ω̇, τ̇, ω̈, τ̈ follow one from the other.
  const double omega0 = (mass2.C * mass2.x0)(0);
  const double tau0 = (mass1.C * mass1.x0)(0) + mass1.D(0) * omega0;
  const Eigen::VectorXd dx2 = mass2.A * mass2.x0 + mass2.B * tau0;
  const Eigen::VectorXd dx1 = mass1.A * mass1.x0 + mass1.B * omega0;
  const double domega0 = (mass2.C * dx2)(0);
  const double dtau0 = (mass1.C * dx1)(0) + mass1.D(0) * domega0;
  const double ddomega0 = (mass2.C * (mass2.A * dx2 + mass2.B * dtau0))(0);
  const double ddtau0 = (mass1.C * (mass1.A * dx1 + mass1.B * domega0))(0) + mass1.D(0) * ddomega0;
  // Inputs: Taylor polynomials of order min(m, n) at t₀ (eqs. 14–15).
  std::vector<double> tau_input{tau0, dtau0, ddtau0};
  std::vector<double> omega_input{omega0, domega0, ddomega0};
  tau_input.resize(static_cast<std::size_t>(order + 1));
  omega_input.resize(static_cast<std::size_t>(order + 1));

  const auto omega_true = [&](double t) { return (mass2.C * propagate(mass2, tau_input, t))(0); };
  const auto tau_true = [&](double t) {
    return (mass1.C * propagate(mass1, omega_input, t))(0) + mass1.D(0) * input_at(omega_input, t);
  };
  // Outputs at T = H with the extrapolated inputs (eq. 18), and their Taylor polynomials (eq. 12).
  const std::vector<double> omega_end =
      output_jet(mass2, propagate(mass2, tau_input, step), tau_input, step);
  const std::vector<double> tau_end =
      output_jet(mass1, propagate(mass1, omega_input, step), omega_input, step);
  const auto omega_taylor = [&](double t) { return taylor(omega_end, order, step, t); };
  const auto tau_taylor = [&](double t) { return taylor(tau_end, order, step, t); };

  const double scale = std::pow(2.0, order + 1) / std::sqrt(2.0 * order + 3.0);
  SingleStep result;
  result.output_defect_omega = std::abs(omega_true(step / 2) - omega_taylor(step / 2)) * scale;
  result.output_defect_tau = std::abs(tau_true(step / 2) - tau_taylor(step / 2)) * scale;
  result.connection_defect_tau = simpson_rms(
      [&](double t) { return input_at(tau_input, t) - tau_taylor(t); }, 0.0, step, 2000);
  result.connection_defect_omega = simpson_rms(
      [&](double t) { return input_at(omega_input, t) - omega_taylor(t); }, 0.0, step, 2000);
  result.true_output_defect_omega =
      simpson_rms([&](double t) { return omega_taylor(t) - omega_true(t); }, 0.0, step, 400);
  result.true_output_defect_tau =
      simpson_rms([&](double t) { return tau_taylor(t) - tau_true(t); }, 0.0, step, 400);
  return result;
}

nlohmann::json run_single_step(double step, int order, bool variable, const std::string& label) {
  const std::string algorithm =
      variable
          ? "algorithm={type: defect_control, tol: 1.0e-3, initial_step: " + std::to_string(step) +
                ", input_order: " + std::to_string(order) + "}"
          : fixed_step(step, order);
  return run(kScenario, {"time.end=" + std::to_string(step), algorithm},
             "dc-" + label + "-" + std::to_string(order));
}

TEST(DefectControl, SingleStepDefectsMatchAnIndependentComputation) {
  for (int order = 0; order <= 2; ++order) {
    for (const bool variable : {false, true}) {
      const SingleStep expected = single_step(0.3, order);
      const auto summary = run_single_step(0.3, order, variable, "single-step");
      ASSERT_EQ(summary.at("macro_steps").get<int>(), 1);
      EXPECT_NEAR(output_defect(summary, "tau2omega.omega"), expected.output_defect_omega,
                  1e-9 * expected.output_defect_omega)
          << order;
      EXPECT_NEAR(output_defect(summary, "omega2tau.tau"), expected.output_defect_tau,
                  1e-9 * expected.output_defect_tau)
          << order;
      EXPECT_NEAR(connection_defect(summary, "tau2omega.tau"), expected.connection_defect_tau,
                  1e-9 * expected.connection_defect_tau)
          << order;
      EXPECT_NEAR(connection_defect(summary, "omega2tau.omega"), expected.connection_defect_omega,
                  1e-9 * expected.connection_defect_omega)
          << order;
      // ε₁ (eq. 38) over both kinds of defect.
      const double largest =
          std::max({expected.output_defect_omega, expected.output_defect_tau,
                    expected.connection_defect_tau, expected.connection_defect_omega});
      EXPECT_NEAR(counter(summary, "max_step_defect"), largest, 1e-9 * largest) << order;
    }
  }
}

// Eq. 15: inputs carry min(m, n) derivatives, so m above n changes nothing.
TEST(DefectControl, InputsAreTruncatedToTheOutputOrder) {
  const auto orders = [](int m, int n) {
    return "algorithm={type: defect_control, tol: 1.0e-3, input_order: " + std::to_string(m) +
           ", output_order: " + std::to_string(n) + "}";
  };
  const auto truncated = run(kScenario, {orders(2, 1)}, "dc-orders-21");
  const auto equal = run(kScenario, {orders(1, 1)}, "dc-orders-11");
  EXPECT_EQ(truncated.at("decision_hash"), equal.at("decision_hash"));
  EXPECT_EQ(truncated.at("defects"), equal.at("defects"));
  const auto zoh = run(kScenario, {orders(0, 1)}, "dc-orders-01");
  EXPECT_NE(zoh.at("decision_hash"), equal.at("decision_hash"));
  // n defaults to m (the paper's m = n).
  const auto defaulted = run(
      kScenario, {"algorithm={type: defect_control, tol: 1.0e-3, input_order: 1}"}, "dc-orders-1");
  EXPECT_EQ(defaulted.at("decision_hash"), equal.at("decision_hash"));
}

// Theorem 4: the estimate over the true output defect P_n − g(x̃, ũ) tends to 1.
TEST(DefectControl, OutputDefectEstimateIsAsymptoticallyCorrect) {
  for (int order = 0; order <= 2; ++order) {
    double previous_mismatch = 1.0;
    for (const double step : {0.4, 0.1, 0.025}) {
      const SingleStep expected = single_step(step, order);
      const auto summary = run_single_step(step, order, false, "theorem-4");
      const double mismatch = std::max(
          std::abs(output_defect(summary, "tau2omega.omega") / expected.true_output_defect_omega -
                   1.0),
          std::abs(output_defect(summary, "omega2tau.tau") / expected.true_output_defect_tau -
                   1.0));
      EXPECT_LT(mismatch, previous_mismatch) << "n = " << order << ", H = " << step;
      previous_mismatch = mismatch;
    }
    EXPECT_LT(previous_mismatch, 0.05) << "n = " << order;
  }
}

// ---------------------------------------------------------------------------
// Variable step.

struct SweepPoint {
  double tolerance = 0.0;
  double defect = 0.0;  ///< whole-run RMS, the largest over the monitored defects
  double error = 0.0;
  int steps = 0;
};

std::vector<SweepPoint> tolerance_sweep(int order, const std::string& solver, double end,
                                        const std::vector<double>& tolerances) {
  std::vector<SweepPoint> sweep;
  for (const double tolerance : tolerances) {
    const auto summary = run(
        kScenario,
        with_solver({"time.end=" + std::to_string(end), variable_step(tolerance, order)}, solver),
        "dc-sweep-" + solver + "-" + std::to_string(end) + "-" + std::to_string(order));
    EXPECT_DOUBLE_EQ(summary.at("end_time").get<double>(), end);
    sweep.push_back({tolerance, counter(summary, "whole_run_defect_rms"), largest_error(summary),
                     summary.at("macro_steps").get<int>()});
  }
  return sweep;
}

void check_sweep(const std::string& solver, double end, const std::vector<double>& tolerances,
                 double step_count_slack) {
  std::vector<std::vector<SweepPoint>> by_order;
  for (int order = 0; order <= 2; ++order)
    by_order.push_back(tolerance_sweep(order, solver, end, tolerances));
  for (int order = 0; order <= 2; ++order) {
    const auto& sweep = by_order[static_cast<std::size_t>(order)];
    for (std::size_t i = 0; i < sweep.size(); ++i) {
      const std::string where = solver + ", n = " + std::to_string(order) +
                                ", tol = " + std::to_string(sweep[i].tolerance);
      EXPECT_LE(sweep[i].defect, 2.0 * sweep[i].tolerance) << where;
      if (i > 0) {
        EXPECT_LT(sweep[i].error, sweep[i - 1].error) << where;
        EXPECT_GE(sweep[i].steps, sweep[i - 1].steps) << where;
      }
      // Fig. 10: a higher order does not need more steps at the same tolerance.
      if (order > 0) {
        const int lower = by_order[static_cast<std::size_t>(order - 1)][i].steps;
        EXPECT_LE(sweep[i].steps, step_count_slack * lower + 1) << where << " vs n - 1: " << lower;
      }
    }
  }
}

// The paper's setting: horizon 1 s, H₁ = 10⁻⁴.
TEST(DefectControl, ToleranceSweepOnThePapersHorizon) {
  check_sweep("exact", 1.0, {1.0, 1e-1, 1e-2, 1e-3, 1e-4}, 1.0);
}

// A longer horizon, where the controller leaves its start-up ramp and holds ε near tol.
TEST(DefectControl, ToleranceSweepInSteadyState) {
  check_sweep("exact", 10.0, {1e-2, 1e-3, 1e-4, 1e-5}, 1.0);
}

// The Euler slaves' integration defect is not controlled (the paper's §4): the
// defect stays within tolerance, and n = 2 may need a few more steps than n = 1.
TEST(DefectControl, ToleranceSweepWithEulerSlaves) {
  check_sweep("euler", 10.0, {1e-2, 1e-3, 1e-4}, 1.15);
}

TEST(DefectControl, MonitoredDefectsSelectWhatTheControllerSees) {
  const auto output = run(kScenario, {"time.end=10", variable_step(1e-4, 1, ", defect: output")},
                          "dc-monitor-output");
  const auto connection =
      run(kScenario, {"time.end=10", variable_step(1e-4, 1, ", defect: connection")},
          "dc-monitor-connection");
  const auto both = run(kScenario, {"time.end=10", variable_step(1e-4, 1)}, "dc-monitor-both");
  const auto largest = [](const nlohmann::json& defects) {
    double value = 0.0;
    for (const auto& [name, rms] : defects.items()) value = std::max(value, rms.get<double>());
    return value;
  };
  EXPECT_DOUBLE_EQ(counter(output, "whole_run_defect_rms"),
                   largest(output.at("defects").at("output")));
  EXPECT_DOUBLE_EQ(counter(connection, "whole_run_defect_rms"),
                   largest(connection.at("defects").at("connection")));
  EXPECT_NE(output.at("decision_hash"), connection.at("decision_hash"));
  // Here the connection defect dominates: monitoring both equals monitoring it.
  EXPECT_EQ(both.at("decision_hash"), connection.at("decision_hash"));
  EXPECT_LT(output.at("macro_steps").get<int>(), both.at("macro_steps").get<int>());
}

// ---------------------------------------------------------------------------
// Time grid, determinism, rollback, allocation.

TEST(DefectControl, LastStepEndsExactlyAtTheEnd) {
  const auto fixed = run(kScenario, {"time.end=1", fixed_step(0.3, 1)}, "dc-end-fixed");
  EXPECT_EQ(fixed.at("macro_steps").get<int>(), 4);  // 0.3, 0.3, 0.3, 0.1
  EXPECT_EQ(fixed.at("end_time").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(counter(fixed, "min_step_s"), 0.3);  // the clipped last step does not count
  EXPECT_DOUBLE_EQ(counter(fixed, "max_step_s"), 0.3);
  const auto variable =
      run(kScenario, {"time.end=2.7182818", variable_step(1e-3, 2)}, "dc-end-variable");
  EXPECT_EQ(variable.at("end_time").get<double>(), 2.7182818);
}

// The midpoint is a requested sample time: one step call per slave and macro step.
TEST(DefectControl, MidpointIsSampledNotStepped) {
  const auto summary = run(kScenario, {variable_step(1e-3, 1)}, "dc-midpoint");
  EXPECT_EQ(summary.at("slave_steps").get<int>(), 2 * summary.at("macro_steps").get<int>());
  EXPECT_EQ(summary.at("rollbacks").get<int>(), 0);
}

TEST(DefectControl, TwoRunsGiveTheSameDecisionHash) {
  for (const std::string solver : {"exact", "euler", "cvode"}) {
    const auto first =
        run(kScenario, with_solver({"time.end=5", variable_step(1e-4, 2)}, solver), "dc-hash-1");
    const auto second =
        run(kScenario, with_solver({"time.end=5", variable_step(1e-4, 2)}, solver), "dc-hash-2");
    EXPECT_EQ(first.at("decision_hash"), second.at("decision_hash")) << solver;
    EXPECT_EQ(first.at("defects"), second.at("defects")) << solver;
  }
  const auto other = run(kScenario, {"time.end=5", variable_step(2e-4, 2)}, "dc-hash-3");
  const auto reference = run(kScenario, {"time.end=5", variable_step(1e-4, 2)}, "dc-hash-4");
  EXPECT_NE(other.at("decision_hash"), reference.at("decision_hash"));
}

/// A slave as hardware is: the wrapped slave's behaviour without rollback, and
/// optionally on an imposed step grid (a device with a fixed sample period).
class HardwareLikeSlave final : public Slave {
 public:
  HardwareLikeSlave(std::unique_ptr<Slave> inner, Time imposed_step) : inner_(std::move(inner)) {
    description_ = inner_->description();
    description_.capabilities.can_rollback = false;
    description_.capabilities.imposed_step = imposed_step;
    description_.capabilities.variable_step = imposed_step == 0;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    inner_->evaluate_outputs(inputs, end_outputs);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    check_step_request("hardware-like", description_, request.start, request);  // the imposed grid
    inner_->step(request, result);
  }
  // save_state / restore_state: the base class throws ProtocolViolation.

 private:
  std::unique_ptr<Slave> inner_;
  SlaveDescription description_;
};

struct DirectRun {
  std::uint64_t hash = 0;
  RunCounters counters;
  long allocations_after_first_steps = 0;
};

/// Runs a scenario with the executor directly (no evaluation grid, so that the
/// executor's own sample buffers do not grow with the step), counting allocations
/// once the first two macro steps are done.
DirectRun run_directly(const std::vector<std::string>& assignments, bool rollbackless,
                       Time imposed_step = 0) {
  const tools::Scenario scenario = load(kScenario, assignments);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system;
  for (const tools::SlaveSpec& spec : scenario.slaves) {
    auto slave =
        models::make_ode_slave(spec.name, catalog.create(spec.model, spec.parameters), spec.solver);
    if (rollbackless) slave = std::make_unique<HardwareLikeSlave>(std::move(slave), imposed_step);
    system.add_slave(spec.name, std::move(slave));
  }
  for (const tools::ConnectionSpec& connection : scenario.connections)
    system.connect(connection.from, connection.to);
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
  executor.initialize();
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(executor.advance());
  const long before = allocations();
  while (executor.advance()) {
  }
  return {executor.decision_hash(), executor.counters(), allocations() - before};
}

TEST(DefectControl, RunsOnSlavesThatCannotRollBack) {
  const std::vector<std::string> assignments{"time.end=5", variable_step(1e-4, 2)};
  const DirectRun hardware = run_directly(assignments, true);
  const DirectRun software = run_directly(assignments, false);
  EXPECT_EQ(hardware.counters.rollbacks, 0U);
  EXPECT_GT(hardware.counters.macro_steps, 10U);
  EXPECT_EQ(hardware.hash, software.hash);
}

// Every step a multiple of the slaves' imposed step, the controller's H₁ = 10⁻⁴ s
// rounded up to it; the span must be a multiple too.
TEST(DefectControl, HonoursAnImposedStep) {
  const Time millisecond = to_ticks(1e-3);
  const DirectRun imposed = run_directly({"time.end=2", variable_step(1e-4, 1)}, true, millisecond);
  EXPECT_GT(imposed.counters.macro_steps, 10U);
  EXPECT_EQ(imposed.counters.rollbacks, 0U);
  EXPECT_THROW(run_directly({"time.end=2.0005", variable_step(1e-4, 1)}, true, millisecond),
               ConfigurationError);
  EXPECT_THROW(run_directly({"time.end=2", fixed_step(0.0015, 1)}, true, millisecond),
               ConfigurationError);
}

// docs/architecture.md: no heap allocation on the stepping path after start.
TEST(DefectControl, AllocatesNothingAfterTheFirstSteps) {
  for (const std::string solver : {"cvode", "euler"}) {
    const DirectRun variable =
        run_directly(with_solver({"time.end=10", variable_step(1e-5, 1)}, solver), true);
    EXPECT_GT(variable.counters.macro_steps, 100U);
    EXPECT_EQ(variable.allocations_after_first_steps, 0) << solver;
    const DirectRun fixed =
        run_directly(with_solver({"time.end=10", fixed_step(0.01, 1)}, solver), true);
    EXPECT_EQ(fixed.allocations_after_first_steps, 0) << solver;
  }
}

TEST(DefectControl, StepRecordHoldsTheControllerState) {
  const tools::Scenario scenario = load(kScenario, {"time.end=1", variable_step(1e-3, 1)});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  const auto& defect_control = dynamic_cast<const DefectControlledJacobi&>(*algorithm);
  Executor executor(system, *algorithm, 0, to_ticks(1.0), {});
  executor.initialize();
  ASSERT_EQ(defect_control.connection_names().size(), 2U);
  ASSERT_EQ(defect_control.output_names().size(), 2U);
  Time previous_end = 0;
  double previous_step = 1e-4;
  while (executor.advance()) {
    const DefectControlStepRecord& record = defect_control.last_step_record();
    EXPECT_EQ(record.start, previous_end);
    EXPECT_GT(record.midpoint, record.start);
    EXPECT_LT(record.midpoint, record.end);
    EXPECT_TRUE(record.controlled);
    const double largest = std::max(
        *std::max_element(record.connection_defect_rms.begin(), record.connection_defect_rms.end()),
        *std::max_element(record.output_defect_rms.begin(), record.output_defect_rms.end()));
    EXPECT_EQ(record.defect, largest);
    EXPECT_LE(record.controller.step, 2.0 * to_seconds(record.end - record.start) * (1 + 1e-12));
    EXPECT_NEAR(std::log(record.controller.step),
                record.controller.integral + 0.13 * record.controller.error_log, 1e-9);
    if (record.index == 1) {
      EXPECT_EQ(to_seconds(record.end - record.start), previous_step);
    }
    previous_end = record.end;
  }
  EXPECT_EQ(previous_end, to_ticks(1.0));
}

// ---------------------------------------------------------------------------
// Configuration.

void expect_rejected(const std::string& algorithm, const std::string& key) {
  try {
    tools::make_algorithm(load(kScenario, {"algorithm=" + algorithm}).algorithm);
    ADD_FAILURE() << "accepted " << algorithm;
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find(key), std::string::npos)
        << algorithm << ": " << error.what();
  }
}

TEST(DefectControl, BadParametersAreRejectedNamingTheKey) {
  expect_rejected("{type: defect_control, tol: 0}", "algorithm.tol");
  expect_rejected("{type: defect_control, tol: -1.0e-3}", "algorithm.tol");
  expect_rejected("{type: defect_control}", "algorithm.tol");
  expect_rejected("{type: defect_control, tol: 1.0e-3, input_order: 3}", "algorithm.input_order");
  expect_rejected("{type: defect_control, tol: 1.0e-3, input_order: -1}", "algorithm.input_order");
  expect_rejected("{type: defect_control, tol: 1.0e-3, output_order: 1.5}",
                  "algorithm.output_order");
  expect_rejected("{type: defect_control, tol: 1.0e-3, min_step: 0.1, max_step: 0.01}",
                  "algorithm.min_step");
  expect_rejected("{type: defect_control, tol: 1.0e-3, initial_step: 0}", "algorithm.initial_step");
  expect_rejected("{type: defect_control, tol: 1.0e-3, initial_step: -0.1}",
                  "algorithm.initial_step");
  expect_rejected("{type: defect_control, tol: 1.0e-3, theta_max: 0.5}", "algorithm.theta_max");
  expect_rejected("{type: defect_control, tol: 1.0e-3, defect: everything}", "algorithm.defect");
  expect_rejected("{type: defect_control, tol: 1.0e-3, tolerance: 1}", "algorithm.tolerance");
  expect_rejected("{type: defect_control, step: 0}", "algorithm.step");
  expect_rejected("{type: defect_control, step: 0.01, k_p: 0.2}", "algorithm.k_p");
  expect_rejected("{type: defect_control, tol: 1.0e-3, step: -1}", "algorithm.step");
}

// `tol` selects the variable step; a `step` left over from a fixed-step scenario is
// then H₁ (Algorithm 1 starts from H₁ in both variants), unless initial_step is given.
TEST(DefectControl, FixedStepScenarioSwitchesToDefectControl) {
  const auto fixed = run("rotational_two_mass.yaml",
                         {"time.end=2", "algorithm.type=defect_control"}, "dc-switch-1");
  EXPECT_EQ(fixed.at("macro_steps").get<int>(), 20);
  EXPECT_TRUE(fixed.at("defects").contains("connection"));
  const auto variable =
      run("rotational_two_mass.yaml",
          {"time.end=2", "algorithm.type=defect_control", "algorithm.tol=1.0e-3"}, "dc-switch-2");
  const auto explicit_start =
      run("rotational_two_mass.yaml",
          {"time.end=2", "algorithm={type: defect_control, tol: 1.0e-3, initial_step: 0.1}"},
          "dc-switch-3");
  EXPECT_EQ(variable.at("decision_hash"), explicit_start.at("decision_hash"));
  EXPECT_NE(variable.at("macro_steps").get<int>(), 20);
}

}  // namespace
}  // namespace couplet::testing
