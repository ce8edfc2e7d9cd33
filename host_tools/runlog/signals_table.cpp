#include "host_tools/runlog/signals_table.hpp"

#include <algorithm>
#include <optional>

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

ExportTable signals_table(const ExportTable& grid, const std::vector<std::string>& signals) {
  std::vector<std::size_t> kept{0};  // the time column first
  std::vector<std::size_t> kept_discrete;
  if (signals.empty()) {
    for (std::size_t c = 1; c < grid.columns.size(); ++c) kept.push_back(c);
    for (std::size_t c = 0; c < grid.discrete_columns.size(); ++c) kept_discrete.push_back(c);
  } else {
    // signals.csv's order: the named Real outputs, then the named discrete ones.
    for (const std::string& signal : signals) {
      if (const auto real = column_named(grid.columns, signal, 1)) {
        kept.push_back(*real);
      } else if (const auto discrete = column_named(grid.discrete_columns, signal, 0)) {
        kept_discrete.push_back(*discrete);
      } else {
        throw RunLogError("evaluation signal '" + signal + "' is not an output in the run log");
      }
    }
  }
  ExportTable table;
  for (const std::size_t c : kept) table.columns.push_back(c == 0 ? "time" : grid.columns[c]);
  for (const std::size_t c : kept_discrete) {
    table.discrete_columns.push_back(grid.discrete_columns[c]);
    table.discrete_types.push_back(grid.discrete_types[c]);
  }
  table.rows.reserve(grid.rows.size());
  for (std::size_t r = 0; r < grid.rows.size(); ++r) {
    auto& kept_row = table.rows.emplace_back();
    kept_row.reserve(kept.size());
    for (const std::size_t c : kept) kept_row.push_back(grid.rows[r][c]);
    auto& kept_discrete_row = table.discrete_rows.emplace_back();
    for (const std::size_t c : kept_discrete) kept_discrete_row.push_back(grid.discrete_rows[r][c]);
  }
  return table;
}

}  // namespace couplet::tools
