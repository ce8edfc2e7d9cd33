// `couplet report` (docs/report.md): the plots carry the logged data, grouped by
// unit, with step plots, errors against the reference and log-scale histograms;
// absent data leaves a section out; text is escaped; the page parses as XML, is
// self-contained and draws every plot in a headless browser without a script error.
#include "host_tools/report/report.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numbers>
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
  log.end_record = LoggedEnd{"completed", "", 0x1234abcdULL, 5, 4, 8, 0, 0};
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
  // As IFOSMONDI logs them: the frontier moves (macro step count rises) at a
  // step's first evaluation, and every evaluation logs the count so far, so
  // only the last record of a step holds its final count.
  log.plans = {
      plan(1, 0.25, {0.25, 0, 1, 1e-3, 1e-8, 0}), plan(1, 0.25, {0.25, 2, 2, 1e-5, 1e-8, 0}),
      plan(1, 0.25, {0.25, 3, 3, 1e-9, 1e-8, 1}), plan(2, 0.5, {0.25, 0, 1, 1e-3, 1e-8, 0}),
      plan(2, 0.5, {0.25, 5, 5, 1e-9, 1e-8, 1}),  plan(3, 0.75, {0.25, 0, 1, 1e-3, 1e-8, 0}),
      plan(3, 0.75, {0.25, 2, 2, 1e-9, 1e-8, 1})};
  return log;
}

// ------------------------------------------------------------ reading the report

/// Text of an attribute value as a parser reads it.
std::string unescape(const std::string& text) {
  std::string out;
  for (std::size_t k = 0; k < text.size();) {
    if (text[k] != '&') {
      out += text[k++];
      continue;
    }
    const std::size_t end = text.find(';', k);
    const std::string entity = text.substr(k, end + 1 - k);
    if (entity == "&amp;")
      out += '&';
    else if (entity == "&lt;")
      out += '<';
    else if (entity == "&gt;")
      out += '>';
    else if (entity == "&quot;")
      out += '"';
    else if (entity == "&#39;")
      out += '\'';
    else
      ADD_FAILURE() << "unexpected entity " << entity;
    k = end + 1;
  }
  return out;
}

/// The start tag of the element with id `id`, empty if there is none.
std::string start_tag(const std::string& html, const std::string& id) {
  const std::size_t at = html.find(" id=\"" + id + "\"");
  if (at == std::string::npos) return {};
  const std::size_t begin = html.rfind('<', at);
  return html.substr(begin, html.find('>', at) + 1 - begin);
}

/// Value of attribute `name` in a start tag.
std::string attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const std::size_t at = tag.find(key);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + key.size();
  return unescape(tag.substr(begin, tag.find('"', begin) - begin));
}

/// The data and options of plot `id` (null if the page has no such plot).
nlohmann::json plot(const std::string& html, const std::string& id) {
  const std::string tag = start_tag(html, id);
  if (tag.empty()) return nullptr;
  return nlohmann::json::parse(attribute(tag, "data-plot"));
}

struct Point {
  double x;
  double y;
};

/// The points of series `name`: the non-null cells of its column.
std::vector<Point> points_of(const nlohmann::json& plot, const std::string& name) {
  const nlohmann::json& labels = plot.at("labels");
  const auto column = std::find(labels.begin(), labels.end(), name);
  if (column == labels.end()) {
    ADD_FAILURE() << "no series " << name << " in " << labels.dump();
    return {};
  }
  const auto index = static_cast<std::size_t>(column - labels.begin());
  std::vector<Point> points;
  for (const nlohmann::json& row : plot.at("data")) {
    if (!row.at(index).is_null())
      points.push_back({row[0].get<double>(), row[index].get<double>()});
  }
  return points;
}

void expect_points(const nlohmann::json& plot, const std::string& name,
                   const std::vector<double>& xs, const std::vector<double>& ys) {
  const std::vector<Point> points = points_of(plot, name);
  ASSERT_EQ(points.size(), ys.size()) << name;
  for (std::size_t k = 0; k < ys.size(); ++k) {
    EXPECT_NEAR(points[k].x, xs[k], 1e-12) << name << " point " << k;
    EXPECT_NEAR(points[k].y, ys[k], 1e-12 * std::max(1.0, std::abs(ys[k])))
        << name << " point " << k;
  }
}

const nlohmann::json& series_options(const nlohmann::json& plot, const std::string& name) {
  return plot.at("options").at("series").at(name);
}

