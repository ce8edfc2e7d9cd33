#include "drivers/wall_clock.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "couplet/errors.hpp"

namespace couplet::drivers {

namespace {

timespec to_timespec(std::int64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

}  // namespace

std::int64_t monotonic_now_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void LatenessStatistics::add(std::int64_t lateness_ns, bool overrun) {
  if (cycles_ == 0 || lateness_ns < min_) min_ = lateness_ns;
  if (cycles_ == 0 || lateness_ns > max_) max_ = lateness_ns;
  ++cycles_;
  if (overrun) ++overruns_;
  if (samples_.size() < samples_.capacity()) samples_.push_back(lateness_ns);
}

std::int64_t LatenessStatistics::quantile_ns(double q) const {
  if (samples_.empty()) return 0;
  std::vector<std::int64_t> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size()));
  const std::size_t index = rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

double LatenessStatistics::bucket_lower_us(std::size_t index) {
  if (index == 0) return -INFINITY;
  if (index == 1) return 0.0;
  return std::ldexp(1.0, static_cast<int>(index) - 2);
}

std::vector<std::uint64_t> LatenessStatistics::histogram(std::size_t buckets) const {
  std::vector<std::uint64_t> counts(std::max<std::size_t>(buckets, 2), 0);
  for (const std::int64_t sample : samples_) {
    std::size_t bucket = 0;
    if (sample >= 0) {
      const double microseconds = static_cast<double>(sample) / 1000.0;
      bucket = microseconds < 1.0 ? 1 : 2 + static_cast<std::size_t>(std::floor(std::log2(microseconds)));
    }
    ++counts[std::min(bucket, counts.size() - 1)];
  }
  return counts;
}

WallClock::WallClock(Time model_start, double realtime_factor)
    : model_start_(model_start), realtime_factor_(realtime_factor) {
  if (!(realtime_factor > 0.0) || !std::isfinite(realtime_factor)) {
    throw ConfigurationError("the real-time factor must be finite and > 0");
  }
}

void WallClock::start() { start_at(monotonic_now_ns()); }

void WallClock::start_at(std::int64_t anchor_ns) {
  anchor_ns_ = anchor_ns;
  started_ = true;
}

std::int64_t WallClock::deadline_ns(Time t) const {
  const double wall = static_cast<double>(t - model_start_) / realtime_factor_;
  return anchor_ns_ + static_cast<std::int64_t>(std::llround(wall));
}

std::int64_t WallClock::sleep_until(Time t) const {
  const std::int64_t deadline = deadline_ns(t);
  const std::int64_t now = monotonic_now_ns();
  if (now >= deadline) return now - deadline;
  const timespec wake = to_timespec(deadline);
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
  }
  return monotonic_now_ns() - deadline;
}

}  // namespace couplet::drivers
