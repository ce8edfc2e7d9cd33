#include "host_tools/runlog/table_selection.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

namespace couplet::tools {

namespace {

std::string listed(const std::vector<std::string>& columns, const std::vector<std::string>& more) {
  std::string text;
  for (const auto* names : {&columns, &more}) {
    for (const std::string& name : *names) text += (text.empty() ? "" : ", ") + name;
  }
  return text;
}

}  // namespace

TableSelection::TableSelection(TableSink& next, std::vector<std::string> columns,
                               std::optional<double> every)
    : next_(next), names_(std::move(columns)), every_(every) {
  if (every_ && !(*every_ > 0.0 && std::isfinite(*every_))) {
    std::ostringstream text;
    text << "every = " << *every_ << " s: the interval must be a number of seconds above 0";
    throw RunLogError(text.str());
  }
}

void TableSelection::header(const ExportTable& table) {
  std::vector<std::size_t> real{0};
  std::vector<std::size_t> discrete;
  const auto position = [](const std::vector<std::string>& columns, const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) -
                                    columns.begin());
  };
  for (const std::string& name : names_) {
    if (!table.columns.empty() && name == table.columns[0]) continue;
    if (const std::size_t c = position(table.columns, name); c < table.columns.size()) {
      real.push_back(c);
    } else if (const std::size_t d = position(table.discrete_columns, name);
               d < table.discrete_columns.size()) {
      discrete.push_back(d);
    } else {
      throw UnknownColumnError("the table has no column '" + name +
                               "'; it has: " + listed(table.columns, table.discrete_columns));
    }
  }
  if (names_.empty()) {
    for (std::size_t c = 1; c < table.columns.size(); ++c) real.push_back(c);
    for (std::size_t d = 0; d < table.discrete_columns.size(); ++d) discrete.push_back(d);
  }
  // The table's order, whatever the order asked in.
  for (auto* kept : {&real, &discrete}) {
    std::sort(kept->begin(), kept->end());
    kept->erase(std::unique(kept->begin(), kept->end()), kept->end());
  }
  kept_ = ColumnSubset(std::move(real), std::move(discrete));
  next_.header(kept_.header_of(table));
}

void TableSelection::row(std::span<const std::optional<double>> row,
                         std::span<const std::optional<std::int64_t>> discrete) {
  // Where the row lies in intervals from the first row's time; a billionth of
  // an interval of slack, so that 0.3 s is the third of 0.1 s.
  constexpr double kSlack = 1e-9;
  const double time = row[0].value_or(0.0);
  const double position = first_time_ && every_ ? (time - *first_time_) / *every_ : 0.0;
  if (every_ && first_time_ && position < next_interval_ - kSlack) {
    skipped_.assign(row.begin(), row.end());
    skipped_discrete_.assign(discrete.begin(), discrete.end());
    last_skipped_ = true;
    return;
  }
  if (every_) {
    if (!first_time_) first_time_ = time;
    // Counted from the first row, so that the kept times do not drift.
    next_interval_ = std::floor(position + kSlack) + 1.0;
  }
  last_skipped_ = false;
  kept_.pass(next_, row, discrete);
}

void TableSelection::finish() {
  if (!last_skipped_) return;
  last_skipped_ = false;
  kept_.pass(next_, skipped_, skipped_discrete_);
}

}  // namespace couplet::tools
