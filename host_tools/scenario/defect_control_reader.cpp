#include "host_tools/scenario/defect_control_reader.hpp"

#include <algorithm>

#include "couplet/errors.hpp"
#include "host_tools/scenario/stimulus_breakpoints.hpp"

namespace couplet::tools {

namespace {

// Beyond these the controller of eq. 39 only oscillates; the paper uses 0.13, 1/15 and 2.
constexpr double kMaxGain = 10.0;
constexpr double kMaxGrowth = 100.0;

double number(const YAML::Node& node, const std::string& source, const char* key,
              const NumberRange& range) {
  return bounded_number(node[key], source, std::string("algorithm.") + key, range);
}

int defect_control_order(const YAML::Node& node, const std::string& source, const char* key) {
  return static_cast<int>(number(node, source, key, ranges::count(0, 2)));
}

MonitoredDefects monitored_defects(const YAML::Node& node, const std::string& source) {
  const std::string defect = require_string(node["defect"], source, "algorithm.defect");
  if (defect == "connection") return MonitoredDefects::connection;
  if (defect == "output") return MonitoredDefects::output;
  if (defect == "both") return MonitoredDefects::both;
  throw ConfigurationError(locate(source, node["defect"], "algorithm.defect") +
                           ": unknown value '" + defect + "' (connection, output, both)");
}

}  // namespace

// Glumac & Kovačić, "Defect-controlled non-iterative co-simulation", Mathematics
// 11 (2023) 1342, doi:10.3390/math11061342, Algorithm 1. `tol` selects the variable-step
// variant (PI controller, eq. 39); without it, `step` is the fixed step. In the
// paper both variants start from H₁ (the fixed one keeps H_k = H₁), so with `tol`
// a `step` left from a fixed-step scenario is H₁ unless `initial_step` is given.
// The value rules live in the algorithm and its controller, whose messages name
// the key.
DefectControlSettings parse_defect_control(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  const double horizon = scenario.horizon();
  const std::vector<std::string> controller_keys = {
      "initial_step", "k_p", "k_i", "theta_max", "min_step", "max_step", "abort_below_step"};
  std::vector<std::string> allowed = {"type",        "tol",          "step",
                                      "input_order", "output_order", "defect"};
  allowed.insert(allowed.end(), controller_keys.begin(), controller_keys.end());
  check_keys(node, source, "algorithm", allowed);

  DefectControlSettings settings;
  if (is_given(node, "input_order"))
    settings.input_order = defect_control_order(node, source, "input_order");
  // n defaults to m: the paper's experiments all use m = n.
  settings.output_order = is_given(node, "output_order")
                              ? defect_control_order(node, source, "output_order")
                              : settings.input_order;
  if (is_given(node, "defect")) settings.monitored = monitored_defects(node, source);

  if (!is_given(node, "tol")) {
    if (!is_given(node, "step")) {
      throw ConfigurationError(
          locate(source, node, "algorithm.tol") +
          ": missing (the defect tolerance; or give algorithm.step for the fixed-step variant)");
    }
    for (const std::string& key : controller_keys) {
      if (is_given(node, key.c_str())) {
        throw ConfigurationError(
            locate(source, node[key], "algorithm." + key) +
            ": only for the variable-step variant, which algorithm.tol selects; without it "
            "algorithm.step is a fixed step");
      }
    }
    const double step = number(node, source, "step", ranges::step(horizon));
    check_macro_steps(node["step"], scenario, "algorithm.step", step);
    settings.fixed_step = step_to_ticks(step);
    return settings;
  }
  PiStepControllerSettings& controller = settings.controller;
  controller.tolerance = number(node, source, "tol", ranges::absolute_tolerance());
  // The paper's H₁ (§4), unless the horizon is shorter.
  controller.initial_step = std::min(1e-4, horizon);
  if (is_given(node, "initial_step")) {
    controller.initial_step = number(node, source, "initial_step", ranges::step(horizon));
  } else if (is_given(node, "step")) {
    controller.initial_step = number(node, source, "step", ranges::step(horizon));
  }
  const NumberRange gain{0.0, kMaxGain, ""};
  if (is_given(node, "k_p")) controller.proportional_gain = number(node, source, "k_p", gain);
  if (is_given(node, "k_i")) controller.integral_gain = number(node, source, "k_i", gain);
  if (is_given(node, "theta_max"))
    controller.max_growth = number(node, source, "theta_max", {1.0, kMaxGrowth, ""});
  if (is_given(node, "min_step")) {
    controller.min_step = number(node, source, "min_step", {kMinDuration, horizon, " s", true});
  }
  if (is_given(node, "max_step"))
    controller.max_step = number(node, source, "max_step", ranges::step_bound());
  if (is_given(node, "abort_below_step")) {
    settings.abort_below_step =
        number(node, source, "abort_below_step", {kMinDuration, horizon, " s", true});
  }
  // The variable step lands on the stimuli's breakpoints (the fixed grid stays fixed).
  settings.landing_times = stimulus_breakpoints(scenario);
  return settings;
}

}  // namespace couplet::tools
