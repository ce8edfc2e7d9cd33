// `couplet report` (docs/report.md): one HTML page that carries its data as JSON
// and draws it with dygraphs (Debian's libjs-dygraphs, embedded at build time),
// so that the page is interactive and still needs no network and no other file.
// The output is XHTML-compatible (closed tags, escaped text) so tests can parse it.
#include "host_tools/report/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "host_tools/report/report_parts.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

// Generated at build time from Debian's libjs-dygraphs and
// host_tools/report/report_assets/ (CMakeLists.txt, cmake/EmbedText.cmake).
namespace report_assets {
extern const std::string_view dygraphs_script;
extern const std::string_view dygraphs_style;
extern const std::string_view page_script;
}  // namespace report_assets

// The page's parts (report_parts.hpp): shared with report_overlay.cpp.
namespace report_parts {

// Long runs log millions of points; a plot 660 pixels wide shows no more than
// this many per line, chosen so that the min/max of every pixel column survives.
constexpr std::size_t kMaxPolylinePoints = 2000;
constexpr std::size_t kHistogramBins = 40;

// ---------------------------------------------------------------- text

/// Length of the valid UTF-8 sequence starting at text[i], 0 if invalid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  return length;
}

/// Text for element content and attribute values. Also drops what XML 1.0 cannot
/// carry at all (control characters, invalid UTF-8), which could reach us from a
/// failure message or a corrupted log.
std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD replacement character
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t' || c == '\r') out += c;
    }
    ++i;
  }
  return out;
}

std::string format_number(double value, int significant_digits) {
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", significant_digits, value);
  return buffer.data();
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// ---------------------------------------------------------------- data series

/// A value that holds over [from, to]: a step size over its step, an order until
/// the next decision.
struct Held {
  double from = 0.0;
  double to = 0.0;
  double value = 0.0;
};

/// The points of a step plot through held values: each value at the start of
/// its interval, and the last one again at its end, so that it is drawn to there.
std::vector<Point> step_points(const std::vector<Held>& held) {
  std::vector<Point> points;
  points.reserve(held.size() + 1);
  for (const Held& h : held) points.push_back({h.from, h.value});
  if (!held.empty()) points.push_back({held.back().to, held.back().value});
  return points;
}

/// At most `max_points` points: the index range is cut into buckets and each
/// keeps its lowest and highest point, in their order, so peaks stay visible.
std::vector<Point> downsample(const std::vector<Point>& points, std::size_t max_points) {
  if (points.size() <= max_points) return points;
  const std::size_t buckets = max_points / 2;
  std::vector<Point> kept;
  kept.reserve(2 * buckets);
  const auto by_y = [](const Point& a, const Point& b) { return a.y < b.y; };
  for (std::size_t b = 0; b < buckets; ++b) {
    const auto first = points.begin() + static_cast<std::ptrdiff_t>(b * points.size() / buckets);
    const auto last =
        points.begin() + static_cast<std::ptrdiff_t>((b + 1) * points.size() / buckets);
    const auto [lowest, highest] = std::minmax_element(first, last, by_y);
    if (lowest == highest) {
      kept.push_back(*lowest);
    } else {
      kept.push_back(*std::min(lowest, highest));
      kept.push_back(*std::max(lowest, highest));
    }
  }
  return kept;
}

/// Drops what a plot cannot place: NaN, infinities and, on a log axis, y <= 0.
std::vector<Point> drawable(const std::vector<Point>& points, bool log_y) {
  std::vector<Point> kept;
  kept.reserve(points.size());
  for (const Point& p : points) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
    if (log_y && p.y <= 0.0) continue;
    kept.push_back(p);
  }
  return kept;
}

// ---------------------------------------------------------------- plots

/// A degenerate range (one value) still needs a visible extent.
Range widened(Range range) {
  if (range.high > range.low) return range;
  const double half = range.low == 0.0 ? 1.0 : std::abs(range.low) * 0.1;
  return {range.low - half, range.high + half};
}

// Saturated colours only: the browser check of the page tells drawn data from
// the grey grid and axes by saturation.
const std::array<const char*, 10> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                              "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                              "#b8860b", "#bcbd22"};

const char* color(std::size_t index) {
  return kPalette[index % kPalette.size()];
}

/// dygraphs keys per-series options and legend entries by label: two series
/// with one name (possible in a hostile log or CSV) would merge.
std::vector<std::string> unique_labels(std::vector<std::string> names) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    const auto earlier = [&](const std::string& candidate) {
      return std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(k), candidate) !=
             names.begin() + static_cast<std::ptrdiff_t>(k);
    };
    if (!earlier(names[k])) continue;
    std::size_t copy = 2;
    while (earlier(names[k] + " (" + std::to_string(copy) + ")")) ++copy;
    names[k] += " (" + std::to_string(copy) + ")";
  }
  return names;
}

