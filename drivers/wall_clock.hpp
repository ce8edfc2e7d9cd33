#pragma once
// Wall-clock pacing (docs/links.md, "Wall-clock runs"): model time t maps to the absolute deadline
//     d(t) = anchor + (t − t0) / realtime_factor
// on CLOCK_MONOTONIC, and the pacer sleeps with clock_nanosleep(TIMER_ABSTIME)
// until it. Absolute deadlines do not drift: a late cycle does not shift the
// later ones. Lateness statistics are collected without allocating after start
// (a buffer reserved for the expected number of cycles).
#include <cstdint>
#include <ctime>
#include <vector>

#include "couplet/time.hpp"

namespace couplet::drivers {

/// Nanoseconds on CLOCK_MONOTONIC (the clock std::chrono::steady_clock reads on Linux).
std::int64_t monotonic_now_ns();

/// Lateness of deadlines: how long after its deadline each cycle resumed.
class LatenessStatistics {
 public:
  /// Keeps up to `capacity` samples for exact percentiles (min, max and counts
  /// stay exact beyond that).
  explicit LatenessStatistics(std::size_t capacity = 0) { samples_.reserve(capacity); }

  void add(std::int64_t lateness_ns, bool overrun);

  std::uint64_t cycles() const { return cycles_; }
  std::uint64_t overruns() const { return overruns_; }
  std::int64_t min_ns() const { return cycles_ ? min_ : 0; }
  std::int64_t max_ns() const { return cycles_ ? max_ : 0; }
  /// The q-quantile (0 ≤ q ≤ 1) of the kept samples (nearest rank). Sorts a copy.
  std::int64_t quantile_ns(double q) const;
  /// Counts per bucket: [<0], [0,1) µs, [1,2), [2,4), [4,8), ... doubling; the last
  /// bucket holds everything from its lower bound up.
  std::vector<std::uint64_t> histogram(std::size_t buckets = 16) const;
  /// Lower bound in µs of histogram bucket `index` (bucket 0: negative lateness).
  static double bucket_lower_us(std::size_t index);

 private:
  std::vector<std::int64_t> samples_;
  std::uint64_t cycles_ = 0;
  std::uint64_t overruns_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
};

class WallClock {
 public:
  /// realtime_factor: model seconds per wall second (> 0).
  WallClock(Time model_start, double realtime_factor);

  /// Anchors model_start at now (or at `anchor_ns` on CLOCK_MONOTONIC).
  void start();
  void start_at(std::int64_t anchor_ns);
  bool started() const { return started_; }

  /// The deadline of model time t, in CLOCK_MONOTONIC nanoseconds.
  std::int64_t deadline_ns(Time t) const;

  /// Sleeps until the deadline of t (absolute, CLOCK_MONOTONIC). Returns the
  /// lateness: wake-up time minus deadline (>= 0 unless the clock misbehaves);
  /// when the deadline had already passed, returns how late without sleeping.
  std::int64_t sleep_until(Time t) const;

  double realtime_factor() const { return realtime_factor_; }
  Time model_start() const { return model_start_; }
  std::int64_t anchor_ns() const { return anchor_ns_; }

 private:
  Time model_start_;
  double realtime_factor_;
  std::int64_t anchor_ns_ = 0;
  bool started_ = false;
};

}  // namespace couplet::drivers
