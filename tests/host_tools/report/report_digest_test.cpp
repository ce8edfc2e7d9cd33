// The report's digest (host_tools/report/report_digest.hpp): series over the
// budget keep at most kSeriesBudget points, among them the first, the last and
// the extremes of every time bucket; histograms keep their count, range and,
// up to kHistogramSamples values, their exact bars; a series that a later call
// may roll back is decimated only where no call can replace it.
#include "host_tools/report/report_digest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/report/report.hpp"
#include "host_tools/report/report_parts.hpp"

namespace couplet::tools {
namespace {

using report_parts::BoundedSamples;
using report_parts::BoundedSeries;
using report_parts::kHistogramSamples;
using report_parts::kSeriesBuckets;
using report_parts::kSeriesBudget;
using report_parts::Point;
using report_parts::Range;

bool has_point(const std::vector<Point>& points, Point wanted) {
  return std::any_of(points.begin(), points.end(),
                     [&](const Point& p) { return p.x == wanted.x && p.y == wanted.y; });
}

/// y = sin(2π 7 t) on [0, 1] at n points, with one spike up and one down.
std::vector<Point> wave(std::size_t n) {
  std::vector<Point> points;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = static_cast<double>(k) / static_cast<double>(n - 1);
    double y = std::sin(2.0 * std::numbers::pi * 7.0 * t);
    if (k == n / 3) y = 50.0;
    if (k == 2 * n / 3 + 1) y = -40.0;
    points.push_back({t, y});
  }
  return points;
}

TEST(BoundedSeries, KeepsEveryPointUpToTheBudget) {
  const std::vector<Point> points = wave(kSeriesBudget);
  BoundedSeries series(Range{0.0, 1.0});
  for (const Point& p : points) series.add(p);
  EXPECT_FALSE(series.decimated());
  EXPECT_EQ(series.count(), kSeriesBudget);
  const std::vector<Point> kept = series.points();
  ASSERT_EQ(kept.size(), points.size());
  for (std::size_t k = 0; k < kept.size(); ++k) {
    EXPECT_EQ(kept[k].x, points[k].x);
    EXPECT_EQ(kept[k].y, points[k].y);
  }
}

TEST(BoundedSeries, BeyondTheBudgetKeepsFirstLastAndEachBucketsExtremes) {
  constexpr std::size_t kPoints = 1'000'003;
  const std::vector<Point> points = wave(kPoints);
  BoundedSeries series(Range{0.0, 1.0});
  for (const Point& p : points) series.add(p);
  EXPECT_TRUE(series.decimated());
  EXPECT_EQ(series.count(), kPoints);
  const std::vector<Point> kept = series.points();
  EXPECT_LE(kept.size(), kSeriesBudget);
  EXPECT_GE(kept.size(), 2 * kSeriesBuckets);  // a sine has a distinct min and max per bucket
  EXPECT_EQ(kept.front().x, points.front().x);
  EXPECT_EQ(kept.back().x, points.back().x);
  EXPECT_TRUE(has_point(kept, {points[kPoints / 3].x, 50.0}));
  EXPECT_TRUE(has_point(kept, {points[2 * kPoints / 3 + 1].x, -40.0}));
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(),
                             [](const Point& a, const Point& b) { return a.x < b.x; }));
  // Every bucket's lowest and highest point, computed here from the closed form.
  std::vector<Point> lowest(kSeriesBuckets, {0.0, INFINITY});
  std::vector<Point> highest(kSeriesBuckets, {0.0, -INFINITY});
  for (const Point& p : points) {
    const auto b = std::min(kSeriesBuckets - 1,
                            static_cast<std::size_t>(p.x * static_cast<double>(kSeriesBuckets)));
    if (p.y < lowest[b].y) lowest[b] = p;
    if (p.y > highest[b].y) highest[b] = p;
  }
  for (std::size_t b = 0; b < kSeriesBuckets; ++b) {
    EXPECT_TRUE(has_point(kept, lowest[b])) << "bucket " << b;
    EXPECT_TRUE(has_point(kept, highest[b])) << "bucket " << b;
  }
}

