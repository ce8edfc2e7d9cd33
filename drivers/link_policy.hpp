#pragma once
// How a master treats a link (DESIGN §8): bounded retransmission in virtual
// time, a dead-peer timeout, and counters for summary.json.
#include <chrono>
#include <cstdint>

namespace couplet::drivers {

struct LinkPolicy {
  /// First wait for an answer before the request is sent again; the wait then
  /// doubles up to max_retransmit_interval.
  std::chrono::microseconds retransmit_timeout{50'000};
  std::chrono::microseconds max_retransmit_interval{400'000};
  /// No valid answer for this long: the peer is dead (SlaveError naming the slave).
  /// Must exceed the longest time the target computes one step.
  std::chrono::microseconds peer_timeout{2'000'000};
};

struct LinkCounters {
  std::uint64_t requests = 0;         ///< distinct requests sent
  std::uint64_t retransmissions = 0;  ///< requests sent again after a timeout
  std::uint64_t duplicates = 0;       ///< answers to an earlier request (duplicated or late)
  std::uint64_t drops = 0;            ///< frames rejected: truncated, corrupted, malformed
  std::uint64_t foreign = 0;          ///< frames of another session
  std::uint64_t late_results = 0;     ///< wall-clock mode: results after their deadline
  std::uint64_t missed_results = 0;   ///< wall-clock mode: results replaced by the miss policy
  std::uint64_t stale_inputs = 0;     ///< real-time targets: periods run on an old input (none arrived)
};

}  // namespace couplet::drivers