/// dygraphs draws one table: a row per x, a column per series, null where a
/// series has no point at that x (connectSeparatedPoints bridges them). A
/// series with two points at one x (a step's riser) gets two rows.
nlohmann::json rows_of(const std::vector<Series>& series) {
  struct Entry {
    double x;
    std::size_t column;
    double y;
  };
  std::vector<Entry> entries;
  for (std::size_t s = 0; s < series.size(); ++s) {
    for (const Point& p : series[s].points) entries.push_back({p.x, s + 1, p.y});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.x < b.x; });
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json row;
  for (const Entry& entry : entries) {
    if (row.is_null() || row[0].get<double>() != entry.x || !row[entry.column].is_null()) {
      if (!row.is_null()) rows.push_back(std::move(row));
      row = nlohmann::json::array({entry.x});
      for (std::size_t s = 0; s < series.size(); ++s) row.push_back(nullptr);
    }
    row[entry.column] = entry.y;
  }
  if (!row.is_null()) rows.push_back(std::move(row));
  return rows;
}

/// Options every plot shares: axis labels, the hover legend beside the plot, a
/// fixed x window so that time plots line up.
nlohmann::json common_options(const PlotSpec& spec, Range x_range) {
  return {{"xlabel", spec.x_label},
          {"ylabel", spec.y_label},
          {"logscale", spec.log_y},
          {"dateWindow", {x_range.low, x_range.high}},
          {"connectSeparatedPoints", true},
          {"legend", "always"},
          {"labelsSeparateLines", true},
          {"labelsDiv", spec.id + "-legend"},
          {"strokeWidth", 1.5},
          {"axes", {{"y", {{"axisLabelWidth", 70}}}}}};
}

/// The figure: title, the plot's <div> with its data and options as JSON (the
/// page script draws it), and the legend beside it.
std::string figure(const PlotSpec& spec, const nlohmann::json& plot) {
  // Names in the log may be invalid UTF-8; dump() would throw on them.
  const std::string data = plot.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return "<div class=\"figure\">\n<p class=\"plot-title\">" + escape(spec.title) +
         "</p>\n<div class=\"figure-body\"><div class=\"plot\" id=\"" + escape(spec.id) +
         "\" data-y-scale=\"" + (spec.log_y ? "log" : "linear") + "\" data-plot=\"" + escape(data) +
         "\"></div><div class=\"legend\" id=\"" + escape(spec.id) +
         "-legend\"></div></div>\n</div>\n";
}

/// Lines sharing one y axis; a series marked `step` holds each value until its
/// next point. Empty when nothing can be drawn (e.g. only zeros on a log axis).
std::string line_plot(const PlotSpec& spec, const std::vector<Series>& series) {
  std::vector<Series> drawn;
  nlohmann::json source_points = nlohmann::json::array();
  Range x_range;
  for (const Series& s : series) {
    Series kept = s;
    kept.points = drawable(s.points, spec.log_y);
    if (kept.points.empty()) continue;
    for (const Point& p : kept.points) x_range.include(p.x);
    source_points.push_back(kept.points.size());
    kept.points = downsample(kept.points, kMaxPolylinePoints);
    drawn.push_back(std::move(kept));
  }
  if (drawn.empty()) return {};
  if (spec.x_span) {
    x_range.include(spec.x_span->low);
    x_range.include(spec.x_span->high);
  }
  std::vector<std::string> names;
  for (const Series& s : drawn) names.push_back(s.name);
  names = unique_labels(std::move(names));
  nlohmann::json options = common_options(spec, widened(x_range));
  nlohmann::json colors = nlohmann::json::array();
  nlohmann::json per_series = nlohmann::json::object();
  for (std::size_t k = 0; k < drawn.size(); ++k) {
    colors.push_back(color(drawn[k].color));
    nlohmann::json own = {{"stepPlot", drawn[k].step}};
    if (drawn[k].dashed) own["strokePattern"] = {6, 3};
    if (drawn[k].markers) {
      own["drawPoints"] = true;
      own["pointSize"] = 2;
    }
    per_series[names[k]] = std::move(own);
  }
  options["colors"] = std::move(colors);
  options["series"] = std::move(per_series);
  nlohmann::json labels = nlohmann::json::array({spec.x_label});
  for (const std::string& name : names) labels.push_back(name);
  return figure(spec, {{"kind", "line"},
                       {"labels", std::move(labels)},
                       {"data", rows_of(drawn)},
                       {"source_points", std::move(source_points)},
                       {"options", std::move(options)}});
}

struct SampleSet {
  std::string name;
  std::vector<double> values;
};

