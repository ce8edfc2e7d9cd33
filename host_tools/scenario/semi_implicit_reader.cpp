#include "host_tools/scenario/semi_implicit_reader.hpp"

#include <cmath>

#include "couplet/errors.hpp"
#include "host_tools/scenario/history_reader.hpp"

namespace couplet::tools {

SemiImplicitSettings parse_semi_implicit(const YAML::Node& node, const Scenario& scenario) {
  const std::string& source = scenario.source;
  check_keys(node, source, "algorithm", {"type", "step", "input_order", "perturbation", "history"});
  if (!is_given(node, "step")) {
    throw ConfigurationError(locate(source, node, "algorithm.step") +
                             ": missing (the macro step H in seconds)");
  }
  const double step =
      bounded_number(node["step"], source, "algorithm.step", ranges::step(scenario.horizon()));
  check_macro_steps(node["step"], scenario, "algorithm.step", step);
  SemiImplicitSettings settings;
  settings.step = step_to_ticks(step);
  if (is_given(node, "input_order")) {
    settings.input_order =
        static_cast<int>(bounded_number(node["input_order"], source, "algorithm.input_order",
                                        ranges::count(0, CommunicationHistory::kMaxOrder)));
  }
  if (is_given(node, "perturbation")) {
    settings.perturbation = require_number(node["perturbation"], source, "algorithm.perturbation");
    if (!std::isfinite(settings.perturbation) || settings.perturbation == 0.0 ||
        std::abs(settings.perturbation) > 1e12) {
      throw ConfigurationError(
          locate(source, node["perturbation"], "algorithm.perturbation") +
          ": must be finite, not 0 and at most 1e12 in magnitude (Δλ of eq. 4, in the units "
          "of the coupling forces)");
    }
  }
  settings.history = parse_history_seeds(node["history"], source, "algorithm.history");
  return settings;
}

}  // namespace couplet::tools
