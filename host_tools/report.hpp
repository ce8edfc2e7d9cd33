#pragma once
// `couplet report`: one self-contained HTML page (inline CSS, data and scripts,
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
/// A section exists only when the log has data for it.
std::string render_report(const RunLog& log, const ReportInputs& inputs);

}  // namespace couplet::tools
