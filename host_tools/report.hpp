#pragma once
// `couplet report`: one self-contained HTML page (inline CSS and SVG, no script,
// no external resource) that shows a run from its log (docs/report.md).
#include <string>

#include "host_tools/run_log.hpp"

namespace couplet::tools {

/// The files `couplet run` writes beside the log; either may be empty.
struct ReportInputs {
  /// signals.csv: header "time,<signal>,...,<signal>:reference,...".
  std::string signals_csv;
  std::string summary_json;
};

/// The report as one XHTML-compatible document: every tag closed and every
/// text escaped, so that an XML parser reads it as well as a browser does.
/// Plots without data are left out with a line that says why.
std::string render_report(const RunLog& log, const ReportInputs& inputs);

}  // namespace couplet::tools
