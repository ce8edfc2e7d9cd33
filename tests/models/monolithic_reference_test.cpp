// The monolithic reference against closed forms: coupled linear subsystems are
// one linear ODE ẋ = M x + e whose solution is a matrix exponential, computed
// here independently of the code under test (docs/models.md).
#include "models/monolithic_reference.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "models/catalog.hpp"
#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

using Function = std::function<void(double t, std::span<const double> x, std::span<const double> u,
                                    std::span<double> out)>;

/// A model given by two lambdas, for small hand-written test systems.
/// "u0", "x3": built with += (GCC 12 warns falsely about "u" + to_string, -Wrestrict).
std::string indexed(char letter, std::size_t index) {
  std::string name(1, letter);
  name += std::to_string(index);
  return name;
}

class FunctionModel final : public Model {
 public:
  FunctionModel(std::size_t input_count, std::vector<OutputDescription> outputs,
                std::vector<double> initial_state, Function derivatives, Function outputs_function,
                std::vector<double> events = {})
      : initial_state_(std::move(initial_state)),
        derivatives_(std::move(derivatives)),
        outputs_(std::move(outputs_function)),
        events_(std::move(events)) {
    description_.name = "test.function";
    for (std::size_t i = 0; i < input_count; ++i)
      description_.inputs.push_back(indexed('u', i));
    description_.outputs = std::move(outputs);
    for (std::size_t i = 0; i < initial_state_.size(); ++i) {
      description_.states.push_back(indexed('x', i));
    }
  }

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override {
    std::copy(initial_state_.begin(), initial_state_.end(), x.begin());
  }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    derivatives_(t, x, u, dxdt);
  }
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    outputs_(t, x, u, y);
  }
  std::span<const double> time_events() const override { return events_; }

 private:
  ModelDescription description_;
  std::vector<double> initial_state_;
  Function derivatives_, outputs_;
  std::vector<double> events_;
};

/// Scalar subsystem ẋ = −rate x + u, y = x + feedthrough·u.
std::unique_ptr<Model> scalar_lag(double rate, double feedthrough, double initial) {
  return std::make_unique<FunctionModel>(
      1, std::vector<OutputDescription>{{"y", feedthrough != 0.0}}, std::vector<double>{initial},
      [rate](double, auto x, auto u, auto dxdt) { dxdt[0] = -rate * x[0] + u[0]; },
      [feedthrough](double, auto x, auto u, auto y) { y[0] = x[0] + feedthrough * u[0]; });
}

/// x(t0 + duration) of ẋ = M x + e from x0, through the augmented matrix
/// exponential exp([[M, e], [0, 0]] duration).
Eigen::VectorXd propagate(const Eigen::MatrixXd& system, const Eigen::VectorXd& forcing,
                          const Eigen::VectorXd& initial, double duration) {
  const Eigen::Index size = system.rows();
  Eigen::MatrixXd augmented = Eigen::MatrixXd::Zero(size + 1, size + 1);
  augmented.topLeftCorner(size, size) = system;
  augmented.topRightCorner(size, 1) = forcing;
  Eigen::VectorXd start(size + 1);
  start << initial, 1.0;
  const Eigen::MatrixXd transition = (augmented * duration).exp();
  return (transition * start).head(size);
}

Eigen::VectorXd propagate(const Eigen::MatrixXd& system, const Eigen::VectorXd& initial,
                          double duration) {
  return propagate(system, Eigen::VectorXd::Zero(system.rows()), initial, duration);
}

/// Tighter than the defaults so that the closed-form comparisons test the
/// assembly (connections, loops, events) with a wide margin over CVODE's own
/// global error, which at the default rtol 1e-10 is a few 1e-10.
const MonolithicSettings tight{.relative_tolerance = 1e-12, .absolute_tolerance = 1e-14};

std::vector<double> uniform_grid(double start, double end, int intervals) {
  std::vector<double> grid;
  for (int k = 0; k <= intervals; ++k) {
    grid.push_back(start + (end - start) * k / intervals);
  }
  grid.back() = end;
  return grid;
}

