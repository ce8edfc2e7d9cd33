#pragma once
// Builds the algorithm named by a scenario's `algorithm` section.
#include <memory>

#include "host_tools/scenario.hpp"
#include "runtime/algorithm.hpp"

namespace couplet::tools {

/// Throws ConfigurationError naming the key for an unknown type or a bad parameter
/// (a number outside its range, host_tools/scenario_limits.hpp).
std::unique_ptr<Algorithm> make_algorithm(const Scenario& scenario);

}  // namespace couplet::tools
