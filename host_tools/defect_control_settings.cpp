#include "host_tools/defect_control_settings.hpp"

#include <cmath>

#include "couplet/errors.hpp"

namespace couplet::tools {

namespace {

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

}  // namespace

// Glumac & Kovačić, "Defect-controlled non-iterative co-simulation", Mathematics
// 11 (2023) 1342, doi:10.3390/math11061342, Algorithm 1. `tol` selects the variable-step
// variant (PI controller, eq. 39); without it, `step` is the fixed step. In the
// paper both variants start from H₁ (the fixed one keeps H_k = H₁), so with `tol`
// a `step` left from a fixed-step scenario is H₁ unless `initial_step` is given.
// The value rules live in the algorithm and its controller, whose messages name
// the key.
DefectControlSettings parse_defect_control(const YAML::Node& node, const std::string& source) {
  const std::vector<std::string> controller_keys = {"initial_step", "k_p", "k_i", "theta_max", "min_step",
                                                    "max_step"};
  std::vector<std::string> allowed = {"type", "tol", "step", "input_order", "output_order", "defect"};
  allowed.insert(allowed.end(), controller_keys.begin(), controller_keys.end());
  check_keys(node, source, "algorithm", allowed);

  DefectControlSettings settings;
  if (present(node, "input_order")) settings.input_order = defect_control_order(node, source, "input_order");
  // n defaults to m: the paper's experiments all use m = n.
  settings.output_order = present(node, "output_order") ? defect_control_order(node, source, "output_order")
                                                        : settings.input_order;
  if (present(node, "defect")) settings.monitored = monitored_defects(node, source);

  if (!present(node, "tol")) {
    if (!present(node, "step")) {
      throw ConfigurationError(locate(source, node, "algorithm.tol") +
                               ": missing (the defect tolerance; or give algorithm.step for the fixed-step variant)");
    }
    for (const std::string& key : controller_keys) {
      if (present(node, key.c_str())) {
        throw ConfigurationError(locate(source, node[key], "algorithm." + key) +
                                 ": only for the variable-step variant, which algorithm.tol selects; without it "
                                 "algorithm.step is a fixed step");
      }
    }
    const double step = number(node, source, "step");
    if (!(step > 0.0) || !std::isfinite(step)) {
      throw ConfigurationError(locate(source, node["step"], "algorithm.step") + ": must be positive");
    }
    settings.fixed_step = step_to_ticks(step);
    return settings;
  }
  PiStepControllerSettings& controller = settings.controller;
  controller.tolerance = number(node, source, "tol");
  controller.initial_step = 1e-4;  // the paper's H₁ (§4)
  if (present(node, "initial_step")) {
    controller.initial_step = number(node, source, "initial_step");
  } else if (present(node, "step")) {
    controller.initial_step = number(node, source, "step");
    if (!(controller.initial_step > 0.0)) {
      throw ConfigurationError(locate(source, node["step"], "algorithm.step") + ": must be positive");
    }
  }
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

}  // namespace couplet::tools
