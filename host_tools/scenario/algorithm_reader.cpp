#include "host_tools/scenario/algorithm_reader.hpp"

#include <algorithm>

#include "couplet/errors.hpp"
#include "host_tools/scenario/defect_control_reader.hpp"
#include "host_tools/scenario/f3ornits_reader.hpp"
#include "host_tools/scenario/history_reader.hpp"
#include "host_tools/scenario/ifosmondi_reader.hpp"
#include "host_tools/scenario/semi_implicit_reader.hpp"

namespace couplet::tools {

namespace {

constexpr const char* kTypes =
    "jacobi, gauss_seidel, defect_control, f3ornits, ifosmondi, ifosmondi_jfm, missiles, "
    "semi_implicit";

// algorithm.step of the fixed-step masters: required, within the horizon, and
// the number of macro steps it makes within limits.
Time communication_step(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  if (!node["step"])
    throw ConfigurationError(locate(source, node, "algorithm.step") +
                             ": missing (the communication step in seconds)");
  const double step =
      bounded_number(node["step"], source, "algorithm.step", ranges::step(scenario.horizon()));
  check_macro_steps(node["step"], scenario, "algorithm.step", step);
  return step_to_ticks(step);
}

FixedStepSettings parse_fixed_step(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  check_keys(node, source, "algorithm", {"type", "step", "input_order", "inputs", "history"});
  FixedStepSettings settings;
  settings.step = communication_step(node, scenario);
  if (node["input_order"]) {
    settings.input_order =
        static_cast<int>(bounded_number(node["input_order"], source, "algorithm.input_order",
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
  check_keys(node, scenario.source, "algorithm", {"type", "step"});
  return MissilesSettings{.step = communication_step(node, scenario)};
}

// The longest macro step, seconds, as the section gives it (its numbers are
// checked by then): max_step for the variable steps, else step; the horizon
// when absent or longer.
double longest_step(const YAML::Node& node, const std::string& type, double horizon) {
  const bool variable = type == "f3ornits" || (type == "defect_control" && is_given(node, "tol"));
  const char* key = variable ? "max_step" : "step";
  return is_given(node, key) ? std::min(node[key].as<double>(), horizon) : horizon;
}

template <class Choice>
Choice as_choice(IterativeChoice iterative) {
  return std::visit([](auto&& settings) -> Choice { return std::move(settings); },
                    std::move(iterative));
}

}  // namespace

AlgorithmSettings parse_algorithm(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  if (!node.IsMap() || !node["type"])
    throw ConfigurationError(locate(source, node, "algorithm.type") + ": missing (" + kTypes + ")");
  const std::string type = require_string(node["type"], source, "algorithm.type");
  AlgorithmSettings settings;
  if (type == "jacobi") {
    settings.choice = JacobiSettings{parse_fixed_step(node, scenario)};
  } else if (type == "gauss_seidel") {
    settings.choice = GaussSeidelSettings{parse_fixed_step(node, scenario)};
  } else if (type == "defect_control") {
    settings.choice = parse_defect_control(node, scenario);
    settings.where = locate(source, node, "");
  } else if (type == "f3ornits") {
    settings.choice = parse_f3ornits(node, scenario);
    settings.where = locate(source, node, "");
  } else if (is_ifosmondi_type(type)) {  // docs/iterative.md
    settings.choice =
        as_choice<decltype(settings.choice)>(parse_ifosmondi(node, scenario, "algorithm"));
    settings.where = locate(source, node, "algorithm") + ": ";
  } else if (type == "missiles") {
    settings.choice = parse_missiles(node, scenario);
  } else if (type == "semi_implicit") {  // docs/algorithms.md
    settings.choice = parse_semi_implicit(node, scenario);
  } else {
    throw ConfigurationError(locate(source, node["type"], "algorithm.type") +
                             ": unknown algorithm '" + type + "' (" + kTypes + ")");
  }
  settings.longest_step = longest_step(node, type, scenario.horizon());
  return settings;
}

GroupAlgorithmSettings parse_group_algorithm(const YAML::Node& node, const Scenario& scenario,
                                             const std::string& group) {
  const std::string path = "groups." + group + ".algorithm";
  if (!node.IsMap() || !node["type"]) {
    throw ConfigurationError(locate(scenario.source, node, path + ".type") +
                             ": missing (ifosmondi, ifosmondi_jfm)");
  }
  const std::string type = require_string(node["type"], scenario.source, path + ".type");
  if (!is_ifosmondi_type(type)) {
    throw ConfigurationError(
        locate(scenario.source, node["type"], path + ".type") + ": '" + type +
        "' cannot solve a group; a group needs an iterative algorithm (ifosmondi, ifosmondi_jfm)");
  }
  return {parse_ifosmondi(node, scenario, path), locate(scenario.source, node, path) + ": "};
}

}  // namespace couplet::tools
