#pragma once
// The live view's web server (docs/live.md): `couplet run --live`. On a thread
// of its own (Boost.Asio, Boost.Beast) it drains a LiveSampleRing every
// 100 ms into a bounded, decimated history and serves
//   GET  /          the page (dygraphs, embedded: no network needed)
//   GET  /status    the run's state as JSON
//   GET  /history   the decimated history as JSON (the page's first fill)
//   GET  /ws        a WebSocket streaming new samples and the status as JSON
//   POST /stop      ends the run like SIGINT (only with `control`)
// Memory is bounded whatever the run's length and the number of clients: the
// history keeps at most `history_points` samples (halving its resolution when
// full), each client's send queue at most `client_queue_messages` messages (a
// client that does not read loses messages, counted), and at most
// `max_clients` connections are open at once.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host_tools/live/live_check_board.hpp"
#include "host_tools/live/live_sample_ring.hpp"

namespace couplet::tools {

/// What the page shows of the run besides the samples.
struct LiveRunInfo {
  std::string scenario;
  std::vector<std::string> signals;  ///< the ring's values, in order
  double start_time = 0;             ///< s
  double end_time = 0;               ///< s
  bool wall_clock = false;           ///< paced by a wall clock: lateness matters
  double tolerance = 0;              ///< s: a later cycle is an overrun
  std::vector<std::string> checks;   ///< the scenario's checks, in the board's order
  /// The checks' first violations while the run goes; null: none shown.
  const LiveCheckBoard* check_board = nullptr;
};

struct LiveServerOptions {
  std::string address = "127.0.0.1";
  unsigned short port = 0;  ///< 0: any free port
  /// Set: POST /stop calls it (from the server thread) and the page has a Stop
  /// button. Empty: read-only.
  std::function<void()> stop;
  std::size_t history_points = 4000;
  std::size_t client_queue_messages = 64;
  std::size_t max_clients = 32;
};

/// The run's state as /status names it.
enum class LiveState { running, completed, failed, stopped };
const char* live_state_name(LiveState state);

class LiveServer {
 public:
  /// Binds (throws std::runtime_error naming the address when it cannot) and
  /// starts the server thread.
  LiveServer(LiveSampleRing& ring, LiveRunInfo info, LiveServerOptions options);
  /// Stops the thread; open connections are closed.
  ~LiveServer();
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  /// "http://ADDRESS:PORT/" with the port actually bound.
  std::string url() const;
  unsigned short port() const;

  /// From the run's thread once the run is over (no longer on the stepping
  /// path), with the checks' verdicts as summary.json's `checks` array holds
  /// them (JSON text; empty: the board's state stays what /status shows).
  void set_state(LiveState state, std::string checks_json = {});

  /// Messages not sent to a client whose queue was full, over all clients.
  std::uint64_t client_messages_dropped() const;
  /// WebSocket clients connected now.
  std::size_t clients() const;

  class Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

/// Parses `couplet run --live`'s value: "PORT" or "ADDRESS:PORT" (an IPv6
/// address in brackets: "[::1]:8080"). Throws ConfigurationError naming
/// --live when it is neither.
LiveServerOptions parse_live_endpoint(const std::string& text);

/// `address` as it stands in a URL or in `--live`: an IPv6 address in brackets.
std::string live_host(const std::string& address);

/// Whether `address` is a loopback address (127.0.0.0/8, ::1, "localhost").
bool is_loopback_address(const std::string& address);

}  // namespace couplet::tools
