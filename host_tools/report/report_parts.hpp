#pragma once
// The parts of a `couplet report` page (report.cpp) that both the one-run
// report and the overlay of several runs (report_overlay.cpp) are built from:
// the data series, the plots, the tables, the page's head and tail.
#include <algorithm>
#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_tools/report/report.hpp"
#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools::report_parts {

// ---------------------------------------------------------------- data series

struct Point {
  double x = 0.0;
  double y = 0.0;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  std::size_t color = 0;  ///< index into the palette
  bool dashed = false;
  bool markers = false;
  bool step = false;  ///< each value holds until the next point
};

/// One signal as a column of values over time.
struct Column {
  std::string name;
  std::vector<Point> points;
};

/// A signals.csv column holding the reference of the signal before it.
constexpr std::string_view kReferenceSuffix = ":reference";

/// signals.csv: one column per CSV column after `time`.
std::vector<Column> signals_from_csv(const std::string& csv);
/// The logged output values at the end of every step call, per output.
std::vector<Column> signals_from_calls(const RunLog& log);
/// The unit the log declares for port `signal` ("slave.port"), empty if none.
std::string unit_of(const RunLog& log, const std::string& signal);

// ---------------------------------------------------------------- plots

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void include(double value) {
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

struct PlotSpec {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  /// Time plots share the run's span so that they line up one below the other.
  std::optional<Range> x_span = std::nullopt;
};

/// Lines sharing one y axis, as a figure; empty when nothing can be drawn.
std::string line_plot(const PlotSpec& spec, const std::vector<Series>& series);

double seconds(Time t);
/// The logged run's time span.
Range run_span(const RunLog& log);

// ---------------------------------------------------------------- HTML

std::string escape(std::string_view text);
std::string format_number(double value, int significant_digits = 6);
bool ends_with(std::string_view text, std::string_view suffix);
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);
/// A section exists only for what the log holds: no plots, no section.
std::string section(const std::string& heading, const std::string& plots);
/// A JSON value as a table cell.
std::string json_text(const nlohmann::json& value);
/// "complete", "failed: ..." or "cut: ...", with the CSS class that colours it.
std::pair<std::string, std::string> run_status(const RunLog& log);
/// summary.json's `checks`; empty when there are none.
nlohmann::json checks_of(const ReportInputs& inputs);
/// The checks' verdicts as a table; empty when summary.json holds none.
std::string checks_table(const ReportInputs& inputs);

/// Everything before the sections, with `title` as the page's title and heading.
std::string page_head(const std::string& title);
/// Everything after the sections: the page's status element and its scripts.
std::string page_tail();

}  // namespace couplet::tools::report_parts