/// Counts per bin on a log axis, so that a tail of a few late cycles stands out
/// beside thousands of punctual ones; the sets stand side by side within a bin.
/// A row's x is its bin's lower edge; empty bins are null (a log axis has no 0).
std::string histogram(PlotSpec spec, const std::vector<SampleSet>& sets) {
  Range x_range;
  for (const SampleSet& set : sets) {
    for (const double v : set.values) {
      if (std::isfinite(v)) x_range.include(v);
    }
  }
  if (x_range.empty()) return {};
  x_range = widened(x_range);
  const double bin_width = (x_range.high - x_range.low) / static_cast<double>(kHistogramBins);
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t b = 0; b <= kHistogramBins; ++b) {
    nlohmann::json row = nlohmann::json::array({x_range.low + bin_width * static_cast<double>(b)});
    for (std::size_t s = 0; s < sets.size(); ++s) row.push_back(nullptr);
    rows.push_back(std::move(row));
  }
  rows.back()[0] = x_range.high;  // the last row only closes the x range
  std::size_t highest = 1;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    std::vector<std::size_t> counts(kHistogramBins, 0);
    for (const double v : sets[s].values) {
      if (!std::isfinite(v)) continue;
      const auto bin =
          std::min(kHistogramBins - 1, static_cast<std::size_t>((v - x_range.low) / bin_width));
      highest = std::max(highest, ++counts[bin]);
    }
    for (std::size_t b = 0; b < kHistogramBins; ++b) {
      if (counts[b] > 0) rows[b][s + 1] = counts[b];
    }
  }
  spec.log_y = true;
  nlohmann::json options = common_options(spec, x_range);
  options["valueRange"] = {0.5, 2.0 * static_cast<double>(highest)};
  nlohmann::json colors = nlohmann::json::array();
  nlohmann::json labels = nlohmann::json::array({spec.x_label});
  std::vector<std::string> names;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    colors.push_back(color(s));
    names.push_back(sets[s].name + " (" + std::to_string(sets[s].values.size()) + ")");
  }
  for (const std::string& name : unique_labels(std::move(names))) labels.push_back(name);
  options["colors"] = std::move(colors);
  return figure(spec, {{"kind", "histogram"},
                       {"labels", std::move(labels)},
                       {"data", std::move(rows)},
                       {"bin_width", bin_width},
                       {"options", std::move(options)}});
}

// ---------------------------------------------------------------- data from the log

double seconds(Time t) {
  return to_seconds(t);
}

Range run_span(const RunLog& log) {
  return {seconds(log.start), seconds(log.end)};
}

std::string port_name(const RunLog& log, std::size_t slave, const std::string& port) {
  return (slave < log.slaves.size() ? log.slaves[slave].name : "slave" + std::to_string(slave)) +
         "." + port;
}

/// Index of each internal quantity named `prefix` + something, with that something.
std::vector<std::pair<std::string, std::size_t>> internals_with_prefix(const RunLog& log,
                                                                       std::string_view prefix) {
  std::vector<std::pair<std::string, std::size_t>> found;
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    const std::string& name = log.internal_quantities[k];
    if (name.size() > prefix.size() && std::string_view(name).substr(0, prefix.size()) == prefix) {
      found.emplace_back(name.substr(prefix.size()), k);
    }
  }
  return found;
}

std::optional<std::size_t> internal_index(const RunLog& log, std::string_view name) {
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    if (log.internal_quantities[k] == name) return k;
  }
  return std::nullopt;
}

/// The quantity after every plan, at the plan's frontier.
std::vector<Point> internal_at_plans(const RunLog& log, std::size_t index) {
  std::vector<Point> points;
  points.reserve(log.plans.size());
  for (const LoggedPlan& plan : log.plans) {
    if (index < plan.internals.size())
      points.push_back({seconds(plan.frontier), plan.internals[index]});
  }
  return points;
}

/// The quantity decided at a plan, held until the next plan (the last until the
/// end of the run).
std::vector<Held> internal_held_from_plans(const RunLog& log, std::size_t index) {
  std::vector<Held> held;
  for (std::size_t k = 0; k < log.plans.size(); ++k) {
    const LoggedPlan& plan = log.plans[k];
    if (index >= plan.internals.size()) continue;
    const Time until =
        k + 1 < log.plans.size() ? log.plans[k + 1].frontier : std::max(plan.frontier, log.end);
    held.push_back({seconds(plan.frontier), seconds(until), plan.internals[index]});
  }
  return held;
}

/// A completed macro step: the frontier moved from `from` to `to` at plan
/// `first_plan`; `last_plan` is the last plan before the next step (iterative
/// methods evaluate a step several times, each a plan of the same step).
struct CompletedStep {
  Time from = 0;
  Time to = 0;
  std::uint64_t macro_steps = 0;
  std::size_t first_plan = 0;
  std::size_t last_plan = 0;
};

/// One step per plan that completed a macro step (its macro step count rose):
/// the frontier moved from the previous such plan's frontier to its own.
/// Repeated plans (rejected steps, iterations) complete none.
std::vector<CompletedStep> completed_steps(const RunLog& log) {
  std::vector<CompletedStep> steps;
  Time previous = log.start;
  std::uint64_t macro_steps = 0;
  for (std::size_t k = 0; k < log.plans.size(); ++k) {
    const LoggedPlan& plan = log.plans[k];
    if (plan.macro_steps <= macro_steps) {
      if (!steps.empty() && steps.back().macro_steps == plan.macro_steps)
        steps.back().last_plan = k;
      continue;
    }
    if (plan.frontier > previous)
      steps.push_back({previous, plan.frontier, plan.macro_steps, k, k});
    previous = plan.frontier;
    macro_steps = plan.macro_steps;
  }
  return steps;
}

std::vector<Held> communication_steps(const RunLog& log) {
  std::vector<Held> held;
  for (const CompletedStep& step : completed_steps(log))
    held.push_back({seconds(step.from), seconds(step.to), seconds(step.to - step.from)});
  return held;
}

