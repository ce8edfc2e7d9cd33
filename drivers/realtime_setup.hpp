#pragma once
// Real-time process settings (docs/links.md: SCHED_FIFO and mlockall when
// permitted, a clear warning when not): lock memory, run under SCHED_FIFO,
// pin to a CPU. Each step that the system refuses becomes a warning; the
// program carries on with what it got.
#include <string>
#include <vector>

namespace couplet::drivers {

struct RealtimeRequest {
  int priority = 80;  ///< SCHED_FIFO priority, 1..99
  int cpu = -1;       ///< pin to this CPU; -1: leave the affinity alone
};

/// Applies what it can; returns one warning per refused setting (empty when
/// everything was granted).
std::vector<std::string> enter_realtime(const RealtimeRequest& request);

}  // namespace couplet::drivers