TEST(BoundedSamples, ExactUpToTheCapCountedInFineBinsBeyond) {
  std::vector<std::size_t> exact(40, 0);
  BoundedSamples few;
  for (std::size_t k = 0; k < 1000; ++k) few.add(static_cast<double>(k));
  few.count_into(exact, 0.0, 1000.0 / 40.0);
  for (const std::size_t count : exact) EXPECT_EQ(count, 25u);

  // 0, 1, ..., n-1 with one late value far out: the bars are 40 equal bins.
  constexpr std::size_t kValues = 4 * kHistogramSamples;
  BoundedSamples many;
  for (std::size_t k = 0; k < kValues; ++k) many.add(static_cast<double>(k));
  many.add(1e7);
  EXPECT_EQ(many.count(), kValues + 1);
  EXPECT_EQ(many.range().low, 0.0);
  EXPECT_EQ(many.range().high, 1e7);
  const double width = 1e7 / 40.0;
  std::vector<std::size_t> counts(40, 0);
  many.count_into(counts, 0.0, width);
  std::size_t total = 0;
  for (const std::size_t count : counts) total += count;
  EXPECT_EQ(total, kValues + 1);
  EXPECT_EQ(counts.back(), 1u);  // the single late value keeps its own bar
  for (std::size_t b = 0; b + 1 < counts.size(); ++b) {
    const double lower = static_cast<double>(b) * width;
    const double upper = lower + width;
    const double expected = std::max(0.0, std::min(upper, static_cast<double>(kValues)) - lower);
    // Off by at most the values of one fine bin at each edge.
    EXPECT_NEAR(static_cast<double>(counts[b]), expected, 2.0 * 1e7 / 4096.0 + 1.0) << b;
  }
}

// ------------------------------------------------------------ whole reports

LoggedSlave slave(const std::string& name, const std::vector<std::string>& outputs) {
  LoggedSlave logged;
  logged.name = name;
  logged.description.capabilities.can_rollback = true;
  for (const std::string& output : outputs) logged.description.outputs.push_back({.name = output});
  return logged;
}

LoggedCall call(CallKind kind, Time start, Time end, std::vector<double> outputs = {}) {
  LoggedCall logged;
  logged.kind = kind;
  logged.start = start;
  logged.end = end;
  logged.end_outputs = std::move(outputs);
  return logged;
}

constexpr Time kMillisecond = 1'000'000;

/// x logged at the end of step k (1, 2, ...).
double accepted_x(Time t) {
  return std::sin(to_seconds(t));
}

/// Defect control at 1 ms steps: every step saves, steps with an accepted
/// value of x; every seventh step is first tried and rolled back (its value
/// 1000 must never be shown), then retried. The defect peaks once.
RunLog long_log(std::size_t steps) {
  RunLog log;
  log.path = "long/run.log";
  log.start = 0;
  log.end = static_cast<Time>(steps) * kMillisecond;
  log.algorithm = "defect_control";
  log.slaves = {slave("mass", {"x"})};
  log.internal_quantities = {"defect", "tolerance"};
  log.end_record = LoggedEnd{"completed", "", 1, steps, steps, steps, 0, 0};
  log.calls.push_back(call(CallKind::setup, 0, 0));
  for (std::size_t k = 0; k < steps; ++k) {
    const Time from = static_cast<Time>(k) * kMillisecond;
    const Time to = from + kMillisecond;
    log.calls.push_back(call(CallKind::save_state, 0, 0));
    if (k % 7 == 3) {
      log.calls.push_back(call(CallKind::step, from, to, {1000.0}));
      log.calls.push_back(call(CallKind::restore_state, 0, 0));
    }
    log.calls.push_back(call(CallKind::step, from, to, {accepted_x(to)}));
    LoggedPlan plan;
    plan.plan = k + 1;
    plan.macro_steps = k + 1;
    plan.frontier = to;
    plan.internals = {k == steps / 2 ? 0.5 : 1e-6 * (1.0 + accepted_x(to)), 1e-3};
    log.plans.push_back(plan);
  }
  return log;
}

