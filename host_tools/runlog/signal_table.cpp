#include "host_tools/runlog/signal_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "couplet/errors.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/logged_scenario.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

namespace {

std::vector<std::string> split_fields(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> fields;
  std::stringstream stream(line);
  for (std::string field; std::getline(stream, field, ',');) fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

/// The whole field as a number ("nan" and "inf" included: a run may write them).
bool parse_number(const std::string& field, double& value) {
  if (field.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(field.c_str(), &end);
  return end == field.c_str() + field.size();
}

}  // namespace

std::size_t SignalTable::find(const std::string& name) const {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

void read_signals_rows(std::istream& rows, const std::string& source,
                       const std::function<void(const std::vector<std::string>&)>& header_read,
                       const std::function<void(const std::vector<double>&)>& row_read) {
  std::string line;
  if (!std::getline(rows, line))
    throw ConfigurationError("'" + source + "': empty (no header line)");
  const std::vector<std::string> header = split_fields(line);
  if (header.empty() || header.front() != "time")
    throw ConfigurationError(source + ":1: the first column must be 'time'");
  header_read(std::vector<std::string>(header.begin() + 1, header.end()));
  std::vector<double> values;
  for (std::size_t number = 2; std::getline(rows, line); ++number) {
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != header.size()) {
      throw ConfigurationError(source + ":" + std::to_string(number) + ": " +
                               std::to_string(fields.size()) + " fields, the header has " +
                               std::to_string(header.size()));
    }
    values.assign(fields.size(), 0.0);
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (!parse_number(fields[k], values[k])) {
        throw ConfigurationError(source + ":" + std::to_string(number) + ": column '" + header[k] +
                                 "': '" + fields[k] + "' is not a number");
      }
    }
    row_read(values);
  }
}

SignalTable parse_signals_csv(std::istream& rows, const std::string& source) {
  SignalTable table;
  table.source = source;
  read_signals_rows(
      rows, source,
      [&](const std::vector<std::string>& names) {
        table.names = names;
        table.columns.resize(names.size());
      },
      [&](const std::vector<double>& values) {
        table.times.push_back(values[0]);
        for (std::size_t k = 1; k < values.size(); ++k) table.columns[k - 1].push_back(values[k]);
      });
  return table;
}

SignalTable read_signals_csv(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigurationError("'" + path + "': cannot be read");
  return parse_signals_csv(file, path);
}

namespace {

/// The Real columns of the grid rows as a SignalTable.
class SignalColumnsOfRows final : public TableSink {
 public:
  explicit SignalColumnsOfRows(SignalTable& table) : table_(table) {}
  void header(const ExportTable& columns) override {
    // Column 0 is time_s; the others are the outputs.
    table_.names.assign(columns.columns.begin() + 1, columns.columns.end());
    table_.columns.resize(table_.names.size());
  }
  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>>) override {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    table_.times.push_back(row[0].value_or(kNaN));
    for (std::size_t k = 1; k < row.size(); ++k)
      table_.columns[k - 1].push_back(row[k].value_or(kNaN));
  }

 private:
  SignalTable& table_;
};

}  // namespace

SignalTable signals_of_log(RunLogReading& reading) {
  reading.read_structure();
  const std::vector<Time> grid = logged_evaluation_grid(reading.log());
  SignalTable table;
  table.source = reading.log().path;
  SignalColumnsOfRows rows(table);
  stream_grid_rows(reading, grid, rows);
  return table;
}

}  // namespace couplet::tools
