// `couplet report` (docs/report.md): the plots carry the logged data, absent data
// leaves a plot out, text is escaped, the page parses as XML and renders in a
// headless browser.
#include "host_tools/report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace couplet::tools {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------ building logs

LoggedSlave slave(const std::string& name, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs, const std::string& link = "") {
  LoggedSlave logged;
  logged.name = name;
  logged.link = link;
  for (const std::string& input : inputs) logged.description.inputs.push_back({input});
  for (const std::string& output : outputs) logged.description.outputs.push_back({output, false});
  return logged;
}

/// Two masses, one second, completed; no plans or calls yet.
RunLog two_mass_log() {
  RunLog log;
  log.path = "out/run.log";
  log.scenario_source = "scenarios/two_mass.yaml";
  log.scenario_text = "name: two_mass\nend: 1.0\n";
  log.start = 0;
  log.end = to_ticks(1.0);
  log.algorithm = "defect_control";
  log.slaves = {slave("mass1", {"F"}, {"x", "v"}), slave("mass2", {"x", "v"}, {"F"})};
  log.end_record = LoggedEnd{true, "", 0x1234abcdULL, 5, 4, 8, 0, 0};
  log.frames = 20;
  return log;
}

LoggedPlan plan(std::uint64_t macro_steps, double frontier_s, std::vector<double> internals) {
  LoggedPlan logged;
  logged.plan = macro_steps;
  logged.macro_steps = macro_steps;
  logged.frontier = to_ticks(frontier_s);
  logged.internals = std::move(internals);
  return logged;
}

LoggedCall step_call(std::size_t slave_index, double start_s, double end_s,
                     std::vector<double> end_outputs) {
  LoggedCall call;
  call.slave = slave_index;
  call.kind = CallKind::step;
  call.start = to_ticks(start_s);
  call.end = to_ticks(end_s);
  call.end_outputs = std::move(end_outputs);
  return call;
}

/// Defect control: steps 0.1, 0.2, 0.1, 0.4 s; one repeated plan (rejected step:
/// macro_steps unchanged) must not count as a step.
RunLog defect_control_log() {
  RunLog log = two_mass_log();
  log.internal_quantities = {"step_s",
                             "defect",
                             "tolerance",
                             "next_step_s",
                             "connection_defect_rms:mass2.x",
                             "output_defect_rms:mass1.x"};
  log.plans = {plan(1, 0.1, {0.1, 1e-5, 1e-3, 0.2, 1e-6, 2e-6}),
               plan(2, 0.3, {0.2, 2e-4, 1e-3, 0.1, 1e-6, 2e-6}),
               plan(2, 0.3, {0.1, 5e-3, 1e-3, 0.1, 1e-6, 2e-6}),
               plan(3, 0.4, {0.1, 3e-4, 1e-3, 0.4, 1e-6, 2e-6}),
               plan(4, 0.8, {0.4, 8e-4, 1e-3, 0.4, 1e-6, 2e-6})};
  return log;
}

RunLog f3ornits_log() {
  RunLog log = two_mass_log();
  log.algorithm = "f3ornits";
  log.internal_quantities = {"order:mass1.x", "error:mass1.x", "order:mass1.v", "error:mass1.v",
                             "step_s:mass1"};
  log.plans = {plan(1, 0.1, {0, 1e-3, 1, 1e-3, 0.1}), plan(2, 0.2, {1, 1e-3, 2, 1e-3, 0.1}),
               plan(3, 0.4, {2, 1e-3, 2, 1e-3, 0.2})};
  return log;
}

RunLog ifosmondi_log() {
  RunLog log = two_mass_log();
  log.algorithm = "ifosmondi";
  log.internal_quantities = {"step_s",   "iterations", "integrations",
                             "residual", "threshold",  "converged"};
  log.plans = {plan(1, 0.25, {0.25, 3, 3, 1e-9, 1e-8, 1}),
               plan(2, 0.5, {0.25, 5, 5, 1e-9, 1e-8, 1}),
               plan(3, 0.75, {0.25, 2, 2, 1e-9, 1e-8, 1})};
  return log;
}

