#include "host_tools/algorithm_factory.hpp"


#include "host_tools/defect_control_settings.hpp"
#include "host_tools/f3ornits_settings.hpp"
#include "host_tools/history_settings.hpp"
#include "host_tools/ifosmondi_settings.hpp"
#include "host_tools/semi_implicit_settings.hpp"
#include "runtime/algorithms/gauss_seidel.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/algorithms/missiles.hpp"
#include "couplet/errors.hpp"

namespace couplet::tools {

namespace {

FixedStepSettings parse_fixed_step(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  check_keys(node, source, "algorithm", {"type", "step", "input_order", "inputs", "history"});
  if (!node["step"]) throw ConfigurationError(locate(source, node, "algorithm.step") + ": missing (the communication step in seconds)");
  const double step = bounded_number(node["step"], source, "algorithm.step", ranges::step(scenario.horizon()));
  check_macro_steps(node["step"], scenario, "algorithm.step", step);
  FixedStepSettings settings;
  settings.step = step_to_ticks(step);
  if (node["input_order"]) {
    settings.input_order = static_cast<int>(bounded_number(node["input_order"], source, "algorithm.input_order",
                                                           ranges::count(0, Polynomial::kMaxDegree)));
  }
  // inputs: taylor (reported derivatives, the default) | extrapolated (Kraft &
  // Schweizer's explicit scheme: Lagrange through past communication values).
  if (node["inputs"] && !node["inputs"].IsNull()) {
    settings.inputs = require_choice<InputMode>(
        node["inputs"], source, "algorithm.inputs", "input mode",
        {{"taylor", InputMode::taylor}, {"extrapolated", InputMode::extrapolated}});
  }
  settings.history = parse_history_seeds(node["history"], source, "algorithm.history");
  if (!settings.history.empty() && settings.inputs != InputMode::extrapolated) {
    throw ConfigurationError(locate(source, node["history"], "algorithm.history") +
                             ": only with inputs: extrapolated (Taylor inputs use no past values)");
  }
  return settings;
}

// algorithm: {type: missiles, step: δt} (docs/algorithms.md, MISSILES).
MissilesSettings parse_missiles(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  check_keys(node, source, "algorithm", {"type", "step"});
  if (!node["step"]) throw ConfigurationError(locate(source, node, "algorithm.step") + ": missing (the communication step in seconds)");
  const double step = bounded_number(node["step"], source, "algorithm.step", ranges::step(scenario.horizon()));
  check_macro_steps(node["step"], scenario, "algorithm.step", step);
  return MissilesSettings{.step = step_to_ticks(step)};
}

}  // namespace

std::unique_ptr<Algorithm> make_algorithm(const Scenario& scenario) {
  const YAML::Node& node = scenario.algorithm;
  const std::string& source = scenario.source;
  if (!node.IsMap() || !node["type"]) throw ConfigurationError(locate(source, node, "algorithm.type") + ": missing (jacobi, gauss_seidel, defect_control, f3ornits, ifosmondi, ifosmondi_jfm, missiles, semi_implicit)");
  const std::string type = require_string(node["type"], source, "algorithm.type");
  if (type == "jacobi") return std::make_unique<Jacobi>(parse_fixed_step(node, scenario));
  if (type == "gauss_seidel") return std::make_unique<GaussSeidel>(parse_fixed_step(node, scenario));
  if (type == "defect_control") return make_defect_control(node, scenario);
  if (type == "f3ornits") return make_f3ornits(node, scenario);
  if (is_ifosmondi_type(type)) return make_ifosmondi(node, scenario, "algorithm");  // docs/iterative.md
  if (type == "missiles") return std::make_unique<Missiles>(parse_missiles(node, scenario));
  if (type == "semi_implicit") return make_semi_implicit(node, scenario);  // docs/algorithms.md
  throw ConfigurationError(locate(source, node["type"], "algorithm.type") + ": unknown algorithm '" + type +
                           "' (jacobi, gauss_seidel, defect_control, f3ornits, ifosmondi, ifosmondi_jfm, missiles, semi_implicit)");
}

}  // namespace couplet::tools
