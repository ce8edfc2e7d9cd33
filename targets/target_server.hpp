#pragma once
// The target's side of the wire protocol (docs/links.md), independent of the
// transport: one frame in, at most one frame out.
//
// Exactly-once: a session begins with a Hello carrying the master's session id.
// Every request of that session carries a sequence number; the server executes
// a request whose number is newer than the last one (serial-number arithmetic,
// protocol/sequence.hpp), answers a repeat of the last one from its cache (the
// master retransmitted because an answer was lost), and ignores older ones
// (duplicates, reordered stragglers) and frames of other sessions. A Hello from
// another session is refused as busy while the current session is alive (it
// spoke within the session timeout and has not stopped). Session 0 is never a
// session: its frames are ignored. After a session's Stop only a repeat of the
// Stop is answered (from the cache); the session's newer requests are ignored,
// and a Hello of a session that has ended (the last kEndedSessions of them)
// never reopens it.
//
// With a key (TargetOptions::key) a session opens only with a sealed Hello and
// gets a random nonce, which the target's answers carry and the master's
// frames must carry from then on: frames recorded in another session (a
// replay) fail. Until the first frame with the nonce confirms the session, a
// Hello of another session may replace it, so a replayed Hello cannot hold the
// target; a heartbeat must be newer than the session's last one, and only new
// requests and heartbeats keep the session alive (a repeat is still answered).
//
// Every request is checked before it is carried out (docs/links.md "What each
// side validates"); one that breaks a rule is answered with ERROR_BAD_REQUEST
// naming the field. Linearize is answered only by a slave that can linearize,
// in virtual time (a real-time model has no current point the master knows),
// and with a linearization that fits one Linearization; otherwise with
// ERROR_BAD_REQUEST "cannot linearize".
//
// The served slave is the model of the command line wrapped exactly as the host
// wraps it (models::make_ode_slave), with the settings of a Configure. After
// Initialize, handling a request does not allocate (the real-time rules of docs/architecture.md)
// except to describe an error.
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "drivers/transport.hpp"
#include "drivers/wall_clock.hpp"
#include "models/catalog.hpp"
#include "models/scheduled_activations.hpp"
#include "models/slave_source.hpp"
#include "protocol/codec.hpp"
#include "protocol/limits.hpp"
#include "protocol/sequence.hpp"
#include "targets/configuration.hpp"

namespace couplet::targets {

struct TargetOptions {
  std::string model;                ///< the catalog model served
  ParameterOverrides parameters;    ///< from the command line; a Configure's win
  std::chrono::milliseconds session_timeout{3000};  ///< > 0 (the constructor checks)
  bool accepts_configure = true;    ///< false: behave like a device that refuses
  /// Real-time mode (docs/links.md): after Start the model advances on the wall
  /// clock; a step request only updates the inputs, applied from its arrival;
  /// at each communication time the server pushes the outputs.
  bool realtime = false;
  /// With a key, every frame is sealed (docs/links.md "Authenticated links"):
  /// plain and forged frames are dropped, a plain Hello is answered with a
  /// plain Error that says a key is required, and each session gets a fresh
  /// nonce that its frames must carry.
  std::optional<protocol::FrameKey> key;
};

struct TargetCounters {
  std::uint64_t periods = 0;        ///< real-time mode: communication times reached
  std::uint64_t starved_periods = 0;  ///< real-time mode: periods without a fresh input
  std::uint64_t activations = 0;      ///< real-time mode: instants a scheduled slave activated at
  std::uint64_t frames = 0;     ///< frames received
  std::uint64_t rejected = 0;   ///< undecodable (truncated, corrupted, malformed)
  std::uint64_t foreign = 0;    ///< of another session, of session 0, Hellos of ended sessions
  std::uint64_t stale = 0;      ///< sequence older than the last executed, or after the session's Stop
  std::uint64_t repeats = 0;    ///< answered from the cache
  std::uint64_t executed = 0;   ///< requests carried out
  std::uint64_t steps = 0;      ///< of which steps
  std::uint64_t busy = 0;       ///< Hellos refused while another session was alive
  std::uint64_t unauthenticated =
      0;  ///< with a key: plain frames, frames under another key or forged
  std::uint64_t replayed =
      0;  ///< with a key: of the session but without its nonce, or a repeated heartbeat
  std::uint64_t disallowed = 0;  ///< from addresses --allow does not admit (dropped unread)
};

class TargetServer {
 public:
  /// Sessions remembered as ended (stopped, or replaced by a newer one).
  static constexpr std::size_t kEndedSessions = 8;

