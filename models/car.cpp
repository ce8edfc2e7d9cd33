// Car with a speed controller: F3ORNITS paper §4.1, figs. 9–12 (docs/references.md;
// docs/models.md). The test case shows why coupling variables need their dynamics: the
// controller only sees the car's position and differentiates it.
//
// car.vehicle, states (position, v), input force F, outputs position and v (the
// speed, exposed for evaluation; the coupling uses the position only):
//   ṗosition = v,   m v̇ = F + w(t),   w(t) = a Σᵢ sin(ωᵢ t + φᵢ)
// a 1D wind with ω = (0.7, 1.9, 3.1, 5.3) rad/s, φ = (0.3, 1.1, 2.0, 4.2) (fig. 9's
// "random perturbation", made deterministic).
//
// car.controller, no state, input position u, output force F (direct feedthrough):
//   F = A sin²(π t / T)          for t < T (the preset force of fig. 10)
//   F = K (v_target − u̇)         for t ≥ T (a P controller on the speed)
// where u̇ is the time derivative of the position input: the model reads the input
// jet (Model::input_derivative_order = 1). The paper rebuilds the speed inside the
// controller with a DAE (ẋ = v, x − u = 0), which amounts to the same u̇. With a
// zero-order-hold input u̇ = 0 on every step, the controller believes the car
// stands still and pushes for ever (fig. 11: the speed runs away); with polynomial
// inputs it holds v_target.
#include <array>
#include <cmath>
#include <memory>
#include <numbers>

#include "models/catalog.hpp"

namespace couplet::models {
namespace {

constexpr const char* vehicle_name = "car.vehicle";
constexpr const char* controller_name = "car.controller";
constexpr int kMaxOutputDerivativeOrder = 3;

constexpr std::array<double, 4> kWindFrequencies{0.7, 1.9, 3.1, 5.3};  // rad/s
constexpr std::array<double, 4> kWindPhases{0.3, 1.1, 2.0, 4.2};       // rad

/// d^k/dt^k sin(ω t + φ) = ω^k sin(ω t + φ + k π/2).
double sine_derivative(double frequency, double phase, double t, int order) {
  return std::pow(frequency, order) * std::sin(frequency * t + phase + order * std::numbers::pi / 2.0);
}

ModelDescription vehicle_description() {
  return ModelDescription{
      .name = vehicle_name,
      .summary = "car (a mass) pushed by a force and a deterministic wind: input force, "
                 "outputs position and speed",
      .inputs = {"force"},
      .input_units = {"N"},
      .outputs = {{.name = "position", .unit = "m"}, {.name = "v", .unit = "m/s"}},
      .states = {"position", "v"},
      .parameters = {
          {"m", 1000.0, "mass of the car [kg]"},
          {"wind", 150.0, "amplitude a of each of the four wind sines [N]"},
          {"x0", 0.0, "initial position [m]"},
          {"v0", 0.0, "initial speed [m/s]"},
      }};
}

class Vehicle final : public Model {
 public:
  explicit Vehicle(const ParameterValues& values)
      : mass_(positive_parameter_value(values, "m", vehicle_name)),
        wind_(parameter_value(values, "wind", vehicle_name)),
        initial_position_(parameter_value(values, "x0", vehicle_name)),
        initial_speed_(parameter_value(values, "v0", vehicle_name)) {}

  const ModelDescription& description() const override { return description_; }

  void initial_state(std::span<double> x) const override {
    x[0] = initial_position_;
    x[1] = initial_speed_;
  }

  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = (u[0] + wind(t, 0)) / mass_;
  }

  void outputs(double, std::span<const double> x, std::span<const double>, std::span<double> y) const override {
    y[0] = x[0];
    y[1] = x[1];
  }

  int output_derivative_order() const override { return kMaxOutputDerivativeOrder; }

