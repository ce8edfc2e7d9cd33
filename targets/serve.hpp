#pragma once
// The target's main loop in virtual time ("steps when asked", docs/links.md):
// receive a frame, let the server handle it, send the answer; a long request's
// repeats are answered with Working meanwhile. Usable on any
// transport, in couplet-target and in tests (on a thread).
#include <atomic>
#include <chrono>

#include "drivers/transport.hpp"
#include "targets/address_filter.hpp"
#include "targets/target_server.hpp"

namespace couplet::targets {

struct ServeOptions {
  /// Return once a session has stopped (after answering repeats of its Stop for
  /// `linger`), or once a session has been silent for the session timeout.
  bool once = false;
  std::chrono::milliseconds linger{300};
  /// How often the loop looks at `stop_requested` when no frame arrives.
  std::chrono::milliseconds poll_interval{50};
  /// Virtual time: repeats of a request still being carried out after this
  /// long are answered with Working (targets/busy_responder.hpp).
  std::chrono::milliseconds working_after{20};
  /// Frames from addresses it does not admit are dropped unread (`--allow`).
  AddressFilter allowed;
};

enum class ServeOutcome { stop_requested, session_stopped, session_abandoned };

/// Serves until `stop_requested` becomes true or, with `once`, the session ends.
ServeOutcome serve(TargetServer& server, drivers::Transport& transport, const ServeOptions& options,
                   const std::atomic<bool>& stop_requested);

/// Real-time mode (docs/links.md): as serve(), and at each communication time on
/// the wall clock the model advances and its outputs are pushed. Waits for
/// frames with poll until shortly before the next communication time, then
/// sleeps the rest with clock_nanosleep on the absolute deadline
/// (CLOCK_MONOTONIC). `server` must have been built with options.realtime.
ServeOutcome serve_realtime(TargetServer& server, drivers::Transport& transport, const ServeOptions& options,
                            const std::atomic<bool>& stop_requested);

}  // namespace couplet::targets
