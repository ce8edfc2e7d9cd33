#pragma once
// The checks' state as the live view shows it while a run goes (docs/live.md):
// per check, the time of its first violation so far, NaN while it holds. The
// stepping thread writes (LivePublisher), the live server's thread reads; one
// relaxed atomic per check, sized in the constructor: no allocation, no lock,
// no system call on either side. It follows the check evaluator: a violation
// the master rolls back (an iterative step) disappears again.
//
// Exactly one thread may call publish_from_stepping_thread; any thread may
// read.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

namespace couplet::tools {

class LiveCheckBoard {
 public:
  explicit LiveCheckBoard(std::size_t checks) : first_violation_(checks) {
    for (std::atomic<double>& time : first_violation_)
      time.store(std::numeric_limits<double>::quiet_NaN(), std::memory_order_relaxed);
  }
  LiveCheckBoard(const LiveCheckBoard&) = delete;
  LiveCheckBoard& operator=(const LiveCheckBoard&) = delete;

  std::size_t size() const { return first_violation_.size(); }

  /// `time`: when check `check` was first violated (s), nothing while it holds.
  void publish_from_stepping_thread(std::size_t check, std::optional<double> time) {
    first_violation_[check].store(time ? *time : std::numeric_limits<double>::quiet_NaN(),
                                  std::memory_order_relaxed);
  }

  std::optional<double> first_violation(std::size_t check) const {
    const double time = first_violation_[check].load(std::memory_order_relaxed);
    return std::isnan(time) ? std::nullopt : std::optional<double>(time);
  }

 private:
  std::vector<std::atomic<double>> first_violation_;
};

}  // namespace couplet::tools
