#pragma once
// The `algorithm` section of a scenario (or of a group, docs/iterative.md) with
// `type: ifosmondi` or `type: ifosmondi_jfm` (docs/iterative.md names
// the IFOSMONDI papers).
#include <string>

#include "host_tools/scenario/algorithm_settings.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// Keys: step (δt_ref, s, required, within the horizon), min_step (default min(1e-6 s, step)), eps
/// (sets eps_abs and eps_rel), eps_abs, eps_rel (default 1e-4), max_iterations (50; for ifosmondi
/// when absent, sized from the measured contraction up to kFixedPointIterationCap); for
/// ifosmondi_jfm also solver (newton | anderson | ngmres | fixed_point), for the KINSOL solvers
/// krylov_tolerance, krylov_dimension, anderson_depth, residual_relative_error, for ngmres
/// ngmres_window and line_search. `path` names the section in messages ("algorithm",
/// "groups.g.algorithm"). Throws ConfigurationError naming file, line and key.
IterativeChoice parse_ifosmondi(const YAML::Node& node, const Scenario& scenario,
                                const std::string& path);

/// True for the types parse_ifosmondi reads.
bool is_ifosmondi_type(const std::string& type);

}  // namespace couplet::tools
