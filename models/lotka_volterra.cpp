// Non-linear test case of MISSILES (Éguillon, Lacabanne, Tromeur-Dervout 2023,
// "MISSILES: an Efficient Resolution of the Co-simulation Coupling Constraint on
// Nearly Linear Differential Systems through a Global Linear Formulation",
// doi:10.1016/j.cam.2022.115013, §4.2, figure 8): the Lotka–Volterra prey–predator
// equations (Volterra 1928, doi:10.1093/icesjms/3.1.3), one system per species.
//
// lotka_volterra.prey (S₁), state x₁, input u₁ = the predators, output y₁ = x₁:
//   ẋ₁ = α x₁ − β x₁ u₁
// lotka_volterra.predator (S₂), state x₂, input u₂ = the prey, output y₂ = x₂:
//   ẋ₂ = δ u₂ x₂ − γ x₂
// Coupled (u₁ = x₂, u₂ = x₁) they are the classic system. Outputs are states: no
// direct feedthrough. Both equations read ẋ = x (a + b u), with (a, b) = (α, −β)
// for the prey and (−γ, δ) for the predator, which is how they are implemented.
//
// Parameters. The paper's table 5 is not legible in our copy; the defaults are
// the classic α = 1.5, β = 1, γ = 3, δ = 1 from its initial state (1, 1). The
// coupled system conserves V = δ x₁ − γ ln x₁ + β x₂ − α ln x₂ (dV/dt = 0 along
// solutions), so every orbit with x₁, x₂ > 0 is a closed cycle around the
// equilibrium (γ/δ, α/β) = (3, 1.5). From (1, 1): period ≈ 3.32 s, prey between
// 0.95 and 6.90, predators between 0.26 and 4.58. A co-simulation error that
// adds energy shows as an orbit spiralling outwards (the paper's figure 11).
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"

namespace couplet::models {
namespace {

constexpr const char* prey_name = "lotka_volterra.prey";
constexpr const char* predator_name = "lotka_volterra.predator";

// Output derivatives up to the ODE slave's cap (the Hermite/Taylor inputs of the
// algorithms need no more).
constexpr int kMaxOutputDerivativeOrder = 3;

/// One species: ẋ = x (a + b u), y = x.
class Species final : public Model {
 public:
  Species(ModelDescription description, double growth_rate, double interaction_rate,
          double initial_population)
      : description_(std::move(description)),
        growth_rate_(growth_rate),
        interaction_rate_(interaction_rate),
        initial_population_(initial_population) {}

  const ModelDescription& description() const override { return description_; }

  void initial_state(std::span<double> x) const override { x[0] = initial_population_; }

  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = x[0] * (growth_rate_ + interaction_rate_ * u[0]);
  }

  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }

  int output_derivative_order() const override { return kMaxOutputDerivativeOrder; }

  /// y⁽ᵏ⁾ = x⁽ᵏ⁾, from the Leibniz rule on ẋ = a x + b x u:
  ///   x⁽ᵏ⁺¹⁾ = a x⁽ᵏ⁾ + b Σ_{j=0..k} C(k, j) x⁽ʲ⁾ u⁽ᵏ⁻ʲ⁾,
  /// which reads u, u̇, …, u⁽ᵏ⁾ from the jet (rows 0..order).
  void output_derivatives(double, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    if (order < 0 || order > kMaxOutputDerivativeOrder) {
      throw ProtocolViolation("model '" + description_.name + "': output derivatives of order " +
                              std::to_string(order) + " requested, at most " +
                              std::to_string(kMaxOutputDerivativeOrder) + " available");
    }
    constexpr std::array<std::array<double, kMaxOutputDerivativeOrder>, kMaxOutputDerivativeOrder>
        binomial{{{1, 0, 0}, {1, 1, 0}, {1, 2, 1}}};
    std::array<double, kMaxOutputDerivativeOrder + 1> state_derivatives{x[0]};
    for (int k = 0; k < order; ++k) {
      const auto row = static_cast<std::size_t>(k);
      double interaction = 0.0;
      for (std::size_t j = 0; j <= row; ++j) {
        interaction += binomial[row][j] * state_derivatives[j] * input_jet[row - j];
      }
      state_derivatives[row + 1] =
          growth_rate_ * state_derivatives[row] + interaction_rate_ * interaction;
      derivatives[row] = state_derivatives[row + 1];
    }
  }

 private:
  const ModelDescription description_;
  const double growth_rate_;
  const double interaction_rate_;
  const double initial_population_;
};

ModelDescription prey_description() {
  return ModelDescription{
      .name = prey_name,
      .summary = "MISSILES Lotka-Volterra test case, system S1: the prey, "
                 "dx/dt = alpha x - beta x u; input the predators, output the prey",
      .inputs = {"predator"},
      .outputs = {{.name = "prey"}},
      .states = {"prey"},
      .parameters = {
          {"alpha", 1.5, "growth rate of the prey without predators [1/s]"},
          {"beta", 1.0, "rate at which predators eat prey [1/(s predator)]"},
          {"x0", 1.0, "initial prey population x_{1,1}(0) [-]"},
      }};
}

ModelDescription predator_description() {
  return ModelDescription{
      .name = predator_name,
      .summary = "MISSILES Lotka-Volterra test case, system S2: the predators, "
                 "dx/dt = delta u x - gamma x; input the prey, output the predators",
      .inputs = {"prey"},
      .outputs = {{.name = "predator"}},
      .states = {"predator"},
      .parameters = {
          {"gamma", 3.0, "death rate of the predators without prey [1/s]"},
          {"delta", 1.0, "growth of the predators per prey eaten [1/(s prey)]"},
          {"x0", 1.0, "initial predator population x_{2,1}(0) [-]"},
      }};
}

std::unique_ptr<Model> make_prey(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, prey_name); };
  return std::make_unique<Species>(prey_description(), value("alpha"), -value("beta"), value("x0"));
}

std::unique_ptr<Model> make_predator(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, predator_name); };
  return std::make_unique<Species>(predator_description(), -value("gamma"), value("delta"),
                                   value("x0"));
}

}  // namespace

void add_lotka_volterra_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(prey_description(), make_prey));
  entries.push_back(make_entry(predator_description(), make_predator));
}

}  // namespace couplet::models