double output_at(const MonolithicSolution& solution, std::size_t subsystem, std::size_t point,
                 std::size_t output, std::size_t output_count) {
  return solution.outputs[subsystem][point * output_count + output];
}

// ẋ₁ = −x₁ + u₁, y₁ = x₁; ẋ₂ = −2x₂ + u₂, y₂ = x₂; u₁ = y₂, u₂ = y₁; x(0) = (1, −0.5),
// on a grid of 50 points over [0, 5] s.
struct CoupledLags {
  std::unique_ptr<Model> first = scalar_lag(1.0, 0.0, 1.0);
  std::unique_ptr<Model> second = scalar_lag(2.0, 0.0, -0.5);
  std::vector<MonolithicSubsystem> subsystems{{"first", first.get()}, {"second", second.get()}};
  std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {0, 0, 1, 0}};
  std::vector<double> grid = uniform_grid(0.0, 5.0, 50);
};

TEST(MonolithicReference, TwoCoupledScalarSubsystemsMatchTheMatrixExponential) {
  const CoupledLags lags;
  const auto& [first, second, subsystems, connections, grid] = lags;

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 5.0, grid, tight);

  ASSERT_EQ(solution.times, grid);
  ASSERT_EQ(solution.outputs.size(), 2u);
  ASSERT_EQ(solution.outputs[0].size(), grid.size());
  Eigen::Matrix2d system;
  system << -1.0, 1.0, 1.0, -2.0;
  // Symmetric: the closed form is V exp(Λ t) Vᵀ x₀.
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eigen(system);
  const Eigen::Vector2d initial(1.0, -0.5);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const Eigen::Vector2d exponentials = (eigen.eigenvalues() * grid[k]).array().exp();
    const Eigen::Vector2d exact = eigen.eigenvectors() * exponentials.asDiagonal() *
                                  eigen.eigenvectors().transpose() * initial;
    EXPECT_NEAR(solution.outputs[0][k], exact[0], 1e-9) << "t = " << grid[k];
    EXPECT_NEAR(solution.outputs[1][k], exact[1], 1e-9) << "t = " << grid[k];
  }
}

// A chain through feedthrough ports listed against the evaluation order:
// y₂ = x₂ → u₁, y₁ = x₁ + k₁u₁ → u₀, y₀ = x₀ + k₀u₀ → u₂. Evaluating in index
// order would read inputs not yet set.
TEST(MonolithicReference, FeedthroughChainIsEvaluatedInTopologicalOrder) {
  const double k0 = 0.7, k1 = -1.3;
  const auto head = scalar_lag(1.0, k0, 1.0);
  const auto middle = scalar_lag(2.0, k1, 0.5);
  const auto tail = scalar_lag(0.5, 0.0, -1.0);
  const std::vector<MonolithicSubsystem> subsystems{
      {"head", head.get()}, {"middle", middle.get()}, {"tail", tail.get()}};
  const std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {2, 0, 1, 0}, {0, 0, 2, 0}};
  const auto grid = uniform_grid(0.0, 4.0, 40);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 4.0, grid, tight);

  // y₂ = x₂, y₁ = x₁ + k₁x₂, y₀ = x₀ + k₀(x₁ + k₁x₂).
  Eigen::Matrix3d outputs;
  outputs << 1.0, k0, k0 * k1,  //
      0.0, 1.0, k1,             //
      0.0, 0.0, 1.0;
  const Eigen::Matrix3d decay = Eigen::Vector3d(-1.0, -2.0, -0.5).asDiagonal();
  // ẋᵢ = −rateᵢ xᵢ + uᵢ with u = (y₁, y₂, y₀).
  Eigen::Matrix3d routing;
  routing << 0, 1, 0, 0, 0, 1, 1, 0, 0;
  const Eigen::MatrixXd system = decay + routing * outputs;
  const Eigen::Vector3d initial(1.0, 0.5, -1.0);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const Eigen::Vector3d exact = outputs * propagate(system, initial, grid[k]);
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_NEAR(solution.outputs[s][k], exact[static_cast<Eigen::Index>(s)], 1e-9)
          << "subsystem " << s << ", t = " << grid[k];
    }
  }
}

