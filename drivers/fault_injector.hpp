#pragma once
// Seeded link impairments: loss, duplication, reordering, delay and corruption
// (kernel netem is not available where couplet is tested, so fault
// injection is ours). Used
// by the in-process transport and by couplet-netem.
//
// Reordering as in netem: a reordered message is held back by an extra gap, so
// that messages sent after it overtake it. Decisions depend only on the seed and
// on the order of the messages, never on timing: a test replays the same faults.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <random>

namespace couplet::drivers {

struct FaultSettings {
  double loss = 0.0;        ///< probability that a message is dropped
  double duplicate = 0.0;   ///< probability that a message is delivered twice
  double reorder = 0.0;     ///< probability that a message is held back by reorder_gap
  double corrupt = 0.0;     ///< probability that one bit of a copy is flipped
  std::chrono::microseconds delay{0};        ///< added to every message
  std::chrono::microseconds reorder_gap{2000};
  std::uint64_t seed = 1;

  /// Throws ConfigurationError unless the probabilities are in [0, 1] and the
  /// delays are >= 0.
  void check() const;
  bool any() const { return loss > 0 || duplicate > 0 || reorder > 0 || corrupt > 0 || delay.count() > 0; }
};

struct FaultCounters {
  std::uint64_t messages = 0;
  std::uint64_t lost = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t reordered = 0;
  std::uint64_t corrupted = 0;
};

class FaultInjector {
 public:
  struct Copy {
    std::chrono::nanoseconds delay{0};
    bool corrupt = false;
    std::size_t bit = 0;  ///< the bit to flip, < 8 × frame size
  };
  using Copies = std::array<Copy, 2>;

  explicit FaultInjector(const FaultSettings& settings);

  /// The fate of the next message of `frame_bytes` bytes: how many copies to
  /// deliver (0 = lost, 1, or 2) and, for each, its delay and corruption.
  std::size_t decide(std::size_t frame_bytes, Copies& copies);

  const FaultCounters& counters() const { return counters_; }
  const FaultSettings& settings() const { return settings_; }

 private:
  bool happens(double probability);
  Copy make_copy(std::size_t frame_bytes);

  FaultSettings settings_;
  std::mt19937_64 random_;
  FaultCounters counters_;
};

}  // namespace couplet::drivers
