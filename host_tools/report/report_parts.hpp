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

/// A value that holds over [from, to]: a step size over its step, an order until
/// the next decision.
struct Held {
  double from = 0.0;
  double to = 0.0;
  double value = 0.0;
};

/// What a signal's y axis shows. Signals share an axis when the log declares
/// one unit for them; without a unit, when their ports have one name (mass1.x
/// and mass2.x), since a port name usually names its quantity.
struct Quantity {
  std::string key;
  std::string title;
  std::string axis;
};

/// The signals of one quantity: their plot, and the plot of their errors
/// against the reference when the run had one.
struct SignalGroup {
  Quantity quantity;
  std::vector<Series> signals;
  std::vector<Series> errors;
};

/// signals.csv: one column per CSV column after `time`; none when it does not read.
std::vector<Column> signals_from_csv(const std::string& csv);
/// The logged output values at the end of every step call, per output.
std::vector<Column> signals_from_calls(const RunLog& log);
/// The unit the log declares for port `signal` ("slave.port"), empty if none.
std::string unit_of(const RunLog& log, const std::string& signal);
/// The columns grouped by quantity, each with its errors against a reference column.
std::vector<SignalGroup> group_by_quantity(const RunLog& log, const std::vector<Column>& columns);
/// Series numbered in order, one per named point list.
std::vector<Series> series_of(std::vector<std::pair<std::string, std::vector<Point>>> named,
                              bool markers, bool step);

/// Index of each internal quantity named `prefix` + something, with that something.
std::vector<std::pair<std::string, std::size_t>> internals_with_prefix(const RunLog& log,
                                                                       std::string_view prefix);
std::optional<std::size_t> internal_index(const RunLog& log, std::string_view name);
/// The quantity after every plan, at the plan's frontier.
std::vector<Point> internal_at_plans(const RunLog& log, std::size_t index);
/// The quantity decided at a plan, held until the next plan.
std::vector<Held> internal_held_from_plans(const RunLog& log, std::size_t index);
/// The quantity at the last plan of each macro step, over that step.
std::vector<Held> internal_per_step(const RunLog& log, std::size_t index);
/// The communication step sizes, each over its step.
std::vector<Held> communication_steps(const RunLog& log);

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
/// The points of a step plot through held values.
std::vector<Point> step_points(const std::vector<Held>& held);

struct SampleSet {
  std::string name;
  std::vector<double> values;
};
/// Counts per bin on a log axis, the sets side by side within a bin.
std::string histogram(PlotSpec spec, const std::vector<SampleSet>& sets);

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
