#include "host_tools/scenario/clock_spec.hpp"

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

const char* late_policy_name(drivers::LatePolicy policy) {
  switch (policy) {
    case drivers::LatePolicy::hold:
      return "hold";
    case drivers::LatePolicy::extrapolate:
      return "extrapolate";
    case drivers::LatePolicy::abort:
      return "abort";
  }
  return "hold";
}

ClockSpec parse_clock(const YAML::Node& node, const std::string& source) {
  ClockSpec clock;
  if (!node || node.IsNull()) return clock;
  check_keys(node, source, "clock",
             {"type", "realtime_factor", "tolerance", "on_late", "max_misses", "max_miss_time",
              "heartbeat", "priority"});
  if (node["type"]) {
    const std::string type = require_string(node["type"], source, "clock.type");
    if (type == "wall")
      clock.wall = true;
    else if (type != "virtual")
      throw ConfigurationError(locate(source, node["type"], "clock.type") +
                               ": expected 'virtual' or 'wall'");
  }
  const auto read = [&](const char* key, double& target, const NumberRange& range) {
    if (node[key]) target = bounded_number(node[key], source, std::string("clock.") + key, range);
  };
  // Model seconds per wall second: from a thousandth to a thousand times real time.
  read("realtime_factor", clock.realtime_factor, {1e-3, 1e3, ""});
  read("tolerance", clock.tolerance, {kMinDuration, 60.0, " s"});
  read("heartbeat", clock.heartbeat, {1e-3, 60.0, " s"});
  if (node["on_late"]) {
    const std::string policy = require_string(node["on_late"], source, "clock.on_late");
    if (policy == "hold")
      clock.on_late = drivers::LatePolicy::hold;
    else if (policy == "extrapolate")
      clock.on_late = drivers::LatePolicy::extrapolate;
    else if (policy == "abort")
      clock.on_late = drivers::LatePolicy::abort;
    else
      throw ConfigurationError(locate(source, node["on_late"], "clock.on_late") +
                               ": expected hold, extrapolate or abort");
  }
  if (node["max_misses"]) {
    clock.max_misses = static_cast<int>(
        bounded_number(node["max_misses"], source, "clock.max_misses", ranges::count(0, 1e9)));
  }
  if (node["priority"]) {
    // SCHED_FIFO priorities.
    clock.priority = static_cast<int>(
        bounded_number(node["priority"], source, "clock.priority", ranges::count(1, 99)));
  }
  read("max_miss_time", clock.max_miss_time, {0.0, 86400.0, " s"});
  const bool wall_keys = node["realtime_factor"] || node["tolerance"] || node["on_late"] ||
                         node["max_misses"] || node["max_miss_time"] || node["priority"];
  if (!clock.wall && wall_keys) {
    throw ConfigurationError(locate(source, node, "clock") +
                             ": these keys pace a wall-clock run; add type: wall");
  }
  return clock;
}

}  // namespace couplet::tools
