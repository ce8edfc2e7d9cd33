// Translational two-mass oscillator with a switch: our stand-in for F3ORNITS §4.2
// (fig. 13 of that paper, docs/references.md: "behavior of the right mass changes
// after 100 s"), whose parameters are not published; equations and defaults are
// ours (docs/models.md).
//
// translational.mass (the left mass), states (x, v), input f, outputs x, v:
//   m v̇ = −c x − d v + f
// translational.coupled_mass (the right mass, carrying the coupling spring/damper),
// states (x, v), inputs x_in, v_in (named x, v: the left mass's position/velocity),
// output f, the force on the left mass (direct feedthrough):
//   f = c_coupling (x − x_in) + d_coupling (v − v_in)
//   m v̇ = −c_wall(t) (x − anchor(t)) − d_wall v − f
// The coupling spring pulls the masses together: the left mass feels +f, the right
// one −f. At t = switch_time (a time event, two linear segments) the wall stiffness
// changes from c_wall to c_wall_after and the wall anchor jumps from 0 to anchor_after.
#include <memory>

#include "models/catalog.hpp"
#include "models/linear_model.hpp"

namespace couplet::models {
namespace {

constexpr const char* mass_name = "translational.mass";
constexpr const char* coupled_mass_name = "translational.coupled_mass";

ModelDescription mass_description() {
  return ModelDescription{
      .name = mass_name,
      .summary = "mass on a spring/damper to the wall, driven by a force: "
                 "input force, outputs position and velocity",
      .inputs = {"f"},
      .input_units = {"N"},
      .outputs = {{.name = "x", .unit = "m"},
                  {.name = "v", .unit = "m/s"}},  // feedthrough flags: set from D
      .states = {"x", "v"},
      .parameters = {
          {"m", 10.0, "mass [kg]"},
          {"c", 1.0, "stiffness of the spring to the wall [N/m]"},
          {"d", 0.1, "damping coefficient of the damper to the wall [N s/m]"},
          {"x0", 1.0, "initial position [m]"},
          {"v0", 0.0, "initial velocity [m/s]"},
      }};
}

std::unique_ptr<Model> make_mass(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, mass_name); };
  const double mass = positive_parameter_value(values, "m", mass_name);

  LinearForm form = zero_linear_form(2, 1, 2);
  form.A << 0.0, 1.0,  //
      -value("c") / mass, -value("d") / mass;
  form.B << 0.0, 1.0 / mass;
  form.C.setIdentity();

  Eigen::VectorXd initial_state(2);
  initial_state << value("x0"), value("v0");
  return std::make_unique<LinearModel>(mass_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

ModelDescription coupled_mass_description() {
  return ModelDescription{
      .name = coupled_mass_name,
      .summary = "mass on a switching wall spring/damper, carrying the coupling spring/damper: "
                 "inputs the other mass's position and velocity, output the force on it",
      .inputs = {"x", "v"},
      .input_units = {"m", "m/s"},
      .outputs = {{.name = "f", .unit = "N"}},  // feedthrough flag: set from D by LinearModel
      .states = {"x", "v"},
      .parameters = {
          {"m", 1.0, "mass [kg]"},
          {"c_wall", 1.0, "stiffness of the spring to the wall before switch_time [N/m]"},
          {"d_wall", 0.1, "damping coefficient of the damper to the wall [N s/m]"},
          {"c_coupling", 1.0, "stiffness of the coupling spring between the masses [N/m]"},
          {"d_coupling", 0.2, "damping coefficient of the coupling damper [N s/m]"},
          {"x0", 0.0, "initial position [m]"},
          {"v0", 0.0, "initial velocity [m/s]"},
          {"switch_time", 100.0, "time at which the wall spring and anchor change [s]"},
          {"c_wall_after", 4.0, "stiffness of the spring to the wall from switch_time on [N/m]"},
          {"anchor_after", 1.0, "wall anchor position from switch_time on (0 before) [m]"},
      }};
}

/// The segment of the coupled mass for a given wall: the anchor enters as the
/// constant term e = (0, c_wall·anchor/m) of ẋ = A x + B u + e.
LinearForm coupled_mass_form(double mass, double wall_stiffness, double wall_damping,
                             double coupling_stiffness, double coupling_damping, double anchor) {
  LinearForm form = zero_linear_form(2, 2, 1);
  form.A << 0.0, 1.0,  //
      -(wall_stiffness + coupling_stiffness) / mass, -(wall_damping + coupling_damping) / mass;
  form.B << 0.0, 0.0,  //
      coupling_stiffness / mass, coupling_damping / mass;
  form.e << 0.0, wall_stiffness * anchor / mass;
  form.C << coupling_stiffness, coupling_damping;
  form.D << -coupling_stiffness, -coupling_damping;
  return form;
}

std::unique_ptr<Model> make_coupled_mass(const ParameterValues& values) {
  const auto value = [&](const char* name) {
    return parameter_value(values, name, coupled_mass_name);
  };
  const double mass = positive_parameter_value(values, "m", coupled_mass_name);
  const double wall_damping = value("d_wall");
  const double coupling_stiffness = value("c_coupling");
  const double coupling_damping = value("d_coupling");

  std::vector<LinearForm> forms{
      coupled_mass_form(mass, value("c_wall"), wall_damping, coupling_stiffness, coupling_damping,
                        0.0),
      coupled_mass_form(mass, value("c_wall_after"), wall_damping, coupling_stiffness,
                        coupling_damping, value("anchor_after"))};

  Eigen::VectorXd initial_state(2);
  initial_state << value("x0"), value("v0");
  return std::make_unique<LinearModel>(coupled_mass_description(), std::move(forms),
                                       std::vector<double>{value("switch_time")}, initial_state);
}

}  // namespace

void add_translational_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(mass_description(), make_mass));
  entries.push_back(make_entry(coupled_mass_description(), make_coupled_mass));
}

}  // namespace couplet::models
