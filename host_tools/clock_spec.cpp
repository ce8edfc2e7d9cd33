#include "host_tools/clock_spec.hpp"

#include <cmath>

#include "host_tools/scenario.hpp"
#include "couplet/errors.hpp"

namespace couplet::tools {

const char* late_policy_name(drivers::LatePolicy policy) {
  switch (policy) {
    case drivers::LatePolicy::hold: return "hold";
    case drivers::LatePolicy::extrapolate: return "extrapolate";
    case drivers::LatePolicy::abort: return "abort";
  }
  return "hold";
}

ClockSpec parse_clock(const YAML::Node& node, const std::string& source) {
  ClockSpec clock;
  if (!node || node.IsNull()) return clock;
  check_keys(node, source, "clock", {"type", "realtime_factor", "tolerance", "on_late", "max_misses", "max_miss_time", "heartbeat",
                                       "priority"});
  if (node["type"]) {
    const std::string type = require_string(node["type"], source, "clock.type");
    if (type == "wall") clock.wall = true;
    else if (type != "virtual") throw ConfigurationError(locate(source, node["type"], "clock.type") + ": expected 'virtual' or 'wall'");
  }
  const auto positive = [&](const char* key, double& target) {
    if (!node[key]) return;
    target = require_number(node[key], source, std::string("clock.") + key);
    if (!(target > 0.0) || !std::isfinite(target)) {
      throw ConfigurationError(locate(source, node[key], std::string("clock.") + key) + ": must be positive");
    }
  };
  positive("realtime_factor", clock.realtime_factor);
  positive("tolerance", clock.tolerance);
  positive("heartbeat", clock.heartbeat);
  if (node["on_late"]) {
    const std::string policy = require_string(node["on_late"], source, "clock.on_late");
    if (policy == "hold") clock.on_late = drivers::LatePolicy::hold;
    else if (policy == "extrapolate") clock.on_late = drivers::LatePolicy::extrapolate;
    else if (policy == "abort") clock.on_late = drivers::LatePolicy::abort;
    else throw ConfigurationError(locate(source, node["on_late"], "clock.on_late") + ": expected hold, extrapolate or abort");
  }
  if (node["max_misses"]) {
    const double misses = require_number(node["max_misses"], source, "clock.max_misses");
    if (misses < 0 || misses != std::floor(misses) || misses > 1e9) {
      throw ConfigurationError(locate(source, node["max_misses"], "clock.max_misses") + ": must be a whole number >= 0");
    }
    clock.max_misses = static_cast<int>(misses);
  }
  if (node["priority"]) {
    const double priority = require_number(node["priority"], source, "clock.priority");
    if (priority < 1 || priority > 99 || priority != std::floor(priority)) {
      throw ConfigurationError(locate(source, node["priority"], "clock.priority") + ": a SCHED_FIFO priority, 1 to 99");
    }
    clock.priority = static_cast<int>(priority);
  }
  if (node["max_miss_time"]) {
    const double seconds = require_number(node["max_miss_time"], source, "clock.max_miss_time");
    if (!(seconds >= 0.0) || seconds > 86400.0) {
      throw ConfigurationError(locate(source, node["max_miss_time"], "clock.max_miss_time") +
                               ": seconds, from 0 to 86400");
    }
    clock.max_miss_time = seconds;
  }
  const bool wall_keys = node["realtime_factor"] || node["tolerance"] || node["on_late"] || node["max_misses"] ||
                         node["max_miss_time"] || node["priority"];
  if (!clock.wall && wall_keys) {
    throw ConfigurationError(locate(source, node, "clock") + ": these keys pace a wall-clock run; add type: wall");
  }
  return clock;
}

}  // namespace couplet::tools
