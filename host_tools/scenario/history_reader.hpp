#pragma once
// `algorithm.history`: communication values before the start, for the algorithms
// whose inputs extrapolate past communication values (jacobi / gauss_seidel with
// `inputs: extrapolated`, semi_implicit; docs/algorithms.md).
#include <string>
#include <vector>

#include "host_tools/scenario/scenario.hpp"
#include "runtime/communication_history.hpp"

namespace couplet::tools {

/// `history: {slave.output: [y(start − H), y(start − 2H), ...], ...}`, newest
/// first, at most CommunicationHistory::kMaxOrder values each. Absent or null:
/// none. Throws ConfigurationError naming file, line and key. The outputs are
/// resolved (and unknown ones refused) when the run starts.
std::vector<OutputHistorySeed> parse_history_seeds(const YAML::Node& node,
                                                   const std::string& source,
                                                   const std::string& path);

}  // namespace couplet::tools