/// The quantity at the last plan of each macro step, over that step. Iterative
/// methods log their count so far at every evaluation, so the last record of
/// a step holds its final count (docs/run-log.md).
std::vector<Held> internal_per_step(const RunLog& log, std::size_t index) {
  std::vector<Held> held;
  for (const CompletedStep& step : completed_steps(log)) {
    const LoggedPlan& plan = log.plans[step.last_plan];
    if (index < plan.internals.size())
      held.push_back({seconds(step.from), seconds(step.to), plan.internals[index]});
  }
  return held;
}

/// Output values at the end of every step call, per output. A call that ends at
/// or before an earlier one of the same slave replaces what came after it
/// (rollbacks, iterations), so each column holds the accepted trajectory.
std::vector<Column> signals_from_calls(const RunLog& log) {
  std::vector<std::size_t> first_column(log.slaves.size(), 0);
  std::vector<Column> columns;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    first_column[s] = columns.size();
    for (const OutputDescription& output : log.slaves[s].description.outputs)
      columns.push_back({port_name(log, s, output.name), {}});
  }
  for (const LoggedCall& call : log.calls) {
    if (call.kind != CallKind::step || call.slave >= log.slaves.size()) continue;
    const std::size_t outputs = log.slaves[call.slave].description.outputs.size();
    if (call.end_outputs.size() < outputs) continue;
    const double end = seconds(call.end);
    for (std::size_t j = 0; j < outputs; ++j) {
      std::vector<Point>& points = columns[first_column[call.slave] + j].points;
      while (!points.empty() && points.back().x >= end) points.pop_back();
      points.push_back({end, call.end_outputs[j]});
    }
  }
  std::erase_if(columns, [](const Column& c) { return c.points.empty(); });
  return columns;
}

std::vector<std::string> split(std::string_view line, char separator) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = line.find(separator, begin);
    fields.emplace_back(
        line.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) return fields;
    begin = end + 1;
  }
}

std::optional<double> parse_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

/// signals.csv: one column per CSV column after `time`.
std::vector<Column> signals_from_csv(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  if (!std::getline(lines, line)) return {};
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split(line, ',');
  std::vector<Column> columns;
  for (std::size_t c = 1; c < header.size(); ++c) columns.push_back({header[c], {}});
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> fields = split(line, ',');
    const std::optional<double> time = fields.empty() ? std::nullopt : parse_double(fields[0]);
    if (!time) continue;
    for (std::size_t c = 1; c < fields.size() && c <= columns.size(); ++c) {
      if (const std::optional<double> value = parse_double(fields[c]))
        columns[c - 1].points.push_back({*time, *value});
    }
  }
  return columns;
}

/// The unit the log declares for port `signal` ("slave.port"), empty if none.
std::string unit_of(const RunLog& log, const std::string& signal) {
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (const OutputDescription& output : log.slaves[s].description.outputs) {
      if (port_name(log, s, output.name) == signal) return output.unit;
    }
    for (const InputDescription& input : log.slaves[s].description.inputs) {
      if (port_name(log, s, input.name) == signal) return input.unit;
    }
    for (const DiscretePortDescription& port : log.slaves[s].description.discrete_outputs) {
      if (port_name(log, s, port.name) == signal) return port.unit;
    }
  }
  return {};
}

/// Whether `signal` ("slave.port") is an Integer or Boolean output of the log.
bool is_discrete(const RunLog& log, const std::string& signal) {
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (const DiscretePortDescription& port : log.slaves[s].description.discrete_outputs) {
      if (port_name(log, s, port.name) == signal) return true;
    }
  }
  return false;
}

/// What a signal's y axis shows. Signals share an axis when the log declares
/// one unit for them; without a unit, when their ports have one name (mass1.x
/// and mass2.x), since a port name usually names its quantity.
struct Quantity {
  std::string key;
  std::string title;
  std::string axis;
};

Quantity quantity_of(const RunLog& log, const std::string& signal) {
  const std::string unit = unit_of(log, signal);
  if (!unit.empty()) return {"unit " + unit, "in " + unit, unit};
  const std::size_t dot = signal.rfind('.');
  const std::string port = dot == std::string::npos ? signal : signal.substr(dot + 1);
  return {"port " + port, "\"" + port + "\" (no unit declared)", port};
}

/// co-simulation − reference where both have a value at one time.
std::vector<Point> difference(const std::vector<Point>& signal,
                              const std::vector<Point>& reference) {
  std::vector<Point> error;
  std::size_t r = 0;
  for (const Point& p : signal) {
    while (r < reference.size() && reference[r].x < p.x) ++r;
    if (r < reference.size() && reference[r].x == p.x) error.push_back({p.x, p.y - reference[r].y});
  }
  return error;
}

/// The signals of one quantity: their plot, and the plot of their errors
/// against the reference when the run had one.
struct SignalGroup {
  Quantity quantity;
  std::vector<Series> signals;
  std::vector<Series> errors;
};

