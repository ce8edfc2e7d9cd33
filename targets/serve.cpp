#include "targets/serve.hpp"

#include <time.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "protocol/codec.hpp"

namespace couplet::targets {

ServeOutcome serve(TargetServer& server, drivers::Transport& transport, const ServeOptions& options,
                   const std::atomic<bool>& stop_requested) {
  std::vector<std::uint8_t> incoming(protocol::kMaxFrameBytes);
  std::vector<std::uint8_t> outgoing(protocol::kMaxFrameBytes);
  auto last_heard = drivers::SteadyClock::now();
  std::optional<drivers::Deadline> stopped_at;
  while (!stop_requested.load(std::memory_order_relaxed)) {
    const auto now = drivers::SteadyClock::now();
    if (options.once && stopped_at && now - *stopped_at >= options.linger) return ServeOutcome::session_stopped;
    if (options.once && server.has_session() && !stopped_at && now - last_heard > server.session_timeout()) {
      return ServeOutcome::session_abandoned;
    }
    const std::size_t size = transport.receive(incoming, now + options.poll_interval);
    if (size == 0) continue;
    last_heard = drivers::SteadyClock::now();
    const std::size_t answer = server.handle(std::span(incoming).first(size), outgoing, last_heard);
    if (answer > 0) transport.send(std::span(outgoing).first(answer));
    if (server.session_stopped() && !stopped_at) stopped_at = last_heard;
    if (!server.session_stopped()) stopped_at.reset();
  }
  return ServeOutcome::stop_requested;
}

namespace {

// Frames arriving this close to a communication time wait until after it: the
// last stretch is slept on the absolute deadline for precision.
constexpr auto kFinalStretch = std::chrono::microseconds(150);

void sleep_until(drivers::Deadline deadline) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count();
  const timespec wake{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
  }
}

}  // namespace

ServeOutcome serve_realtime(TargetServer& server, drivers::Transport& transport, const ServeOptions& options,
                            const std::atomic<bool>& stop_requested) {
  std::vector<std::uint8_t> incoming(protocol::kMaxFrameBytes);
  std::vector<std::uint8_t> outgoing(protocol::kMaxFrameBytes);
  auto last_heard = drivers::SteadyClock::now();
  std::optional<drivers::Deadline> stopped_at;
  while (!stop_requested.load(std::memory_order_relaxed)) {
    auto now = drivers::SteadyClock::now();
    if (options.once && stopped_at && now - *stopped_at >= options.linger) return ServeOutcome::session_stopped;
    if (options.once && server.has_session() && !stopped_at && now - last_heard > server.session_timeout()) {
      return ServeOutcome::session_abandoned;
    }
    const std::optional<drivers::Deadline> boundary = server.next_boundary();
    if (boundary && now >= *boundary) {
      const std::size_t size = server.advance_realtime(outgoing, now);
      if (size > 0) transport.send(std::span(outgoing).first(size));
      continue;
    }
    drivers::Deadline listen_until = now + options.poll_interval;
    if (boundary) listen_until = std::min(listen_until, *boundary - kFinalStretch);
    if (listen_until <= now) {
      sleep_until(*boundary);
      continue;
    }
    const std::size_t size = transport.receive(incoming, listen_until);
    if (size == 0) continue;
    last_heard = drivers::SteadyClock::now();
    const std::size_t answer = server.handle(std::span(incoming).first(size), outgoing, last_heard);
    if (answer > 0) transport.send(std::span(outgoing).first(answer));
    if (server.session_stopped() && !stopped_at) stopped_at = last_heard;
    if (!server.session_stopped()) stopped_at.reset();
  }
  return ServeOutcome::stop_requested;
}

}  // namespace couplet::targets