/// The ids of all plots whose id starts with `prefix`, in page order.
std::vector<std::string> plot_ids(const std::string& html, const std::string& prefix = "plot-") {
  std::vector<std::string> ids;
  const std::string key = "<div class=\"plot\" id=\"" + prefix;
  for (std::size_t at = html.find(key); at != std::string::npos; at = html.find(key, at + 1)) {
    const std::size_t begin = at + key.size() - prefix.size();
    ids.push_back(html.substr(begin, html.find('"', begin) - begin));
  }
  return ids;
}

/// The signals plot that draws series `name`.
nlohmann::json signals_plot_with(const std::string& html, const std::string& name) {
  for (const std::string& id : plot_ids(html, "plot-signals-")) {
    const nlohmann::json found = plot(html, id);
    const nlohmann::json& labels = found.at("labels");
    if (std::find(labels.begin(), labels.end(), name) != labels.end()) return found;
  }
  ADD_FAILURE() << "no signals plot draws " << name;
  return nullptr;
}

/// The section headings of the page.
std::vector<std::string> headings(const std::string& html) {
  std::vector<std::string> found;
  for (std::size_t at = html.find("<h2>"); at != std::string::npos; at = html.find("<h2>", at + 1))
    found.push_back(html.substr(at + 4, html.find("</h2>", at) - at - 4));
  return found;
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

  const nlohmann::json defects = plot(html, "plot-defects");
  ASSERT_FALSE(defects.is_null());
  EXPECT_TRUE(defects["options"]["logscale"].get<bool>());
  EXPECT_EQ(attribute(start_tag(html, "plot-defects"), "data-y-scale"), "log");
  expect_points(defects, "defect", {0.1, 0.3, 0.3, 0.4, 0.8}, {1e-5, 2e-4, 5e-3, 3e-4, 8e-4});
  expect_points(defects, "tolerance", {0.1, 0.3, 0.3, 0.4, 0.8}, {1e-3, 1e-3, 1e-3, 1e-3, 1e-3});
  EXPECT_TRUE(series_options(defects, "tolerance").contains("strokePattern"));
  EXPECT_TRUE(series_options(defects, "defect").value("drawPoints", false));

  // A true step plot: each size from the start of its step; the last one again
  // at its end. The repeated plan (rejected step) adds no step.
  const nlohmann::json steps = plot(html, "plot-step-size");
  ASSERT_FALSE(steps.is_null());
  EXPECT_FALSE(steps["options"]["logscale"].get<bool>());
  EXPECT_TRUE(series_options(steps, "macro step")["stepPlot"].get<bool>());
  expect_points(steps, "macro step", {0.0, 0.1, 0.3, 0.4, 0.8}, {0.1, 0.2, 0.1, 0.4, 0.4});
  EXPECT_EQ(steps["options"]["dateWindow"], nlohmann::json({0.0, 1.0}));  // the run's span

  EXPECT_NE(html.find("connection_defect_rms:mass2.x"), std::string::npos);  // internals table
  EXPECT_TRUE(plot(html, "plot-orders").is_null());
  EXPECT_TRUE(plot(html, "plot-iterations").is_null());
  EXPECT_EQ(html.find("Polynomial orders"), std::string::npos);
}

TEST(Report, StepSizesSpanningDecadesUseALogAxis) {
  RunLog log = two_mass_log();
  log.plans = {plan(1, 1e-4, {}), plan(2, 2e-4, {}), plan(3, 0.2002, {})};
  const nlohmann::json steps = plot(render_report(log, {}), "plot-step-size");
  ASSERT_FALSE(steps.is_null());
  EXPECT_TRUE(steps["options"]["logscale"].get<bool>());
  expect_points(steps, "macro step", {0.0, 1e-4, 2e-4, 0.2002}, {1e-4, 1e-4, 0.2, 0.2});
}

TEST(Report, F3ornitsOrdersAreTrueStepPlotsPerOutput) {
  const nlohmann::json orders = plot(render_report(f3ornits_log(), {}), "plot-orders");
  ASSERT_FALSE(orders.is_null());
  // Each order holds from its plan's frontier to the next one (the last to the end).
  expect_points(orders, "mass1.x", {0.1, 0.2, 0.4, 1.0}, {0, 1, 2, 2});
  expect_points(orders, "mass1.v", {0.1, 0.2, 0.4, 1.0}, {1, 2, 2, 2});
  for (const char* output : {"mass1.x", "mass1.v"})
    EXPECT_TRUE(series_options(orders, output)["stepPlot"].get<bool>()) << output;
}

