#pragma once
// Wall-clock pacing of a run (docs/links.md "Wall-clock runs": real-time
// factor, absolute deadlines, summary.json `realtime`).
//
// After each advance of the communication frontier t the master sleeps until
// the absolute deadline d(t) (drivers/wall_clock.hpp). The lateness of a cycle
// is when the master resumed minus d(t) — the wake-up latency, or, when the
// cycle's work (remote results included) ended after d(t), how late it ended; a
// cycle later than the tolerance is an overrun. Remote slaves are bound to the
// clock (results awaited until their deadline plus the tolerance, then the miss
// policy) and real-time targets are started with the clock. While the master
// sleeps longer than the heartbeat interval, it sends heartbeats.
//
// With a virtual clock the pacer does nothing. No allocation after start().
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "drivers/linked_slave.hpp"
#include "drivers/wall_clock.hpp"
#include "host_tools/scenario/clock_spec.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

class RunPacer {
 public:
  /// Binds the remote slaves of `system`; call before the executor's initialize.
  RunPacer(const ClockSpec& spec, System& system, Time start, Time end);

  bool enabled() const { return spec_.wall; }
  /// Anchors the clock at now and starts real-time targets; after initialize.
  void start();
  /// After each executor advance: waits for the deadline of a new frontier.
  /// Returns the cycle's lateness in ns (0 when nothing was waited for).
  std::int64_t after_advance(Time frontier);
  /// The summary.json `realtime` section.
  nlohmann::json report() const;

 private:
  void sleep_with_heartbeats(Time frontier);

  ClockSpec spec_;
  drivers::WallClock clock_;
  std::vector<drivers::LinkedSlave*> remotes_;
  std::vector<std::string> remote_names_;
  std::vector<std::unique_ptr<drivers::LatenessStatistics>> input_lateness_;
  drivers::LatenessStatistics lateness_;
  Time frontier_;
  std::int64_t tolerance_ns_;
  std::int64_t heartbeat_ns_;
};

}  // namespace couplet::tools
