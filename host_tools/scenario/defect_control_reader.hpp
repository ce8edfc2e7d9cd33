#pragma once
// The `algorithm` section of a scenario with `type: defect_control`
// (docs/defect-control.md).
#include <string>

#include "host_tools/scenario/scenario.hpp"
#include "runtime/algorithms/defect_controlled_jacobi.hpp"

namespace couplet::tools {

/// Reads tol, step, initial_step, k_p, k_i, theta_max, min_step, max_step,
/// abort_below_step, input_order, output_order and defect; throws
/// ConfigurationError naming the file, line and key of an unknown key or a value
/// out of its range (steps within the scenario's horizon).
DefectControlSettings parse_defect_control(const YAML::Node& node, const Scenario& scenario);

}  // namespace couplet::tools