TEST(ReportDigest, SeriesOverTheBudgetAreBoundedAndKeepTheirExtremes) {
  constexpr std::size_t kSteps = 100'000;
  const RunLog log = long_log(kSteps);
  const ReportDigest digest = digest_of(log);
  EXPECT_EQ(digest.plans, kSteps);
  EXPECT_EQ(digest.calls, log.calls.size());
  EXPECT_TRUE(digest.log.calls.empty());
  EXPECT_TRUE(digest.log.plans.empty());

  // x from the calls: the accepted values only, the rolled-back tries gone.
  ASSERT_EQ(digest.signals_from_calls.size(), 1u);
  const report_parts::Column& x = digest.signals_from_calls[0];
  EXPECT_EQ(x.total, kSteps);
  EXPECT_LE(x.points.size(), kSeriesBudget);
  double highest = -INFINITY;
  for (const Point& p : x.points) {
    EXPECT_EQ(p.y, std::sin(p.x)) << p.x;  // never a rolled-back 1000
    highest = std::max(highest, p.y);
  }
  double accepted_highest = -INFINITY;
  for (std::size_t k = 1; k <= kSteps; ++k)
    accepted_highest = std::max(accepted_highest, accepted_x(static_cast<Time>(k) * kMillisecond));
  EXPECT_EQ(highest, accepted_highest);
  EXPECT_EQ(x.points.front().x, to_seconds(kMillisecond));
  EXPECT_EQ(x.points.back().x, to_seconds(log.end));

  // The defect's peak, first and last.
  ASSERT_EQ(digest.defects.size(), 2u);
  const std::vector<Point> defect = digest.defects[0].second.points();
  EXPECT_EQ(digest.defects[0].second.count(), kSteps);
  EXPECT_LE(defect.size(), kSeriesBudget);
  EXPECT_TRUE(has_point(defect, {report_parts::seconds(log.plans[kSteps / 2].frontier), 0.5}));
  EXPECT_EQ(defect.front().x, report_parts::seconds(log.plans.front().frontier));
  EXPECT_EQ(defect.back().x, report_parts::seconds(log.plans.back().frontier));
  // Step sizes: one per step, held, plus the last again at its end.
  EXPECT_EQ(digest.step_sizes.count(), kSteps + 1);
  EXPECT_LE(digest.step_sizes.points().size(), kSeriesBudget + 1);
  EXPECT_EQ(digest.step_sizes.points().back().x, to_seconds(log.end));
  // The internals table counts every plan.
  ASSERT_EQ(digest.internals.size(), 2u);
  EXPECT_EQ(digest.internals[0].count, kSteps);
  EXPECT_EQ(digest.internals[0].range.high, 0.5);

  // The page says what it thinned, and how many points each series had.
  const std::string html = render_report(log, {});
  EXPECT_NE(html.find(" points shown of " + std::to_string(kSteps)), std::string::npos);
  EXPECT_NE(html.find("&quot;source_points&quot;:[" + std::to_string(kSteps)), std::string::npos);
}

// A short log is not decimated: no note, every point on the page.
TEST(ReportDigest, ALogUnderTheBudgetIsShownWhole) {
  const RunLog log = long_log(1000);
  const ReportDigest digest = digest_of(log);
  ASSERT_EQ(digest.signals_from_calls.size(), 1u);
  EXPECT_EQ(digest.signals_from_calls[0].points.size(), 1000u);
  EXPECT_FALSE(digest.defects[0].second.decimated());
  EXPECT_EQ(render_report(log, {}).find("points shown of"), std::string::npos);
}

// signals.csv over the budget: each column and its error against the
// reference bounded, the error taken row by row before decimation.
TEST(ReportDigest, SignalsCsvColumnsAndErrorsAreBounded) {
  std::ostringstream csv;
  csv << "time,a.x,a.x:reference\n";
  constexpr std::size_t kRows = 50'000;
  for (std::size_t k = 0; k < kRows; ++k) {
    const double t = static_cast<double>(k) * 1e-3;
    csv << t << ',' << std::cos(t) + (k == 777 ? 3.0 : 0.0) << ',' << std::cos(t) << '\n';
  }
  std::istringstream rows(csv.str());
  const report_parts::SignalColumns signals =
      report_parts::signals_from_csv(rows, Range{0.0, 50.0});
  ASSERT_EQ(signals.columns.size(), 2u);
  ASSERT_EQ(signals.errors.size(), 2u);
  EXPECT_EQ(signals.columns[0].total, kRows);
  EXPECT_LE(signals.columns[0].points.size(), kSeriesBudget);
  const std::vector<Point>& error = signals.errors[0].points;
  EXPECT_EQ(signals.errors[0].total, kRows);
  EXPECT_LE(error.size(), kSeriesBudget);
  double worst = 0.0;
  for (const Point& p : error) worst = std::max(worst, std::abs(p.y));
  EXPECT_NEAR(worst, 3.0, 1e-4);           // the one bad row survives as the error's extreme
  EXPECT_EQ(signals.errors[1].total, 0u);  // the reference column has no reference
}

}  // namespace
}  // namespace couplet::tools
