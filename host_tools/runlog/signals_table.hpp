#pragma once
// `couplet export --grid` (docs/run-log.md): the grid rows exactly as
// signals.csv holds them — a `time` column and the scenario's evaluation
// signals in its order — so that the two files compare column by column
// (signals.csv's `:reference` columns aside: the reference is not in the log).
#include <cstddef>
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"

namespace couplet::tools {

/// Passes the grid rows (grid_table(), stream_grid_rows()) on to `next` with
/// their `time_s` column named `time` and only the columns of `signals`
/// ("slave.output", in that order, the Real ones before the Integer and Boolean
/// ones as in signals.csv; empty: every output, as a scenario without
/// evaluation.signals has). header() throws RunLogError naming a signal that is
/// not a column.
class SignalColumns final : public TableSink {
 public:
  SignalColumns(TableSink& next, std::vector<std::string> signals);
  void header(const ExportTable& columns) override;
  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>> discrete) override;

 private:
  TableSink& next_;
  std::vector<std::string> signals_;
  ColumnSubset kept_;  ///< time first, then the signals' columns
};

}  // namespace couplet::tools