std::vector<SignalGroup> group_by_quantity(const RunLog& log, const std::vector<Column>& columns) {
  std::vector<SignalGroup> groups;
  const auto group_of = [&](const std::string& signal) -> SignalGroup& {
    const Quantity quantity = quantity_of(log, signal);
    for (SignalGroup& group : groups) {
      if (group.quantity.key == quantity.key) return group;
    }
    return groups.emplace_back(SignalGroup{quantity, {}, {}});
  };
  const auto column_named = [&](const std::string& name) {
    return std::find_if(columns.begin(), columns.end(),
                        [&](const Column& c) { return c.name == name; });
  };
  for (const Column& column : columns) {
    if (ends_with(column.name, kReferenceSuffix)) {
      const std::string base = column.name.substr(0, column.name.size() - kReferenceSuffix.size());
      if (column_named(base) != columns.end()) continue;  // drawn with its signal
      SignalGroup& group = group_of(base);
      group.signals.push_back(
          {base + " (reference)", column.points, group.signals.size(), true, false});
      continue;
    }
    SignalGroup& group = group_of(column.name);
    const std::size_t colour = group.signals.size();
    // Integer and Boolean signals hold between communication points: steps.
    group.signals.push_back(
        {column.name, column.points, colour, false, false, is_discrete(log, column.name)});
    const auto reference = column_named(column.name + std::string(kReferenceSuffix));
    if (reference == columns.end()) continue;
    group.signals.push_back({column.name + " (reference)", reference->points, colour, true, false});
    group.errors.push_back({column.name + " - reference",
                            difference(column.points, reference->points), colour, false, false});
  }
  return groups;
}

std::vector<Series> series_of(std::vector<std::pair<std::string, std::vector<Point>>> named,
                              bool markers, bool step) {
  std::vector<Series> series;
  for (auto& [name, points] : named)
    series.push_back({name, std::move(points), series.size(), false, markers, step});
  return series;
}

// ---------------------------------------------------------------- HTML sections

std::string paragraph(const std::string& text, const std::string& css_class = "note") {
  return "<p class=\"" + css_class + "\">" + escape(text) + "</p>\n";
}

/// A section exists only for what the log holds: no plots, no section.
std::string section(const std::string& heading, const std::string& plots) {
  return plots.empty() ? std::string() : "<h2>" + escape(heading) + "</h2>\n" + plots;
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string html = "<table>\n<thead><tr>";
  for (const std::string& cell : header) html += "<th>" + escape(cell) + "</th>";
  html += "</tr></thead>\n<tbody>\n";
  for (const auto& row : rows) {
    html += "<tr>";
    for (const std::string& cell : row) html += "<td>" + escape(cell) + "</td>";
    html += "</tr>\n";
  }
  return html + "</tbody>\n</table>\n";
}

std::string json_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return format_number(value.get<double>());
  return value.dump();
}

/// "complete", "failed: ...", "interrupted: ...", "stopped: ..." or "cut: ...", with the CSS
/// class that colours it (a run that ended early on purpose as a cut one).
std::pair<std::string, std::string> run_status(const RunLog& log) {
  std::string text;
  std::string css = "status-complete";
  if (!log.end_record) {
    text = "cut: the log has no end record (the run was killed, crashed or is still running)";
    css = "status-cut";
  } else if (!log.end_record->completed()) {
    text = log.end_record->status + ": " + log.end_record->message;
    css = log.end_record->status == "failed" ? "status-failed" : "status-cut";
  } else {
    text = "complete";
  }
  if (log.cut()) {
    text += "; reading stopped early: " +
            (log.tail_problem.empty() ? std::string("damaged tail") : log.tail_problem);
    if (css == "status-complete") css = "status-cut";
  }
  return {text, css};
}

std::string summary_from_json(const nlohmann::json& summary) {
  std::vector<std::vector<std::string>> rows;
  for (const char* key : {"scenario", "algorithm", "macro_steps", "slave_steps", "rollbacks",
                          "end_time", "wall_time_s", "decision_hash"}) {
    if (summary.contains(key)) rows.push_back({key, json_text(summary[key])});
  }
  if (summary.contains("counters") && summary["counters"].is_object()) {
    for (const auto& [name, value] : summary["counters"].items())
      rows.push_back({"counters." + name, json_text(value)});
  }
  if (summary.contains("realtime") && summary["realtime"].is_object()) {
    const nlohmann::json& realtime = summary["realtime"];
    for (const char* key : {"realtime_factor", "cycles", "overruns", "missed_results"}) {
      if (realtime.contains(key))
        rows.push_back({std::string("realtime.") + key, json_text(realtime[key])});
    }
    if (realtime.contains("lateness_us") && realtime["lateness_us"].is_object()) {
      for (const auto& [name, value] : realtime["lateness_us"].items()) {
        rows.push_back({"realtime.lateness_us." + name, json_text(value)});
      }
    }
  }
  std::string html = table({"quantity", "value"}, rows);
  if (summary.contains("errors") && summary["errors"].is_object()) {
    std::vector<std::vector<std::string>> errors;
    for (const auto& item : summary["errors"].items()) {
      // A reference, not a structured binding: clang before 16 cannot capture
      // a binding in a lambda.
      const nlohmann::json& error = item.value();
      const auto field = [&](const char* key) {
        return error.contains(key) ? json_text(error[key]) : "";
      };
      errors.push_back({item.key(), field("nrmse_pct"), field("rmse")});
    }
    html +=
        "<h3>Errors against the reference</h3>\n" + table({"signal", "NRMSE %", "RMSE"}, errors);
  }
  return html;
}

