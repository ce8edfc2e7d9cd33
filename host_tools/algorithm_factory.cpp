#include "host_tools/algorithm_factory.hpp"

#include <cmath>

#include "runtime/algorithms/defect_controlled_jacobi.hpp"
#include "runtime/algorithms/gauss_seidel.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/errors.hpp"

namespace couplet::tools {

namespace {

FixedStepSettings parse_fixed_step(const YAML::Node& node, const std::string& source) {
  check_keys(node, source, "algorithm", {"type", "step", "input_order"});
  if (!node["step"]) throw ConfigurationError(locate(source, node, "algorithm.step") + ": missing (the communication step in seconds)");
  const double step = require_number(node["step"], source, "algorithm.step");
  if (!(step > 0.0)) throw ConfigurationError(locate(source, node["step"], "algorithm.step") + ": must be positive");
  FixedStepSettings settings;
  settings.step = step_to_ticks(step);
  if (node["input_order"]) {
    const double order = require_number(node["input_order"], source, "algorithm.input_order");
    if (order < 0 || order > Polynomial::kMaxDegree || std::floor(order) != order) {
      throw ConfigurationError(locate(source, node["input_order"], "algorithm.input_order") +
                               ": must be a whole number from 0 to " + std::to_string(Polynomial::kMaxDegree));
    }
    settings.input_order = static_cast<int>(order);
  }
  return settings;
}

// A key given as `null` (e.g. `--set algorithm.step=null`) counts as absent, so an
// override can switch a scenario between the fixed-step and variable-step variants.
bool present(const YAML::Node& node, const char* key) { return node[key] && !node[key].IsNull(); }

double number(const YAML::Node& node, const std::string& source, const char* key) {
  return require_number(node[key], source, std::string("algorithm.") + key);
}

int defect_control_order(const YAML::Node& node, const std::string& source, const char* key) {
  const double order = number(node, source, key);
  if (std::floor(order) != order || order < 0 || order > 2) {
    throw ConfigurationError(locate(source, node[key], std::string("algorithm.") + key) +
                             ": must be a whole number from 0 to 2");
  }
  return static_cast<int>(order);
}

MonitoredDefects monitored_defects(const YAML::Node& node, const std::string& source) {
  const std::string defect = require_string(node["defect"], source, "algorithm.defect");
  if (defect == "connection") return MonitoredDefects::connection;
  if (defect == "output") return MonitoredDefects::output;
  if (defect == "both") return MonitoredDefects::both;
  throw ConfigurationError(locate(source, node["defect"], "algorithm.defect") + ": unknown value '" + defect +
                           "' (connection, output, both)");
}

// Glumac & Kovačić Algorithm 1 (DESIGN §4.2). `step` selects the fixed-step
// variant; otherwise `tol` drives the PI controller (eq. 39). The value rules
// live in the algorithm and its controller, whose messages name the key.
DefectControlSettings parse_defect_control(const YAML::Node& node, const std::string& source) {
  const std::vector<std::string> controller_keys = {"tol", "initial_step", "k_p", "k_i", "theta_max",
                                                    "min_step", "max_step"};
  std::vector<std::string> allowed = {"type", "step", "input_order", "output_order", "defect"};
  allowed.insert(allowed.end(), controller_keys.begin(), controller_keys.end());
  check_keys(node, source, "algorithm", allowed);

  DefectControlSettings settings;
  if (present(node, "input_order")) settings.input_order = defect_control_order(node, source, "input_order");
  // n defaults to m: the paper's experiments all use m = n.
  settings.output_order = present(node, "output_order") ? defect_control_order(node, source, "output_order")
                                                        : settings.input_order;
  if (present(node, "defect")) settings.monitored = monitored_defects(node, source);

  if (present(node, "step")) {
    for (const std::string& key : controller_keys) {
      if (present(node, key.c_str())) {
        throw ConfigurationError(locate(source, node[key], "algorithm." + key) +
                                 ": only for the variable-step variant, but algorithm.step selects the fixed-step "
                                 "one; remove one of them (e.g. --set algorithm.step=null)");
      }
    }
    const double step = number(node, source, "step");
    if (!(step > 0.0) || !std::isfinite(step)) {
      throw ConfigurationError(locate(source, node["step"], "algorithm.step") + ": must be positive");
    }
    settings.fixed_step = step_to_ticks(step);
    return settings;
  }
  if (!present(node, "tol")) {
    throw ConfigurationError(locate(source, node, "algorithm.tol") +
                             ": missing (the defect tolerance; or give algorithm.step for the fixed-step variant)");
  }
  PiStepControllerSettings& controller = settings.controller;
  controller.tolerance = number(node, source, "tol");
  controller.initial_step = present(node, "initial_step") ? number(node, source, "initial_step") : 1e-4;
  if (present(node, "k_p")) controller.proportional_gain = number(node, source, "k_p");
  if (present(node, "k_i")) controller.integral_gain = number(node, source, "k_i");
  if (present(node, "theta_max")) controller.max_growth = number(node, source, "theta_max");
  if (present(node, "min_step")) controller.min_step = number(node, source, "min_step");
  if (present(node, "max_step")) controller.max_step = number(node, source, "max_step");
  return settings;
}

std::unique_ptr<Algorithm> make_defect_control(const YAML::Node& node, const std::string& source) {
  const DefectControlSettings settings = parse_defect_control(node, source);
  try {
    return std::make_unique<DefectControlledJacobi>(settings);
  } catch (const ConfigurationError& error) {
    throw ConfigurationError(locate(source, node, "") + error.what());
  }
}

}  // namespace

std::unique_ptr<Algorithm> make_algorithm(const Scenario& scenario) {
  const YAML::Node& node = scenario.algorithm;
  const std::string& source = scenario.source;
  if (!node.IsMap() || !node["type"]) throw ConfigurationError(locate(source, node, "algorithm.type") + ": missing (jacobi, gauss_seidel, defect_control)");
  const std::string type = require_string(node["type"], source, "algorithm.type");
  if (type == "jacobi") return std::make_unique<Jacobi>(parse_fixed_step(node, source));
  if (type == "gauss_seidel") return std::make_unique<GaussSeidel>(parse_fixed_step(node, source));
  if (type == "defect_control") return make_defect_control(node, source);
  throw ConfigurationError(locate(source, node["type"], "algorithm.type") + ": unknown algorithm '" + type +
                           "' (jacobi, gauss_seidel, defect_control)");
}

}  // namespace couplet::tools
