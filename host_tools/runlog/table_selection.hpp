#pragma once
// Some columns of a streamed export table, and its rows thinned out in time
// (docs/python.md "read_table"): what a plot or an analysis of a long run needs
// of its log, in memory that grows with what is kept, not with the log.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"

namespace couplet::tools {

/// A column asked for that the table does not have.
class UnknownColumnError : public RunLogError {
 public:
  using RunLogError::RunLogError;
};

/// Passes on to `next` the first column (the time, in seconds) and the columns
/// named in `columns` (Real or discrete; empty: all), in the table's order; and
/// with `every` (seconds, > 0) only the first row at or after each multiple of
/// it from the first row's time, and the last row. header() throws
/// UnknownColumnError naming a column the table does not have, and listing
/// those it has.
class TableSelection final : public TableSink {
 public:
  TableSelection(TableSink& next, std::vector<std::string> columns,
                 std::optional<double> every = std::nullopt);
  void header(const ExportTable& columns) override;
  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>> discrete) override;
  /// Passes on the last row when it was not: call once the stream has ended.
  void finish();

 private:
  TableSink& next_;
  std::vector<std::string> names_;
  std::optional<double> every_;
  ColumnSubset kept_;  ///< time first, then the columns asked for
  std::optional<double> first_time_;
  double next_interval_ = 0.0;  ///< rows before this many intervals from the first are skipped
  /// The latest row skipped (passed on by finish()), when it is the last one seen.
  std::vector<std::optional<double>> skipped_;
  std::vector<std::optional<std::int64_t>> skipped_discrete_;
  bool last_skipped_ = false;
};

}  // namespace couplet::tools
