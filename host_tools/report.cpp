// `couplet report` (docs/report.md): HTML with inline SVG, written by hand so that
// the report needs neither Python nor a network nor a plotting library. The
// output is XHTML-compatible (closed tags, escaped text) so tests can parse it.
#include "host_tools/report.hpp"

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

#include "runtime/decision_hash.hpp"

namespace couplet::tools {
namespace {

// Long runs log millions of points; a plot 660 pixels wide shows no more than
// this many per line, chosen so that the min/max of every pixel column survives.
constexpr std::size_t kMaxPolylinePoints = 2000;
constexpr std::size_t kHistogramBins = 40;
// Markers only where they stay readable.
constexpr std::size_t kMaxMarkers = 200;

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

std::string format_number(double value, int significant_digits = 6) {
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", significant_digits, value);
  return buffer.data();
}

/// Exact enough that a test can invert the mapping of a pixel position.
std::string format_exact(double value) {
  return format_number(value, 17);
}

std::string format_pixel(double value) {
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.2f", value);
  return buffer.data();
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// ---------------------------------------------------------------- data series

struct Point {
  double x = 0.0;
  double y = 0.0;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  std::size_t color = 0;
  bool dashed = false;
  bool markers = false;
};

/// A value that holds over [from, to]: a step size over its step, an order until
/// the next decision.
struct Held {
  double from = 0.0;
  double to = 0.0;
  double value = 0.0;
};

/// The staircase through held values, as polyline points.
std::vector<Point> staircase(const std::vector<Held>& held) {
  std::vector<Point> points;
  points.reserve(2 * held.size());
  for (const Held& h : held) {
    points.push_back({h.from, h.value});
    points.push_back({h.to, h.value});
  }
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

// ---------------------------------------------------------------- scales and axes

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void include(double value) {
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

/// A degenerate range (one value) still needs a visible extent.
Range widened(Range range, bool log) {
  if (range.high > range.low) return range;
  if (log) return {range.low / 2.0, range.high * 2.0};
  const double half = range.low == 0.0 ? 1.0 : std::abs(range.low) * 0.1;
  return {range.low - half, range.high + half};
}

/// Some air above and below the data on a value axis.
Range padded(Range range, bool log) {
  if (log) return {range.low / 1.25, range.high * 1.25};
  const double pad = 0.05 * (range.high - range.low);
  return {range.low - pad, range.high + pad};
}

/// Maps data values to pixels, linearly or by decades.
struct Scale {
  Range range;
  bool log = false;
  double pixel_low = 0.0;   ///< pixel of range.low
  double pixel_high = 0.0;  ///< pixel of range.high

  double operator()(double value) const {
    const double fraction = log ? (std::log10(value) - std::log10(range.low)) /
                                      (std::log10(range.high) - std::log10(range.low))
                                : (value - range.low) / (range.high - range.low);
    return pixel_low + fraction * (pixel_high - pixel_low);
  }
};

/// 1-2-5 steps, about six ticks.
std::vector<double> linear_ticks(Range range) {
  const double raw = (range.high - range.low) / 6.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * magnitude;
  for (const double mantissa : {1.0, 2.0, 5.0}) {
    if (mantissa * magnitude >= raw) {
      step = mantissa * magnitude;
      break;
    }
  }
  std::vector<double> ticks;
  const double first = std::ceil(range.low / step);
  for (double k = first; k * step <= range.high + 1e-9 * step; k += 1.0) {
    const double tick = k * step;
    ticks.push_back(std::abs(tick) < 1e-9 * step ? 0.0 : tick);  // no "-0" or "1e-17"
  }
  return ticks;
}

/// Decades; within less than a decade 1-2-5 mantissas; else the ends.
std::vector<double> log_ticks(Range range) {
  const int first = static_cast<int>(std::ceil(std::log10(range.low) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log10(range.high) + 1e-9));
  const int stride = std::max(1, (last - first + 8) / 8);
  std::vector<double> ticks;
  for (int e = first; e <= last; e += stride) ticks.push_back(std::pow(10.0, e));
  if (ticks.size() >= 2) return ticks;
  ticks.clear();
  for (int e = first - 1; e <= last; ++e) {
    for (const double mantissa : {1.0, 2.0, 5.0}) {
      const double tick = mantissa * std::pow(10.0, e);
      if (tick >= range.low && tick <= range.high) ticks.push_back(tick);
    }
  }
  if (ticks.size() < 2) ticks = {range.low, range.high};
  return ticks;
}

const std::array<const char*, 10> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                              "#9467bd", "#8c564b", "#e377c2", "#17becf",
                                              "#7f7f7f", "#bcbd22"};

const char* color(std::size_t index) {
  return kPalette[index % kPalette.size()];
}

struct PlotSpec {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_y = false;
  /// Time plots share the run's span so that they line up one below the other.
  std::optional<Range> x_span = std::nullopt;
};

struct LegendEntry {
  std::string name;
  std::size_t color = 0;
  bool dashed = false;
};

/// The geometry shared by every plot; the legend sits right of the plot area.
struct Frame {
  static constexpr double kWidth = 960.0;
  static constexpr double kLeft = 84.0;
  static constexpr double kTop = 34.0;
  static constexpr double kPlotWidth = 640.0;
  static constexpr double kPlotHeight = 260.0;
  static constexpr double kBottom = 52.0;
  static constexpr double kLegendLine = 18.0;

  Scale x;
  Scale y;

  Frame(Range x_range, Range y_range, bool log_y)
      : x{x_range, false, kLeft, kLeft + kPlotWidth}, y{y_range, log_y, kTop + kPlotHeight, kTop} {}

  static double height(std::size_t legend_entries) {
    return std::max(kTop + kPlotHeight + kBottom,
                    kTop + kLegendLine * static_cast<double>(legend_entries) + 12.0);
  }
};

/// <svg> with title, data-* attributes describing the mapping (for tests and
/// tools), grid, axes with tick labels and axis labels.
std::string open_plot(const PlotSpec& spec, const Frame& frame, std::size_t legend_entries) {
  const double height = Frame::height(legend_entries);
  const double bottom = Frame::kTop + Frame::kPlotHeight;
  const double right = Frame::kLeft + Frame::kPlotWidth;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" << escape(spec.id) << "\" class=\"plot\""
      << " width=\"" << format_pixel(Frame::kWidth) << "\" height=\"" << format_pixel(height)
      << "\" viewBox=\"0 0 " << format_pixel(Frame::kWidth) << ' ' << format_pixel(height) << "\""
      << " role=\"img\" aria-labelledby=\"" << escape(spec.id) << "-title\""
      << " data-x-min=\"" << format_exact(frame.x.range.low) << "\" data-x-max=\""
      << format_exact(frame.x.range.high) << "\" data-y-min=\"" << format_exact(frame.y.range.low)
      << "\" data-y-max=\"" << format_exact(frame.y.range.high) << "\" data-y-scale=\""
      << (frame.y.log ? "log" : "linear") << "\" data-plot-left=\"" << format_exact(Frame::kLeft)
      << "\" data-plot-top=\"" << format_exact(Frame::kTop) << "\" data-plot-width=\""
      << format_exact(Frame::kPlotWidth) << "\" data-plot-height=\""
      << format_exact(Frame::kPlotHeight) << "\">\n";
  svg << "<title id=\"" << escape(spec.id) << "-title\">" << escape(spec.title) << "</title>\n";
  svg << "<text class=\"plot-title\" x=\"" << format_pixel(Frame::kLeft) << "\" y=\"20\">"
      << escape(spec.title) << "</text>\n";
  svg << "<rect class=\"area\" x=\"" << format_pixel(Frame::kLeft) << "\" y=\""
      << format_pixel(Frame::kTop) << "\" width=\"" << format_pixel(Frame::kPlotWidth)
      << "\" height=\"" << format_pixel(Frame::kPlotHeight) << "\"/>\n";
  for (const double tick : linear_ticks(frame.x.range)) {
    const std::string x = format_pixel(frame.x(tick));
    svg << "<line class=\"grid\" x1=\"" << x << "\" y1=\"" << format_pixel(Frame::kTop)
        << "\" x2=\"" << x << "\" y2=\"" << format_pixel(bottom) << "\"/>"
        << "<text class=\"tick\" x=\"" << x << "\" y=\"" << format_pixel(bottom + 16.0)
        << "\" text-anchor=\"middle\">" << format_number(tick, 4) << "</text>\n";
  }
  const std::vector<double> y_ticks =
      frame.y.log ? log_ticks(frame.y.range) : linear_ticks(frame.y.range);
  for (const double tick : y_ticks) {
    const std::string y = format_pixel(frame.y(tick));
    svg << "<line class=\"grid\" x1=\"" << format_pixel(Frame::kLeft) << "\" y1=\"" << y
        << "\" x2=\"" << format_pixel(right) << "\" y2=\"" << y << "\"/>"
        << "<text class=\"tick\" x=\"" << format_pixel(Frame::kLeft - 6.0) << "\" y=\"" << y
        << "\" dy=\"4\" text-anchor=\"end\">" << format_number(tick, 4) << "</text>\n";
  }
  svg << "<text class=\"axis-label\" x=\"" << format_pixel(Frame::kLeft + Frame::kPlotWidth / 2.0)
      << "\" y=\"" << format_pixel(bottom + 40.0) << "\" text-anchor=\"middle\">"
      << escape(spec.x_label) << "</text>\n";
  const double middle = Frame::kTop + Frame::kPlotHeight / 2.0;
  svg << "<text class=\"axis-label\" x=\"16\" y=\"" << format_pixel(middle)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 " << format_pixel(middle) << ")\">"
      << escape(spec.y_label) << (frame.y.log ? " (log)" : "") << "</text>\n";
  return svg.str();
}

std::string close_plot(const std::vector<LegendEntry>& legend) {
  std::ostringstream svg;
  const double x = Frame::kLeft + Frame::kPlotWidth + 16.0;
  svg << "<g class=\"legend\">\n";
  for (std::size_t k = 0; k < legend.size(); ++k) {
    const double y = Frame::kTop + 8.0 + Frame::kLegendLine * static_cast<double>(k);
    svg << "<line x1=\"" << format_pixel(x) << "\" y1=\"" << format_pixel(y) << "\" x2=\""
        << format_pixel(x + 22.0) << "\" y2=\"" << format_pixel(y) << "\" stroke=\""
        << color(legend[k].color) << "\" stroke-width=\"2\""
        << (legend[k].dashed ? " stroke-dasharray=\"6 3\"" : "") << "/>"
        << "<text x=\"" << format_pixel(x + 28.0) << "\" y=\"" << format_pixel(y) << "\" dy=\"4\">"
        << escape(legend[k].name) << "</text>\n";
  }
  svg << "</g>\n</svg>\n";
  return svg.str();
}

std::string polyline(const Series& series, const Frame& frame, std::size_t source_points) {
  std::ostringstream svg;
  svg << "<polyline class=\"series\" data-series=\"" << escape(series.name) << "\" data-points=\""
      << series.points.size() << "\" data-source-points=\"" << source_points
      << "\" fill=\"none\" stroke=\"" << color(series.color) << "\" stroke-width=\"1.5\""
      << (series.dashed ? " stroke-dasharray=\"6 3\"" : "") << " points=\"";
  for (std::size_t k = 0; k < series.points.size(); ++k) {
    if (k > 0) svg << ' ';
    svg << format_pixel(frame.x(series.points[k].x)) << ','
        << format_pixel(frame.y(series.points[k].y));
  }
  svg << "\"/>\n";
  if (series.markers && series.points.size() <= kMaxMarkers) {
    for (const Point& p : series.points) {
      svg << "<circle cx=\"" << format_pixel(frame.x(p.x)) << "\" cy=\""
          << format_pixel(frame.y(p.y)) << "\" r=\"2.5\" fill=\"" << color(series.color) << "\"/>";
    }
    svg << '\n';
  }
  return svg.str();
}

/// Lines (or staircases, already expanded into points) sharing one frame.
/// Empty when nothing can be drawn (e.g. only zeros on a log axis).
std::string line_plot(const PlotSpec& spec, const std::vector<Series>& series) {
  std::vector<Series> drawn;
  std::vector<std::size_t> source_points;
  Range x_range;
  Range y_range;
  for (const Series& s : series) {
    Series kept = s;
    kept.points = drawable(s.points, spec.log_y);
    if (kept.points.empty()) continue;
    for (const Point& p : kept.points) {
      x_range.include(p.x);
      y_range.include(p.y);
    }
    source_points.push_back(kept.points.size());
    kept.points = downsample(kept.points, kMaxPolylinePoints);
    drawn.push_back(std::move(kept));
  }
  if (drawn.empty()) return {};
  if (spec.x_span) {
    x_range.include(spec.x_span->low);
    x_range.include(spec.x_span->high);
  }
  const Frame frame(widened(x_range, false), padded(widened(y_range, spec.log_y), spec.log_y),
                    spec.log_y);
  std::string svg = open_plot(spec, frame, drawn.size());
  std::vector<LegendEntry> legend;
  for (std::size_t k = 0; k < drawn.size(); ++k) {
    svg += polyline(drawn[k], frame, source_points[k]);
    legend.push_back({drawn[k].name, drawn[k].color, drawn[k].dashed});
  }
  return svg + close_plot(legend);
}

struct SampleSet {
  std::string name;
  std::vector<double> values;
};

/// Counts per bin, the sets side by side within a bin, bins shared by all sets.
std::string histogram(const PlotSpec& spec, const std::vector<SampleSet>& sets) {
  Range x_range;
  for (const SampleSet& set : sets) {
    for (const double v : set.values) {
      if (std::isfinite(v)) x_range.include(v);
    }
  }
  if (x_range.empty()) return {};
  x_range = widened(x_range, false);
  const double bin_width = (x_range.high - x_range.low) / static_cast<double>(kHistogramBins);
  std::vector<std::vector<std::size_t>> counts(sets.size(),
                                               std::vector<std::size_t>(kHistogramBins, 0));
  std::size_t highest = 1;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (const double v : sets[s].values) {
      if (!std::isfinite(v)) continue;
      const auto bin =
          std::min(kHistogramBins - 1, static_cast<std::size_t>((v - x_range.low) / bin_width));
      highest = std::max(highest, ++counts[s][bin]);
    }
  }
  const Frame frame(x_range, {0.0, static_cast<double>(highest) * 1.05}, false);
  std::string svg = open_plot(spec, frame, sets.size());
  std::ostringstream bars;
  const double slot = bin_width / static_cast<double>(sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (std::size_t b = 0; b < kHistogramBins; ++b) {
      if (counts[s][b] == 0) continue;
      const double from = x_range.low + bin_width * static_cast<double>(b);
      const double left = frame.x(from + slot * static_cast<double>(s));
      const double top = frame.y(static_cast<double>(counts[s][b]));
      bars << "<rect class=\"bar\" data-series=\"" << escape(sets[s].name) << "\" data-bin-from=\""
           << format_exact(from) << "\" data-bin-to=\"" << format_exact(from + bin_width)
           << "\" data-count=\"" << counts[s][b] << "\" x=\"" << format_pixel(left) << "\" y=\""
           << format_pixel(top) << "\" width=\""
           << format_pixel(
                  std::max(1.0, frame.x(from + slot * static_cast<double>(s + 1)) - left - 0.5))
           << "\" height=\"" << format_pixel(frame.y(0.0) - top) << "\" fill=\"" << color(s)
           << "\"/>\n";
    }
  }
  svg += bars.str();
  std::vector<LegendEntry> legend;
  for (std::size_t s = 0; s < sets.size(); ++s) {
    legend.push_back({sets[s].name + " (" + std::to_string(sets[s].values.size()) + ")", s, false});
  }
  return svg + close_plot(legend);
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

/// The quantity reported at a plan, over the interval that plan completed
/// (from the previous plan's frontier to its own).
std::vector<Held> internal_over_plans(const RunLog& log, std::size_t index) {
  std::vector<Held> held;
  Time previous = log.start;
  for (const LoggedPlan& plan : log.plans) {
    if (index < plan.internals.size())
      held.push_back({seconds(previous), seconds(plan.frontier), plan.internals[index]});
    previous = plan.frontier;
  }
  return held;
}

/// One communication step per plan that completed a macro step: the frontier
/// moved from the previous such plan's frontier to its own.
std::vector<Held> communication_steps(const RunLog& log) {
  std::vector<Held> steps;
  Time previous = log.start;
  std::uint64_t macro_steps = 0;
  for (const LoggedPlan& plan : log.plans) {
    if (plan.macro_steps <= macro_steps) continue;
    if (plan.frontier > previous) {
      steps.push_back(
          {seconds(previous), seconds(plan.frontier), seconds(plan.frontier - previous)});
    }
    previous = plan.frontier;
    macro_steps = plan.macro_steps;
  }
  return steps;
}

/// Output values at the end of every step call, per output. A call that ends at
/// or before an earlier one of the same slave replaces what came after it
/// (rollbacks, iterations), so each line shows the accepted trajectory.
std::vector<Series> signals_from_calls(const RunLog& log) {
  std::vector<std::size_t> first_series(log.slaves.size(), 0);
  std::vector<Series> series;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    first_series[s] = series.size();
    for (const OutputDescription& output : log.slaves[s].description.outputs) {
      series.push_back({port_name(log, s, output.name), {}, series.size(), false, false});
    }
  }
  for (const LoggedCall& call : log.calls) {
    if (call.kind != CallKind::step || call.slave >= log.slaves.size()) continue;
    const std::size_t outputs = log.slaves[call.slave].description.outputs.size();
    if (call.end_outputs.size() < outputs) continue;
    const double end = seconds(call.end);
    for (std::size_t j = 0; j < outputs; ++j) {
      std::vector<Point>& points = series[first_series[call.slave] + j].points;
      while (!points.empty() && points.back().x >= end) points.pop_back();
      points.push_back({end, call.end_outputs[j]});
    }
  }
  std::erase_if(series, [](const Series& s) { return s.points.empty(); });
  return series;
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

/// signals.csv: one series per column; "<signal>:reference" is drawn dashed in
/// the colour of <signal>.
std::vector<Series> signals_from_csv(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  if (!std::getline(lines, line)) return {};
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split(line, ',');
  constexpr std::string_view kReference = ":reference";
  std::vector<Series> series;
  for (std::size_t c = 1; c < header.size(); ++c) {
    Series s{header[c], {}, 0, false, false};
    if (ends_with(header[c], kReference)) {
      const std::string base = header[c].substr(0, header[c].size() - kReference.size());
      s.name = base + " (reference)";
      s.dashed = true;
      const auto source = std::find(header.begin() + 1, header.end(), base);
      s.color =
          source == header.end() ? c - 1 : static_cast<std::size_t>(source - header.begin()) - 1;
    } else {
      s.color = c - 1;
    }
    series.push_back(std::move(s));
  }
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> fields = split(line, ',');
    const std::optional<double> time = fields.empty() ? std::nullopt : parse_double(fields[0]);
    if (!time) continue;
    for (std::size_t c = 1; c < fields.size() && c <= series.size(); ++c) {
      if (const std::optional<double> value = parse_double(fields[c]))
        series[c - 1].points.push_back({*time, *value});
    }
  }
  return series;
}

std::vector<Series> series_of(std::vector<std::pair<std::string, std::vector<Point>>> named,
                              bool markers) {
  std::vector<Series> series;
  for (auto& [name, points] : named)
    series.push_back({name, std::move(points), series.size(), false, markers});
  return series;
}

// ---------------------------------------------------------------- HTML sections

std::string paragraph(const std::string& text, const std::string& css_class = "note") {
  return "<p class=\"" + css_class + "\">" + escape(text) + "</p>\n";
}

/// The plot, or the reason there is none.
std::string plot_or_reason(const std::string& svg, const std::string& reason) {
  return svg.empty() ? paragraph(reason, "missing") : "<div class=\"figure\">\n" + svg + "</div>\n";
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

/// "complete", "failed: ..." or "cut: ...", with the CSS class that colours it.
std::pair<std::string, std::string> run_status(const RunLog& log) {
  std::string text;
  std::string css = "status-complete";
  if (!log.end_record) {
    text = "cut: the log has no end record (the run was killed, crashed or is still running)";
    css = "status-cut";
  } else if (!log.end_record->completed) {
    text = "failed: " + log.end_record->message;
    css = "status-failed";
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
  return table({"quantity", "value"}, {{"completed", end.completed ? "yes" : "no"},
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
  return html + paragraph("No summary.json and no end record: no counters to show.", "missing");
}

std::string signals_section(const RunLog& log, const ReportInputs& inputs) {
  std::vector<Series> series = signals_from_csv(inputs.signals_csv);
  std::string source = "signals.csv";
  if (series.empty()) {
    series = signals_from_calls(log);
    source = "the logged output values at the end of every step";
  }
  const PlotSpec spec{"plot-signals", "Signals (from " + source + ")", "time (s)", "value", false,
                      run_span(log)};
  return "<h2>Signals</h2>\n" +
         plot_or_reason(line_plot(spec, series),
                        "no signals: no signals.csv and no step results in the log");
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
  return "<h2>Communication step size</h2>\n" +
         plot_or_reason(line_plot(spec, {{"macro step", staircase(steps), 0, false, false}}),
                        "no completed macro steps in this log");
}

std::string orders_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  for (const auto& [output, index] : internals_with_prefix(log, "order:")) {
    named.emplace_back(output, staircase(internal_held_from_plans(log, index)));
  }
  const PlotSpec spec{"plot-orders", "Polynomial order per output (F3ORNITS)",
                      "time (s)",    "order",
                      false,         run_span(log)};
  return "<h2>Polynomial orders</h2>\n" +
         plot_or_reason(line_plot(spec, series_of(std::move(named), false)),
                        "no F3ORNITS orders in this log");
}

std::string defects_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  for (const char* name : {"defect", "tolerance"}) {
    if (const auto index = internal_index(log, name))
      named.emplace_back(name, internal_at_plans(log, *index));
  }
  const bool has_defect = internal_index(log, "defect").has_value();
  const PlotSpec spec{"plot-defects", "Defect against the tolerance (defect control)",
                      "time (s)",     "defect",
                      true,           run_span(log)};
  std::vector<Series> series = series_of(std::move(named), true);
  if (series.size() == 2) series[1].dashed = true;  // the tolerance is the reference line
  return "<h2>Defects</h2>\n" +
         plot_or_reason(has_defect ? line_plot(spec, series) : std::string(),
                        has_defect ? "no positive defect values to plot on a log axis"
                                   : "no defect-control defects in this log");
}

std::string iterations_section(const RunLog& log) {
  std::vector<std::pair<std::string, std::vector<Point>>> named;
  if (const auto index = internal_index(log, "iterations")) {
    named.emplace_back("iterations", staircase(internal_over_plans(log, *index)));
  }
  const PlotSpec spec{
      "plot-iterations", "Iterations per step (iterative methods)", "time (s)", "iterations", false,
      run_span(log)};
  return "<h2>Iterations per step</h2>\n" +
         plot_or_reason(line_plot(spec, series_of(std::move(named), false)),
                        "no iteration counts in this log");
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
  const PlotSpec spec{"plot-lateness", "Real-time lateness", "lateness (us)", "count", false};
  return "<h2>Real-time lateness</h2>\n" +
         plot_or_reason(sets.empty() ? std::string() : histogram(spec, sets),
                        "no lateness recorded: the run was not paced (virtual time)");
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
  if (rows.empty())
    return "<h2>Link round trip</h2>\n" + paragraph("no linked slaves in this run", "missing");
  const PlotSpec spec{"plot-round-trip", "Round trip of calls to linked slaves", "round trip (us)",
                      "count", false};
  return "<h2>Link round trip</h2>\n" +
         plot_or_reason(sets.empty() ? std::string() : histogram(spec, sets),
                        "no call timing measured") +
         table({"slave", "link", "calls", "missed", "retransmissions"}, rows);
}

std::string internals_section(const RunLog& log) {
  if (log.internal_quantities.empty()) {
    return "<h2>Algorithm internals</h2>\n" +
           paragraph("the algorithm reports no internal quantities", "missing");
  }
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

std::string slaves_section(const RunLog& log) {
  std::vector<std::vector<std::string>> rows;
  for (const LoggedSlave& slave : log.slaves) {
    std::vector<std::string> inputs, outputs;
    for (const InputDescription& input : slave.description.inputs) inputs.push_back(input.name);
    for (const OutputDescription& output : slave.description.outputs)
      outputs.push_back(output.name);
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
body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1000px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 15px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
th { background: #f3f3f3; }
.status-complete { color: #1a7f37; font-weight: bold; }
.status-failed { color: #c62828; font-weight: bold; }
.status-cut { color: #b26a00; font-weight: bold; }
.missing { color: #777; font-style: italic; }
svg.plot { font-size: 11px; display: block; }
svg .area { fill: #fff; stroke: #999; }
svg .grid { stroke: #e6e6e6; }
svg .plot-title { font-size: 13px; font-weight: bold; }
svg .axis-label { font-size: 12px; }
pre { background: #f7f7f7; padding: 8px; font-size: 12px; overflow-x: auto; }
)";

}  // namespace

std::string render_report(const RunLog& log, const ReportInputs& inputs) {
  const std::string title =
      "couplet report: " + (log.scenario_source.empty() ? log.path : log.scenario_source);
  std::string html;
  html += "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n";
  html += "<meta charset=\"utf-8\"/>\n<title>" + escape(title) + "</title>\n";
  html += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  html += "<h1>" + escape(title) + "</h1>\n";
  html += summary_section(log, inputs);
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
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace couplet::tools
