#pragma once
// The master's side of a session (docs/links.md): every request carries the
// session id and a fresh sequence number; the answer is the frame of the same
// session and sequence. Lost requests or answers are recovered by sending the
// very same request again at a steady interval (the target answers repeats from
// its cache, or with "working" while it still computes, so a step is executed
// once); answers to earlier requests, frames of other sessions and damaged
// frames are counted and ignored.
//
// With a key (LinkPolicy::key) every frame is sealed; the target's answer to
// Hello brings the session's nonce, which every later frame carries both ways
// (docs/links.md "Authenticated links"). Frames that fail are dropped and
// counted, never answered.
//
// Liveness is separate from loss: the peer is dead only after the peer timeout
// with nothing valid heard from it while this master was waiting. Time this
// master itself was not scheduled (a wait that returned late) is not the peer's silence;
// the dead-peer error says which side stalled.
//
// One request at a time. Buffers are allocated in the constructor: a request
// cycle does not allocate (real-time rules, docs/architecture.md), except to
// build the message of an error.
#include <memory>
#include <string>
#include <vector>

#include "drivers/link_policy.hpp"
#include "drivers/peer_process.hpp"
#include "drivers/transport.hpp"
#include "protocol/codec.hpp"
#include "protocol/sequence.hpp"

namespace couplet::drivers {

class LinkClient {
 public:
  LinkClient(std::string slave_name, std::unique_ptr<Transport> transport, const LinkPolicy& policy);

  /// The request to fill before send(): its body only (session and sequence are set here).
  protocol::Envelope& request() { return *request_; }

  /// Sends request() under a new sequence number.
  void send();
  /// The process behind the link, when this master started it (may be null;
  /// must outlive the client): an overdue answer first asks whether it ended,
  /// and a target declared hung is ended through it.
  void watch_process(PeerProcess* process) { process_ = process; }

  /// Waits for the answer to the last send(), retransmitting on timeout. Throws
  /// SlaveError on a dead peer (naming `activity`, e.g. "step to t = 1.5 s"), a
  /// watched process that ended, a target that computes longer than
  /// max_step_time, an interruption, or when the target answers with an Error.
  const protocol::Envelope& await_answer(const char* activity, double model_time);
  /// send() then await_answer().
  const protocol::Envelope& exchange(const char* activity, double model_time);
  /// exchange() for the request that opens a session (Hello): a target busy
  /// with another session is asked again, every retransmit interval, for up to
  /// the policy's busy_patience (saying so once on stderr), then SlaveError.
  const protocol::Envelope& open(const char* activity);
  /// send() then wait for the answer at most `patience`, retransmitting;
  /// nullptr when none came (for courtesies such as Stop). Never throws on silence.
  const protocol::Envelope* exchange_within(std::chrono::microseconds patience);

  /// As await_answer, but gives up at `deadline` and returns nullptr then (the
  /// caller applies its policy for late results). Throws on an Error answer.
  const protocol::Envelope* await_answer_until(Deadline deadline, const char* activity, double model_time);

  /// Real-time targets push one StepResult per communication time (sequence 0).
  /// Waits until `deadline` for the push of model time `time`; earlier pushes
  /// are counted late and dropped; nullptr at the deadline.
  const protocol::Envelope* await_push(std::int64_t time, Deadline deadline);

  /// An unsequenced Heartbeat; its echo is consumed where it arrives.
  void send_heartbeat();

  /// Throws the dead-peer SlaveError when nothing valid arrived for the peer
  /// timeout (not counting time this master was not scheduled).
  void check_alive(const char* activity, double model_time);

  const LinkCounters& counters() const { return counters_; }
  LinkCounters& counters() { return counters_; }
  const std::string& slave_name() const { return slave_name_; }
  std::string link_name() const { return transport_->describe(); }
  std::uint64_t session() const { return session_; }
  const LinkPolicy& policy() const { return policy_; }
  /// True once this client has reported the peer dead (nothing more to wait for).
  bool peer_declared_dead() const { return peer_declared_dead_; }

 private:
  enum class Silence { none, deadline, peer, process_ended, hung, interrupted };
  /// The answer to the last send() (a "working" reply is not one), retransmitting
  /// at a steady interval; nullptr at `give_up`, when the peer has been silent
  /// for the timeout, its process ended, it computed past max_step_time, or the
  /// master was interrupted (`why` says which).
  const protocol::Envelope* await_until(Deadline give_up, Silence& why);
  /// A valid frame of this session, or nullptr at the deadline. Heartbeat echoes
  /// are consumed; pushes are returned when `accept_push`, else kept for later.
  const protocol::Envelope* receive_until(Deadline deadline, bool accept_push = false);
  /// With a key: whether a frame of this session carries its nonce; the first
  /// one that carries any sets it (the answer to Hello).
  bool carries_session_nonce(std::uint64_t nonce);
  /// Sends the last request again.
  void resend();
  /// Time lost beyond `expected` is this master's own: the silence baselines move on by it.
  void woke(Deadline now, Deadline expected);
  /// Waits until `until` for nothing in particular (frames are consumed as by receive_until).
  void pause_until(Deadline until);
  /// Why waiting on is pointless, checked whenever an answer is overdue: the
  /// master was interrupted, or the watched process ended.
  Silence abandoned(Deadline now);
  /// How long the current request has been outstanding, not counting time this
  /// master was not scheduled.
  std::chrono::nanoseconds outstanding(Deadline now) const;
  /// Throws the error for a wait that ended with `why` (not none or deadline).
  [[noreturn]] void fail_waiting(Silence why, const char* activity, double model_time);
  [[noreturn]] void fail_dead(const char* activity, double model_time, Deadline silent_since);
  [[noreturn]] void fail_error(const protocol::Envelope& answer, const char* activity, double model_time) const;

  std::string slave_name_;
  std::unique_ptr<Transport> transport_;
  LinkPolicy policy_;
  protocol::FrameCodec codec_;
  std::uint64_t session_ = 0;
  std::uint64_t nonce_ =
      0;  ///< with a key: the target's session nonce, once its answer to Hello came
  protocol::Sequence sequence_ = 0;
  std::unique_ptr<protocol::Envelope> request_;
  std::unique_ptr<protocol::Envelope> answer_;
  std::vector<std::uint8_t> sent_frame_;
  std::size_t sent_size_ = 0;
  std::vector<std::uint8_t> received_frame_;
  std::vector<std::uint8_t> pushed_frame_;  ///< a push that arrived while awaiting an answer
  std::size_t pushed_size_ = 0;
  std::unique_ptr<protocol::Envelope> heartbeat_;
  std::vector<std::uint8_t> heartbeat_frame_;
  /// Silence baselines: since the last valid frame (for check_alive), and since
  /// the last valid frame or send (for awaiting an answer); both moved on by
  /// time this master was not scheduled.
  Deadline heard_baseline_{};
  Deadline listening_baseline_{};
  Deadline last_wake_{};
  Deadline request_sent_{};  ///< when the current request was first sent
  PeerProcess* process_ = nullptr;
  int attempts_ = 0;  ///< sends of the current request
  bool peer_declared_dead_ = false;
  std::chrono::nanoseconds stalled_while_waiting_{0};
  std::chrono::nanoseconds stall_threshold_;  ///< a tenth of the peer timeout: counted as a stall
  LinkCounters counters_;
};

}  // namespace couplet::drivers
