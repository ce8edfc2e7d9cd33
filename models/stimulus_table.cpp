#include "models/stimulus_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "couplet/errors.hpp"
#include "couplet/time.hpp"
#include "models/stimulus.hpp"

namespace couplet::models {
namespace {

constexpr std::string_view kTimeColumn = "time";
// Rows closer than a tick would be one master time.
constexpr double kMinimumRowSpacing = 1.0 / static_cast<double>(kTicksPerSecond);

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> cells_of(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    cells.push_back(trimmed(line.substr(begin, comma - begin)));
    if (comma == std::string_view::npos) return cells;
    begin = comma + 1;
  }
}

bool is_skipped(std::string_view line) {
  const std::string_view content = trimmed(line);
  return content.empty() || content.front() == '#';
}

/// Reads the file line by line and names the place of every error.
class TableReader {
 public:
  explicit TableReader(const std::string& path) : path_(path), input_(path) {
    if (!input_) throw ConfigurationError(path_ + ": cannot be read");
    table_.file = path;
  }

  StimulusTable read() {
    std::string line;
    bool has_header = false;
    while (std::getline(input_, line)) {
      ++line_number_;
      if (is_skipped(line)) continue;
      if (!has_header) {
        read_header(cells_of(line));
        has_header = true;
      } else {
        read_row(cells_of(line));
      }
    }
    if (!has_header) fail_file("empty: expected a header row with 'time' and the output names");
    if (table_.times.empty()) fail_file("no data row after the header");
    return std::move(table_);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigurationError(path_ + ":" + std::to_string(line_number_) + ": " + message);
  }
  [[noreturn]] void fail_file(const std::string& message) const {
    throw ConfigurationError(path_ + ": " + message);
  }

  void read_header(const std::vector<std::string_view>& cells) {
    column_count_ = cells.size();
    std::vector<std::string> names;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string_view cell = cells[c];
      const std::size_t colon = cell.find(':');
      const std::string name(trimmed(cell.substr(0, colon)));
      if (name.empty()) fail("column " + std::to_string(c + 1) + " has no name");
      if (name.find('.') != std::string::npos)
        fail("column name '" + name + "' contains '.', which separates slave and port names");
      if (std::find(names.begin(), names.end(), name) != names.end())
        fail("column '" + name + "' appears twice");
      names.push_back(name);
      const std::optional<DiscreteType> type =
          column_type(name, colon == std::string_view::npos ? "" : trimmed(cell.substr(colon + 1)));
      column_types_.push_back(type);
      if (name == kTimeColumn) {
        if (type) fail("the 'time' column is Real seconds: no type after ':'");
        time_column_ = c;
      } else if (!type) {
        table_.outputs.push_back(name);
      } else {
        table_.discrete_outputs.push_back({.name = name, .type = *type});
      }
    }
    if (time_column_ == kNone) fail("no 'time' column in the header");
    if (table_.outputs.empty() && table_.discrete_outputs.empty())
      fail("no output column besides 'time'");
    header_names_ = std::move(names);
  }

  /// The type after ':' in a header cell: none for a Real column.
  std::optional<DiscreteType> column_type(const std::string& name, std::string_view type) const {
    if (type.empty()) return std::nullopt;
    if (type == "Integer") return DiscreteType::integer;
    if (type == "Boolean") return DiscreteType::boolean;
    fail("column '" + name + "': type '" + std::string(type) +
         "' after ':' is not Integer or Boolean");
  }

  std::int64_t whole_number(std::string_view cell, std::size_t column) const {
    std::int64_t value = 0;
    const char* end = cell.data() + cell.size();
    const auto [stop, error] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || error != std::errc() || stop != end)
      fail("column '" + header_names_[column] + "': '" + std::string(cell) +
           "' is not a whole number");
    if (column_types_[column] == DiscreteType::boolean && value != 0 && value != 1)
      fail("column '" + header_names_[column] + "' is Boolean: '" + std::string(cell) +
           "' is neither 0 nor 1");
    return value;
  }

  double number(std::string_view cell, std::size_t column) const {
    double value = 0.0;
    const char* end = cell.data() + cell.size();
    const auto [stop, error] = std::from_chars(cell.data(), end, value);
    if (cell.empty() || error != std::errc() || stop != end || !std::isfinite(value)) {
      fail("column '" + header_names_[column] + "': '" + std::string(cell) +
           "' is not a finite number");
    }
    return value;
  }

  void read_row(const std::vector<std::string_view>& cells) {
    if (cells.size() != column_count_) {
      fail(std::to_string(cells.size()) + " cells, but the header has " +
           std::to_string(column_count_));
    }
    const double time = number(cells[time_column_], time_column_);
    if (!table_.times.empty() && !(time - table_.times.back() >= kMinimumRowSpacing)) {
      std::ostringstream message;
      message.precision(17);
      message << "time " << time << " is not after the previous row's " << table_.times.back()
              << " (rows must be at least 1 ns apart)";
      fail(message.str());
    }
    table_.times.push_back(time);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c == time_column_) continue;
      if (!column_types_[c]) {
        table_.values.push_back(number(cells[c], c));
      } else {
        table_.discrete_values.push_back(whole_number(cells[c], c));
      }
    }
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::string path_;
  std::ifstream input_;
  StimulusTable table_;
  std::vector<std::string> header_names_;
  /// Per column, `time` included: Integer, Boolean, or none (Real).
  std::vector<std::optional<DiscreteType>> column_types_;
  std::size_t column_count_ = 0;
  std::size_t time_column_ = kNone;
  std::size_t line_number_ = 0;
};

