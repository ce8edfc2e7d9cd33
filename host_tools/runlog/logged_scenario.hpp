#pragma once
// The scenario a run log recorded (its text as run, overrides applied), read
// again through the scenario readers, and its evaluation grid: what the grid
// rows of `export --grid`, `compare` and Python's `read_table(grid=True)` are
// evaluated on.
#include <vector>

#include "couplet/time.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// Throws RunLogError naming the log when its scenario text no longer loads.
Scenario logged_scenario(const RunLog& log);

/// The evaluation grid of `scenario`, the one `log` recorded. Throws
/// RunLogError naming the log when it has none (no evaluation.grid).
std::vector<Time> logged_evaluation_grid(const RunLog& log, const Scenario& scenario);
/// The same, reading the logged scenario first.
std::vector<Time> logged_evaluation_grid(const RunLog& log);

}  // namespace couplet::tools