std::string summary_from_end_record(const LoggedEnd& end) {
  return table({"quantity", "value"}, {{"completed", end.completed() ? "yes" : "no"},
                                       {"plans", std::to_string(end.plans)},
                                       {"macro_steps", std::to_string(end.macro_steps)},
                                       {"slave_steps", std::to_string(end.slave_steps)},
                                       {"rollbacks", std::to_string(end.rollbacks)},
                                       {"records_waited", std::to_string(end.records_waited)},
                                       {"decision_hash", hash_text(end.decision_hash)}});
}

std::string summary_section(const RunLog& log, const ReportInputs& inputs) {
  const auto [status, css] = run_status(log);
  std::string html =
      "<h2>Summary</h2>\n<p class=\"" + css + "\">Status: " + escape(status) + "</p>\n";
  html += table({"log", "value"}, {{"file", log.path},
                                   {"scenario", log.scenario_source},
                                   {"algorithm", log.algorithm},
                                   {"time span (s)", format_number(seconds(log.start)) + " to " +
                                                         format_number(seconds(log.end))},
                                   {"frames", std::to_string(log.frames)},
                                   {"plans", std::to_string(log.plans.size())},
                                   {"slave calls", std::to_string(log.calls.size())}});
  if (!inputs.summary_json.empty()) {
    const nlohmann::json summary = nlohmann::json::parse(inputs.summary_json, nullptr, false);
    if (summary.is_object()) return html + "<h3>summary.json</h3>\n" + summary_from_json(summary);
    html += paragraph(
        "summary.json could not be parsed; the counters below come from the log's end record.");
  }
  if (log.end_record)
    return html + "<h3>End record</h3>\n" + summary_from_end_record(*log.end_record);
  return html + paragraph("No summary.json and no end record: no counters to show.");
}

// ---- checks (docs/scenarios.md#checks): their verdicts from summary.json

nlohmann::json checks_of(const ReportInputs& inputs) {
  if (inputs.summary_json.empty()) return nlohmann::json::array();
  const nlohmann::json summary = nlohmann::json::parse(inputs.summary_json, nullptr, false);
  if (!summary.is_object() || !summary.contains("checks") || !summary["checks"].is_array())
    return nlohmann::json::array();
  return summary["checks"];
}

/// The checks' verdicts as a table; empty when summary.json holds none.
std::string checks_table(const ReportInputs& inputs) {
  std::vector<std::vector<std::string>> rows;
  const auto cell = [](const nlohmann::json& value) {
    return value.is_number() ? format_number(value.get<double>()) : std::string("-");
  };
  for (const nlohmann::json& check : checks_of(inputs)) {
    rows.push_back({check.value("name", ""), check.value("kind", ""), check.value("signal", "-"),
                    check.value("passed", false) ? "PASS" : "FAIL",
                    cell(check["first_violation_time"]), cell(check["worst_value"]),
                    check.value("message", "")});
  }
  if (rows.empty()) return {};
  return table(
      {"check", "kind", "signal", "verdict", "first violation (s)", "worst value", "message"},
      rows);
}

std::string checks_section(const ReportInputs& inputs) {
  const std::string checks = checks_table(inputs);
  return checks.empty() ? std::string() : "<h2>Checks</h2>\n" + checks;
}

/// A failed check's first violation, marked on its signal's plot: the signal
/// there, interpolated linearly between the plotted points.
void mark_violations(std::vector<Series>& series, const nlohmann::json& checks) {
  const std::size_t plotted = series.size();
  for (const nlohmann::json& check : checks) {
    if (!check.contains("signal") || !check["first_violation_time"].is_number()) continue;
    const double t = check["first_violation_time"].get<double>();
    for (std::size_t k = 0; k < plotted; ++k) {
      const std::vector<Point>& points = series[k].points;
      if (series[k].name != check.value("signal", "") || points.empty()) continue;
      auto after = std::lower_bound(points.begin(), points.end(), t,
                                    [](const Point& p, double x) { return p.x < x; });
      if (after == points.end()) --after;
      double y = after->y;
      if (after != points.begin() && after->x != t) {
        const Point& before = *(after - 1);
        y = before.y + (after->y - before.y) * (t - before.x) / (after->x - before.x);
      }
      series.push_back({"check '" + check.value("name", "") + "' first violation",
                        {{t, y}},
                        series[k].color,
                        false,
                        true,
                        false});
    }
  }
}

std::string signals_section(const RunLog& log, const ReportInputs& inputs) {
  std::vector<Column> columns = signals_from_csv(inputs.signals_csv);
  std::string source = "signals.csv";
  if (columns.empty()) {
    columns = signals_from_calls(log);
    source = "the logged output values at the end of every step";
  }
  std::string plots;
  std::size_t number = 0;
  for (const SignalGroup& group : group_by_quantity(log, columns)) {
    ++number;
    const PlotSpec signals{"plot-signals-" + std::to_string(number),
                           "Signals " + group.quantity.title + " (from " + source + ")",
                           "time (s)",
                           group.quantity.axis,
                           false,
                           run_span(log)};
    std::vector<Series> marked = group.signals;
    mark_violations(marked, checks_of(inputs));
    plots += line_plot(signals, marked);
    const PlotSpec errors{
        "plot-error-" + std::to_string(number),
        "Error against the reference: co-simulation - reference, " + group.quantity.title,
        "time (s)",
        "error " + group.quantity.axis,
        false,
        run_span(log)};
    plots += line_plot(errors, group.errors);
  }
  return section("Signals", plots);
}

