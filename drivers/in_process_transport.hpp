#pragma once
// An in-process link: two transports joined by two bounded queues, each direction
// with its own seeded fault injector. For tests of the session layer and of
// targets without sockets; allocation-free after construction (the queue slots
// are allocated up front, docs/architecture.md "Real-time boundary").
#include <memory>
#include <utility>

#include "drivers/fault_injector.hpp"
#include "drivers/transport.hpp"

namespace couplet::drivers {

struct InProcessLink {
  std::unique_ptr<Transport> master;  ///< sends to the target, hears its answers
  std::unique_ptr<Transport> target;
};

/// A link whose master→target direction suffers `to_target` and whose
/// target→master direction suffers `to_master`. `capacity` frames may be in
/// flight per direction; beyond that frames are dropped (a full link).
InProcessLink make_in_process_link(const FaultSettings& to_target = {}, const FaultSettings& to_master = {},
                                   std::size_t capacity = 8);

/// What one direction's injector did so far (for tests).
FaultCounters fault_counters(const Transport& sending_end);

}  // namespace couplet::drivers
