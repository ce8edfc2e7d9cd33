#pragma once
// While the target carries out a long request (a step that computes for longer
// than the master's retransmit interval), the master keeps sending the same
// request. Without an answer it could not tell a target that computes from one
// that died; the BusyResponder answers those repeats with Working, and
// heartbeats with their echo, on a thread of its own, so that the master hears
// a sign of life at its own pace (docs/links.md "Liveness").
//
// Ownership of the transport: the serving thread uses it freely between
// requests. Between begin() and end() the responder may use it, under
// `transport_mutex`; end() returns once the responder has let go (it listens in
// slices of a few milliseconds). The serving thread's per-request cost is a
// frame copy and two atomic stores; nothing allocates after construction.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "drivers/transport.hpp"
#include "protocol/codec.hpp"

namespace couplet::targets {

class BusyResponder {
 public:
  /// Answers repeats of a request that has been in progress for `after`, in
  /// frames of `codec` (the server's: sealed with the request's nonce when it has a key).
  BusyResponder(drivers::Transport& transport, std::chrono::milliseconds after,
                const protocol::FrameCodec& codec);
  ~BusyResponder();
  BusyResponder(const BusyResponder&) = delete;
  BusyResponder& operator=(const BusyResponder&) = delete;

  /// The serving thread is about to carry out the request in `frame`.
  void begin(std::span<const std::uint8_t> frame);
  /// It is done: the transport is the serving thread's again.
  void end();

  /// Working replies sent (read after the serving has ended).
  std::uint64_t working_replies() const { return working_replies_.load(std::memory_order_relaxed); }

 private:
  void run();
  void answer_repeats();
  void reply(protocol::Envelope& message, std::uint64_t session, std::uint32_t sequence,
             std::uint64_t nonce);

  drivers::Transport& transport_;
  std::chrono::milliseconds after_;
  const protocol::FrameCodec& codec_;
  std::mutex transport_mutex_;
  std::atomic<bool> busy_{false};
  std::atomic<std::int64_t> busy_since_ns_{0};
  std::atomic<bool> quit_{false};
  std::atomic<std::uint64_t> working_replies_{0};
  std::vector<std::uint8_t> in_progress_;
  std::size_t in_progress_size_ = 0;
  std::vector<std::uint8_t> incoming_;
  std::vector<std::uint8_t> outgoing_;
  std::unique_ptr<protocol::Envelope> request_;
  std::unique_ptr<protocol::Envelope> received_;
  std::unique_ptr<protocol::Envelope> answer_;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace couplet::targets