  /// Serves options.model of `catalog`. Throws ConfigurationError on an unknown
  /// model or parameter, or a session timeout that is not > 0.
  TargetServer(const models::ModelCatalog& catalog, TargetOptions options);
  /// Serves what `source` makes (an FMU, a catalog model); options.model is
  /// replaced by the source's identity, which a Configure must name.
  TargetServer(std::shared_ptr<const models::SlaveSource> source, TargetOptions options);

  /// Handles one received frame; writes the answer into `answer` and returns its
  /// size, or 0 when there is nothing to answer. `from_session_peer` false: the
  /// frame came from another address than the one that opened the session (a
  /// UDP target serves only that one): only a Hello of another session is
  /// considered (BUSY, or a new session once the current one has ended).
  std::size_t handle(std::span<const std::uint8_t> frame, std::span<std::uint8_t> answer, drivers::Deadline now,
                     bool from_session_peer = true);

  /// The serving loop dropped a frame from an address it does not admit.
  void drop_disallowed() { ++counters_.disallowed; }

  /// Real-time mode: when (steady clock) the model reaches its next
  /// communication time — for a slave with scheduled activations
  /// (models::ScheduledActivations) its next activation or a newly arrived
  /// input, if sooner; nullopt while it does not run (before Start, or before
  /// the first step request has told the period).
  std::optional<drivers::Deadline> next_boundary() const;
  /// Real-time mode: advances the model to that instant. At a communication
  /// time: with the inputs in force (switching to a newer input at its
  /// arrival), writing the pushed StepResult into `push` and returning its
  /// size. At an activation or an input's arrival (a scheduled slave): steps
  /// the slave through it and returns 0, unless the slave failed (the pushed
  /// Error's size).
  std::size_t advance_realtime(std::span<std::uint8_t> push, drivers::Deadline now);
  /// Real-time mode: how late (ns) each input arrived after the start of its step.
  const drivers::LatenessStatistics& input_lateness() const { return input_lateness_; }
  /// Real-time mode, a scheduled slave: how late (ns) each activation was
  /// made after its instant on the wall clock.
  const drivers::LatenessStatistics& activation_lateness() const { return activation_lateness_; }
  /// Real-time mode: whether the slave is stepped from activation to
  /// activation (models::ScheduledActivations) rather than once per period.
  bool steps_by_activation() const { return activations_ != nullptr; }

  /// True once the current session has executed a Stop.
  bool session_stopped() const { return stopped_; }
  bool has_session() const { return session_ != 0; }
  /// The current session's id (0: none yet).
  std::uint64_t session() const { return session_; }
  const TargetCounters& counters() const { return counters_; }
  /// How frames are sealed and checked: the busy responder answers with it too.
  const protocol::FrameCodec& codec() const { return codec_; }
  const std::string& model() const { return options_.model; }
  std::chrono::milliseconds session_timeout() const { return options_.session_timeout; }
  const SlaveDescription& description() const { return slave_->description(); }

 private:
  bool may_open_session(drivers::Deadline now) const;
  bool has_ended(std::uint64_t session) const;
  void remember_ended(std::uint64_t session);
  /// Throws ProtocolViolation naming `field` unless the polynomials are one per
  /// input, each of degree at most `max_degree`, finite, with a scale > 0.
  void check_inputs(const couplet_wire_Polynomial* inputs, std::size_t count, int max_degree,
                    const char* field) const;
  /// Throws ProtocolViolation naming `field` unless there is one value per
  /// discrete input and each Boolean one is 0 or 1.
  void check_discrete_inputs(const std::int64_t* values, std::size_t count,
                             const char* field) const;
  /// An Ack with nothing in it (the reply's body is a union that other answers reuse).
  void acknowledge();
  void open_session(std::uint64_t session, protocol::Sequence sequence);
  void execute(drivers::Deadline now);
  void configure(const couplet_wire_Configure& request);
  void initialize(const couplet_wire_Initialize& request);
  void evaluate(const couplet_wire_EvaluateOutputs& request);
  void linearize(const couplet_wire_Linearize& request);
  void step(const couplet_wire_StepRequest& request, drivers::Deadline received);
  void start(const couplet_wire_Start& request, drivers::Deadline received);
  void accept_input(const couplet_wire_StepRequest& request, drivers::Deadline received);
  void step_segment(Time from, Time to, std::span<double> end_outputs);
  /// Real-time mode: the end of the current period.
  Time communication_boundary() const;
  /// Real-time mode, a scheduled slave: its next activation, or the arrival of
  /// a fresh input if sooner.
  Time next_instant() const;
  /// Real-time mode, a scheduled slave: steps it through `instant` (< the
  /// communication boundary), switching to a fresh input first if it arrived by then.
  void advance_to_instant(Time instant, drivers::Deadline now);
  /// Real-time mode: the slave failed or asked to stop; the Error to push.
  std::size_t push_failure(std::span<std::uint8_t> push, const std::exception& error);
  /// The discrete outputs the slave holds now, as the reply's repeated field.
  void copy_discrete_outputs(pb_size_t& count, std::int64_t* values) const;
  std::int64_t wall_ns(Time model_time) const;
  Time model_time_at(drivers::Deadline wall) const;
  void describe();
  void answer_error(couplet_wire_ErrorCode code, const std::string& text);
  /// The slave asked to end the simulation: ERROR_STOP_REQUESTED with its time.
  void answer_stop(const StopRequest& request);
  void rebuild(const SlaveConfiguration& configuration);
  std::size_t input_count() const { return slave_->description().inputs.size(); }
  std::size_t output_count() const { return slave_->description().outputs.size(); }
  std::size_t discrete_input_count() const { return slave_->description().discrete_inputs.size(); }
  std::size_t discrete_output_count() const {
    return slave_->description().discrete_outputs.size();
  }
  std::size_t end_output_count() const;
  std::size_t encode_answer(std::span<std::uint8_t> answer);
  /// With a key: a plain Hello is told that this target requires sealed frames
  /// (in a plain Error: the master has no key to read another); other plain frames get nothing.
  std::size_t refuse_plain(std::span<const std::uint8_t> frame, std::span<std::uint8_t> answer);
  /// With a key: whether a decoded frame of the current session carries its
  /// nonce (a repeated Hello carries none while the session is unconfirmed),
  /// and a heartbeat is newer than the last; confirms the session.
  bool proves_session(const protocol::Envelope& request, std::uint64_t nonce);