// y₀ = x₀ + a u₀, y₁ = x₁ + b u₁, u₀ = y₁, u₁ = y₀: a loop through feedthrough on
// both sides. Reduced: y₀ = (x₀ + a x₁)/(1 − ab), y₁ = (x₁ + b x₀)/(1 − ab).
TEST(MonolithicReference, AlgebraicLoopThroughFeedthroughIsSolvedExactly) {
  const double a = 0.5, b = -0.8;
  const auto left = scalar_lag(1.0, a, 1.0);
  const auto right = scalar_lag(2.0, b, 0.3);
  const std::vector<MonolithicSubsystem> subsystems{{"left", left.get()}, {"right", right.get()}};
  const std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {0, 0, 1, 0}};
  const auto grid = uniform_grid(0.0, 5.0, 50);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 5.0, grid, tight);

  Eigen::Matrix2d outputs;
  outputs << 1.0, a, b, 1.0;
  outputs /= 1.0 - a * b;
  Eigen::Matrix2d routing;
  routing << 0, 1, 1, 0;
  const Eigen::MatrixXd system =
      Eigen::Matrix2d(Eigen::Vector2d(-1.0, -2.0).asDiagonal()) + routing * outputs;
  const Eigen::Vector2d initial(1.0, 0.3);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const Eigen::Vector2d exact = outputs * propagate(system, initial, grid[k]);
    EXPECT_NEAR(solution.outputs[0][k], exact[0], 1e-9) << "t = " << grid[k];
    EXPECT_NEAR(solution.outputs[1][k], exact[1], 1e-9) << "t = " << grid[k];
  }
}

// A nonlinear loop, y₀ = x₀ + 0.4 tanh(u₀), y₁ = x₁ − 0.6 sin(u₁): no closed form,
// but at every grid point the reported outputs must satisfy the loop equations.
TEST(MonolithicReference, NonlinearAlgebraicLoopIsConsistentAtEveryGridPoint) {
  const auto make = [](double rate, std::function<double(double)> coupling, double initial) {
    return std::make_unique<FunctionModel>(
        1, std::vector<OutputDescription>{{"state", false}, {"y", true}},
        std::vector<double>{initial},
        [rate](double, auto x, auto u, auto dxdt) { dxdt[0] = -rate * x[0] + u[0]; },
        [coupling](double, auto x, auto u, auto y) {
          y[0] = x[0];
          y[1] = x[0] + coupling(u[0]);
        });
  };
  const auto left = make(
      1.0, [](double u) { return 0.4 * std::tanh(u); }, 2.0);
  const auto right = make(
      0.5, [](double u) { return -0.6 * std::sin(u); }, -1.0);
  const std::vector<MonolithicSubsystem> subsystems{{"left", left.get()}, {"right", right.get()}};
  const std::vector<MonolithicConnection> connections{{1, 1, 0, 0}, {0, 1, 1, 0}};
  const auto grid = uniform_grid(0.0, 3.0, 30);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 3.0, grid, tight);

  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double x0 = output_at(solution, 0, k, 0, 2), y0 = output_at(solution, 0, k, 1, 2);
    const double x1 = output_at(solution, 1, k, 0, 2), y1 = output_at(solution, 1, k, 1, 2);
    EXPECT_NEAR(y0, x0 + 0.4 * std::tanh(y1), 1e-13) << "t = " << grid[k];
    EXPECT_NEAR(y1, x1 - 0.6 * std::sin(y0), 1e-13) << "t = " << grid[k];
  }
  EXPECT_DOUBLE_EQ(output_at(solution, 0, 0, 0, 2), 2.0);
  EXPECT_GT(std::abs(output_at(solution, 0, 0, 1, 2) - 2.0), 0.1);  // the loop really acts
}

