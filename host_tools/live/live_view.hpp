#pragma once
// `couplet run --live` (docs/live.md): a run watched on a web page. The
// stepping thread publishes into a LiveSampleRing through a LivePublisher; a
// LiveServer on its own thread serves the page, /status and the WebSocket, and
// keeps serving the final state for `linger_s` seconds after the run ended.
#include <nlohmann/json.hpp>

#include "couplet/simulation.hpp"
#include "host_tools/cli/commands.hpp"

namespace couplet::tools {

/// Runs `simulation` to its end (or a stop) while serving it live; returns the
/// summary as run_scenario does, and rethrows the run's error after lingering
/// with state "failed". Prints the page's URL on stderr (and a warning when the
/// address is not a loopback one). Throws ConfigurationError naming --live or
/// --live-control when the endpoint cannot be served.
nlohmann::json run_with_live_view(Simulation& simulation, const LiveViewOptions& live,
                                  const RunOptions& options);

}  // namespace couplet::tools
