// The IFOSMONDI damper test case (IFOSMONDI-JFM paper §5, table 1, eqs. 29–32;
// docs/references.md): a body on a spring/damper pushed by a preset force, coupled on force,
// velocity and position to a massless damper plate. Both sides have direct
// feedthrough, so the fixed-point map of the coupling has spectral radius
// √(D_SD / D_D) (eq. 34): D_D < D_SD makes it non-contractant.
//
// damper.mass_spring (S₁), states (v_L, x_L), inputs v_c, x_c, output f_c (eq. 32):
//   M_L v̇_L = f_L(t) + f_SD,   ẋ_L = v_L,
//   f_SD = K_SD (x_c − x_L) + D_SD (v_c − v_L),   f_c = −f_SD   (feedthrough from v_c, x_c)
// damper.plate (S₂), state x_D, input f_c, outputs v_c, x_c:
//   ẋ_D = f_c / D_D,   v_c = f_c / D_D (feedthrough),   x_c = x_D
// f_L is the C^∞ bump of eq. 29: 5 e · exp(1 / ((t/2)² − 1)) for t < 2 s, then 0;
// t = 2 s is declared a time event so that solvers stop there.
//
// damper.loaded_mass_spring: the same body with one more input, an external force
// f_ext on the body, and its position and velocity as outputs x_L, v_L. It lets a
// third subsystem (e.g. a device behind a link) act on the body, as in the
// composite-slave demonstration of docs/iterative.md.
#include <array>
#include <cmath>
#include <memory>

#include "models/catalog.hpp"
#include "models/linear_model.hpp"

namespace couplet::models {
namespace {

constexpr const char* mass_spring_name = "damper.mass_spring";
constexpr const char* loaded_mass_spring_name = "damper.loaded_mass_spring";
constexpr const char* plate_name = "damper.plate";

// Output derivatives of the body up to this order: ÿ needs ḟ_L, which the bump gives
// in closed form; the IFOSMONDI coupling only needs ẏ.
constexpr int kBodyDerivativeOrder = 2;

constexpr double kForcingEnd = 2.0;  // s, where eq. 29 reaches 0 for good

/// f_L of eq. 29 (order 0) and its first time derivative (order 1). With s = t/2 and
/// g = 1 / (s² − 1): f_L = 5 e · e^g, dg/dt = −s / (s² − 1)².
double forcing(double t, int order) {
  if (t >= kForcingEnd) return 0.0;
  const double s = t / kForcingEnd;
  const double denominator = s * s - 1.0;
  const double value = 5.0 * std::exp(1.0) * std::exp(1.0 / denominator);
  if (order == 0) return value;
  return value * (-s / (denominator * denominator));
}

ModelDescription mass_spring_description(bool loaded) {
  ModelDescription description{
      .name = loaded ? loaded_mass_spring_name : mass_spring_name,
      .summary = loaded ? "damper test case body (S1) with an external force on the body: inputs "
                          "plate velocity/position and f_ext, outputs coupling force, x_L, v_L"
                        : "damper test case body (S1) on a spring/damper pushed by the preset force "
                          "f_L: inputs plate velocity and position, output coupling force",
      .inputs = {"v_c", "x_c"},
      .input_units = {"m/s", "m"},
      .outputs = {{.name = "f_c", .direct_feedthrough = true, .unit = "N"}},
      .states = {"v_L", "x_L"},
      .parameters = {
          {"M_L", 1.0, "mass of the body [kg]"},
          {"K_SD", 1.0, "spring rate between body and plate [N/m]"},
          {"D_SD", 1.0, "damper rating between body and plate [N s/m]"},
      }};
  if (loaded) {
    description.inputs.push_back("f_ext");
    description.input_units.push_back("N");
    description.outputs.push_back({.name = "x_L", .unit = "m"});
    description.outputs.push_back({.name = "v_L", .unit = "m/s"});
  }
  return description;
}

class MassSpring final : public Model {
 public:
  MassSpring(const ParameterValues& values, bool loaded)
      : description_(mass_spring_description(loaded)),
        mass_(positive_parameter_value(values, "M_L", description_.name)),
        stiffness_(parameter_value(values, "K_SD", description_.name)),
        damping_(parameter_value(values, "D_SD", description_.name)),
        loaded_(loaded) {}

  const ModelDescription& description() const override { return description_; }

  void initial_state(std::span<double> x) const override {
    x[0] = 0.0;  // v_L(0), table 1
    x[1] = 0.0;  // x_L(0)
  }

  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = acceleration(t, x, u);
    dxdt[1] = x[0];
  }

