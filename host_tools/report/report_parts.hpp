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
#include "host_tools/report/report_digest.hpp"
#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools::report_parts {

// ---------------------------------------------------------------- data series

struct Series {
  std::string name;
  std::vector<Point> points;
  std::size_t color = 0;  ///< index into the palette
  bool dashed = false;
  bool markers = false;
  bool step = false;  ///< each value holds until the next point
  /// The points the series had before it was bounded (report_digest.hpp);
  /// 0: those it has.
  std::uint64_t total = 0;
};

/// A signals.csv column holding the reference of the signal before it.
constexpr std::string_view kReferenceSuffix = ":reference";

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

/// "slave.port" of port `port` of slave `slave`.
std::string port_name(const RunLog& log, std::size_t slave, const std::string& port);
/// The unit the log declares for port `signal` ("slave.port"), empty if none.
std::string unit_of(const RunLog& log, const std::string& signal);
/// The columns grouped by quantity, each with its errors against a reference
/// column (signals.errors, beside the columns).
std::vector<SignalGroup> group_by_quantity(const RunLog& log, const SignalColumns& signals);

/// Index of each internal quantity named `prefix` + something, with that something.
std::vector<std::pair<std::string, std::size_t>> internals_with_prefix(const RunLog& log,
                                                                       std::string_view prefix);
std::optional<std::size_t> internal_index(const RunLog& log, std::string_view name);

// ---------------------------------------------------------------- plots

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
struct SampleSet {
  std::string name;
  const BoundedSamples* values = nullptr;
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
nlohmann::json checks_of(const std::string& summary_json);
/// The checks' verdicts as a table; empty when summary.json holds none.
std::string checks_table(const std::string& summary_json);

/// Everything before the sections, with `title` as the page's title and heading.
std::string page_head(const std::string& title);
/// Everything after the sections: the page's status element and its scripts.
std::string page_tail();

}  // namespace couplet::tools::report_parts
