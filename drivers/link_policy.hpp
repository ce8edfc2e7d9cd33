#pragma once
// How a master treats a link (docs/links.md "Liveness"): retransmission at a
// steady interval, liveness judged by silence alone, patience with a busy
// target, and the counters summary.json reports.
#include <chrono>
#include <cstdint>
#include <optional>

#include "protocol/frame_key.hpp"

namespace couplet::drivers {

struct LinkPolicy {
  /// A request still unanswered after this long is sent again, and again at the
  /// same interval: loss is recovered by repetition, never by waiting longer,
  /// so that N lost exchanges in a row cost N intervals, not an exponential wait.
  std::chrono::microseconds retransmit_interval{50'000};
  /// The peer is dead after this long with nothing valid heard from it while
  /// the master was waiting and scheduled (answers, "working" replies, heartbeat
  /// echoes and duplicates all count as signs of life; time the master itself
  /// was not scheduled does not count as silence).
  std::chrono::microseconds peer_timeout{2'000'000};
  /// A target busy with another session is asked again for this long (its old
  /// session expires after the target's --session-timeout, 3 s by default).
  std::chrono::microseconds busy_patience{10'000'000};
  /// A target that has answered "working" to one request for longer than this
  /// is declared hung (a step that never ends: an FMU in an endless loop, a
  /// deadlocked device); zero: no limit. Scenario key `max_step_time`.
  std::chrono::microseconds max_step_time{60'000'000};
  /// Asked while an answer is overdue: true once the master has been told to
  /// end (SIGINT, SIGTERM). A request outstanding for kInterruptPatience is
  /// then abandoned, so that a long step does not hold the run. Null: never.
  bool (*interrupted)() = nullptr;
  /// Seals every frame with this pre-shared key and accepts only frames sealed
  /// with it (docs/links.md "Authenticated links"); none: plain frames.
  /// Scenario key `link: {key_file}`.
  std::optional<protocol::FrameKey> key;
};

/// How long a request may still take once the master has been interrupted: an
/// answer due within it ends the run cleanly at the next communication point.
inline constexpr std::chrono::milliseconds kInterruptPatience{500};

struct LinkCounters {
  std::uint64_t requests = 0;         ///< distinct requests sent
  std::uint64_t retransmissions = 0;  ///< requests sent again after an interval without an answer
  std::uint64_t duplicates = 0;       ///< answers to an earlier request (duplicated or late)
  std::uint64_t working = 0;          ///< "still working" replies from the target
  std::uint64_t drops = 0;            ///< frames rejected: truncated, corrupted, malformed
  std::uint64_t foreign = 0;          ///< frames of another session
  std::uint64_t unauthenticated = 0;  ///< with a key: frames plain, under another key, or forged
  std::uint64_t replayed = 0;         ///< with a key: frames without the session's nonce
  std::uint64_t late_results = 0;     ///< wall-clock mode: results after their deadline
  std::uint64_t missed_results = 0;   ///< wall-clock mode: results replaced by the miss policy
  std::uint64_t stale_inputs = 0;     ///< real-time targets: periods run on an old input (none arrived)
  std::uint64_t host_stalls = 0;      ///< times this master was not scheduled for ≥ 10 % of the timeout
  std::int64_t host_stall_longest_ns = 0;  ///< the longest of them
};

}  // namespace couplet::drivers
