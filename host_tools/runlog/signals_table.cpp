#include "host_tools/runlog/signals_table.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace couplet::tools {

namespace {

/// The column of `columns` named `signal` at or after `first`, if any.
std::optional<std::size_t> column_named(const std::vector<std::string>& columns,
                                        const std::string& signal, std::size_t first) {
  const auto found =
      std::find(columns.begin() + static_cast<std::ptrdiff_t>(first), columns.end(), signal);
  if (found == columns.end()) return std::nullopt;
  return static_cast<std::size_t>(found - columns.begin());
}

}  // namespace

SignalColumns::SignalColumns(TableSink& next, std::vector<std::string> signals)
    : next_(next), signals_(std::move(signals)) {}

void SignalColumns::header(const ExportTable& grid) {
  kept_ = {0};  // the time column first
  kept_discrete_.clear();
  if (signals_.empty()) {
    for (std::size_t c = 1; c < grid.columns.size(); ++c) kept_.push_back(c);
    for (std::size_t c = 0; c < grid.discrete_columns.size(); ++c) kept_discrete_.push_back(c);
  } else {
    // signals.csv's order: the named Real outputs, then the named discrete ones.
    for (const std::string& signal : signals_) {
      if (const auto real = column_named(grid.columns, signal, 1)) {
        kept_.push_back(*real);
      } else if (const auto discrete = column_named(grid.discrete_columns, signal, 0)) {
        kept_discrete_.push_back(*discrete);
      } else {
        throw RunLogError("evaluation signal '" + signal + "' is not an output in the run log");
      }
    }
  }
  ExportTable table;
  for (const std::size_t c : kept_) table.columns.push_back(c == 0 ? "time" : grid.columns[c]);
  for (const std::size_t c : kept_discrete_) {
    table.discrete_columns.push_back(grid.discrete_columns[c]);
    table.discrete_types.push_back(grid.discrete_types[c]);
  }
  row_.resize(kept_.size());
  discrete_row_.resize(kept_discrete_.size());
  next_.header(table);
}

void SignalColumns::row(std::span<const std::optional<double>> row,
                        std::span<const std::optional<std::int64_t>> discrete) {
  for (std::size_t k = 0; k < kept_.size(); ++k) row_[k] = row[kept_[k]];
  for (std::size_t k = 0; k < kept_discrete_.size(); ++k)
    discrete_row_[k] = discrete[kept_discrete_[k]];
  next_.row(row_, discrete_row_);
}

}  // namespace couplet::tools