TEST(Report, IfosmondiIterationsPerStep) {
  const std::string html = render_report(ifosmondi_log(), {});
  const nlohmann::json iterations = plot(html, "plot-iterations");
  ASSERT_FALSE(iterations.is_null());
  expect_points(iterations, "iterations", {0.0, 0.25, 0.5, 0.75}, {3, 5, 2, 2});
  EXPECT_TRUE(series_options(iterations, "iterations")["stepPlot"].get<bool>());
  EXPECT_TRUE(plot(html, "plot-defects").is_null());
  EXPECT_EQ(html.find("Defects"), std::string::npos);
}

TEST(Report, SignalsGroupedByUnitWithTheirErrorAgainstTheReference) {
  RunLog log = two_mass_log();
  log.slaves[0].description.outputs[0].unit = "m";
  log.slaves[0].description.outputs[1].unit = "m/s";
  log.slaves[1].description.outputs[0].unit = "N";
  const std::string csv =
      "time,mass1.x,mass2.F,mass1.x:reference,mass1.v\n0,0,1000,0,5\n0.5,1,2000,1.1,6\n1,2,2400,"
      "2.2,7\n";
  const std::string html = render_report(log, {csv, ""});
  EXPECT_EQ(plot_ids(html, "plot-signals-"),
            (std::vector<std::string>{"plot-signals-1", "plot-signals-2", "plot-signals-3"}));

  const nlohmann::json metres = plot(html, "plot-signals-1");
  EXPECT_EQ(metres["options"]["ylabel"], "m");
  EXPECT_EQ(metres["labels"], nlohmann::json({"time (s)", "mass1.x", "mass1.x (reference)"}));
  expect_points(metres, "mass1.x", {0, 0.5, 1}, {0, 1, 2});
  expect_points(metres, "mass1.x (reference)", {0, 0.5, 1}, {0, 1.1, 2.2});
  EXPECT_TRUE(series_options(metres, "mass1.x (reference)").contains("strokePattern"));
  EXPECT_FALSE(series_options(metres, "mass1.x").contains("strokePattern"));
  EXPECT_EQ(metres["options"]["colors"][0], metres["options"]["colors"][1]);

  // A 2400 N force gets its own axis instead of flattening the metres.
  const nlohmann::json newtons = plot(html, "plot-signals-2");
  EXPECT_EQ(newtons["options"]["ylabel"], "N");
  EXPECT_EQ(newtons["labels"], nlohmann::json({"time (s)", "mass2.F"}));
  EXPECT_EQ(plot(html, "plot-signals-3")["options"]["ylabel"], "m/s");
  EXPECT_NE(html.find("<td>x [m], v [m/s]</td>"), std::string::npos);  // slaves table

  const nlohmann::json error = plot(html, "plot-error-1");
  ASSERT_FALSE(error.is_null());
  expect_points(error, "mass1.x - reference", {0, 0.5, 1}, {0, 1 - 1.1, 2 - 2.2});
  EXPECT_EQ(plot_ids(html, "plot-error-"), std::vector<std::string>{"plot-error-1"});
}

TEST(Report, SignalsWithoutUnitsShareAnAxisByPortName) {
  const std::string csv = "time,mass1.x,mass2.x,mass1.v\n0,0,1,2\n1,3,4,5\n";
  const std::string html = render_report(two_mass_log(), {csv, ""});
  const nlohmann::json positions = plot(html, "plot-signals-1");
  EXPECT_EQ(positions["labels"], nlohmann::json({"time (s)", "mass1.x", "mass2.x"}));
  EXPECT_EQ(positions["options"]["ylabel"], "x");
  EXPECT_EQ(plot(html, "plot-signals-2")["labels"], nlohmann::json({"time (s)", "mass1.v"}));
  EXPECT_TRUE(plot_ids(html, "plot-error-").empty());
}

TEST(Report, SignalsFromTheLoggedStepsWhenThereIsNoCsv) {
  RunLog log = two_mass_log();
  log.calls = {step_call(0, 0.0, 0.5, {1.0, 10.0}), step_call(1, 0.0, 0.5, {7.0}),
               step_call(0, 0.5, 1.0, {2.0, 20.0}),
               // A rollback: mass1 repeats [0.5, 1.0]; the repeat replaces the first try.
               step_call(0, 0.5, 1.0, {3.0, 30.0})};
  const std::string html = render_report(log, {});
  expect_points(signals_plot_with(html, "mass1.x"), "mass1.x", {0.5, 1.0}, {1.0, 3.0});
  expect_points(signals_plot_with(html, "mass1.v"), "mass1.v", {0.5, 1.0}, {10.0, 30.0});
  expect_points(signals_plot_with(html, "mass2.F"), "mass2.F", {0.5}, {7.0});
}