std::string step_size_section(const RunLog& log) {
  const std::vector<Held> steps = communication_steps(log);
  Range range;
  for (const Held& step : steps) range.include(step.value);
  // Variable-step runs span decades (a switch forces tiny steps); a linear axis hides them.
  const bool log_y = !range.empty() && range.low > 0.0 && range.high > 100.0 * range.low;
  const PlotSpec spec{
      "plot-step-size", "Communication step size", "time (s)", "step size (s)", log_y,
      run_span(log)};
  return section("Communication step size",
                 line_plot(spec, {{"macro step", step_points(steps), 0, false, false, true}}));
}

std::string orders_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  for (const auto& [output, index] : internals_with_prefix(log, "order:")) {
    named.emplace_back(output, step_points(internal_held_from_plans(log, index)));
  }
  const PlotSpec spec{"plot-orders", "Polynomial order per output (F3ORNITS)",
                      "time (s)",    "order",
                      false,         run_span(log)};
  return section("Polynomial orders", line_plot(spec, series_of(std::move(named), false, true)));
}

std::string defects_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  if (!internal_index(log, "defect")) return {};
  for (const char* name : {"defect", "tolerance"}) {
    if (const auto index = internal_index(log, name))
      named.emplace_back(name, internal_at_plans(log, *index));
  }
  const PlotSpec spec{"plot-defects", "Defect against the tolerance (defect control)",
                      "time (s)",     "defect",
                      true,           run_span(log)};
  std::vector<Series> series = series_of(std::move(named), true, false);
  if (series.size() == 2) {  // the tolerance is the reference line
    series[1].dashed = true;
    series[1].markers = false;
  }
  return section("Defects", line_plot(spec, series));
}

std::string iterations_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  if (const auto index = internal_index(log, "iterations")) {
    named.emplace_back("iterations", step_points(internal_per_step(log, *index)));
  }
  const PlotSpec spec{"plot-iterations",
                      "Iterations per macro step (iterative methods)",
                      "time (s)",
                      "iterations",
                      false,
                      run_span(log)};
  return section("Iterations per step", line_plot(spec, series_of(std::move(named), false, true)));
}

bool linked(const RunLog& log, std::size_t slave) {
  return slave < log.slaves.size() && !log.slaves[slave].link.empty();
}

std::string lateness_section(const RunLog& log) {
  SampleSet pacer{"pacer lateness (per plan)", {}};
  for (const LoggedPlan& plan : log.plans) {
    if (plan.pacer_lateness_ns != 0)
      pacer.values.push_back(static_cast<double>(plan.pacer_lateness_ns) / 1e3);
  }
  SampleSet input{"input lateness (per call)", {}};
  for (const LoggedCall& call : log.calls) {
    if (call.input_lateness_ns != 0)
      input.values.push_back(static_cast<double>(call.input_lateness_ns) / 1e3);
  }
  std::vector<SampleSet> sets;
  for (SampleSet* set : {&pacer, &input}) {
    if (!set->values.empty()) sets.push_back(std::move(*set));
  }
  const PlotSpec spec{"plot-lateness", "Real-time lateness", "lateness (us)", "count", true};
  return section("Real-time lateness", histogram(spec, sets));
}

std::string link_timing_section(const RunLog& log) {
  std::vector<SampleSet> sets;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (!linked(log, s)) continue;
    SampleSet round_trips{log.slaves[s].name, {}};
    std::uint64_t calls = 0, missed = 0, retransmissions = 0;
    for (const LoggedCall& call : log.calls) {
      if (call.slave != s) continue;
      ++calls;
      missed += call.missed ? 1 : 0;
      retransmissions += call.retransmissions;
      if (call.ended_ns > call.began_ns && call.began_ns != 0) {
        round_trips.values.push_back(static_cast<double>(call.ended_ns - call.began_ns) / 1e3);
      }
    }
    rows.push_back({log.slaves[s].name, log.slaves[s].link, std::to_string(calls),
                    std::to_string(missed), std::to_string(retransmissions)});
    if (!round_trips.values.empty()) sets.push_back(std::move(round_trips));
  }
  if (rows.empty()) return {};
  const PlotSpec spec{"plot-round-trip", "Round trip of calls to linked slaves", "round trip (us)",
                      "count", true};
  return section(
      "Link round trip",
      histogram(spec, sets) + table({"slave", "link", "calls", "missed", "retransmissions"}, rows));
}

