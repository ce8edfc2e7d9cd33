// The Lotka–Volterra pair of MISSILES §4.2 (models/lotka_volterra.cpp): ports and
// parameters in the catalog, analytic output derivatives against differences of
// the integrated trajectory, and the coupled pair's closed orbit (conserved first
// integral, the extents the documentation gives) in the monolithic reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"

namespace couplet::models {
namespace {

// The defaults (docs/models.md): α = 1.5, β = 1, γ = 3, δ = 1 from (1, 1).
constexpr double kAlpha = 1.5, kBeta = 1.0, kGamma = 3.0, kDelta = 1.0;

/// V = δ x₁ − γ ln x₁ + β x₂ − α ln x₂, constant along the coupled system's solutions.
double first_integral(double prey, double predator) {
  return kDelta * prey - kGamma * std::log(prey) + kBeta * predator - kAlpha * std::log(predator);
}

TEST(LotkaVolterra, CatalogDescribesBothSpecies) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const ModelDescription& prey = catalog.find("lotka_volterra.prey").description;
  EXPECT_EQ(prey.inputs, std::vector<std::string>{"predator"});
  ASSERT_EQ(prey.outputs.size(), 1u);
  EXPECT_EQ(prey.outputs[0].name, "prey");
  EXPECT_FALSE(prey.outputs[0].direct_feedthrough);
  EXPECT_EQ(prey.states, std::vector<std::string>{"prey"});
  const ModelDescription& predator = catalog.find("lotka_volterra.predator").description;
  EXPECT_EQ(predator.inputs, std::vector<std::string>{"prey"});
  ASSERT_EQ(predator.outputs.size(), 1u);
  EXPECT_EQ(predator.outputs[0].name, "predator");
  EXPECT_FALSE(predator.outputs[0].direct_feedthrough);

  const auto defaults = [](const ModelDescription& description) {
    std::vector<std::pair<std::string, double>> values;
    for (const ParameterDescription& p : description.parameters)
      values.emplace_back(p.name, p.default_value);
    return values;
  };
  using Values = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(defaults(prey), (Values{{"alpha", kAlpha}, {"beta", kBeta}, {"x0", 1.0}}));
  EXPECT_EQ(defaults(predator), (Values{{"gamma", kGamma}, {"delta", kDelta}, {"x0", 1.0}}));
  EXPECT_THROW(catalog.create("lotka_volterra.prey", {{"gamma", 1.0}}), ConfigurationError);
}

TEST(LotkaVolterra, EquationsUseTheParameters) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto prey =
      catalog.create("lotka_volterra.prey", {{"alpha", 2.0}, {"beta", 0.5}, {"x0", 4.0}});
  const auto predator =
      catalog.create("lotka_volterra.predator", {{"gamma", 0.25}, {"delta", 3.0}, {"x0", 7.0}});
  std::array<double, 1> x{}, rate{}, y{};
  const std::array<double, 1> u{3.0};
  prey->initial_state(x);
  EXPECT_EQ(x[0], 4.0);
  prey->derivatives(0.0, x, u, rate);
  EXPECT_DOUBLE_EQ(rate[0], 2.0 * 4.0 - 0.5 * 4.0 * 3.0);
  prey->outputs(0.0, x, u, y);
  EXPECT_EQ(y[0], 4.0);
  predator->initial_state(x);
  EXPECT_EQ(x[0], 7.0);
  predator->derivatives(0.0, x, u, rate);
  EXPECT_DOUBLE_EQ(rate[0], 3.0 * 3.0 * 7.0 - 0.25 * 7.0);
}

