#pragma once
// Reads a scenario's `algorithm` section, and a group's, into their typed
// settings (host_tools/scenario/algorithm_settings.hpp; the keys of each type in
// docs/algorithms.md, docs/defect-control.md, docs/f3ornits.md, docs/iterative.md).
#include <string>

#include "host_tools/scenario/algorithm_settings.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// `algorithm:` of `scenario`, whose time, slaves and stimuli are already read.
/// Throws ConfigurationError naming file, line and key for a missing or unknown
/// type, an unknown key or a number outside its range.
AlgorithmSettings parse_algorithm(const YAML::Node& node, const Scenario& scenario);

/// `groups.NAME.algorithm`: an iterative algorithm (ifosmondi, ifosmondi_jfm).
GroupAlgorithmSettings parse_group_algorithm(const YAML::Node& node, const Scenario& scenario,
                                             const std::string& group);

}  // namespace couplet::tools
