#include "targets/serve.hpp"

#include <time.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "protocol/codec.hpp"
#include "targets/busy_responder.hpp"

namespace couplet::targets {

namespace {

/// What both serving loops share: the frame buffers, when the master was last
/// heard and when its session stopped, and the `once` rules for leaving.
class SessionLoop {
 public:
  SessionLoop(TargetServer& server, drivers::Transport& transport, const ServeOptions& options)
      : server_(server),
        transport_(transport),
        options_(options),
        incoming_(protocol::kMaxFrameBytes),
        outgoing_(protocol::kMaxFrameBytes),
        last_heard_(drivers::SteadyClock::now()) {}

  /// With `once`: the outcome when the session has stopped (and lingered) or
  /// was abandoned by a silent master.
  std::optional<ServeOutcome> ended(drivers::Deadline now) const {
    if (!options_.once) return std::nullopt;
    if (stopped_at_ && now - *stopped_at_ >= options_.linger) return ServeOutcome::session_stopped;
    if (server_.has_session() && !stopped_at_ && now - last_heard_ > server_.session_timeout()) {
      return ServeOutcome::session_abandoned;
    }
    return std::nullopt;
  }

  /// Waits until `until` for one frame and answers it, to its sender; with a
  /// `responder`, repeats that arrive while the frame's request is carried out
  /// get Working. On a UDP target the address that opened the session is its
  /// only peer until the session ends: others may open a new session then
  /// (until then their Hellos get BUSY), and pushes go to the session's peer.
  void receive_and_answer(drivers::Deadline until, BusyResponder* responder = nullptr) {
    const std::size_t size = transport_.receive(incoming_, until);
    if (size == 0) return;
    const drivers::Deadline now = drivers::SteadyClock::now();
    const drivers::PeerAddress sender = transport_.last_sender();
    if (!options_.allowed.admits(sender)) {
      server_.drop_disallowed();
      return;
    }
    const bool from_session_peer = !server_.has_session() || sender == session_peer_;
    const std::span<const std::uint8_t> frame = std::span(incoming_).first(size);
    if (responder != nullptr) responder->begin(frame);
    const std::size_t answer = server_.handle(frame, outgoing_, now, from_session_peer);
    if (responder != nullptr) responder->end();
    const bool opened = server_.session() != pinned_session_;
    if (opened) {  // by `sender`: its peer until the session ends
      pinned_session_ = server_.session();
      session_peer_ = sender;
      transport_.set_peer(sender);
    }
    if (answer > 0) transport_.send_to(std::span(outgoing_).first(answer), sender);
    if (!from_session_peer && !opened) return;
    last_heard_ = now;
    if (server_.session_stopped() && !stopped_at_) stopped_at_ = now;
    if (!server_.session_stopped()) stopped_at_.reset();
  }

  /// Real-time mode: the results of the communication time that has come.
  void push_results(drivers::Deadline now) { send(server_.advance_realtime(outgoing_, now)); }

 private:
  void send(std::size_t size) {
    if (size > 0) transport_.send(std::span(outgoing_).first(size));
  }

  TargetServer& server_;
  drivers::Transport& transport_;
  const ServeOptions& options_;
  std::vector<std::uint8_t> incoming_;
  std::vector<std::uint8_t> outgoing_;
  drivers::Deadline last_heard_;
  std::optional<drivers::Deadline> stopped_at_;
  std::uint64_t pinned_session_ = 0;
  drivers::PeerAddress session_peer_;
};

// Frames arriving this close to a communication time wait until after it: the
// last stretch is slept on the absolute deadline for precision.
constexpr auto kFinalStretch = std::chrono::microseconds(150);

void sleep_until(drivers::Deadline deadline) {
  const auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  const timespec wake{static_cast<time_t>(ns / 1'000'000'000),
                      static_cast<long>(ns % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
  }
}

}  // namespace

ServeOutcome serve(TargetServer& server, drivers::Transport& transport, const ServeOptions& options,
                   const std::atomic<bool>& stop_requested) {
  SessionLoop loop(server, transport, options);
  BusyResponder responder(transport, options.working_after, server.codec());
  while (!stop_requested.load(std::memory_order_relaxed)) {
    const auto now = drivers::SteadyClock::now();
    if (const auto outcome = loop.ended(now)) return *outcome;
    loop.receive_and_answer(now + options.poll_interval, &responder);
  }
  return ServeOutcome::stop_requested;
}

ServeOutcome serve_realtime(TargetServer& server, drivers::Transport& transport,
                            const ServeOptions& options, const std::atomic<bool>& stop_requested) {
  SessionLoop loop(server, transport, options);
  while (!stop_requested.load(std::memory_order_relaxed)) {
    const auto now = drivers::SteadyClock::now();
    if (const auto outcome = loop.ended(now)) return *outcome;
    const std::optional<drivers::Deadline> boundary = server.next_boundary();
    if (boundary && now >= *boundary) {
      loop.push_results(now);
      continue;
    }
    drivers::Deadline listen_until = now + options.poll_interval;
    if (boundary) listen_until = std::min(listen_until, *boundary - kFinalStretch);
    if (listen_until <= now) {
      sleep_until(*boundary);
      continue;
    }
    loop.receive_and_answer(listen_until);
  }
  return ServeOutcome::stop_requested;
}

}  // namespace couplet::targets
