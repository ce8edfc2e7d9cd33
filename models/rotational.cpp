// Rotational two-mass oscillator of Glumac & Kovačić 2023, §4, systems (40) and (41)
// ("Defect Analysis of a Non-Iterative Co-Simulation", docs/references.md). The
// extracted text of the
// paper lost its minus signs; they are restored here from the physics:
//
//   mass 1:  J₁ φ̈₁ = −c₁ φ₁ − d₁ ω₁ − τ,   mass 2:  J₂ φ̈₂ = −c₂ φ₂ − d₂ ω₂ + τ,
//   coupling torque on mass 2:  τ = c_k (φ₁ − φ₂) + d_k (ω₁ − ω₂)
//
// (each mass tied to ground by a spring and a damper, the coupling spring c_k and
// damper d_k between them), so that the assembled system is the physical oscillator
// and its energy ½J₁ω₁² + ½J₂ω₂² + ½c₁φ₁² + ½c₂φ₂² + ½c_k(φ₁−φ₂)² decays.
//
// omega2tau (40): x₁ = (φ₁, ω₁, φ_o), φ_o = ∫ω₂ dt is mass 2's angle rebuilt from
// the input u₁ = ω₂:
//   A₁ = [[0, 1, 0], [−(c₁+c_k)/J₁, −(d₁+d_k)/J₁, c_k/J₁], [0, 0, 0]],
//   B₁ = [0, d_k/J₁, 1]ᵀ,  C₁ = [c_k, d_k, −c_k],  D₁ = −d_k,  y₁ = τ.
// tau2omega (41): x₂ = (φ₂, ω₂), input u₂ = τ:
//   A₂ = [[0, 1], [−c₂/J₂, −d₂/J₂]],  B₂ = [0, 1/J₂]ᵀ,  C₂ = [0, 1],  D₂ = 0,  y₂ = ω₂.
// Defaults are the paper's values (J₁=10, c₁=1, d₁=1, c_k=1, d_k=2, φ₁₀=0.1,
// ω₁₀=0.1; J₂=10, c₂=1, d₂=2, φ₂₀=0.2, ω₂₀=0.1); φ_o(0) = φ₂(0) = 0.2.
#include <memory>

#include "models/catalog.hpp"
#include "models/linear_model.hpp"

namespace couplet::models {
namespace {

constexpr const char* omega2tau_name = "rotational.omega2tau";
constexpr const char* tau2omega_name = "rotational.tau2omega";

ModelDescription omega2tau_description() {
  return ModelDescription{
      .name = omega2tau_name,
      .summary = "rotational mass 1 with the coupling spring/damper (Glumac eq. 40): "
                 "input the other mass's speed, output the coupling torque on it",
      .inputs = {"omega"},
      .input_units = {"rad/s"},
      .outputs = {{.name = "tau", .unit = "N m"}},  // feedthrough flag: set from D by LinearModel
      .states = {"phi", "omega", "phi_in"},
      .parameters = {
          {"J", 10.0, "moment of inertia of this mass [kg m^2]"},
          {"c", 1.0, "stiffness of the spring from this mass to ground [N m/rad]"},
          {"d", 1.0, "damping coefficient from this mass to ground [N m s/rad]"},
          {"ck", 1.0, "stiffness of the coupling spring between the masses [N m/rad]"},
          {"dk", 2.0, "damping coefficient of the coupling damper between the masses [N m s/rad]"},
          {"phi0", 0.1, "initial angle of this mass [rad]"},
          {"omega0", 0.1, "initial angular velocity of this mass [rad/s]"},
          {"phi_in0", 0.2, "initial angle of the other mass (integral of input omega) [rad]"},
      }};
}

std::unique_ptr<Model> make_omega2tau(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, omega2tau_name); };
  const double inertia = positive_parameter_value(values, "J", omega2tau_name);
  const double stiffness = value("c");
  const double damping = value("d");
  const double coupling_stiffness = value("ck");
  const double coupling_damping = value("dk");

  LinearForm form = zero_linear_form(3, 1, 1);
  form.A << 0.0, 1.0, 0.0,                                             //
      -(stiffness + coupling_stiffness) / inertia,                     //
      -(damping + coupling_damping) / inertia, coupling_stiffness / inertia,  //
      0.0, 0.0, 0.0;
  form.B << 0.0, coupling_damping / inertia, 1.0;
  form.C << coupling_stiffness, coupling_damping, -coupling_stiffness;
  form.D << -coupling_damping;

  Eigen::VectorXd initial_state(3);
  initial_state << value("phi0"), value("omega0"), value("phi_in0");
  return std::make_unique<LinearModel>(omega2tau_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

ModelDescription tau2omega_description() {
  return ModelDescription{
      .name = tau2omega_name,
      .summary = "rotational mass 2 driven by the coupling torque (Glumac eq. 41): "
                 "input torque, output its angular velocity",
      .inputs = {"tau"},
      .input_units = {"N m"},
      .outputs = {{.name = "omega", .unit = "rad/s"}},  // feedthrough flag: set from D
      .states = {"phi", "omega"},
      .parameters = {
          {"J", 10.0, "moment of inertia of this mass [kg m^2]"},
          {"c", 1.0, "stiffness of the spring from this mass to ground [N m/rad]"},
          {"d", 2.0, "damping coefficient from this mass to ground [N m s/rad]"},
          {"phi0", 0.2, "initial angle of this mass [rad]"},
          {"omega0", 0.1, "initial angular velocity of this mass [rad/s]"},
      }};
}

std::unique_ptr<Model> make_tau2omega(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, tau2omega_name); };
  const double inertia = positive_parameter_value(values, "J", tau2omega_name);

  LinearForm form = zero_linear_form(2, 1, 1);
  form.A << 0.0, 1.0,  //
      -value("c") / inertia, -value("d") / inertia;
  form.B << 0.0, 1.0 / inertia;
  form.C << 0.0, 1.0;

  Eigen::VectorXd initial_state(2);
  initial_state << value("phi0"), value("omega0");
  return std::make_unique<LinearModel>(tau2omega_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

}  // namespace

void add_rotational_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(omega2tau_description(), make_omega2tau));
  entries.push_back(make_entry(tau2omega_description(), make_tau2omega));
}

}  // namespace couplet::models
