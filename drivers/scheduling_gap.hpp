#pragma once
// Time a thread lost to its own machine: it asked to wake by some moment and
// woke later (preempted, swapped out, stopped with SIGSTOP). A master that was
// not scheduled has heard nothing from its peer during that time, and that
// silence is its own, not the peer's (docs/links.md "Liveness").
#include <algorithm>
#include <chrono>

#include "drivers/transport.hpp"

namespace couplet::drivers {

class SchedulingGap {
 public:
  /// Lateness below `jitter` is ordinary scheduling noise: still returned as
  /// lost time, but not counted as a stall.
  explicit SchedulingGap(std::chrono::nanoseconds jitter) : jitter_(jitter) {}

  /// The thread woke at `now` having asked to wake by `expected` at the latest.
  /// Returns the time lost (zero when on time) and records it.
  std::chrono::nanoseconds woke(Deadline now, Deadline expected) {
    const std::chrono::nanoseconds lost = std::max(now - expected, Deadline::duration::zero());
    if (lost >= jitter_) {
      ++stalls_;
      longest_ = std::max(longest_, lost);
    }
    return lost;
  }

  std::uint64_t stalls() const { return stalls_; }
  std::chrono::nanoseconds longest() const { return longest_; }

 private:
  std::chrono::nanoseconds jitter_;
  std::uint64_t stalls_ = 0;
  std::chrono::nanoseconds longest_{0};
};

}  // namespace couplet::drivers
