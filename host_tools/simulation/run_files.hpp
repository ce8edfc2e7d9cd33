#pragma once
// The result files of a run or of a reference: signals.csv and summary.json,
// each written atomically (host_tools/simulation/run_directory.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "couplet/time.hpp"

namespace couplet::tools {

/// One column of signals.csv: a signal's values on the evaluation grid.
struct Column {
  std::string name;
  std::span<const double> values;  ///< [grid][stride]
  std::size_t stride = 1;
  std::size_t offset = 0;
  /// A discrete signal's values instead ([grid][stride]), written as integers.
  std::span<const std::int64_t> discrete_values = {};
};

/// signals.csv: the first `rows` grid times (a stopped run's rows end where
/// every slave had arrived).
void write_signals_csv(const std::filesystem::path& path, const std::vector<Time>& grid,
                       const std::vector<Column>& columns, std::size_t rows);

/// The most bytes signals.csv of `rows` rows takes: a value is at most 24
/// characters and a separator (exact_text), a column name at most 200.
std::uint64_t signals_csv_bytes_at_most(std::size_t rows, std::size_t columns);

/// DIRECTORY/summary.json, indented.
void write_summary(const std::filesystem::path& directory, const nlohmann::json& summary);

/// A column's first `count` values ([grid][stride] storage; Real or discrete).
template <typename Values>
std::vector<typename Values::value_type> column_of(const Values& values, std::size_t stride,
                                                   std::size_t offset, std::size_t count) {
  std::vector<typename Values::value_type> column(count);
  for (std::size_t k = 0; k < count; ++k) column[k] = values[k * stride + offset];
  return column;
}

}  // namespace couplet::tools
