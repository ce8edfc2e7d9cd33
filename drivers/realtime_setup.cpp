#include "drivers/realtime_setup.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstring>

namespace couplet::drivers {

std::vector<std::string> enter_realtime(const RealtimeRequest& request) {
  std::vector<std::string> warnings;
  // Wake-ups of a normal thread are coalesced by up to 50 us; ask for 1 ns
  // (always permitted; SCHED_FIFO threads get no slack anyway).
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const auto refused = [&](const std::string& what, const std::string& consequence) {
    warnings.push_back(what + " not permitted (" + std::strerror(errno) + "): " + consequence);
  };
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    refused("mlockall", "memory may be paged out; expect occasional long stalls");
  }
  sched_param parameters{};
  parameters.sched_priority = request.priority;
  if (::sched_setscheduler(0, SCHED_FIFO, &parameters) != 0) {
    refused("SCHED_FIFO priority " + std::to_string(request.priority),
            "running under the normal scheduler; lateness will be higher (grant CAP_SYS_NICE or raise RLIMIT_RTPRIO)");
  }
  if (request.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(request.cpu), &set);
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
      refused("pinning to CPU " + std::to_string(request.cpu), "the scheduler may migrate the process");
    }
  }
  return warnings;
}

}  // namespace couplet::drivers