ModelDescription table_description(const StimulusTable& table, TableInterpolation interpolation) {
  ModelDescription description{
      .name = kTableStimulusName,
      .summary = std::string("outputs played from '") + table.file + "' (" +
                 (interpolation == TableInterpolation::hold ? "hold" : "linear") +
                 " between rows, first/last row held outside); each output in the unit of "
                 "the input it drives",
      .inputs = {},
      .outputs = {},
      .states = {},
      .parameters = {}};
  for (const std::string& name : table.outputs) description.outputs.push_back({.name = name});
  description.discrete_outputs = table.discrete_outputs;
  return description;
}

class TableStimulus final : public Stimulus {
 public:
  TableStimulus(StimulusTable table, TableInterpolation interpolation)
      : description_(table_description(table, interpolation)),
        table_(std::move(table)),
        interpolation_(interpolation) {}

  const ModelDescription& description() const override { return description_; }
  std::span<const double> time_events() const override { return table_.times; }

 private:
  /// The last row whose time is at or before t (0 before the first row).
  std::size_t row_at(double t) const {
    const auto after =
        std::upper_bound(table_.times.begin(), table_.times.end(), t + kBreakpointResolution);
    return after == table_.times.begin()
               ? 0
               : static_cast<std::size_t>(after - table_.times.begin()) - 1;
  }
  std::span<const double> row(std::size_t index) const {
    const std::size_t width = table_.outputs.size();
    return std::span<const double>(table_.values).subspan(index * width, width);
  }
  /// Whether t lies strictly between the first and the last row, where the
  /// linear interpolation has a slope.
  bool interpolates(double t) const {
    return interpolation_ == TableInterpolation::linear && at_or_after(t, table_.times.front()) &&
           !at_or_after(t, table_.times.back());
  }

  void values(double t, std::span<double> y) const override {
    const std::size_t index = row_at(t);
    const std::span<const double> current = row(index);
    if (!interpolates(t)) {
      std::copy(current.begin(), current.end(), y.begin());
      return;
    }
    const std::span<const double> next = row(index + 1);
    // Clamped: within half a tick of a row, t may lie just before it.
    const double fraction =
        std::max(0.0, (t - table_.times[index]) / (table_.times[index + 1] - table_.times[index]));
    for (std::size_t j = 0; j < y.size(); ++j)
      y[j] = current[j] + (next[j] - current[j]) * fraction;
  }

  void derivative(double t, int k, std::span<double> y) const override {
    std::fill(y.begin(), y.end(), 0.0);
    if (k != 1 || !interpolates(t)) return;
    const std::size_t index = row_at(t);
    const std::span<const double> current = row(index);
    const std::span<const double> next = row(index + 1);
    const double span = table_.times[index + 1] - table_.times[index];
    for (std::size_t j = 0; j < y.size(); ++j) y[j] = (next[j] - current[j]) / span;
  }

  // Always held: the row at or before t (the first before it).
  void discrete_outputs(double t, std::span<std::int64_t> values) const override {
    const std::size_t width = table_.discrete_outputs.size();
    const auto row =
        std::span<const std::int64_t>(table_.discrete_values).subspan(row_at(t) * width, width);
    std::copy(row.begin(), row.end(), values.begin());
  }

  ModelDescription description_;
  StimulusTable table_;
  TableInterpolation interpolation_;
};

}  // namespace

StimulusTable read_stimulus_table(const std::string& path) {
  return TableReader(path).read();
}

std::unique_ptr<Model> make_table_stimulus(StimulusTable table, TableInterpolation interpolation) {
  return std::make_unique<TableStimulus>(std::move(table), interpolation);
}

}  // namespace couplet::models