TEST(LotkaVolterra, OutputDerivativesMatchDifferencesOfTheTrajectory) {
  // The prey under a cubic predator input: y⁽ᵏ⁾ at t = 0.5 from the model
  // (Leibniz recursion) against 5-point differences of a tightly integrated
  // trajectory sampled at 0.5 + k h.
  SolverSettings settings;
  settings.relative_tolerance = 1e-13;
  settings.absolute_tolerance = 1e-14;
  const std::array<double, 4> coefficients{1.2, -0.8, 0.9, -0.6};
  const std::array<Polynomial, 1> inputs{Polynomial::from_coefficients(0.0, 1.0, coefficients)};
  const ModelCatalog catalog = ModelCatalog::builtin();

  auto at_point = make_ode_slave("prey", catalog.create("lotka_volterra.prey", {}), settings);
  EXPECT_EQ(at_point->description().capabilities.output_derivative_order, 3);
  at_point->setup(0);
  std::array<double, 4> end{};
  StepRequest request{0, to_ticks(0.5), inputs, {}};
  at_point->step(request, {end, {}});

  const double h = 0.01;
  std::array<Time, 5> sample_times{};
  for (int k = -2; k <= 2; ++k)
    sample_times[static_cast<std::size_t>(k + 2)] = to_ticks(0.5 + k * h);
  auto along = make_ode_slave("prey", catalog.create("lotka_volterra.prey", {}), settings);
  along->setup(0);
  std::array<double, 5> y{};
  std::array<double, 4> along_end{};
  StepRequest long_request{0, to_ticks(0.6), inputs, sample_times};
  along->step(long_request, {along_end, y});

  EXPECT_NEAR(end[0], y[2], 1e-11);
  const double first = (y[0] - 8.0 * y[1] + 8.0 * y[3] - y[4]) / (12.0 * h);
  const double second = (-y[0] + 16.0 * y[1] - 30.0 * y[2] + 16.0 * y[3] - y[4]) / (12.0 * h * h);
  const double third = (-y[0] + 2.0 * y[1] - 2.0 * y[3] + y[4]) / (2.0 * h * h * h);
  EXPECT_NEAR(end[1], first, 1e-7 * std::abs(first));
  EXPECT_NEAR(end[2], second, 1e-6 * std::abs(second));
  EXPECT_NEAR(end[3], third, 1e-3 * std::abs(third));
}

TEST(LotkaVolterra, CoupledPairRunsAClosedOrbitThroughTheInitialState) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto prey = catalog.create("lotka_volterra.prey", {});
  const auto predator = catalog.create("lotka_volterra.predator", {});
  const std::array<MonolithicSubsystem, 2> subsystems{
      {{"prey", prey.get()}, {"predator", predator.get()}}};
  const std::array<MonolithicConnection, 2> connections{{{0, 0, 1, 0}, {1, 0, 0, 0}}};
  std::vector<double> grid;
  for (int k = 0; k <= 10000; ++k) grid.push_back(k * 1e-3);
  const MonolithicSolution solution = solve_monolithic(subsystems, connections, 0.0, 10.0, grid);

  const double initial = first_integral(1.0, 1.0);
  double worst_drift = 0.0;
  double prey_min = 1e300, prey_max = 0.0, predator_min = 1e300, predator_max = 0.0;
  std::vector<double> returns;  // the predators falling through 1 again: once a period
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double x1 = solution.outputs[0][k];
    const double x2 = solution.outputs[1][k];
    worst_drift = std::max(worst_drift, std::abs(first_integral(x1, x2) - initial));
    prey_min = std::min(prey_min, x1);
    prey_max = std::max(prey_max, x1);
    predator_min = std::min(predator_min, x2);
    predator_max = std::max(predator_max, x2);
    if (k > 0 && solution.outputs[1][k - 1] > 1.0 && x2 <= 1.0) returns.push_back(grid[k]);
  }
  EXPECT_LT(worst_drift, 1e-6);  // a closed orbit, not a spiral
  EXPECT_NEAR(prey_min, 0.948, 0.002);
  EXPECT_NEAR(prey_max, 6.905, 0.002);
  EXPECT_NEAR(predator_min, 0.257, 0.002);
  EXPECT_NEAR(predator_max, 4.578, 0.002);
  ASSERT_EQ(returns.size(), 3u);  // three periods in 10 s
  EXPECT_NEAR(returns[0], 3.317, 0.002);
  EXPECT_NEAR(returns[2] - returns[1], returns[0], 0.002);
}

}  // namespace
}  // namespace couplet::models
