#pragma once
// What a `couplet report` page is made of, read from the run log in one
// streamed pass (docs/report.md#memory): the log's structure, its counts and
// every plotted series bounded to kSeriesBudget points, so that the report's
// memory does not grow with the log's length.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

namespace report_parts {

struct Point {
  double x = 0.0;
  double y = 0.0;
};

struct Range {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void include(double value) {
    low = std::min(low, value);
    high = std::max(high, value);
  }
  bool empty() const { return low > high; }
};

/// The most points a series keeps. A plot 760 pixels wide shows no more, and a
/// series of up to this many keeps every point (the page of a short run is
/// exactly what it was before series were bounded).
constexpr std::size_t kSeriesBudget = 4000;
/// Beyond the budget: time buckets over the run's span, four points each.
constexpr std::size_t kSeriesBuckets = kSeriesBudget / 4;

/// A series whose points arrive in time order, held in at most kSeriesBudget
/// points. Up to the budget it keeps them all; beyond, the run's span is cut
/// into kSeriesBuckets equal time buckets and each keeps its first, lowest,
/// highest and last point, in their order: the first and last points of the
/// series and every extreme survive, and the decimation depends only on the
/// points, not on when they were read.
class BoundedSeries {
 public:
  BoundedSeries() = default;
  /// `span`: the run's time span; points outside it count in its edge buckets.
  explicit BoundedSeries(Range span) : span_(span) {}

  void add(Point point);
  /// How many points were added.
  std::uint64_t count() const { return count_; }
  bool decimated() const { return !buckets_.empty(); }
  /// The kept points, in the order they were added.
  std::vector<Point> points() const;

 private:
  struct Kept {
    Point point;
    std::uint64_t order = 0;
  };
  struct Bucket {
    Kept first, lowest, highest, last;
    bool used = false;
  };
  void add_to_bucket(const Kept& kept);
  std::size_t bucket_of(double x) const;

  Range span_;
  std::uint64_t count_ = 0;
  std::vector<Point> all_;       ///< every point, up to the budget
  std::vector<Bucket> buckets_;  ///< beyond it
};

/// A step plot: each value holds from its point to the next, the last until
/// `closing` (its end), where it is drawn again.
struct HeldSeries {
  BoundedSeries starts;
  std::optional<Point> closing;
  /// The step plot's points: the starts, then the closing point.
  std::vector<Point> points() const;
  std::uint64_t count() const { return starts.count() + (closing ? 1 : 0); }
};

/// The most values a histogram's set keeps one by one.
constexpr std::size_t kHistogramSamples = 100'000;
/// Beyond them, the values are counted in at most this many fine bins.
constexpr std::size_t kFineBins = 4096;

/// The values of a histogram's set. Up to kHistogramSamples it keeps them all
/// (the bars are exact); beyond, it counts them in at most kFineBins bins of a
/// width that doubles as the values spread, so that a bar may miss or gain
/// only the values of a fine bin at its edges. The count and the range stay exact.
class BoundedSamples {
 public:
  void add(double value);
  std::uint64_t count() const { return count_; }
  /// The finite values' range.
  Range range() const { return range_; }
  /// Adds this set's counts to `counts`, bins of `width` from `low`.
  void count_into(std::vector<std::size_t>& counts, double low, double width) const;

 private:
  void to_fine_bins();
  void coarsen();

  std::uint64_t count_ = 0;
  Range range_;
  std::vector<double> values_;
  std::map<std::int64_t, std::uint64_t> fine_;  ///< bin (value / fine_width_) -> count
  double fine_width_ = 0.0;
};

/// One signal as a column of values over time, bounded.
struct Column {
  std::string name;
  std::vector<Point> points;
  std::uint64_t total = 0;  ///< points before decimation
};

Column column_of(std::string name, const BoundedSeries& series);

/// The signals a page plots: signals.csv's columns, or the logged outputs.
struct SignalColumns {
  std::vector<Column> columns;
  /// Beside each column (none or as many): "co-simulation - reference" row
  /// by row where it has a reference column, else nothing.
  std::vector<Column> errors;
};

/// signals.csv read row by row into bounded columns over the run's `span`;
/// none when it does not read (the page plots the logged outputs instead).
SignalColumns signals_from_csv(std::istream& csv, Range span);

}  // namespace report_parts

/// A run log as `couplet report` uses it.
struct ReportDigest {
  /// The structure: header, slaves, connections, internal quantity names, end
  /// record, frames and tail; no calls, no plans.
  RunLog log;
  std::uint64_t plans = 0;
  std::uint64_t calls = 0;
  Time reached = 0;  ///< the last plan's frontier; the start without plans

  report_parts::HeldSeries step_sizes;  ///< the communication step sizes
  /// Each "order:OUTPUT" quantity, decided at a plan and held until the next.
  std::vector<std::pair<std::string, report_parts::HeldSeries>> orders;
  /// "defect" and "tolerance" after every plan, those the log has.
  std::vector<std::pair<std::string, report_parts::BoundedSeries>> defects;
  /// "iterations" at the last plan of each macro step, over that step.
  std::optional<report_parts::HeldSeries> iterations;

  /// Per internal quantity, its finite values' count, range and last one.
  struct InternalStats {
    std::uint64_t count = 0;
    report_parts::Range range;
    double last = std::numeric_limits<double>::quiet_NaN();
  };
  std::vector<InternalStats> internals;

  report_parts::BoundedSamples pacer_lateness_us;  ///< per plan, non-zero ones
  report_parts::BoundedSamples input_lateness_us;  ///< per call, non-zero ones
  /// Per slave behind a link, in slave order.
  struct LinkTiming {
    std::size_t slave = 0;
    std::uint64_t calls = 0;
    std::uint64_t missed = 0;
    std::uint64_t retransmissions = 0;
    report_parts::BoundedSamples round_trips_us;
  };
  std::vector<LinkTiming> links;

  /// The output values at the end of every step call, per output, rolled back
  /// as the slaves were (the signals when there is no signals.csv).
  std::vector<report_parts::Column> signals_from_calls;
};

/// Reads `path` once, record by record, letting go of every call and plan once
/// used. Throws RunLogError as read_run_log().
ReportDigest digest_run_log(const std::string& path);
/// The same of a log read whole.
ReportDigest digest_of(const RunLog& log);

}  // namespace couplet::tools