TEST(Report, ACutLogWithoutDataHasOnlyItsSummary) {
  RunLog log = two_mass_log();
  log.end_record.reset();
  log.tail = protocol::LogReadStatus::cut;
  log.tail_problem = "frame 20 at byte 4711: cut";
  const std::string html = render_report(log, {});
  EXPECT_TRUE(plot_ids(html).empty());
  EXPECT_EQ(headings(html), (std::vector<std::string>{"Summary", "Slaves"}));
  EXPECT_NE(html.find("frame 20 at byte 4711: cut"), std::string::npos);
  EXPECT_NE(html.find("status-cut"), std::string::npos);
}

/// A plain Jacobi run: fixed steps, outputs, nothing else.
RunLog jacobi_log() {
  RunLog log = two_mass_log();
  log.algorithm = "jacobi";
  for (int k = 1; k <= 4; ++k) {
    log.plans.push_back(plan(static_cast<std::uint64_t>(k), 0.25 * k, {}));
    log.calls.push_back(step_call(0, 0.25 * (k - 1), 0.25 * k, {0.1 * k, 0.2 * k}));
    log.calls.push_back(step_call(1, 0.25 * (k - 1), 0.25 * k, {-1.0 * k}));
  }
  return log;
}

TEST(Report, AJacobiReportHasNoEmptyPlaceholderSections) {
  const std::string html = render_report(jacobi_log(), {});
  EXPECT_EQ(headings(html),
            (std::vector<std::string>{"Summary", "Signals", "Communication step size", "Slaves"}));
  for (const char* placeholder : {"in this log", "no lateness", "not paced", "no linked",
                                  "no internal quantities", "class=\"missing\""}) {
    EXPECT_EQ(html.find(placeholder), std::string::npos) << placeholder;
  }
  EXPECT_EQ(plot_ids(html), (std::vector<std::string>{"plot-signals-1", "plot-signals-2",
                                                      "plot-signals-3", "plot-step-size"}));
}

std::size_t bar_total(const nlohmann::json& histogram) {
  std::size_t total = 0;
  for (const nlohmann::json& row : histogram.at("data")) {
    for (std::size_t k = 1; k < row.size(); ++k)
      total += row[k].is_null() ? 0 : row[k].get<std::size_t>();
  }
  return total;
}

