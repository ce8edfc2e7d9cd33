#pragma once
// A slave behind a link, whatever its protocol (couplet's own, DCP): what the
// run log and summary.json say of its link, and how a wall-clock run paces it
// (host_tools/simulation/run_pacer.hpp). Called from the thread that runs the
// master, outside the stepping calls.
#include <string>

#include "couplet/slave.hpp"
#include "drivers/link_policy.hpp"
#include "drivers/missed_results.hpp"
#include "drivers/wall_clock.hpp"

namespace couplet::drivers {

class LinkedSlave : public Slave {
 public:
  /// "udp 127.0.0.1:4000", "dcp udp 127.0.0.1:8080": the run log's link of the slave.
  virtual std::string link_name() const = 0;
  /// What the link saw so far (summary.json `links`, the log's link totals).
  virtual const LinkCounters& counters() const = 0;

  /// Wall-clock mode, before setup: results are awaited until their deadline
  /// on `clock` (which must outlive the slave) plus the tolerance, then the
  /// miss policy stands in. `input_lateness` (optional) collects how late the
  /// slave saw each input, where it tells.
  virtual void bind_wall_clock(const WallClock& clock, const WallClockPolicy& policy,
                               LatenessStatistics* input_lateness) = 0;
  /// True when the slave runs on its own clock (a real-time target, a DCP
  /// slave in SoftRealTime); it then needs the wall clock.
  virtual bool runs_in_real_time() const = 0;
  /// Slaves on their own clock: send_start before the master anchors its
  /// clock, await_start after, so that both clocks start together.
  virtual void send_start(double realtime_factor) = 0;
  virtual void await_start() = 0;
  /// An unacknowledged sign of life while the master sleeps.
  virtual void heartbeat() = 0;
};

}  // namespace couplet::drivers
