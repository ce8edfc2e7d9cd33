#pragma once
// Integer time. Communication times are exact int64 nanoseconds so that schedules
// are reproducible bit for bit; arithmetic inside a step uses seconds.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace couplet {

using Time = std::int64_t;  ///< nanoseconds since the scenario's time origin

inline constexpr Time kTicksPerSecond = 1'000'000'000;

/// Seconds to ticks, rounded to the nearest tick.
inline Time to_ticks(double seconds) {
  return static_cast<Time>(std::llround(seconds * static_cast<double>(kTicksPerSecond)));
}

inline double to_seconds(Time ticks) {
  return static_cast<double>(ticks) / static_cast<double>(kTicksPerSecond);
}

/// A step size computed in floating point, rounded to ticks, at least one tick.
inline Time step_to_ticks(double seconds) {
  const Time ticks = to_ticks(seconds);
  return ticks < 1 ? 1 : ticks;
}

/// "1.25" for messages: up to nine significant digits.
inline std::string seconds_text(Time time) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", to_seconds(time));
  return text;
}

}  // namespace couplet
