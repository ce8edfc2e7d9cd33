#pragma once
// `couplet watch RUN_LOG --live [ADDR:]PORT` (docs/live.md): the live page of a
// run log, one still being written (followed as it grows) or finished.
#include <string>

#include "host_tools/cli/commands.hpp"

namespace couplet::tools {

class InterruptGuard;

/// Serves `log_path` as `couplet run --live` serves a run: reads the log every
/// half second and publishes the communication points it did not publish yet,
/// until the log's end record (then lingers `live.linger_s` and returns 0) or
/// until `interrupt` reports a signal (returns 128 + the signal). Throws
/// RunLogError naming the file when it is not a run log (after waiting up to
/// 10 s for a header still being written), ConfigurationError for --live.
int watch_log_command(const std::string& log_path, const LiveViewOptions& live,
                      const InterruptGuard& interrupt);

}  // namespace couplet::tools
