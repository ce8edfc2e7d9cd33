#pragma once
// `couplet report`: one self-contained HTML page (inline CSS, data and scripts,
// no external resource) that shows a run from its log (docs/report.md).
#include <string>
#include <vector>

#include "host_tools/report/report_digest.hpp"
#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

/// The files `couplet run` writes beside the log; either may be empty.
struct ReportInputs {
  /// signals.csv: header "time,<signal>,...,<signal>:reference,...".
  std::string signals_csv;
  std::string summary_json;
};

/// One run as the page shows it: its log's digest, signals.csv's columns
/// (report_parts::signals_from_csv; none without the file) and summary.json.
struct ReportRun {
  ReportDigest digest;
  report_parts::SignalColumns signals;
  std::string summary_json;
};

/// The report as one XHTML-compatible document: every tag closed and every
/// text escaped, so that an XML parser reads it as well as a browser does.
/// A section exists only when the log has data for it.
std::string render_report(const ReportRun& run);
/// The same of a log read whole and the files' text.
std::string render_report(const RunLog& log, const ReportInputs& inputs);

/// One run of an overlay report: its name in legends and tables (e.g. its
/// directory's name), its digest and the files beside it.
struct OverlayRun {
  std::string name;
  ReportRun run;
};

/// Several runs on one page: a table of the runs, each run's checks, and one
/// plot per signal with a series per run that has it, each on its own times.
std::string render_overlay_report(const std::vector<OverlayRun>& runs);

}  // namespace couplet::tools