std::string internals_section(const RunLog& log) {
  if (log.internal_quantities.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    Range range;
    std::size_t count = 0;
    double last = std::numeric_limits<double>::quiet_NaN();
    for (const LoggedPlan& plan : log.plans) {
      if (k >= plan.internals.size() || !std::isfinite(plan.internals[k])) continue;
      range.include(plan.internals[k]);
      last = plan.internals[k];
      ++count;
    }
    rows.push_back({log.internal_quantities[k], std::to_string(count),
                    count ? format_number(range.low) : "", count ? format_number(last) : "",
                    count ? format_number(range.high) : ""});
  }
  return "<h2>Algorithm internals</h2>\n" +
         table({"quantity", "values", "min", "last", "max"}, rows);
}

std::string join_ports(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

std::string with_unit(const std::string& port, const std::string& unit) {
  return unit.empty() ? port : port + " [" + unit + "]";
}

std::string slaves_section(const RunLog& log) {
  std::vector<std::vector<std::string>> rows;
  for (const LoggedSlave& slave : log.slaves) {
    std::vector<std::string> inputs, outputs;
    for (const InputDescription& input : slave.description.inputs)
      inputs.push_back(with_unit(input.name, input.unit));
    for (const OutputDescription& output : slave.description.outputs)
      outputs.push_back(with_unit(output.name, output.unit));
    rows.push_back({slave.name, slave.link.empty() ? "local" : slave.link, join_ports(inputs),
                    join_ports(outputs)});
  }
  return "<h2>Slaves</h2>\n" + table({"slave", "link", "inputs", "outputs"}, rows);
}

std::string scenario_section(const RunLog& log) {
  if (log.scenario_text.empty()) return {};
  return "<details>\n<summary>Scenario as run</summary>\n<pre>" + escape(log.scenario_text) +
         "</pre>\n</details>\n";
}

constexpr std::string_view kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1040px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
.status-complete { color: #1a7f37; font-weight: bold; }
.status-failed { color: #c62828; font-weight: bold; }
.status-cut { color: #b26a00; font-weight: bold; }
.note { color: #555; font-size: 13px; }
.plot-title { font-size: 14px; font-weight: bold; margin: 18px 0 4px 0; }
.figure-body { display: flex; align-items: flex-start; }
.plot { width: 760px; height: 300px; flex: none; }
.legend { width: 260px; font-size: 12px; padding-left: 12px; overflow-wrap: anywhere; }
#report-status { display: none; }
pre { background: #f7f7f7; padding: 8px; font-size: 12px; overflow-x: auto; }
)";

// Installed before dygraphs runs, so that the page records every script error
// (report.js writes them into #report-status for a headless browser to read).
constexpr std::string_view kErrorRecorder =
    "window.coupletReportErrors = [];\n"
    "window.addEventListener('error', function (e) {\n"
    "  window.coupletReportErrors.push(String(e.message));\n"
    "});\n";

/// Debian's minified files end with a source-map comment: the only reference
/// to another file they hold. A browser follows it only with its developer
/// tools open, but a self-contained page names no file at all.
std::string_view without_source_map(std::string_view text) {
  for (const std::string_view marker : {"//# sourceMappingURL=", "/*# sourceMappingURL="}) {
    if (const std::size_t at = text.rfind(marker); at != std::string_view::npos)
      text = text.substr(0, at);
  }
  return text;
}

/// A script that both an HTML and an XML parser read as it is: the XML parser
/// sees a CDATA section, the HTML parser a comment line around it. The embedded
/// scripts contain neither "]]>" nor "</script" (the report test checks).
std::string inline_script(std::string_view code) {
  return "<script>//<![CDATA[\n" + std::string(code) + "\n//]]></script>\n";
}

/// Everything before the sections: head with style and error recorder, title,
/// how to use the plots.
std::string page_head(const std::string& title) {
  std::string html;
  html += "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n";
  html += "<meta charset=\"utf-8\"/>\n<title>" + escape(title) + "</title>\n";
  html += "<style>" + std::string(without_source_map(report_assets::dygraphs_style)) +
          std::string(kStyle) + "</style>\n";
  html += inline_script(kErrorRecorder);
  html += "</head>\n<body>\n";
  html += "<h1>" + escape(title) + "</h1>\n";
  html +=
      "<p class=\"note\">Plots: drag to zoom in, shift-drag to pan, double-click to zoom "
      "out; hover for the values.</p>\n";
  html += "<noscript><p class=\"note\">The plots need JavaScript.</p></noscript>\n";
  return html;
}

/// Everything after the sections: the status the page script fills, the scripts.
std::string page_tail() {
  std::string html = "<p id=\"report-status\"></p>\n";
  html += inline_script(without_source_map(report_assets::dygraphs_script));
  html += inline_script(report_assets::page_script);
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace report_parts

using namespace report_parts;

std::string render_report(const RunLog& log, const ReportInputs& inputs) {
  const std::string title =
      "couplet report: " + (log.scenario_source.empty() ? log.path : log.scenario_source);
  std::string html = page_head(title);
  html += summary_section(log, inputs);
  html += checks_section(inputs);
  html += signals_section(log, inputs);
  html += step_size_section(log);
  html += orders_section(log);
  html += defects_section(log);
  html += iterations_section(log);
  html += lateness_section(log);
  html += link_timing_section(log);
  html += internals_section(log);
  html += slaves_section(log);
  html += scenario_section(log);
  return html + page_tail();
}

}  // namespace couplet::tools