  /// position⁽¹⁾ = v, position⁽ᵈ⁾ = v⁽ᵈ⁻¹⁾, v⁽ᵈ⁾ = (F⁽ᵈ⁻¹⁾ + w⁽ᵈ⁻¹⁾(t)) / m.
  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet, int order,
                          std::span<double> derivatives) const override {
    for (int d = 1; d <= order; ++d) {
      const auto row = static_cast<std::size_t>(d - 1) * 2;
      const double speed_derivative = (input_jet[static_cast<std::size_t>(d - 1)] + wind(t, d - 1)) / mass_;
      derivatives[row] = d == 1 ? x[1] : (input_jet[static_cast<std::size_t>(d - 2)] + wind(t, d - 2)) / mass_;
      derivatives[row + 1] = speed_derivative;
    }
  }

 private:
  double wind(double t, int order) const {
    double sum = 0.0;
    for (std::size_t i = 0; i < kWindFrequencies.size(); ++i) {
      sum += sine_derivative(kWindFrequencies[i], kWindPhases[i], t, order);
    }
    return wind_ * sum;
  }

  const ModelDescription description_ = vehicle_description();
  const double mass_;
  const double wind_;
  const double initial_position_;
  const double initial_speed_;
};

ModelDescription controller_description() {
  return ModelDescription{
      .name = controller_name,
      .summary = "speed controller: preset force, then a P controller on the derivative of "
                 "its position input",
      .inputs = {"position"},
      .input_units = {"m"},
      .outputs = {{.name = "force", .direct_feedthrough = true, .unit = "N"}},  // reads u̇
      .states = {},
      .parameters = {
          {"preset", 2400.0, "amplitude A of the preset force A sin^2(pi t / T) [N]"},
          {"switch_time", 10.0, "T: end of the preset force, start of the P controller [s]"},
          {"gain", 800.0, "K of the P controller [N s/m]"},
          {"target_speed", 16.0, "speed the P controller holds [m/s]"},
      }};
}

class Controller final : public Model {
 public:
  explicit Controller(const ParameterValues& values)
      : preset_(parameter_value(values, "preset", controller_name)),
        switch_time_(positive_parameter_value(values, "switch_time", controller_name)),
        gain_(parameter_value(values, "gain", controller_name)),
        target_speed_(parameter_value(values, "target_speed", controller_name)),
        events_{switch_time_} {}

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>, std::span<double>) const override {}

  /// u = (position, its time derivative).
  void outputs(double t, std::span<const double>, std::span<const double> u, std::span<double> y) const override {
    y[0] = force(t, u, 0);
  }

  int input_derivative_order() const override { return 1; }
  std::span<const double> time_events() const override { return events_; }
  int output_derivative_order() const override { return kMaxOutputDerivativeOrder; }

  void output_derivatives(double t, std::span<const double>, std::span<const double> input_jet, int order,
                          std::span<double> derivatives) const override {
    for (int d = 1; d <= order; ++d) derivatives[static_cast<std::size_t>(d - 1)] = force(t, input_jet, d);
  }

 private:
  /// The `order`-th time derivative of F; `jet` holds u, u̇, ü, ...
  double force(double t, std::span<const double> jet, int order) const {
    if (t >= switch_time_) {
      const double speed_term = jet[static_cast<std::size_t>(order + 1)];
      return order == 0 ? gain_ * (target_speed_ - speed_term) : -gain_ * speed_term;
    }
    // A sin²(θ) = A/2 (1 − cos Ω t) with Ω = 2π/T.
    const double frequency = 2.0 * std::numbers::pi / switch_time_;
    const double cosine = std::pow(frequency, order) * std::cos(frequency * t + order * std::numbers::pi / 2.0);
    return order == 0 ? 0.5 * preset_ * (1.0 - cosine) : -0.5 * preset_ * cosine;
  }

  const ModelDescription description_ = controller_description();
  const double preset_;
  const double switch_time_;
  const double gain_;
  const double target_speed_;
  const std::array<double, 1> events_;
};

}  // namespace

void add_car_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(vehicle_description(), [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<Vehicle>(values);
  }));
  entries.push_back(make_entry(controller_description(), [](const ParameterValues& values) -> std::unique_ptr<Model> {
    return std::make_unique<Controller>(values);
  }));
}

}  // namespace couplet::models
