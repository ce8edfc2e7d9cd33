// Coupling elements: what a connection does to a value on its way, as a slave
// of its own between the output and the input.
//
// coupling.linear, no state, input u, output y with direct feedthrough:
//   y = factor · u + offset
// An SSP connection's LinearTransformation ("System Structure and
// Parameterization" 1.0, Modelica Association, 2019, ssp-standard.org): the
// SSP import (docs/ssp.md) puts one between the ends of such a connection.
// As a LinearModel (D = factor, h = offset) it gives exact output derivatives
// (ẏ = factor · u̇, so polynomial inputs pass through scaled), the exact solver
// and exact linearizations (MISSILES).
#include <memory>

#include "models/catalog.hpp"
#include "models/linear_model.hpp"

namespace couplet::models {
namespace {

constexpr const char* linear_name = "coupling.linear";

ModelDescription linear_description() {
  return ModelDescription{
      .name = linear_name,
      .summary =
          "a connection's linear transformation y = factor * u + offset (no state, "
          "direct feedthrough; SSP LinearTransformation)",
      .inputs = {"u"},
      .outputs = {{.name = "y"}},  // feedthrough flag: set from D by LinearModel
      .states = {},
      .parameters = {
          {"factor", 1.0, "gain from the input to the output [output unit / input unit]"},
          {"offset", 0.0, "added to the scaled input [output unit]"},
      }};
}

std::unique_ptr<Model> make_linear(const ParameterValues& values) {
  LinearForm form = zero_linear_form(0, 1, 1);
  form.D << parameter_value(values, "factor", linear_name);
  form.h << parameter_value(values, "offset", linear_name);
  return std::make_unique<LinearModel>(linear_description(), std::vector<LinearForm>{form},
                                       std::vector<double>{}, Eigen::VectorXd(0));
}

}  // namespace

void add_coupling_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(linear_description(), make_linear));
}

}  // namespace couplet::models