// ------------------------------------------------------------ reading the report

/// The <svg> element with id `id`, empty if there is none.
std::string svg_with_id(const std::string& html, const std::string& id) {
  const std::size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  const std::size_t begin = html.rfind("<svg", at);
  const std::size_t end = html.find("</svg>", at);
  if (begin == std::string::npos || end == std::string::npos) return {};
  return html.substr(begin, end + 6 - begin);
}

/// Value of attribute `name` of the first element in `element` (std::regex would
/// recurse per character of a long points list and overflow the stack).
std::string attribute(const std::string& element, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = element.find(key);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size();
  return element.substr(begin, element.find('"', begin) - begin);
}

double number_attribute(const std::string& element, const std::string& name) {
  const std::string text = attribute(element, name);
  EXPECT_FALSE(text.empty()) << "no attribute " << name;
  return text.empty() ? NAN : std::stod(text);
}

/// The <polyline> of series `name` in `svg`.
std::string polyline(const std::string& svg, const std::string& name) {
  const std::size_t at = svg.find("<polyline class=\"series\" data-series=\"" + name + "\"");
  if (at == std::string::npos) return {};
  return svg.substr(at, svg.find("/>", at) + 2 - at);
}

struct Pixel {
  double x;
  double y;
};

std::vector<Pixel> points_of(const std::string& line) {
  std::vector<Pixel> pixels;
  std::istringstream points(attribute(line, "points"));
  std::string pair;
  while (points >> pair) {
    const std::size_t comma = pair.find(',');
    pixels.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
  }
  return pixels;
}

/// Where `value` must land on the plot's y axis, from the mapping the svg declares.
double expected_y(const std::string& svg, double value) {
  const double low = number_attribute(svg, "data-y-min");
  const double high = number_attribute(svg, "data-y-max");
  const double top = number_attribute(svg, "data-plot-top");
  const double height = number_attribute(svg, "data-plot-height");
  const bool log = attribute(svg, "data-y-scale") == "log";
  const double fraction =
      log ? (std::log10(value) - std::log10(low)) / (std::log10(high) - std::log10(low))
          : (value - low) / (high - low);
  return top + height - fraction * height;
}

double expected_x(const std::string& svg, double value) {
  const double low = number_attribute(svg, "data-x-min");
  const double high = number_attribute(svg, "data-x-max");
  return number_attribute(svg, "data-plot-left") +
         (value - low) / (high - low) * number_attribute(svg, "data-plot-width");
}

/// Pixels are written with two decimals.
constexpr double kPixelTolerance = 0.006;

void expect_y_values(const std::string& svg, const std::string& series,
                     const std::vector<double>& values) {
  const std::string line = polyline(svg, series);
  ASSERT_FALSE(line.empty()) << "no series " << series;
  const std::vector<Pixel> pixels = points_of(line);
  ASSERT_EQ(pixels.size(), values.size()) << series;
  EXPECT_EQ(attribute(line, "data-points"), std::to_string(values.size()));
  for (std::size_t k = 0; k < values.size(); ++k) {
    EXPECT_NEAR(pixels[k].y, expected_y(svg, values[k]), kPixelTolerance)
        << series << " point " << k;
  }
}

fs::path temporary_directory() {
  const fs::path directory =
      fs::temp_directory_path() / ("couplet-report-" + std::to_string(::getpid()));
  fs::create_directories(directory);
  return directory;
}

/// Kept when the test failed, for a look at the files.
void remove_temporary_directory_unless_failed() {
  if (!::testing::Test::HasFailure()) fs::remove_all(temporary_directory());
}

fs::path write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