  std::shared_ptr<const models::SlaveSource> source_;
  TargetOptions options_;
  std::string slave_name_;
  std::unique_ptr<Slave> slave_;
  /// Real-time mode: the slave as one with scheduled activations, if it is one.
  models::ScheduledActivations* activations_ = nullptr;

  protocol::FrameCodec codec_;
  std::uint64_t session_ = 0;
  std::uint64_t session_nonce_ = 0;      ///< with a key: fresh per session; 0 without
  bool confirmed_ = false;               ///< a frame with the session's nonce has arrived
  std::uint64_t last_heartbeat_ns_ = 0;  ///< with a key: the session's newest heartbeat
  protocol::Sequence last_sequence_ = 0;
  drivers::Deadline last_heard_{};
  bool stopped_ = false;
  std::array<std::uint64_t, kEndedSessions> ended_sessions_{};  ///< 0: free
  std::size_t next_ended_ = 0;  ///< where the next ended session is written
  bool initialized_ = false;
  Time current_time_ = 0;

  std::unique_ptr<protocol::Envelope> request_;
  std::unique_ptr<protocol::Envelope> reply_;
  std::vector<std::uint8_t> cache_;  ///< the encoded answer to last_sequence_
  std::size_t cache_size_ = 0;
  std::array<Polynomial, protocol::kMaxPorts> inputs_{};
  /// Held over each step: the start values until a step request brings others.
  std::array<std::int64_t, protocol::kMaxPorts> discrete_inputs_{};
  std::array<std::int64_t, protocol::kMaxPorts> discrete_outputs_{};  ///< at current_time_
  TargetCounters counters_;

  // Real-time mode.
  bool running_ = false;          ///< Start received
  std::int64_t anchor_ns_ = 0;    ///< steady-clock ns of the model time start_time_
  Time start_time_ = 0;
  double realtime_factor_ = 1.0;
  Time requested_end_ = 0;        ///< end of the newest step request
  Time period_ = 0;               ///< length of the newest step request
  bool has_fresh_input_ = false;  ///< an input arrived during the current period
  Time fresh_input_time_ = 0;     ///< model time of its arrival
  std::int64_t fresh_input_lateness_ = 0;
  std::array<Polynomial, protocol::kMaxPorts> fresh_inputs_{};
  std::array<std::int64_t, protocol::kMaxPorts> fresh_discrete_inputs_{};
  drivers::LatenessStatistics input_lateness_{1 << 20};
  // A scheduled slave: a fresh input was applied during the current period;
  // the outputs of the pieces before the last; how late each activation was.
  bool period_had_fresh_input_ = false;
  Time period_start_ = 0;  ///< the communication time last reached (an EvaluateOutputs answer's)
  std::array<double, protocol::kMaxEndOutputs> piece_outputs_{};
  drivers::LatenessStatistics activation_lateness_{1 << 20};
};

}  // namespace couplet::targets