// The switching subsystem: ẋ₀ = −x₀ + u₀, y₀ = x₀ before t_e; ẋ₀ = −3x₀ + u₀ + 2,
// y₀ = x₀ + 1 from t_e on; it is driven by ẋ₁ = −0.5 x₁, y₁ = x₁.
TEST(MonolithicReference, StopsExactlyAtATimeEvent) {
  constexpr double event = 1.3;
  std::vector<double> derivative_times;
  const auto switching = std::make_unique<FunctionModel>(
      1, std::vector<OutputDescription>{{"y", false}}, std::vector<double>{1.0},
      [&derivative_times](double t, auto x, auto u, auto dxdt) {
        derivative_times.push_back(t);
        dxdt[0] = t < event ? -x[0] + u[0] : -3.0 * x[0] + u[0] + 2.0;
      },
      [](double t, auto x, auto, auto y) { y[0] = t < event ? x[0] : x[0] + 1.0; },
      std::vector<double>{event});
  // The driver's input is connected (every input must be) but ignored, so the
  // closed form is a cascade.
  const auto driver = std::make_unique<FunctionModel>(
      1, std::vector<OutputDescription>{{"y", false}}, std::vector<double>{2.0},
      [](double, auto x, auto, auto dxdt) { dxdt[0] = -0.5 * x[0]; },
      [](double, auto x, auto, auto y) { y[0] = x[0]; });
  const std::vector<MonolithicSubsystem> subsystems{{"switching", switching.get()},
                                                    {"driver", driver.get()}};
  const std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {0, 0, 1, 0}};
  const auto grid =
      std::vector<double>{0.0, 0.5, event - 1e-6, event, event + 1e-6, event + 1e-3, 1.6, 2.5, 4.0};

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 4.0, grid, tight);

  Eigen::Matrix2d before, after;
  before << -1.0, 1.0, 0.0, -0.5;
  after << -3.0, 1.0, 0.0, -0.5;
  const Eigen::Vector2d forcing_after(2.0, 0.0);
  const Eigen::Vector2d initial(1.0, 2.0);
  const Eigen::Vector2d at_event = propagate(before, initial, event);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double t = grid[k];
    const Eigen::Vector2d exact = t < event ? propagate(before, initial, t)
                                            : propagate(after, forcing_after, at_event, t - event);
    const double output = t < event ? exact[0] : exact[0] + 1.0;
    EXPECT_NEAR(solution.outputs[0][k], output, 1e-8) << "t = " << t;
    EXPECT_NEAR(solution.outputs[1][k], exact[1], 1e-8) << "t = " << t;
  }
  // The restart evaluates the new equations at t_e itself, and the last step
  // before it ends there (seen just below t_e): both happen only when the
  // integrator stops at the event.
  EXPECT_NE(std::find(derivative_times.begin(), derivative_times.end(), event),
            derivative_times.end());
  const double just_before = std::nextafter(event, 0.0);
  EXPECT_NE(std::find(derivative_times.begin(), derivative_times.end(), just_before),
            derivative_times.end());
  for (const double t : derivative_times) EXPECT_LE(t, 4.0);
}

