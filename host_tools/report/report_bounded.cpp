// Bounded series and sample sets (report_digest.hpp): what keeps a report's
// memory independent of the log's length, and signals.csv read into them.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/report/report_digest.hpp"
#include "host_tools/report/report_parts.hpp"
#include "host_tools/runlog/signal_table.hpp"

namespace couplet::tools::report_parts {

// ---------------------------------------------------------------- series

void BoundedSeries::add(Point point) {
  const Kept kept{point, count_++};
  if (buckets_.empty() && all_.size() < kSeriesBudget) {
    all_.push_back(point);
    return;
  }
  if (buckets_.empty()) {
    // Over the budget: from now on, four points per time bucket.
    buckets_.resize(kSeriesBuckets);
    for (std::size_t k = 0; k < all_.size(); ++k) add_to_bucket({all_[k], k});
    all_ = {};
  }
  add_to_bucket(kept);
}

std::size_t BoundedSeries::bucket_of(double x) const {
  const double width = span_.high - span_.low;
  if (!(width > 0.0) || !std::isfinite(x)) return 0;
  const double place = (x - span_.low) / width * static_cast<double>(kSeriesBuckets);
  if (!(place > 0.0)) return 0;
  return std::min(kSeriesBuckets - 1, static_cast<std::size_t>(place));
}

void BoundedSeries::add_to_bucket(const Kept& kept) {
  Bucket& bucket = buckets_[bucket_of(kept.point.x)];
  if (!bucket.used) {
    bucket = {kept, kept, kept, kept, true};
    return;
  }
  bucket.last = kept;
  // A NaN is no extreme: a finite value replaces it.
  const double y = kept.point.y;
  if (y < bucket.lowest.point.y || std::isnan(bucket.lowest.point.y)) bucket.lowest = kept;
  if (y > bucket.highest.point.y || std::isnan(bucket.highest.point.y)) bucket.highest = kept;
}

std::vector<Point> BoundedSeries::points() const {
  if (buckets_.empty()) return all_;
  std::vector<Kept> kept;
  for (const Bucket& bucket : buckets_) {
    if (!bucket.used) continue;
    for (const Kept& k : {bucket.first, bucket.lowest, bucket.highest, bucket.last})
      kept.push_back(k);
  }
  std::sort(kept.begin(), kept.end(),
            [](const Kept& a, const Kept& b) { return a.order < b.order; });
  kept.erase(std::unique(kept.begin(), kept.end(),
                         [](const Kept& a, const Kept& b) { return a.order == b.order; }),
             kept.end());
  std::vector<Point> points;
  points.reserve(kept.size());
  for (const Kept& k : kept) points.push_back(k.point);
  return points;
}

std::vector<Point> HeldSeries::points() const {
  std::vector<Point> points = starts.points();
  if (closing) points.push_back(*closing);
  return points;
}

Column column_of(std::string name, const BoundedSeries& series) {
  return {std::move(name), series.points(), series.count()};
}

// ---------------------------------------------------------------- samples

void BoundedSamples::add(double value) {
  ++count_;
  if (std::isfinite(value)) range_.include(value);
  if (fine_width_ == 0.0) {
    values_.push_back(value);
    if (values_.size() > kHistogramSamples) to_fine_bins();
    return;
  }
  if (!std::isfinite(value)) return;  // no bar draws it
  ++fine_[static_cast<std::int64_t>(std::floor(value / fine_width_))];
  coarsen();
}

void BoundedSamples::to_fine_bins() {
  // A power of two, so that doubling it merges pairs of bins exactly.
  const double spread = range_.empty() ? 0.0 : range_.high - range_.low;
  const double scale = std::max({spread / static_cast<double>(kFineBins / 2),
                                 std::abs(range_.empty() ? 0.0 : range_.low) * 1e-9, 1e-12});
  fine_width_ = std::exp2(std::ceil(std::log2(scale)));
  for (const double value : values_) {
    if (std::isfinite(value)) ++fine_[static_cast<std::int64_t>(std::floor(value / fine_width_))];
  }
  values_ = {};
  coarsen();
}

void BoundedSamples::coarsen() {
  while (!fine_.empty() &&
         fine_.rbegin()->first - fine_.begin()->first >= static_cast<std::int64_t>(kFineBins)) {
    std::map<std::int64_t, std::uint64_t> merged;
    // >> 1 rounds towards minus infinity, as floor(value / (2 * width)) does.
    for (const auto& [bin, count] : fine_) merged[bin >> 1] += count;
    fine_ = std::move(merged);
    fine_width_ *= 2.0;
  }
}

void BoundedSamples::count_into(std::vector<std::size_t>& counts, double low, double width) const {
  const auto bin_of = [&](double value) {
    const double place = (value - low) / width;
    return place > 0.0 ? std::min(counts.size() - 1, static_cast<std::size_t>(place))
                       : std::size_t{0};
  };
  for (const double value : values_) {
    if (std::isfinite(value)) ++counts[bin_of(value)];
  }
  for (const auto& [bin, count] : fine_) {
    // A fine bin counts where its middle lies, within the values' range.
    const double middle = (static_cast<double>(bin) + 0.5) * fine_width_;
    counts[bin_of(std::clamp(middle, range_.low, range_.high))] += count;
  }
}

// ---------------------------------------------------------------- signals.csv

/// signals.csv: one column per CSV column after `time`, read as `couplet compare`
/// reads it, row by row. A file that does not read gives none, and the page
/// plots the logged values instead (its signals section says which it shows).
SignalColumns signals_from_csv(std::istream& csv, Range span) {
  std::vector<std::string> names;
  std::vector<BoundedSeries> columns;
  // Per column, the reference column beside it and their difference.
  std::vector<std::size_t> reference_of;
  std::vector<BoundedSeries> errors;
  const auto header = [&](const std::vector<std::string>& read) {
    names = read;
    columns.assign(names.size(), BoundedSeries(span));
    for (std::size_t k = 0; k < names.size(); ++k) {
      const auto reference =
          std::find(names.begin(), names.end(), names[k] + std::string(kReferenceSuffix));
      reference_of.push_back(static_cast<std::size_t>(reference - names.begin()));
    }
    errors.assign(names.size(), BoundedSeries(span));
  };
  const auto row = [&](const std::vector<double>& values) {
    const double time = values[0];
    for (std::size_t k = 0; k < columns.size(); ++k) {
      columns[k].add({time, values[k + 1]});
      // The error where both have a value at one time: in one row.
      if (reference_of[k] < names.size())
        errors[k].add({time, values[k + 1] - values[reference_of[k] + 1]});
    }
  };
  try {
    read_signals_rows(csv, "signals.csv", header, row);
  } catch (const ConfigurationError&) {
    return {};
  }
  SignalColumns read;
  for (std::size_t k = 0; k < names.size(); ++k) {
    read.columns.push_back(column_of(names[k], columns[k]));
    read.errors.push_back(column_of(names[k], errors[k]));
  }
  return read;
}

}  // namespace couplet::tools::report_parts
