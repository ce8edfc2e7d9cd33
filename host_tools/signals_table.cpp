#include "host_tools/signals_table.hpp"

#include <algorithm>

namespace couplet::tools {

ExportTable signals_table(const ExportTable& grid, const std::vector<std::string>& signals) {
  std::vector<std::size_t> kept{0};  // the time column first
  if (signals.empty()) {
    for (std::size_t c = 1; c < grid.columns.size(); ++c) kept.push_back(c);
  } else {
    for (const std::string& signal : signals) {
      const auto found = std::find(grid.columns.begin() + 1, grid.columns.end(), signal);
      if (found == grid.columns.end())
        throw RunLogError("evaluation signal '" + signal + "' is not an output in the run log");
      kept.push_back(static_cast<std::size_t>(found - grid.columns.begin()));
    }
  }
  ExportTable table;
  for (const std::size_t c : kept) table.columns.push_back(c == 0 ? "time" : grid.columns[c]);
  table.rows.reserve(grid.rows.size());
  for (const auto& row : grid.rows) {
    auto& kept_row = table.rows.emplace_back();
    kept_row.reserve(kept.size());
    for (const std::size_t c : kept) kept_row.push_back(row[c]);
  }
  return table;
}

}  // namespace couplet::tools
