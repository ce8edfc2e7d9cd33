#pragma once
// The real-time boundary of the live view (docs/live.md): a fixed-capacity
// single-producer/single-consumer ring between the stepping thread, which
// publishes one sample per communication point, and the live server's thread,
// which drains them. The stepping thread never waits: it neither allocates, nor
// locks, nor makes a system call here, and when the ring is full the sample is
// dropped and counted (a stalled server costs samples, never time).
//
// Exactly one thread may call each *_from_stepping_thread member and exactly
// one (another) each *_from_server_thread member; dropped() may be read from
// any thread.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace couplet::tools {

/// One communication point as the live view shows it. The signal values travel
/// beside it, in the ring's own storage.
struct LiveSample {
  double simulation_time = 0;  ///< s
  double wall_time = 0;        ///< s since the publisher started
  double lateness = 0;         ///< s; 0 without a wall clock
};

class LiveSampleRing {
 public:
  /// Everything is allocated here: `capacity` samples of `signal_count` values.
  LiveSampleRing(std::size_t capacity, std::size_t signal_count)
      : capacity_(capacity),
        signal_count_(signal_count),
        samples_(capacity),
        values_(capacity * signal_count) {}

  LiveSampleRing(const LiveSampleRing&) = delete;
  LiveSampleRing& operator=(const LiveSampleRing&) = delete;

  std::size_t capacity() const { return capacity_; }
  std::size_t signal_count() const { return signal_count_; }

  /// Copies the sample in, or drops it (counted) when the server has not made
  /// room. `values` must hold signal_count() values. Returns whether it was kept.
  bool push_from_stepping_thread(const LiveSample& sample, std::span<const double> values) {
    const std::uint64_t written = written_.load(std::memory_order_relaxed);
    const std::uint64_t read = read_.load(std::memory_order_acquire);
    if (written - read >= capacity_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    const std::size_t slot = static_cast<std::size_t>(written % capacity_);
    samples_[slot] = sample;
    for (std::size_t k = 0; k < signal_count_ && k < values.size(); ++k)
      values_[slot * signal_count_ + k] = values[k];
    written_.store(written + 1, std::memory_order_release);
    return true;
  }

  /// Hands each waiting sample, oldest first, to `visit(const LiveSample&,
  /// std::span<const double> values)` and frees its slot. Returns how many.
  template <typename Visit>
  std::size_t drain_from_server_thread(Visit&& visit) {
    const std::uint64_t read = read_.load(std::memory_order_relaxed);
    const std::uint64_t written = written_.load(std::memory_order_acquire);
    for (std::uint64_t next = read; next != written; ++next) {
      const std::size_t slot = static_cast<std::size_t>(next % capacity_);
      visit(samples_[slot],
            std::span<const double>(values_.data() + slot * signal_count_, signal_count_));
    }
    read_.store(written, std::memory_order_release);
    return static_cast<std::size_t>(written - read);
  }

  /// Samples the stepping thread could not publish because the ring was full.
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  const std::size_t capacity_;
  const std::size_t signal_count_;
  std::vector<LiveSample> samples_;
  std::vector<double> values_;
  // Own cache lines: the two threads each write one counter.
  alignas(64) std::atomic<std::uint64_t> written_{0};  ///< by the stepping thread
  alignas(64) std::atomic<std::uint64_t> read_{0};     ///< by the server thread
  alignas(64) std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace couplet::tools