/// 0 when Python's XML parser reads the file.
int parse_as_xml(const fs::path& file) {
  const std::string command =
      "python3 -c \"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])\" '" +
      file.string() + "'";
  return std::system(command.c_str());
}

// ------------------------------------------------------------ tests

TEST(Report, DefectControlPlotsDefectsAgainstToleranceAndStepSizes) {
  const std::string html = render_report(defect_control_log(), {});

  const std::string defects = svg_with_id(html, "plot-defects");
  ASSERT_FALSE(defects.empty());
  EXPECT_EQ(attribute(defects, "data-y-scale"), "log");
  expect_y_values(defects, "defect", {1e-5, 2e-4, 5e-3, 3e-4, 8e-4});
  expect_y_values(defects, "tolerance", {1e-3, 1e-3, 1e-3, 1e-3, 1e-3});
  EXPECT_NE(polyline(defects, "tolerance").find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(defects.find("<title"), std::string::npos);

  // One staircase tread per completed macro step; the repeated plan adds none.
  const std::string steps = svg_with_id(html, "plot-step-size");
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(attribute(steps, "data-y-scale"), "linear");
  expect_y_values(steps, "macro step", {0.1, 0.1, 0.2, 0.2, 0.1, 0.1, 0.4, 0.4});
  const std::vector<Pixel> treads = points_of(polyline(steps, "macro step"));
  const std::vector<double> times = {0.0, 0.1, 0.1, 0.3, 0.3, 0.4, 0.4, 0.8};
  for (std::size_t k = 0; k < times.size(); ++k) {
    EXPECT_NEAR(treads[k].x, expected_x(steps, times[k]), kPixelTolerance) << "point " << k;
  }

  EXPECT_NE(html.find("connection_defect_rms:mass2.x"), std::string::npos);  // internals table
  EXPECT_TRUE(svg_with_id(html, "plot-orders").empty());
  EXPECT_TRUE(svg_with_id(html, "plot-iterations").empty());
  EXPECT_NE(html.find("no F3ORNITS orders in this log"), std::string::npos);
}

TEST(Report, StepSizesSpanningDecadesUseALogAxis) {
  RunLog log = two_mass_log();
  log.plans = {plan(1, 1e-4, {}), plan(2, 2e-4, {}), plan(3, 0.2002, {})};
  const std::string steps = svg_with_id(render_report(log, {}), "plot-step-size");
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(attribute(steps, "data-y-scale"), "log");
  expect_y_values(steps, "macro step", {1e-4, 1e-4, 1e-4, 1e-4, 0.2, 0.2});
}

TEST(Report, F3ornitsOrdersAreStepPlotsPerOutput) {
  const std::string orders = svg_with_id(render_report(f3ornits_log(), {}), "plot-orders");
  ASSERT_FALSE(orders.empty());
  // Each order holds from its plan's frontier to the next one (the last to the end).
  expect_y_values(orders, "mass1.x", {0, 0, 1, 1, 2, 2});
  expect_y_values(orders, "mass1.v", {1, 1, 2, 2, 2, 2});
  const std::vector<Pixel> pixels = points_of(polyline(orders, "mass1.x"));
  EXPECT_NEAR(pixels.back().x, expected_x(orders, 1.0), kPixelTolerance);
}

TEST(Report, IfosmondiIterationsPerStep) {
  const std::string html = render_report(ifosmondi_log(), {});
  const std::string iterations = svg_with_id(html, "plot-iterations");
  ASSERT_FALSE(iterations.empty());
  expect_y_values(iterations, "iterations", {3, 3, 5, 5, 2, 2});
  EXPECT_TRUE(svg_with_id(html, "plot-defects").empty());
  EXPECT_NE(html.find("no defect-control defects in this log"), std::string::npos);
}

TEST(Report, SignalsAgainstTheirReference) {
  const std::string csv =
      "time,mass1.x,mass2.F,mass1.x:reference\n0,0,1,0\n0.5,1,2,1.1\n1,2,3,2.2\n";
  const std::string signals = svg_with_id(render_report(two_mass_log(), {csv, ""}), "plot-signals");
  ASSERT_FALSE(signals.empty());
  expect_y_values(signals, "mass1.x", {0, 1, 2});
  expect_y_values(signals, "mass2.F", {1, 2, 3});
  expect_y_values(signals, "mass1.x (reference)", {0, 1.1, 2.2});
  const std::string reference = polyline(signals, "mass1.x (reference)");
  EXPECT_NE(reference.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(attribute(reference, "stroke"), attribute(polyline(signals, "mass1.x"), "stroke"));
}

TEST(Report, SignalsFromTheLoggedStepsWhenThereIsNoCsv) {
  RunLog log = two_mass_log();
  log.calls = {step_call(0, 0.0, 0.5, {1.0, 10.0}), step_call(1, 0.0, 0.5, {7.0}),
               step_call(0, 0.5, 1.0, {2.0, 20.0}),
               // A rollback: mass1 repeats [0.5, 1.0]; the repeat replaces the first try.
               step_call(0, 0.5, 1.0, {3.0, 30.0})};
  const std::string signals = svg_with_id(render_report(log, {}), "plot-signals");
  ASSERT_FALSE(signals.empty());
  expect_y_values(signals, "mass1.x", {1.0, 3.0});
  expect_y_values(signals, "mass1.v", {10.0, 30.0});
  expect_y_values(signals, "mass2.F", {7.0});
}

TEST(Report, PlotsWithoutDataAreLeftOutWithAReason) {
  RunLog log = two_mass_log();
  log.end_record.reset();
  log.tail = protocol::LogReadStatus::cut;
  log.tail_problem = "frame 20 at byte 4711: cut";
  const std::string html = render_report(log, {});
  for (const char* id : {"plot-signals", "plot-step-size", "plot-orders", "plot-defects",
                         "plot-iterations", "plot-lateness", "plot-round-trip"}) {
    EXPECT_TRUE(svg_with_id(html, id).empty()) << id;
  }
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("no completed macro steps in this log"), std::string::npos);
  EXPECT_NE(html.find("the run was not paced"), std::string::npos);
  EXPECT_NE(html.find("frame 20 at byte 4711: cut"), std::string::npos);
  EXPECT_NE(html.find("status-cut"), std::string::npos);
}

TEST(Report, LatenessAndRoundTripHistograms) {
  RunLog log = defect_control_log();
  log.slaves[1].link = "udp://127.0.0.1:5000";
  for (std::size_t k = 0; k < log.plans.size(); ++k)
    log.plans[k].pacer_lateness_ns = 1000 * static_cast<std::int64_t>(k + 1);
  for (int k = 0; k < 6; ++k) {
    LoggedCall call = step_call(1, 0.1 * k, 0.1 * (k + 1), {0.0});
    call.began_ns = 1'000'000;
    call.ended_ns = 1'000'000 + 200'000 + 10'000 * static_cast<std::uint64_t>(k);
    call.missed = k == 5;
    log.calls.push_back(call);
  }
  const std::string html = render_report(log, {});
  const auto bar_total = [](const std::string& svg) {
    std::size_t total = 0;
    const std::regex count("data-count=\"([0-9]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), count);
         it != std::sregex_iterator(); ++it) {
      total += std::stoul((*it)[1]);
    }
    return total;
  };
  const std::string lateness = svg_with_id(html, "plot-lateness");
  ASSERT_FALSE(lateness.empty());
  EXPECT_EQ(bar_total(lateness), log.plans.size());
  EXPECT_NEAR(number_attribute(lateness, "data-x-min"), 1.0, 1e-12);  // microseconds
  EXPECT_NEAR(number_attribute(lateness, "data-x-max"), 5.0, 1e-12);
  const std::string round_trip = svg_with_id(html, "plot-round-trip");
  ASSERT_FALSE(round_trip.empty());
  EXPECT_EQ(bar_total(round_trip), 6u);
  EXPECT_NEAR(number_attribute(round_trip, "data-x-max"), 250.0, 1e-9);
  EXPECT_NE(html.find("udp://127.0.0.1:5000"), std::string::npos);
}

TEST(Report, LongSeriesAreDownSampledKeepingTheirPeaks) {
  std::string csv = "time,y\n";
  constexpr int kRows = 100'000;
  for (int k = 0; k < kRows; ++k) {
    const double value = k == 54'321 ? 50.0 : std::sin(k * 1e-3);  // one spike
    csv += std::to_string(k * 1e-3) + "," + std::to_string(value) + "\n";
  }
  const std::string html = render_report(two_mass_log(), {csv, ""});
  const std::string signals = svg_with_id(html, "plot-signals");
  const std::string line = polyline(signals, "y");
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(attribute(line, "data-source-points"), std::to_string(kRows));
  const std::vector<Pixel> pixels = points_of(line);
  EXPECT_LE(pixels.size(), 2000u);
  EXPECT_GE(pixels.size(), 1000u);
  double highest = INFINITY;  // smallest pixel y
  for (const Pixel& p : pixels) highest = std::min(highest, p.y);
  EXPECT_NEAR(highest, expected_y(signals, 50.0), kPixelTolerance);
  EXPECT_LT(html.size(), 200'000u);
}

TEST(Report, SummaryComesFromSummaryJsonOrTheEndRecord) {
  const std::string json =
      R"({"algorithm": "defect_control", "macro_steps": 4, "slave_steps": 8, "rollbacks": 1,
    "decision_hash": "0x00000000deadbeef", "errors": {"mass1.x": {"nrmse_pct": 0.125, "rmse": 0.001}}})";
  const std::string with_json = render_report(defect_control_log(), {"", json});
  EXPECT_NE(with_json.find("0x00000000deadbeef"), std::string::npos);
  EXPECT_NE(with_json.find("<td>mass1.x</td><td>0.125</td><td>0.001</td>"), std::string::npos);

  const std::string without_json = render_report(defect_control_log(), {});
  EXPECT_NE(without_json.find("0x000000001234abcd"), std::string::npos);
  EXPECT_NE(without_json.find("Status: complete"), std::string::npos);
}

