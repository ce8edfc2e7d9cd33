#include "host_tools/scenario/f3ornits_reader.hpp"

#include <algorithm>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/scenario/stimulus_breakpoints.hpp"

namespace couplet::tools {
namespace {

std::string path(const char* key) {
  return std::string("algorithm.") + key;
}

double number(const YAML::Node& node, const std::string& source, const char* key,
              const NumberRange& range) {
  return bounded_number(node[key], source, path(key), range);
}

// ρ bounds (Remark 1): the paper uses 0.1 and 1.05; beyond these a step changes by
// more than a factor 100 between communications.
constexpr double kMinRatio = 0.01;
constexpr double kMaxRatio = 100.0;
constexpr double kMaxDamping = 1e6;  // per second

[[noreturn]] void bad_value(const YAML::Node& node, const std::string& source, const char* key,
                            const std::string& why) {
  throw ConfigurationError(locate(source, node[key], path(key)) + ": " + why);
}

/// One of `choices`, as its index.
std::size_t choice(const YAML::Node& node, const std::string& source, const char* key,
                   const std::vector<std::string>& choices) {
  const std::string value = require_string(node[key], source, path(key));
  std::string listed;
  for (std::size_t k = 0; k < choices.size(); ++k) {
    if (value == choices[k]) return k;
    listed += (k ? ", " : "") + choices[k];
  }
  bad_value(node, source, key, "unknown value '" + value + "' (" + listed + ")");
}

bool flag(const YAML::Node& node, const std::string& source, const char* key) {
  try {
    return node[key].as<bool>();
  } catch (const YAML::Exception&) {
    bad_value(node, source, key, "expected true or false");
  }
}

}  // namespace

F3ornitsSettings parse_f3ornits(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  const double horizon = scenario.horizon();
  // The keys of the other algorithms are accepted and ignored, so that
  // `--set algorithm.type=f3ornits` runs any scenario; anything else is a typo.
  check_keys(node, source, "algorithm",
             {"type", "max_degree", "calibration", "smoothing", "normalization", "damping",
              "tol_rel", "tol_abs", "rho_min", "rho_max", "initial_step", "min_step", "max_step",
              "abort_below_step", "scheduler",
              // jacobi, gauss_seidel, defect_control:
              "step", "input_order", "output_order", "defect", "tol", "k_p", "k_i", "theta_max"});
  F3ornitsSettings settings;
  TimeStepperSettings& stepper = settings.time_stepper;
  if (is_given(node, "max_degree")) {
    settings.max_degree = static_cast<int>(
        number(node, source, "max_degree", ranges::count(0, Polynomial::kMaxDegree)));
  }
  if (is_given(node, "calibration")) {
    settings.calibration = choice(node, source, "calibration", {"extrapolation", "cls"}) == 0
                               ? Calibration::extrapolation
                               : Calibration::constrained_least_squares;
  }
  if (is_given(node, "smoothing")) settings.smoothing = flag(node, source, "smoothing");
  if (is_given(node, "normalization")) {
    stepper.normalization = static_cast<Normalization>(
        choice(node, source, "normalization", {"magnitude", "amplitude", "damped_amplitude"}));
  }
  if (is_given(node, "scheduler")) {
    settings.synchronous = choice(node, source, "scheduler", {"asynchronous", "synchronous"}) == 1;
  }
  if (is_given(node, "damping"))
    stepper.damping = number(node, source, "damping", {0.0, kMaxDamping, " per second"});
  if (is_given(node, "tol_rel"))
    stepper.tol_rel = number(node, source, "tol_rel", ranges::relative_tolerance());
  if (is_given(node, "tol_abs")) {
    NumberRange range = ranges::absolute_tolerance();
    range.zero_allowed = true;
    stepper.tol_abs = number(node, source, "tol_abs", range);
  }
  if (is_given(node, "rho_min"))
    stepper.rho_min = number(node, source, "rho_min", {kMinRatio, 1.0, ""});
  if (is_given(node, "rho_max"))
    stepper.rho_max = number(node, source, "rho_max", {1.0, kMaxRatio, ""});
  // δt⁽⁰⁾ defaults to 0.01 s, or the horizon when that is shorter.
  settings.initial_step = std::min(settings.initial_step, horizon);
  if (is_given(node, "initial_step")) {
    settings.initial_step = number(node, source, "initial_step", ranges::step(horizon));
  }
  if (is_given(node, "min_step"))
    stepper.min_step = number(node, source, "min_step", {kMinDuration, horizon, " s", true});
  if (is_given(node, "max_step"))
    stepper.max_step = number(node, source, "max_step", ranges::step_bound());
  if (is_given(node, "abort_below_step")) {
    settings.abort_below_step =
        number(node, source, "abort_below_step", {kMinDuration, horizon, " s", true});
  }
  // The slaves' steps land on the stimuli's breakpoints (docs/f3ornits.md).
  settings.landing_times = stimulus_breakpoints(scenario);
  return settings;
}

}  // namespace couplet::tools
