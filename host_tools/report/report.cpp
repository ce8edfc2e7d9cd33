// `couplet report` (docs/report.md): one HTML page that carries its data as JSON
// and draws it with dygraphs (Debian's libjs-dygraphs, embedded at build time),
// so that the page is interactive and still needs no network and no other file.
// The output is XHTML-compatible (closed tags, escaped text) so tests can parse it.
//
// This file holds the page's sections and their order; they draw from the log's
// digest (report_digest.cpp: one streamed pass, every series bounded). The parts
// they are made of (report_parts.hpp) are in report_text.cpp (escaping),
// report_series.cpp (grouping the signals), report_bounded.cpp (bounded series,
// signals.csv), report_plots.cpp (the plots) and report_page.cpp (the frame).
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

// The sections are parts too: report_overlay.cpp uses some of them.
namespace report_parts {

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

std::string summary_section(const ReportDigest& digest, const std::string& summary_json) {
  const RunLog& log = digest.log;
  const auto [status, css] = run_status(log);
  std::string html =
      "<h2>Summary</h2>\n<p class=\"" + css + "\">Status: " + escape(status) + "</p>\n";
  html += table({"log", "value"}, {{"file", log.path},
                                   {"scenario", log.scenario_source},
                                   {"algorithm", log.algorithm},
                                   {"time span (s)", format_number(seconds(log.start)) + " to " +
                                                         format_number(seconds(log.end))},
                                   {"frames", std::to_string(log.frames)},
                                   {"plans", std::to_string(digest.plans)},
                                   {"slave calls", std::to_string(digest.calls)}});
  if (!summary_json.empty()) {
    const nlohmann::json summary = nlohmann::json::parse(summary_json, nullptr, false);
    if (summary.is_object()) return html + "<h3>summary.json</h3>\n" + summary_from_json(summary);
    html += paragraph(
        "summary.json could not be parsed; the counters below come from the log's end record.");
  }
  if (log.end_record)
    return html + "<h3>End record</h3>\n" + summary_from_end_record(*log.end_record);
  return html + paragraph("No summary.json and no end record: no counters to show.");
}

// ---- checks (docs/scenarios.md#checks): their verdicts from summary.json

nlohmann::json checks_of(const std::string& summary_json) {
  if (summary_json.empty()) return nlohmann::json::array();
  const nlohmann::json summary = nlohmann::json::parse(summary_json, nullptr, false);
  if (!summary.is_object() || !summary.contains("checks") || !summary["checks"].is_array())
    return nlohmann::json::array();
  return summary["checks"];
}

/// The checks' verdicts as a table; empty when summary.json holds none.
std::string checks_table(const std::string& summary_json) {
  std::vector<std::vector<std::string>> rows;
  const auto cell = [](const nlohmann::json& value) {
    return value.is_number() ? format_number(value.get<double>()) : std::string("-");
  };
  for (const nlohmann::json& check : checks_of(summary_json)) {
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

std::string checks_section(const std::string& summary_json) {
  const std::string checks = checks_table(summary_json);
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

std::string signals_section(const ReportRun& run) {
  const RunLog& log = run.digest.log;
  SignalColumns from_calls;
  const SignalColumns* shown = &run.signals;
  std::string source = "signals.csv";
  if (run.signals.columns.empty()) {
    from_calls.columns = run.digest.signals_from_calls;
    shown = &from_calls;
    source = "the logged output values at the end of every step";
  }
  std::string plots;
  std::size_t number = 0;
  for (const SignalGroup& group : group_by_quantity(log, *shown)) {
    ++number;
    const PlotSpec signals{"plot-signals-" + std::to_string(number),
                           "Signals " + group.quantity.title + " (from " + source + ")",
                           "time (s)",
                           group.quantity.axis,
                           false,
                           run_span(log)};
    std::vector<Series> marked = group.signals;
    mark_violations(marked, checks_of(run.summary_json));
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

/// A step plot's series, with the points it had.
Series held_series(std::string name, const HeldSeries& held, std::size_t color) {
  return {std::move(name), held.points(), color, false, false, true, held.count()};
}

std::string step_size_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  const std::vector<Point> steps = digest.step_sizes.points();
  Range range;
  for (const Point& step : steps) range.include(step.y);
  // Variable-step runs span decades (a switch forces tiny steps); a linear axis hides them.
  const bool log_y = !range.empty() && range.low > 0.0 && range.high > 100.0 * range.low;
  const PlotSpec spec{
      "plot-step-size", "Communication step size", "time (s)", "step size (s)", log_y,
      run_span(log)};
  return section("Communication step size",
                 line_plot(spec, {held_series("macro step", digest.step_sizes, 0)}));
}

std::string orders_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  std::vector<Series> series;
  for (const auto& [output, held] : digest.orders)
    series.push_back(held_series(output, held, series.size()));
  const PlotSpec spec{"plot-orders", "Polynomial order per output (F3ORNITS)",
                      "time (s)",    "order",
                      false,         run_span(log)};
  return section("Polynomial orders", line_plot(spec, series));
}

std::string defects_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  if (!internal_index(log, "defect")) return {};
  std::vector<Series> series;
  for (const auto& [name, points] : digest.defects)
    series.push_back({name, points.points(), series.size(), false, true, false, points.count()});
  const PlotSpec spec{"plot-defects", "Defect against the tolerance (defect control)",
                      "time (s)",     "defect",
                      true,           run_span(log)};
  if (series.size() == 2) {  // the tolerance is the reference line
    series[1].dashed = true;
    series[1].markers = false;
  }
  return section("Defects", line_plot(spec, series));
}

std::string iterations_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  std::vector<Series> series;
  if (digest.iterations) series.push_back(held_series("iterations", *digest.iterations, 0));
  const PlotSpec spec{"plot-iterations",
                      "Iterations per macro step (iterative methods)",
                      "time (s)",
                      "iterations",
                      false,
                      run_span(log)};
  return section("Iterations per step", line_plot(spec, series));
}

std::string lateness_section(const ReportDigest& digest) {
  std::vector<SampleSet> sets;
  if (digest.pacer_lateness_us.count() > 0)
    sets.push_back({"pacer lateness (per plan)", &digest.pacer_lateness_us});
  if (digest.input_lateness_us.count() > 0)
    sets.push_back({"input lateness (per call)", &digest.input_lateness_us});
  const PlotSpec spec{"plot-lateness", "Real-time lateness", "lateness (us)", "count", true};
  return section("Real-time lateness", histogram(spec, sets));
}

std::string link_timing_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  std::vector<SampleSet> sets;
  std::vector<std::vector<std::string>> rows;
  for (const ReportDigest::LinkTiming& link : digest.links) {
    const LoggedSlave& slave = log.slaves[link.slave];
    rows.push_back({slave.name, slave.link, std::to_string(link.calls), std::to_string(link.missed),
                    std::to_string(link.retransmissions)});
    if (link.round_trips_us.count() > 0) sets.push_back({slave.name, &link.round_trips_us});
  }
  if (rows.empty()) return {};
  const PlotSpec spec{"plot-round-trip", "Round trip of calls to linked slaves", "round trip (us)",
                      "count", true};
  return section(
      "Link round trip",
      histogram(spec, sets) + table({"slave", "link", "calls", "missed", "retransmissions"}, rows));
}

std::string internals_section(const ReportDigest& digest) {
  const RunLog& log = digest.log;
  if (log.internal_quantities.empty()) return {};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    const ReportDigest::InternalStats stats =
        k < digest.internals.size() ? digest.internals[k] : ReportDigest::InternalStats{};
    const bool any = stats.count > 0;
    rows.push_back({log.internal_quantities[k], std::to_string(stats.count),
                    any ? format_number(stats.range.low) : "", any ? format_number(stats.last) : "",
                    any ? format_number(stats.range.high) : ""});
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

}  // namespace report_parts

using namespace report_parts;

std::string render_report(const ReportRun& run) {
  const ReportDigest& digest = run.digest;
  const RunLog& log = digest.log;
  const std::string title =
      "couplet report: " + (log.scenario_source.empty() ? log.path : log.scenario_source);
  std::string html = page_head(title);
  html += summary_section(digest, run.summary_json);
  html += checks_section(run.summary_json);
  html += signals_section(run);
  html += step_size_section(digest);
  html += orders_section(digest);
  html += defects_section(digest);
  html += iterations_section(digest);
  html += lateness_section(digest);
  html += link_timing_section(digest);
  html += internals_section(digest);
  html += slaves_section(log);
  html += scenario_section(log);
  return html + page_tail();
}

std::string render_report(const RunLog& log, const ReportInputs& inputs) {
  std::istringstream csv(inputs.signals_csv);
  return render_report(
      ReportRun{digest_of(log), signals_from_csv(csv, run_span(log)), inputs.summary_json});
}

}  // namespace couplet::tools
