// `couplet report A B ...` (docs/report.md#several-runs): several runs on one
// page, built from the parts of the one-run report (report_parts.hpp): a table
// of the runs, each run's checks, and one plot per signal with a series per run.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/report/report.hpp"
#include "host_tools/report/report_parts.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

using namespace report_parts;

namespace {

/// summary.json as an object; null when absent or unparsable.
nlohmann::json summary_of(const std::string& summary_json) {
  if (summary_json.empty()) return nullptr;
  nlohmann::json summary = nlohmann::json::parse(summary_json, nullptr, false);
  return summary.is_object() ? summary : nlohmann::json(nullptr);
}

/// summary.json's value of `key` as text, else `fallback` (from the log).
std::string summary_field(const nlohmann::json& summary, const char* key,
                          const std::string& fallback) {
  return summary.is_object() && summary.contains(key) ? json_text(summary[key]) : fallback;
}

std::string checks_count(const std::string& summary_json) {
  std::size_t passed = 0;
  std::size_t failed = 0;
  for (const nlohmann::json& check : checks_of(summary_json))
    ++(check.value("passed", false) ? passed : failed);
  if (passed + failed == 0) return "-";
  return std::to_string(passed) + " passed, " + std::to_string(failed) + " failed";
}

std::string runs_section(const std::vector<OverlayRun>& runs) {
  std::vector<std::vector<std::string>> rows;
  for (const OverlayRun& overlaid : runs) {
    const RunLog& log = overlaid.run.digest.log;
    const nlohmann::json summary = summary_of(overlaid.run.summary_json);
    const std::string logged_hash = log.end_record ? hash_text(log.end_record->decision_hash) : "-";
    rows.push_back({overlaid.name, log.path,
                    summary_field(summary, "scenario", log.scenario_source),
                    summary_field(summary, "algorithm", log.algorithm), run_status(log).first,
                    summary_field(summary, "decision_hash", logged_hash),
                    summary_field(summary, "end_time", format_number(seconds(log.end))),
                    checks_count(overlaid.run.summary_json)});
  }
  return "<h2>Runs</h2>\n" + table({"run", "log", "scenario", "algorithm", "status",
                                    "decision hash", "end time (s)", "checks"},
                                   rows);
}

std::string overlay_checks_section(const std::vector<OverlayRun>& runs) {
  std::string html;
  for (const OverlayRun& overlaid : runs) {
    const std::string checks = checks_table(overlaid.run.summary_json);
    if (!checks.empty()) html += "<h3>Checks of " + escape(overlaid.name) + "</h3>\n" + checks;
  }
  return html.empty() ? html : "<h2>Checks</h2>\n" + html;
}

/// A run's signals: signals.csv's columns, else the logged step outputs.
const std::vector<Column>& run_signals(const OverlayRun& overlaid) {
  const ReportRun& run = overlaid.run;
  return run.signals.columns.empty() ? run.digest.signals_from_calls : run.signals.columns;
}

/// One plot per signal, in the order the runs first name them; a series per
/// run that has the signal (its reference dashed), each on the run's own times.
std::string overlay_signals_section(const std::vector<OverlayRun>& runs) {
  std::vector<const std::vector<Column>*> signals_per_run;
  std::vector<std::string> names;
  Range span;
  for (const OverlayRun& run : runs) {
    signals_per_run.push_back(&run_signals(run));
    for (const Column& column : *signals_per_run.back()) {
      if (!ends_with(column.name, kReferenceSuffix) &&
          std::find(names.begin(), names.end(), column.name) == names.end())
        names.push_back(column.name);
    }
    const Range run_range = run_span(run.run.digest.log);
    span.include(run_range.low);
    span.include(run_range.high);
  }
  std::string plots;
  for (std::size_t n = 0; n < names.size(); ++n) {
    std::vector<Series> series;
    std::string unit;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      for (const Column& column : *signals_per_run[r]) {
        const bool reference = column.name == names[n] + std::string(kReferenceSuffix);
        if (column.name != names[n] && !reference) continue;
        const std::string label = reference ? runs[r].name + " (reference)" : runs[r].name;
        series.push_back({label, column.points, r, reference, false, false, column.total});
      }
      if (unit.empty()) unit = unit_of(runs[r].run.digest.log, names[n]);
    }
    const PlotSpec spec{"plot-overlay-" + std::to_string(n + 1),
                        names[n],
                        "time (s)",
                        unit.empty() ? names[n] : names[n] + " (" + unit + ")",
                        false,
                        span};
    plots += line_plot(spec, series);
  }
  return section("Signals", plots);
}

}  // namespace

std::string render_overlay_report(const std::vector<OverlayRun>& runs) {
  std::string html = page_head("couplet report: " + std::to_string(runs.size()) + " runs");
  html += runs_section(runs);
  html += overlay_checks_section(runs);
  html += overlay_signals_section(runs);
  return html + page_tail();
}

}  // namespace couplet::tools
