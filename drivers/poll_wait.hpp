#pragma once
// Waiting for a descriptor with an absolute deadline (no SO_RCVTIMEO
// on synchronous calls; non-blocking descriptors and poll instead).
#include "drivers/transport.hpp"

namespace couplet::drivers {

enum class PollOutcome { ready, timeout, hangup };

/// Waits until `fd` is readable (or writable when `for_writing`), or `deadline`.
/// EINTR restarts the wait with the remaining time. Never allocates.
PollOutcome wait_for_descriptor(int fd, Deadline deadline, bool for_writing = false);

}  // namespace couplet::drivers
