#pragma once
// The `algorithm` section of a scenario with `type: f3ornits` (docs/f3ornits.md).
#include <string>

#include "host_tools/scenario/scenario.hpp"
#include "runtime/algorithms/f3ornits.hpp"

namespace couplet::tools {

/// Reads the keys max_degree, calibration, smoothing, normalization, damping,
/// tol_rel, tol_abs, rho_min, rho_max, initial_step, min_step, max_step,
/// abort_below_step and scheduler; a missing key keeps its default. Throws
/// ConfigurationError naming the file, line and key of an unknown key or a value
/// out of its range (steps within the scenario's horizon).
F3ornitsSettings parse_f3ornits(const YAML::Node& node, const Scenario& scenario);

}  // namespace couplet::tools