  void outputs(double, std::span<const double> x, std::span<const double> u, std::span<double> y) const override {
    y[0] = -spring_damper_force(x[0], x[1], u[0], u[1]);
    if (loaded_) {
      y[1] = x[1];
      y[2] = x[0];
    }
  }

  std::span<const double> time_events() const override { return events_; }
  int output_derivative_order() const override { return kBodyDerivativeOrder; }

  /// Rows of the jet: u, u̇, ü (input_count() each). f_c = −f_SD is linear in (v_L,
  /// x_L, v_c, x_c), so its k-th derivative is the same form on the k-th derivatives:
  /// v_L⁽¹⁾ = a, x_L⁽¹⁾ = v_L, v_L⁽²⁾ = ȧ (from ḟ_L and the derivative of f_SD), x_L⁽²⁾ = a.
  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet, int order,
                          std::span<double> derivatives) const override {
    const std::size_t inputs = description_.inputs.size();
    const std::size_t outputs = description_.outputs.size();
    const auto jet = [&](int row, std::size_t input) { return input_jet[static_cast<std::size_t>(row) * inputs + input]; };
    const double acceleration_now = acceleration(t, x, input_jet.first(inputs));
    // d/dt of every body quantity: (v_L, x_L) → (a, v_L).
    const double first_force = spring_damper_force(acceleration_now, x[0], jet(1, 0), jet(1, 1));
    write_row(derivatives, 0, outputs, -first_force, x[0], acceleration_now);
    if (order < 2) return;
    const double external_rate = loaded_ ? jet(1, 2) : 0.0;
    const double jerk = (forcing(t, 1) + first_force + external_rate) / mass_;
    const double second_force = spring_damper_force(jerk, acceleration_now, jet(2, 0), jet(2, 1));
    write_row(derivatives, 1, outputs, -second_force, acceleration_now, jerk);
  }

 private:
  /// f_SD = K_SD (x_c − x_L) + D_SD (v_c − v_L) (eq. 31), also on derivatives of all four.
  double spring_damper_force(double body_velocity, double body_position, double plate_velocity,
                             double plate_position) const {
    return stiffness_ * (plate_position - body_position) + damping_ * (plate_velocity - body_velocity);
  }

  /// v̇_L = (f_L + f_SD (+ f_ext)) / M_L (eq. 30).
  double acceleration(double t, std::span<const double> x, std::span<const double> u) const {
    const double external = loaded_ ? u[2] : 0.0;
    return (forcing(t, 0) + spring_damper_force(x[0], x[1], u[0], u[1]) + external) / mass_;
  }

  void write_row(std::span<double> derivatives, std::size_t row, std::size_t outputs, double force_rate,
                 double position_rate, double velocity_rate) const {
    derivatives[row * outputs] = force_rate;
    if (loaded_) {
      derivatives[row * outputs + 1] = position_rate;
      derivatives[row * outputs + 2] = velocity_rate;
    }
  }

  const ModelDescription description_;
  const double mass_;
  const double stiffness_;
  const double damping_;
  const bool loaded_;
  const std::array<double, 1> events_{kForcingEnd};
};

ModelDescription plate_description() {
  return ModelDescription{
      .name = plate_name,
      .summary = "damper test case plate (S2), massless on a damper: input coupling force, "
                 "outputs its velocity and position",
      .inputs = {"f_c"},
      .input_units = {"N"},
      .outputs = {{.name = "v_c", .unit = "m/s"},
                  {.name = "x_c", .unit = "m"}},  // feedthrough flags: set from D
      .states = {"x_D"},
      .parameters = {
          {"D_D", 4.0, "damper rating of the plate, 0.01 to 4 in table 1 [N s/m]"},
      }};
}

/// Linear (eq. 32): ẋ_D = f_c / D_D, (v_c, x_c) = (0, 1) x_D + (1/D_D, 0) f_c.
std::unique_ptr<Model> make_plate(const ParameterValues& values) {
  const double damping = positive_parameter_value(values, "D_D", plate_name);
  LinearForm form = zero_linear_form(1, 1, 2);
  form.B << 1.0 / damping;
  form.C << 0.0, 1.0;
  form.D << 1.0 / damping, 0.0;
  Eigen::VectorXd initial_state = Eigen::VectorXd::Zero(1);  // x_D(0) = 0, table 1
  return std::make_unique<LinearModel>(plate_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

}  // namespace

void add_damper_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(mass_spring_description(false), [](const ParameterValues& values) {
    return std::make_unique<MassSpring>(values, false);
  }));
  entries.push_back(make_entry(plate_description(), make_plate));
  entries.push_back(make_entry(mass_spring_description(true), [](const ParameterValues& values) {
    return std::make_unique<MassSpring>(values, true);
  }));
}

}  // namespace couplet::models
