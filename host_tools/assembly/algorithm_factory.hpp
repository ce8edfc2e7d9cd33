#pragma once
// Builds the algorithm a scenario's typed `algorithm` settings name
// (host_tools/scenario/algorithm_settings.hpp), and a group's.
#include <memory>

#include "host_tools/scenario/algorithm_settings.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/algorithms/ifosmondi_algorithm.hpp"

namespace couplet::tools {

/// Throws ConfigurationError for settings the algorithm refuses, its message
/// after the section's file and line (settings.where).
std::unique_ptr<Algorithm> make_algorithm(const AlgorithmSettings& settings);

/// The iterative algorithm that solves a group (docs/iterative.md).
std::unique_ptr<IfosmondiAlgorithm> make_group_algorithm(const GroupAlgorithmSettings& settings);

}  // namespace couplet::tools