// A pulse of width 1e-4 between two events: ẋ = −x + 1000 on [1, 1.0001), ẋ = −x
// elsewhere, x(0) = 0. Before the pulse ẋ = 0 and the steps grow large; an
// integrator that did not stop at the events would step over the pulse.
TEST(MonolithicReference, ShortPulseBetweenTwoEventsIsNotSteppedOver) {
  constexpr double pulse_start = 1.0, pulse_end = 1.0001, height = 1000.0;
  const auto pulse = std::make_unique<FunctionModel>(
      0, std::vector<OutputDescription>{{"y", false}}, std::vector<double>{0.0},
      [](double t, auto x, auto, auto dxdt) {
        const bool on = t >= pulse_start && t < pulse_end;
        dxdt[0] = -x[0] + (on ? height : 0.0);
      },
      [](double, auto x, auto, auto y) { y[0] = x[0]; },
      std::vector<double>{pulse_start, pulse_end});
  const std::vector<MonolithicSubsystem> subsystems{{"pulse", pulse.get()}};
  const std::vector<double> grid{0.0, 0.9, pulse_start, 1.00005, pulse_end, 2.0, 10.0};

  const auto solution = solve_monolithic(subsystems, {}, 0.0, 10.0, grid);

  const Eigen::MatrixXd decay = Eigen::MatrixXd::Constant(1, 1, -1.0);
  const Eigen::VectorXd forcing = Eigen::VectorXd::Constant(1, height);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(1);
  const Eigen::VectorXd after_pulse = propagate(decay, forcing, zero, pulse_end - pulse_start);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double t = grid[k];
    const double exact = t < pulse_start ? 0.0
                         : t < pulse_end ? propagate(decay, forcing, zero, t - pulse_start)[0]
                                         : propagate(decay, after_pulse, t - pulse_end)[0];
    EXPECT_NEAR(solution.outputs[0][k], exact, 1e-8) << "t = " << t;
  }
  EXPECT_GT(solution.outputs[0][4], 0.09);  // the pulse left its mark
}

// The settings reach CVODE: the error against the closed form follows the tolerances.
TEST(MonolithicReference, ErrorFollowsTheTolerances) {
  const CoupledLags lags;
  // Named references, not a structured binding: clang 14 cannot capture those.
  const auto& subsystems = lags.subsystems;
  const auto& connections = lags.connections;
  const auto& grid = lags.grid;
  Eigen::Matrix2d system;
  system << -1.0, 1.0, 1.0, -2.0;
  const Eigen::Vector2d initial(1.0, -0.5);
  const auto max_error = [&](const MonolithicSettings& settings) {
    const auto solution = solve_monolithic(subsystems, connections, 0.0, 5.0, grid, settings);
    double error = 0.0;
    for (std::size_t k = 0; k < grid.size(); ++k) {
      const Eigen::VectorXd exact = propagate(system, initial, grid[k]);
      error = std::max({error, std::abs(solution.outputs[0][k] - exact[0]),
                        std::abs(solution.outputs[1][k] - exact[1])});
    }
    return error;
  };
  const double loose = max_error({.relative_tolerance = 1e-6, .absolute_tolerance = 1e-8});
  const double standard = max_error({});
  const double tighter = max_error(tight);
  EXPECT_GT(loose, 10.0 * standard);
  EXPECT_GT(standard, 10.0 * tighter);
  EXPECT_LT(standard, 1e-8);
}

TEST(MonolithicReference, UnconnectedInputIsNamed) {
  const auto first = scalar_lag(1.0, 0.0, 1.0);
  const auto second = scalar_lag(2.0, 0.0, 1.0);
  const std::vector<MonolithicSubsystem> subsystems{{"first", first.get()},
                                                    {"second", second.get()}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}};
  const std::vector<double> grid{0.0, 1.0};
  try {
    solve_monolithic(subsystems, connections, 0.0, 1.0, grid);
    FAIL() << "expected a ConfigurationError";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("first.u0"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("not connected"), std::string::npos) << error.what();
  }
}

TEST(MonolithicReference, InputConnectedTwiceIsNamed) {
  const auto first = scalar_lag(1.0, 0.0, 1.0);
  const auto second = scalar_lag(2.0, 0.0, 1.0);
  const std::vector<MonolithicSubsystem> subsystems{{"first", first.get()},
                                                    {"second", second.get()}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}};
  const std::vector<double> grid{0.0, 1.0};
  try {
    solve_monolithic(subsystems, connections, 0.0, 1.0, grid);
    FAIL() << "expected a ConfigurationError";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("first.u0"), std::string::npos) << error.what();
  }
}

