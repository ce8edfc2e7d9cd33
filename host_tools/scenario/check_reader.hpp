#pragma once
// The `checks:` list of a scenario (docs/scenarios.md#checks): what a run
// should do, as typed settings read once from the YAML. The evaluator
// (host_tools/checks/check_evaluator.hpp) takes these and never sees YAML.
//
//   checks:
//     - {name: stays_small, signal: left.x, max: 1.0, from: 0, to: 10}
//     - {name: settled, signal: left.v, settles: {value: 0, tolerance: 0.01, by: 150}}
//     - {name: at_ten, signal: left.x, at: {time: 10, value: 0.2, tolerance: 0.01}}
//     - {name: as_measured, signal: left.x, matches: {file: x.csv, column: x, tolerance: 0.05}}
//     - {name: moves, signal: left.x, reaches: {above: 0.1, before: 5}}
//     - {name: in_time, realtime: {max_overruns: 0, max_p99_lateness: 0.001}}
//     - {name: accurate, accuracy: {signal: left.x, max_nrmse: 0.5}}
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "host_tools/scenario/check_spec.hpp"

namespace couplet::tools {

/// Reads `checks:` (absent or null: none). `scenario_start`/`scenario_end`
/// bound the times; `monolithic_reference` tells whether `accuracy` can be
/// evaluated, `wall_clock` whether `realtime` can. Unknown keys, missing or contradictory settings
/// and numbers out of range are ConfigurationErrors naming the file, line and key.
std::vector<CheckSpec> parse_checks(const YAML::Node& node, const std::string& source,
                                    double scenario_start, double scenario_end,
                                    bool monolithic_reference, bool wall_clock);

/// The CSV of a `matches:` check: a header naming `time` and `check.column`,
/// then rows of numbers; the times increasing and covering the check's window
/// within [start, end]. Errors name the check (file:line) and the CSV file.
CheckTrace read_check_trace(const CheckSpec& check, double scenario_start, double scenario_end);

}  // namespace couplet::tools
