#pragma once
// The latest communication points (t⁽ⁿ⁾, y⁽ⁿ⁾) of one output (F3ORNITS §2.1
// notation): what the order function (eqs. 18–20) and the estimated outputs
// (eqs. 21–22) are calibrated on. A fixed-capacity ring, so that it can live on
// the real-time path (no heap allocation after start-up, docs/architecture.md).
#include <array>
#include <cstddef>
#include <span>

#include "couplet/polynomial.hpp"
#include "couplet/time.hpp"

namespace couplet {

class OutputHistory {
 public:
  /// Enough for Ω^CLS of the highest polynomial degree on degree + 2 points, plus
  /// the point that the order function compares against.
  static constexpr std::size_t kCapacity = Polynomial::kMaxDegree + 3;

  void clear() { size_ = 0; }

  /// Appends the newest point; times must increase strictly (throws
  /// std::invalid_argument otherwise). The oldest point is dropped when full.
  void push(Time time, double value);

  /// Overwrites the value of the newest point (a feedthrough output re-evaluated
  /// at the same communication time).
  void replace_newest(double value);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// age 0 = the newest point, age size() - 1 = the oldest kept.
  Time time(std::size_t age) const { return times_[slot(age)]; }
  double value(std::size_t age) const { return values_[slot(age)]; }

  /// The `count` points from age `first_age` to first_age + count - 1, written
  /// oldest first (the order Polynomial::extrapolation and
  /// constrained_least_squares take: the newest last), times in seconds.
  /// `times` and `values` must hold at least `count` entries.
  void points(std::size_t first_age, std::size_t count, std::span<double> times,
              std::span<double> values) const;

 private:
  std::size_t slot(std::size_t age) const { return (newest_ + kCapacity - age) % kCapacity; }

  std::array<Time, kCapacity> times_{};
  std::array<double, kCapacity> values_{};
  std::size_t newest_ = kCapacity - 1;
  std::size_t size_ = 0;
};

}  // namespace couplet