TEST(MonolithicReference, BadIndicesAndGridsAreConfigurationErrors) {
  const auto first = scalar_lag(1.0, 0.0, 1.0);
  const std::vector<MonolithicSubsystem> subsystems{{"first", first.get()}};
  const std::vector<MonolithicConnection> valid{{0, 0, 0, 0}};
  const std::vector<MonolithicConnection> bad_output{{0, 1, 0, 0}};
  const std::vector<MonolithicConnection> bad_subsystem{{0, 0, 3, 0}};
  const std::vector<double> grid{0.0, 1.0};
  EXPECT_THROW(solve_monolithic(subsystems, bad_output, 0.0, 1.0, grid), ConfigurationError);
  EXPECT_THROW(solve_monolithic(subsystems, bad_subsystem, 0.0, 1.0, grid), ConfigurationError);
  EXPECT_THROW(solve_monolithic(subsystems, valid, 0.0, 1.0, std::vector<double>{0.0, 1.5}),
               ConfigurationError);
  EXPECT_THROW(solve_monolithic(subsystems, valid, 0.0, 1.0, std::vector<double>{-0.1, 0.5}),
               ConfigurationError);
  EXPECT_THROW(solve_monolithic(subsystems, valid, 0.0, 1.0, std::vector<double>{0.5, 0.2}),
               ConfigurationError);
  EXPECT_THROW(solve_monolithic(subsystems, valid, 1.0, 1.0, std::vector<double>{1.0}),
               ConfigurationError);
  // A self-loop without feedthrough is fine: ẋ = −x + x = 0.
  const auto solution = solve_monolithic(subsystems, valid, 0.0, 1.0, grid);
  EXPECT_NEAR(solution.outputs[0][1], 1.0, 1e-12);
}

TEST(MonolithicReference, SolverFailureNamesTheTimeAndFlag) {
  const auto broken = std::make_unique<FunctionModel>(
      0, std::vector<OutputDescription>{{"y", false}}, std::vector<double>{1.0},
      // ẋ = x², x(0) = 1: x = 1/(1 − t) blows up at t = 1.
      [](double, auto x, auto, auto dxdt) { dxdt[0] = x[0] * x[0]; },
      [](double, auto x, auto, auto y) { y[0] = x[0]; });
  const std::vector<MonolithicSubsystem> subsystems{{"broken", broken.get()}};
  const std::vector<double> grid{0.0, 2.0};
  try {
    solve_monolithic(subsystems, {}, 0.0, 2.0, grid);
    FAIL() << "expected a solver failure";
  } catch (const std::runtime_error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("CV_"), std::string::npos) << message;
    EXPECT_NE(message.find("t = 2"), std::string::npos) << message;
  }
}

TEST(MonolithicReference, ModelExceptionsPropagateThroughTheIntegrator) {
  const auto throwing = std::make_unique<FunctionModel>(
      0, std::vector<OutputDescription>{{"y", false}}, std::vector<double>{1.0},
      [](double t, auto x, auto, auto dxdt) {
        if (t > 0.25) throw std::domain_error("model out of range");
        dxdt[0] = -x[0];
      },
      [](double, auto x, auto, auto y) { y[0] = x[0]; });
  const std::vector<MonolithicSubsystem> subsystems{{"throwing", throwing.get()}};
  const std::vector<double> grid{0.0, 1.0};
  EXPECT_THROW(solve_monolithic(subsystems, {}, 0.0, 1.0, grid), std::domain_error);
}