TEST(Report, LatenessAndRoundTripHistogramsOnLogAxes) {
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
  const nlohmann::json lateness = plot(html, "plot-lateness");
  ASSERT_FALSE(lateness.is_null());
  EXPECT_EQ(lateness["kind"], "histogram");
  EXPECT_TRUE(lateness["options"]["logscale"].get<bool>());
  EXPECT_EQ(attribute(start_tag(html, "plot-lateness"), "data-y-scale"), "log");
  // A single late cycle (count 1) lies inside the axis, above its bottom.
  EXPECT_LT(lateness["options"]["valueRange"][0].get<double>(), 1.0);
  EXPECT_EQ(bar_total(lateness), log.plans.size());
  EXPECT_NEAR(lateness["data"].front()[0].get<double>(), 1.0, 1e-12);  // microseconds
  EXPECT_NEAR(lateness["data"].back()[0].get<double>(), 5.0, 1e-12);
  const nlohmann::json round_trip = plot(html, "plot-round-trip");
  ASSERT_FALSE(round_trip.is_null());
  EXPECT_TRUE(round_trip["options"]["logscale"].get<bool>());
  EXPECT_EQ(bar_total(round_trip), 6u);
  EXPECT_NEAR(round_trip["data"].back()[0].get<double>(), 250.0, 1e-9);
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
  const nlohmann::json signals = plot(html, "plot-signals-1");
  ASSERT_FALSE(signals.is_null());
  EXPECT_EQ(signals["source_points"], nlohmann::json({kRows}));
  const std::vector<Point> points = points_of(signals, "y");
  EXPECT_LE(points.size(), 2000u);
  EXPECT_GE(points.size(), 1000u);
  double highest = -INFINITY;
  for (const Point& p : points) highest = std::max(highest, p.y);
  EXPECT_EQ(highest, 50.0);
  EXPECT_LT(signals.dump().size(), 100'000u);
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
  log.end_record->status = "failed";
  log.end_record->message = "slave 'x' failed: t < 1 & \"y\" > 2";
  log.scenario_text = "name: <script>alert(1)</script>\n";
  log.calls = {step_call(0, 0.0, 0.5, {1.0, 2.0})};
  const std::string html = render_report(log, {"time,q<1>&\"2\"\n0,1\n1,2\n", ""});
  EXPECT_EQ(html.find("a<b>"), std::string::npos);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
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

TEST(Report, IsWellFormedXmlAndSelfContained) {
  const std::string json =
      R"({"scenario": "two_mass", "algorithm": "defect_control", "macro_steps": 4,
    "errors": {"mass1.x": {"nrmse_pct": 1.5, "rmse": 0.01}}, "realtime": {"cycles": 4, "overruns": 0,
    "lateness_us": {"min": 0.5, "median": 3.5, "p99": 6.5, "max": 6.5}}})";
  const std::string html = render_report(everything_log(), {damped_oscillation_csv(), json});
  EXPECT_EQ(plot_ids(html), (std::vector<std::string>{
                                "plot-signals-1", "plot-error-1", "plot-signals-2", "plot-error-2",
                                "plot-step-size", "plot-orders", "plot-defects", "plot-iterations",
                                "plot-lateness", "plot-round-trip"}));
  // Nothing to load at view time: no source, no link, no source map.
  for (const char* reference : {" src=", " href=", "sourceMappingURL", "@import", "url("})
    EXPECT_EQ(html.find(reference), std::string::npos) << reference;
  EXPECT_NE(html.find("new Dygraph"), std::string::npos);  // the scripts are inline
  EXPECT_NE(html.find("Permission is hereby granted"), std::string::npos);  // dygraphs' licence
  const fs::path file = write_file(temporary_directory() / "report.html", html);
  EXPECT_EQ(parse_as_xml(file), 0) << "not well-formed XML: " << file;
  remove_temporary_directory_unless_failed();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Chromium with a fresh profile on `html`, with `arguments`; its exit status.
int run_chromium(const fs::path& chromium, const fs::path& html, const std::string& arguments) {
  const fs::path profile = temporary_directory() / "chromium-profile";
  const std::string command = "timeout 120 " + chromium.string() +
                              " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"
                              " --user-data-dir='" +
                              profile.string() + "' --window-size=1200,4000 " + arguments +
                              " 'file://" + html.string() + "'";
  return std::system(command.c_str());
}

TEST(Report, RendersInHeadlessChromium) {
  const fs::path chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) GTEST_SKIP() << "no " << chromium << " (./build.sh test installs it)";
  // Kept in the build directory (ctest's working directory) for a look by eye.
  const std::string page = render_report(everything_log(), {damped_oscillation_csv(), ""});
  const fs::path html = write_file(fs::absolute("report_test_sample.html"), page);
  const fs::path png = fs::absolute("report_test_sample.png");
  fs::remove(png);
  ASSERT_EQ(run_chromium(chromium, html, "--screenshot='" + png.string() + "' >/dev/null 2>&1"), 0);
  ASSERT_TRUE(fs::exists(png)) << png;
  EXPECT_GT(fs::file_size(png), 20'000u);
  std::cout << "report screenshot: " << png.string() << "\n";
  RecordProperty("screenshot", png.string());

  // The DOM after the page script ran: it records in #report-status how many
  // plots it drew, which drew no data pixels, and every script error.
  const fs::path dom_file = temporary_directory() / "dom.html";
  ASSERT_EQ(run_chromium(chromium, html, "--dump-dom >'" + dom_file.string() + "' 2>/dev/null"), 0);
  const std::string dom = read_file(dom_file);
  const std::string status = start_tag(dom, "report-status");
  ASSERT_FALSE(status.empty()) << dom_file;
  EXPECT_EQ(attribute(status, "data-done"), "yes") << "the page script did not finish: " << status;
  EXPECT_EQ(attribute(status, "data-errors"), "") << status;
  const std::vector<std::string> ids = plot_ids(page);
  ASSERT_EQ(ids.size(), 10u);
  EXPECT_EQ(attribute(status, "data-plots"), std::to_string(ids.size()));
  EXPECT_EQ(attribute(status, "data-drawn"), std::to_string(ids.size()));
  EXPECT_EQ(attribute(status, "data-empty"), "") << "plots without drawn data";
  for (const std::string& id : ids) {
    const std::string drawn = attribute(start_tag(dom, id), "data-drawn-pixels");
    ASSERT_FALSE(drawn.empty()) << id;
    EXPECT_GT(std::stol(drawn), 50) << id;  // more than a stray dot
  }
  // dygraphs itself reports the axis it drew.
  EXPECT_EQ(attribute(start_tag(dom, "plot-lateness"), "data-drawn-y-scale"), "log");
  EXPECT_EQ(attribute(start_tag(dom, "plot-round-trip"), "data-drawn-y-scale"), "log");
  EXPECT_EQ(attribute(start_tag(dom, "plot-signals-1"), "data-drawn-y-scale"), "linear");
  remove_temporary_directory_unless_failed();
}

}  // namespace
}  // namespace couplet::tools
