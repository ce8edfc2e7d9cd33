// The car with a speed controller (F3ORNITS paper §4.1, docs/references.md) and the model
// extension it needs: a model reading the time derivative of its input
// (Model::input_derivative_order), in the ODE slave and in the monolithic reference.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"
#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

std::unique_ptr<Model> create(const std::string& name, const std::map<std::string, double, std::less<>>& overrides = {}) {
  return ModelCatalog::builtin().create(name, overrides);
}

TEST(CarTest, ControllerReadsTheDerivativeOfItsInput) {
  const auto controller = create("car.controller");
  EXPECT_EQ(controller->input_derivative_order(), 1);
  EXPECT_TRUE(controller->description().outputs[0].direct_feedthrough);
  std::array<double, 1> force{};
  const std::array<double, 2> jet{100.0, 15.0};  // position, speed
  controller->outputs(12.0, {}, jet, force);
  EXPECT_DOUBLE_EQ(force[0], 800.0 * (16.0 - 15.0));
  controller->outputs(5.0, {}, jet, force);  // preset: 2400 sin²(π/2)
  EXPECT_DOUBLE_EQ(force[0], 2400.0);
  // dF/dt = −K ü after the switch; 2400 · (π/10) sin(2πt/10) before.
  std::array<double, 1> derivative{};
  const std::array<double, 3> jet2{100.0, 15.0, 0.5};
  controller->output_derivatives(12.0, {}, jet2, 1, derivative);
  EXPECT_DOUBLE_EQ(derivative[0], -800.0 * 0.5);
  controller->output_derivatives(2.5, {}, jet2, 1, derivative);
  EXPECT_NEAR(derivative[0], 2400.0 * std::numbers::pi / 10.0, 1e-9);
}

TEST(CarTest, VehicleOutputDerivativesAreAnalytic) {
  const auto vehicle = create("car.vehicle");
  const std::array<double, 2> state{3.0, 14.0};
  const std::array<double, 3> jet{500.0, 20.0, -1.0};  // F, Ḟ, F̈
  std::array<double, 4> derivatives{};
  vehicle->output_derivatives(1.7, state, jet, 2, derivatives);
  std::array<double, 2> rate{};
  vehicle->derivatives(1.7, state, jet, rate);
  EXPECT_DOUBLE_EQ(derivatives[0], 14.0);     // ṗosition = v
  EXPECT_DOUBLE_EQ(derivatives[1], rate[1]);  // v̇ = (F + w)/m
  EXPECT_DOUBLE_EQ(derivatives[2], rate[1]);  // p̈ = v̇
  // v̈ = (Ḟ + ẇ)/m, checked against a central difference of v̇.
  const double h = 1e-5;
  std::array<double, 2> later{}, earlier{};
  const std::array<double, 1> force_later{500.0 + 20.0 * h}, force_earlier{500.0 - 20.0 * h};
  vehicle->derivatives(1.7 + h, state, force_later, later);
  vehicle->derivatives(1.7 - h, state, force_earlier, earlier);
  EXPECT_NEAR(derivatives[3], (later[1] - earlier[1]) / (2.0 * h), 1e-8);
}

// The ODE slave hands the model the input polynomial's derivative: a ZOH input
// means u̇ = 0 (the car "stands still"), a line its slope.
TEST(CarTest, OdeSlaveGivesTheInputJet) {
  auto slave = make_ode_slave("controller", create("car.controller"), SolverSettings{});
  slave->setup(to_ticks(10.0));
  std::array<double, 4> outputs{};  // force and three derivatives
  const std::array<double, 2> line{100.0, 15.0};
  const std::array<Polynomial, 1> moving{Polynomial::taylor(10.0, line)};
  slave->evaluate_outputs(moving, outputs);
  EXPECT_DOUBLE_EQ(outputs[0], 800.0);
  const std::array<Polynomial, 1> held{Polynomial::constant(10.0, 100.0)};
  slave->evaluate_outputs(held, outputs);
  EXPECT_DOUBLE_EQ(outputs[0], 800.0 * 16.0);
  // Samples inside a step read the jet too.
  std::array<double, 1> samples{};
  std::array<double, 4> end{};
  const std::array<Time, 1> sample_times{to_ticks(10.5)};
  slave->step(StepRequest{to_ticks(10.0), to_ticks(11.0), moving, sample_times}, OutputBuffers{end, samples});
  EXPECT_DOUBLE_EQ(samples[0], 800.0);
  EXPECT_DOUBLE_EQ(end[0], 800.0);
}

// Without wind the assembled system has a closed form: the preset force brings the
// car to 12 m/s at t = 10 s (∫ 2400 sin²(πt/10) dt / 1000), then the P controller
// with u̇ = v gives v = 16 − 4 exp(−0.8 (t − 10)).
TEST(CarTest, MonolithicReferenceDifferentiatesThePositionAnalytically) {
  const auto vehicle = create("car.vehicle", {{"wind", 0.0}});
  const auto controller = create("car.controller");
  const std::vector<MonolithicSubsystem> subsystems{{"vehicle", vehicle.get()}, {"controller", controller.get()}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}, {1, 0, 0, 0}};
  const std::vector<double> grid{5.0, 10.0, 12.0, 20.0, 40.0};
  const MonolithicSolution solution = solve_monolithic(subsystems, connections, 0.0, 40.0, grid);
  const auto speed = [&](std::size_t k) { return solution.outputs[0][k * 2 + 1]; };
  // v(5) = (2400/1000) ∫₀⁵ sin²(πt/10) dt = 2.4 · 2.5
  EXPECT_NEAR(speed(0), 6.0, 1e-7);
  EXPECT_NEAR(speed(1), 12.0, 1e-7);
  for (std::size_t k = 2; k < grid.size(); ++k) {
    EXPECT_NEAR(speed(k), 16.0 - 4.0 * std::exp(-0.8 * (grid[k] - 10.0)), 1e-7) << grid[k];
  }
  // The controller's force in the reference is consistent with the car's speed.
  EXPECT_NEAR(solution.outputs[1][2], 800.0 * (16.0 - speed(2)), 1e-4);
}

TEST(CarTest, MonolithicReferenceRejectsDerivativesOfFeedthroughOutputs) {
  // A controller reading another controller's (feedthrough) force.
  const auto first = create("car.controller");
  const auto second = create("car.controller");
  const auto vehicle = create("car.vehicle");
  const std::vector<MonolithicSubsystem> subsystems{{"a", first.get()}, {"b", second.get()}, {"car", vehicle.get()}};
  const std::vector<MonolithicConnection> connections{{2, 0, 0, 0}, {0, 0, 1, 0}, {1, 0, 2, 0}};
  const std::vector<double> grid{0.0};
  EXPECT_THROW(solve_monolithic(subsystems, connections, 0.0, 1.0, grid), ConfigurationError);
}

}  // namespace
}  // namespace couplet::models