// Glumac §4: omega2tau + tau2omega is the physical two-mass oscillator
//   J₁ω̇₁ = −c₁φ₁ − d₁ω₁ − τ,  J₂ω̇₂ = −c₂φ₂ − d₂ω₂ + τ,  τ = c_k(φ₁−φ₂) + d_k(ω₁−ω₂),
// with φ_o ≡ φ₂ (both start at 0.2 and φ̇_o = ω₂).
TEST(MonolithicReference, RotationalOscillatorMatchesThePhysicalSystem) {
  const auto catalog = ModelCatalog::builtin();
  const auto omega2tau = catalog.create("rotational.omega2tau", {});
  const auto tau2omega = catalog.create("rotational.tau2omega", {});
  const std::vector<MonolithicSubsystem> subsystems{{"mass1", omega2tau.get()},
                                                    {"mass2", tau2omega.get()}};
  const std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {0, 0, 1, 0}};
  const auto grid = uniform_grid(0.0, 50.0, 200);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 50.0, grid);

  const double inertia1 = 10, c1 = 1, d1 = 1, ck = 1, dk = 2, inertia2 = 10, c2 = 1, d2 = 2;
  Eigen::Matrix4d system;  // state (φ₁, ω₁, φ₂, ω₂)
  system << 0, 1, 0, 0,    //
      -(c1 + ck) / inertia1, -(d1 + dk) / inertia1, ck / inertia1, dk / inertia1,  //
      0, 0, 0, 1,                                                                  //
      ck / inertia2, dk / inertia2, -(c2 + ck) / inertia2, -(d2 + dk) / inertia2;
  const Eigen::Vector4d initial(0.1, 0.1, 0.2, 0.1);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const Eigen::Vector4d state = propagate(system, initial, grid[k]);
    const double torque = ck * (state[0] - state[2]) + dk * (state[1] - state[3]);
    EXPECT_NEAR(solution.outputs[0][k], torque, 1e-8) << "t = " << grid[k];
    EXPECT_NEAR(solution.outputs[1][k], state[3], 1e-8) << "t = " << grid[k];
  }
}

// The translational two-mass with the switch at t = 100 s: at the switch the
// wall stiffness becomes 4 and the anchor jumps to 1 m.
TEST(MonolithicReference, TranslationalSwitchMatchesThePiecewisePhysicalSystem) {
  const auto catalog = ModelCatalog::builtin();
  const auto left = catalog.create("translational.mass", {});
  const auto right = catalog.create("translational.coupled_mass", {});
  const std::vector<MonolithicSubsystem> subsystems{{"left", left.get()}, {"right", right.get()}};
  // left.f ← right.f; right.x ← left.x; right.v ← left.v.
  const std::vector<MonolithicConnection> connections{{1, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 1, 1}};
  auto grid = uniform_grid(0.0, 200.0, 400);
  grid.insert(std::lower_bound(grid.begin(), grid.end(), 100.0001), 100.0001);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 200.0, grid);

  const double m1 = 10, c = 1, d = 0.1, m2 = 1, dw = 0.1, cc = 1, dc = 0.2;
  const auto physical = [&](double wall_stiffness) {
    Eigen::Matrix4d system;  // state (x₁, v₁, x₂, v₂), f = cc(x₂−x₁) + dc(v₂−v₁)
    system << 0, 1, 0, 0,    //
        -(c + cc) / m1, -(d + dc) / m1, cc / m1, dc / m1,  //
        0, 0, 0, 1,                                        //
        cc / m2, dc / m2, -(wall_stiffness + cc) / m2, -(dw + dc) / m2;
    return system;
  };
  const Eigen::Vector4d forcing_after(0, 0, 0, 4.0 * 1.0 / m2);
  const Eigen::Vector4d initial(1.0, 0.0, 0.0, 0.0);
  const Eigen::Vector4d at_switch = propagate(physical(1.0), initial, 100.0);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double t = grid[k];
    const Eigen::Vector4d state =
        t < 100.0 ? propagate(physical(1.0), initial, t)
                  : propagate(physical(4.0), forcing_after, at_switch, t - 100.0);
    const double force = cc * (state[2] - state[0]) + dc * (state[3] - state[1]);
    // At the default rtol 1e-10 CVODE's global error after 200 s of lightly
    // damped oscillation is about 7e-9.
    EXPECT_NEAR(output_at(solution, 0, k, 0, 2), state[0], 5e-8) << "t = " << t;
    EXPECT_NEAR(output_at(solution, 0, k, 1, 2), state[1], 5e-8) << "t = " << t;
    EXPECT_NEAR(solution.outputs[1][k], force, 5e-8) << "t = " << t;
  }
}

}  // namespace
}  // namespace couplet::models
