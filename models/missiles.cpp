// Linear mechanical benchmark of MISSILES (Éguillon et al. 2023, §4.1, figure 5 and
// table 3; docs/references.md): two bodies on a line, positions measured
// from their rest positions, positive to the right.
//
//   wall ─c₁,d₁─ [m₁] ─c₂,d₂─ [m₂] ─c₃,d₃─ wall
//
// System (S₁), missiles.left: the left body, states x_{1,1} = x₁ (position),
// x_{1,2} = v₁ (velocity); input u_{1,1} = f, the "force on right of left mass";
// outputs x₁ and v₁ (the paper's y_{1,2} and y_{1,1}: it lists velocity first):
//   m₁ v̇₁ = −c₁ x₁ − d₁ v₁ + f
// System (S₂), missiles.right: the right body and the coupling spring c₂ / damper
// d₂; states x_{2,1} = x₂, x_{2,2} = v₂; inputs u_{2,2} = x₁ and
// u_{2,1} = v₁ (ports x, v); output y_{2,1} = f with direct feedthrough:
//   f = c₂ (x₂ − x₁) + d₂ (v₂ − v₁),     m₂ v̇₂ = −c₃ x₂ − d₃ v₂ − f
// Check against table 3's initial coupling conditions: with x₁(0) = −1 m,
// x₂(0) = −3 m and zero velocities, f(0) = 10⁴·(−3 + 1) = −20000 N, as tabulated.
// Ports are named as in the translational pair (translational.cpp) so that a
// scenario couples either pair the same way: left.x → right.x, left.v → right.v,
// right.f → left.f.
#include <memory>

#include "models/catalog.hpp"
#include "models/linear_model.hpp"

namespace couplet::models {
namespace {

constexpr const char* left_name = "missiles.left";
constexpr const char* right_name = "missiles.right";

ModelDescription left_description() {
  return ModelDescription{
      .name = left_name,
      .summary = "MISSILES linear benchmark, system S1 (table 3): left body on c1/d1, "
                 "input the coupling force, outputs position and velocity",
      .inputs = {"f"},
      .input_units = {"N"},
      .outputs = {{.name = "x", .unit = "m"},
                  {.name = "v", .unit = "m/s"}},  // feedthrough flags: set from D
      .states = {"x", "v"},
      .parameters = {
          {"m1", 5.0, "mass of the left body [kg]"},
          {"c1", 1.0e4, "stiffness of the spring from the left wall to the left body [N/m]"},
          {"d1", 10.0, "damping coefficient of the damper from the left wall [N s/m]"},
          {"x0", -1.0, "initial position of the left body, x_{1,1} [m]"},
          {"v0", 0.0, "initial velocity of the left body, x_{1,2} [m/s]"},
      }};
}

std::unique_ptr<Model> make_left(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, left_name); };
  const double mass = positive_parameter_value(values, "m1", left_name);

  LinearForm form = zero_linear_form(2, 1, 2);
  form.A << 0.0, 1.0,  //
      -value("c1") / mass, -value("d1") / mass;
  form.B << 0.0, 1.0 / mass;
  form.C.setIdentity();

  Eigen::VectorXd initial_state(2);
  initial_state << value("x0"), value("v0");
  return std::make_unique<LinearModel>(left_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

ModelDescription right_description() {
  return ModelDescription{
      .name = right_name,
      .summary = "MISSILES linear benchmark, system S2 (table 3): right body on c3/d3 with the "
                 "coupling c2/d2, inputs the left body's position and velocity, output the force",
      .inputs = {"x", "v"},
      .input_units = {"m", "m/s"},
      .outputs = {{.name = "f", .unit = "N"}},  // feedthrough flag: set from D by LinearModel
      .states = {"x", "v"},
      .parameters = {
          {"m2", 80.0, "mass of the right body [kg]"},
          {"c2", 1.0e4, "stiffness of the coupling spring between the bodies [N/m]"},
          {"d2", 10.0, "damping coefficient of the coupling damper between the bodies [N s/m]"},
          {"c3", 1.0e5, "stiffness of the spring from the right body to the right wall [N/m]"},
          {"d3", 40.0, "damping coefficient of the damper to the right wall [N s/m]"},
          {"x0", -3.0, "initial position of the right body, x_{2,1} [m]"},
          {"v0", 0.0, "initial velocity of the right body, x_{2,2} [m/s]"},
      }};
}

std::unique_ptr<Model> make_right(const ParameterValues& values) {
  const auto value = [&](const char* name) { return parameter_value(values, name, right_name); };
  const double mass = positive_parameter_value(values, "m2", right_name);
  const double coupling_stiffness = value("c2");
  const double coupling_damping = value("d2");

  LinearForm form = zero_linear_form(2, 2, 1);
  form.A << 0.0, 1.0,  //
      -(value("c3") + coupling_stiffness) / mass, -(value("d3") + coupling_damping) / mass;
  form.B << 0.0, 0.0,  //
      coupling_stiffness / mass, coupling_damping / mass;
  form.C << coupling_stiffness, coupling_damping;
  form.D << -coupling_stiffness, -coupling_damping;

  Eigen::VectorXd initial_state(2);
  initial_state << value("x0"), value("v0");
  return std::make_unique<LinearModel>(right_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, initial_state);
}

}  // namespace

void add_missiles_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(left_description(), make_left));
  entries.push_back(make_entry(right_description(), make_right));
}

}  // namespace couplet::models
