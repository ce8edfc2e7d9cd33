// The frame of a `couplet report` page: style, embedded scripts, head and tail.
#include <string>
#include <string_view>

#include "host_tools/report/report_parts.hpp"

// Generated at build time from Debian's libjs-dygraphs and
// host_tools/report/report_assets/ (CMakeLists.txt, cmake/EmbedText.cmake).
namespace couplet::tools::report_assets {
extern const std::string_view dygraphs_script;
extern const std::string_view dygraphs_style;
extern const std::string_view page_script;
}  // namespace couplet::tools::report_assets

namespace couplet::tools::report_parts {

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

}  // namespace couplet::tools::report_parts
