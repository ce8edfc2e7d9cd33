#include "drivers/poll_wait.hpp"

#include <poll.h>

#include <cerrno>
#include <ctime>

namespace couplet::drivers {

PollOutcome wait_for_descriptor(int fd, Deadline deadline, bool for_writing) {
  for (;;) {
    const auto remaining = deadline - SteadyClock::now();
    const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(remaining).count();
    const long long wait = nanoseconds > 0 ? nanoseconds : 0;
    const timespec timeout{static_cast<time_t>(wait / 1'000'000'000), static_cast<long>(wait % 1'000'000'000)};
    pollfd descriptor{fd, static_cast<short>(for_writing ? POLLOUT : POLLIN), 0};
    const int result = ::ppoll(&descriptor, 1, &timeout, nullptr);
    if (result > 0) {
      const short wanted = for_writing ? POLLOUT : POLLIN;
      if ((descriptor.revents & wanted) != 0) return PollOutcome::ready;
      return PollOutcome::hangup;  // POLLHUP / POLLERR without data
    }
    if (result == 0) return PollOutcome::timeout;
    if (errno != EINTR) return PollOutcome::hangup;
  }
}

}  // namespace couplet::drivers
