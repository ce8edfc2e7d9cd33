#include "host_tools/run_files.hpp"

#include <ostream>

#include "host_tools/run_directory.hpp"
#include "runtime/exact_text.hpp"

namespace couplet::tools {

void write_signals_csv(const std::filesystem::path& path, const std::vector<Time>& grid,
                       const std::vector<Column>& columns, std::size_t rows) {
  write_file_atomically(path, [&](std::ostream& file) {
    file << "time";
    for (const Column& column : columns) file << ',' << column.name;
    file << '\n';
    for (std::size_t k = 0; k < rows; ++k) {
      file << exact_text(to_seconds(grid[k]));
      for (const Column& column : columns) {
        const std::size_t at = k * column.stride + column.offset;
        file << ',';
        if (column.discrete_values.empty()) {
          file << exact_text(column.values[at]);
        } else {
          file << column.discrete_values[at];
        }
      }
      file << '\n';
    }
  });
}

void write_summary(const std::filesystem::path& directory, const nlohmann::json& summary) {
  write_file_atomically(directory / "summary.json",
                        [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
}

std::vector<double> column_of(std::span<const double> values, std::size_t stride,
                              std::size_t offset, std::size_t count) {
  std::vector<double> column(count);
  for (std::size_t k = 0; k < count; ++k) column[k] = values[k * stride + offset];
  return column;
}

std::vector<double> column_of(const Column& column, std::size_t count) {
  if (column.discrete_values.empty())
    return column_of(column.values, column.stride, column.offset, count);
  std::vector<double> values(count);
  for (std::size_t k = 0; k < count; ++k)
    values[k] = static_cast<double>(column.discrete_values[k * column.stride + column.offset]);
  return values;
}

}  // namespace couplet::tools
