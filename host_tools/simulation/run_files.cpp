#include "host_tools/simulation/run_files.hpp"

#include <ostream>

#include "core/exact_text.hpp"
#include "host_tools/simulation/run_directory.hpp"

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

std::uint64_t signals_csv_bytes_at_most(std::size_t rows, std::size_t columns) {
  constexpr std::uint64_t kValueBytes = 25;
  constexpr std::uint64_t kNameBytes = 200;
  return (columns + 1) * (kNameBytes + kValueBytes * static_cast<std::uint64_t>(rows));
}

void write_summary(const std::filesystem::path& directory, const nlohmann::json& summary) {
  write_file_atomically(directory / "summary.json",
                        [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
}

}  // namespace couplet::tools