TEST(Report, EscapesNamesAndMessages) {
  RunLog log = defect_control_log();
  log.slaves[0].name = "a<b>&\"c\"";
  log.end_record->completed = false;
  log.end_record->message = "slave 'x' failed: t < 1 & \"y\" > 2";
  log.scenario_text = "name: <script>alert(1)</script>\n";
  log.calls = {step_call(0, 0.0, 0.5, {1.0, 2.0})};
  const std::string html = render_report(log, {"time,q<1>&\"2\"\n0,1\n1,2\n", ""});
  EXPECT_EQ(html.find("a<b>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("t < 1"), std::string::npos);
  EXPECT_NE(html.find("failed: slave &#39;x&#39; failed: t &lt; 1 &amp; &quot;y&quot; &gt; 2"),
            std::string::npos);
  EXPECT_NE(html.find("a&lt;b&gt;&amp;&quot;c&quot;"), std::string::npos);
  EXPECT_NE(html.find("q&lt;1&gt;&amp;&quot;2&quot;"), std::string::npos);
  EXPECT_NE(html.find("status-failed"), std::string::npos);

  const fs::path file = write_file(temporary_directory() / "escaped.html", html);
  EXPECT_EQ(parse_as_xml(file), 0) << "not well-formed XML: " << file;
  remove_temporary_directory_unless_failed();
}

/// A log with every kind of data, for the XML and browser checks.
RunLog everything_log() {
  RunLog log = defect_control_log();
  for (const char* name : {"order:mass1.x", "order:mass1.v", "iterations"})
    log.internal_quantities.push_back(name);
  for (std::size_t k = 0; k < log.plans.size(); ++k) {
    LoggedPlan& p = log.plans[k];
    p.internals.insert(p.internals.end(),
                       {static_cast<double>(k % 3), 1.0, static_cast<double>(k + 2)});
    p.pacer_lateness_ns = 3000 * static_cast<std::int64_t>(k % 3) + 500;
  }
  log.slaves[1].link = "udp://10.0.0.2:5000";
  for (int k = 0; k < 8; ++k) {
    LoggedCall call = step_call(1, 0.1 * k, 0.1 * (k + 1), {std::cos(0.1 * k)});
    call.began_ns = 5'000'000;
    call.ended_ns = 5'000'000 + 150'000 + 7'000 * static_cast<std::uint64_t>(k % 4);
    call.input_lateness_ns = 2000 + 1000 * (k % 2);
    log.calls.push_back(call);
  }
  return log;
}

std::string damped_oscillation_csv() {
  std::string csv = "time,mass1.x,mass1.v,mass1.x:reference,mass1.v:reference\n";
  for (int k = 0; k <= 1000; ++k) {
    const double t = k * 1e-3;
    const double x = std::exp(-2.0 * t) * std::cos(2.0 * std::numbers::pi * 3.0 * t);
    const double v = std::exp(-2.0 * t) * std::sin(2.0 * std::numbers::pi * 3.0 * t);
    const double drift = 0.02 * t;  // the co-simulation error grows along the run
    csv += std::to_string(t) + "," + std::to_string(x + drift) + "," + std::to_string(v - drift) +
           "," + std::to_string(x) + "," + std::to_string(v) + "\n";
  }
  return csv;
}

TEST(Report, IsWellFormedXml) {
  const std::string json =
      R"({"scenario": "two_mass", "algorithm": "defect_control", "macro_steps": 4,
    "errors": {"mass1.x": {"nrmse_pct": 1.5, "rmse": 0.01}}, "realtime": {"cycles": 4, "overruns": 0,
    "lateness_us": {"min": 0.5, "median": 3.5, "p99": 6.5, "max": 6.5}}})";
  const std::string html = render_report(everything_log(), {damped_oscillation_csv(), json});
  for (const char* id : {"plot-signals", "plot-step-size", "plot-orders", "plot-defects",
                         "plot-iterations", "plot-lateness", "plot-round-trip"}) {
    EXPECT_FALSE(svg_with_id(html, id).empty()) << id;
  }
  const fs::path file = write_file(temporary_directory() / "report.html", html);
  EXPECT_EQ(parse_as_xml(file), 0) << "not well-formed XML: " << file;
  remove_temporary_directory_unless_failed();
}

TEST(Report, RendersInHeadlessChromium) {
  const fs::path chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) GTEST_SKIP() << "no " << chromium << " (./build.sh test installs it)";
  // Kept in the build directory (ctest's working directory) for a look by eye.
  const fs::path html = write_file(fs::absolute("report_test_sample.html"),
                                   render_report(everything_log(), {damped_oscillation_csv(), ""}));
  const fs::path png = fs::absolute("report_test_sample.png");
  fs::remove(png);
  const fs::path profile = temporary_directory() / "chromium-profile";
  const std::string command = "timeout 120 " + chromium.string() +
                              " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                              " --user-data-dir='" +
                              profile.string() + "' --window-size=1200,3000 --screenshot='" +
                              png.string() + "' 'file://" + html.string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  ASSERT_TRUE(fs::exists(png)) << png;
  EXPECT_GT(fs::file_size(png), 20'000u);
  std::cout << "report screenshot: " << png.string() << "\n";
  RecordProperty("screenshot", png.string());
  remove_temporary_directory_unless_failed();
}

}  // namespace
}  // namespace couplet::tools
