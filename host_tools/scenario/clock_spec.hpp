#pragma once
// The `clock:` key of a scenario (a clock paces the run; docs/links.md):
//   clock: {type: virtual}                       as fast as possible (default)
//   clock: {type: wall, realtime_factor: 1.0,    model seconds per wall second
//           tolerance: 0.0005,                   s a result or wake-up may be late
//           on_late: hold,                       hold | extrapolate | abort
//           max_misses: 10,                      consecutive missed results per slave ...
//           max_miss_time: 0.5,                  ... lasting this long (s) end the run
//           heartbeat: 0.5,                      s between heartbeats when idle
//           priority: 70}                        SCHED_FIFO for the master when permitted
#include <yaml-cpp/yaml.h>

#include <string>

#include "drivers/missed_results.hpp"

namespace couplet::tools {

struct ClockSpec {
  bool wall = false;
  double realtime_factor = 1.0;
  double tolerance = 0.0005;
  drivers::LatePolicy on_late = drivers::LatePolicy::hold;
  int max_misses = 10;
  double max_miss_time = 0.5;  ///< s: a run of misses must also last this long to end the run
  double heartbeat = 0.5;
  int priority =
      0;  ///< > 0: run the master under SCHED_FIFO at this priority (a warning when refused)
};

/// An absent node gives the virtual clock. Errors name the key and line.
ClockSpec parse_clock(const YAML::Node& node, const std::string& source);

const char* late_policy_name(drivers::LatePolicy policy);

}  // namespace couplet::tools
