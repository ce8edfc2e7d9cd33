#pragma once
// The `algorithm` section with `type: semi_implicit` (docs/algorithms.md).

#include "host_tools/scenario/scenario.hpp"
#include "runtime/algorithms/semi_implicit.hpp"

namespace couplet::tools {

/// Keys: step (H, s, required), input_order (k, default 0), perturbation (Δλ of
/// eq. 4, default 1, not 0), history (see host_tools/scenario/history_reader.hpp). Parsed
/// once into SemiImplicitSettings; throws ConfigurationError naming file, line and key.
SemiImplicitSettings parse_semi_implicit(const YAML::Node& node, const Scenario& scenario);

}  // namespace couplet::tools
