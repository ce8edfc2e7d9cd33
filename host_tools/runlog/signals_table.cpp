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
  std::vector<std::size_t> real{0};  // the time column first
  std::vector<std::size_t> discrete;
  if (signals_.empty()) {
    for (std::size_t c = 1; c < grid.columns.size(); ++c) real.push_back(c);
    for (std::size_t c = 0; c < grid.discrete_columns.size(); ++c) discrete.push_back(c);
  } else {
    // signals.csv's order: the named Real outputs, then the named discrete ones.
    for (const std::string& signal : signals_) {
      if (const auto column = column_named(grid.columns, signal, 1)) {
        real.push_back(*column);
      } else if (const auto discrete_column = column_named(grid.discrete_columns, signal, 0)) {
        discrete.push_back(*discrete_column);
      } else {
        throw RunLogError("evaluation signal '" + signal + "' is not an output in the run log");
      }
    }
  }
  kept_ = ColumnSubset(std::move(real), std::move(discrete));
  next_.header(kept_.header_of(grid, "time"));
}

void SignalColumns::row(std::span<const std::optional<double>> row,
                        std::span<const std::optional<std::int64_t>> discrete) {
  kept_.pass(next_, row, discrete);
}

}  // namespace couplet::tools
