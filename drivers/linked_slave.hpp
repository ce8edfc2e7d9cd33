#pragma once
// A slave behind a link, whatever its protocol (couplet's own, DCP): what the
// run log and summary.json say of its link. Called from the thread that runs
// the master, outside the stepping calls.
#include <string>

#include "couplet/slave.hpp"
#include "drivers/link_policy.hpp"

namespace couplet::drivers {

class LinkedSlave : public Slave {
 public:
  /// "udp 127.0.0.1:4000", "dcp udp 127.0.0.1:8080": the run log's link of the slave.
  virtual std::string link_name() const = 0;
  /// What the link saw so far (summary.json `links`, the log's link totals).
  virtual const LinkCounters& counters() const = 0;
};

}  // namespace couplet::drivers
