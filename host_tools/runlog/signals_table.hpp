#pragma once
// `couplet export --grid` (docs/run-log.md): the grid rows exactly as
// signals.csv holds them — a `time` column and the scenario's evaluation
// signals in its order — so that the two files compare column by column
// (signals.csv's `:reference` columns aside: the reference is not in the log).
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"

namespace couplet::tools {

/// `grid` (grid_table()) with its `time_s` column named `time` and only the
/// columns of `signals` ("slave.output", in that order, the Real ones before the
/// Integer and Boolean ones as in signals.csv; empty: every output, as a
/// scenario without evaluation.signals has). Throws RunLogError naming a
/// signal that is not a column.
ExportTable signals_table(const ExportTable& grid, const std::vector<std::string>& signals);

}  // namespace couplet::tools
