// The plots of a `couplet report` page: series thinned to what a plot can show,
// drawn by dygraphs from JSON (line plots, step plots, histograms).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "host_tools/report/report_parts.hpp"

namespace couplet::tools::report_parts {

// A plot 760 pixels wide shows no more than this many points per line, chosen
// so that the min/max of every pixel column survives (the series come bounded
// to kSeriesBudget points from the digest, report_digest.hpp).
constexpr std::size_t kMaxPolylinePoints = 2000;
constexpr std::size_t kHistogramBins = 40;

// ---------------------------------------------------------------- data series

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
/// `thinned` names the series drawn with fewer points than they have, so that
/// nobody takes them for the full data.
std::string figure(const PlotSpec& spec, const nlohmann::json& plot,
                   const std::vector<std::string>& thinned = {}) {
  // Names in the log may be invalid UTF-8; dump() would throw on them.
  const std::string data = plot.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string note;
  for (const std::string& series : thinned) note += (note.empty() ? "" : "; ") + series;
  if (!note.empty()) {
    note =
        "<p class=\"note decimated\">Decimated, keeping every slice's extremes: " + escape(note) +
        ".</p>\n";
  }
  return "<div class=\"figure\">\n<p class=\"plot-title\">" + escape(spec.title) + "</p>\n" + note +
         "<div class=\"figure-body\"><div class=\"plot\" id=\"" + escape(spec.id) +
         "\" data-y-scale=\"" + (spec.log_y ? "log" : "linear") + "\" data-plot=\"" + escape(data) +
         "\"></div><div class=\"legend\" id=\"" + escape(spec.id) +
         "-legend\"></div></div>\n</div>\n";
}

/// Lines sharing one y axis; a series marked `step` holds each value until its
/// next point. Empty when nothing can be drawn (e.g. only zeros on a log axis).
std::string line_plot(const PlotSpec& spec, const std::vector<Series>& series) {
  std::vector<Series> drawn;
  nlohmann::json source_points = nlohmann::json::array();
  std::vector<std::string> thinned;  ///< "name: N points shown of M"
  Range x_range;
  for (const Series& s : series) {
    Series kept = s;
    kept.points = drawable(s.points, spec.log_y);
    if (kept.points.empty()) continue;
    for (const Point& p : kept.points) x_range.include(p.x);
    // A bounded series counts the points it had (its dropped ones unchecked).
    const std::uint64_t source = s.total > s.points.size() ? s.total : kept.points.size();
    source_points.push_back(source);
    kept.points = downsample(kept.points, kMaxPolylinePoints);
    if (kept.points.size() < source) {
      thinned.push_back(s.name + ": " + std::to_string(kept.points.size()) + " points shown of " +
                        std::to_string(source));
    }
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
  return figure(spec,
                {{"kind", "line"},
                 {"labels", std::move(labels)},
                 {"data", rows_of(drawn)},
                 {"source_points", std::move(source_points)},
                 {"options", std::move(options)}},
                thinned);
}

/// Counts per bin on a log axis, so that a tail of a few late cycles stands out
/// beside thousands of punctual ones; the sets stand side by side within a bin.
/// A row's x is its bin's lower edge; empty bins are null (a log axis has no 0).
std::string histogram(PlotSpec spec, const std::vector<SampleSet>& sets) {
  Range x_range;
  for (const SampleSet& set : sets) {
    if (set.values->range().empty()) continue;
    x_range.include(set.values->range().low);
    x_range.include(set.values->range().high);
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
    sets[s].values->count_into(counts, x_range.low, bin_width);
    for (std::size_t b = 0; b < kHistogramBins; ++b) {
      highest = std::max(highest, counts[b]);
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
    names.push_back(sets[s].name + " (" + std::to_string(sets[s].values->count()) + ")");
  }
  for (const std::string& name : unique_labels(std::move(names))) labels.push_back(name);
  options["colors"] = std::move(colors);
  return figure(spec, {{"kind", "histogram"},
                       {"labels", std::move(labels)},
                       {"data", std::move(rows)},
                       {"bin_width", bin_width},
                       {"options", std::move(options)}});
}

}  // namespace couplet::tools::report_parts
