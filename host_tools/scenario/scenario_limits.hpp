#pragma once
// The allowed values of the numbers a scenario holds, the YAML rules beyond the
// syntax, and the sizes derived from the numbers (docs/scenarios.md, "Allowed
// values"). Every number is checked here before anything is sized from it: a
// step of 1e-300 s or a grid of 1e-9 s is an error naming the key and the range,
// not a run that fills the disk or a validation that fills the memory.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace couplet {
class Algorithm;
class System;
}  // namespace couplet

namespace couplet::tools {

struct Scenario;

/// The accepted values of one kind of number. NaN and infinities are never in a range.
struct NumberRange {
  double minimum = 0.0;
  double maximum = 0.0;
  const char* unit = "";      ///< " s", " per second", ... (with its leading space)
  bool zero_allowed = false;  ///< 0 is accepted too (e.g. "no bound"), below `minimum`
  bool whole = false;         ///< a whole number
};

/// A scenario file larger than this is refused before it is read: room for a
/// generated system of 10 000 slaves (a 5000-segment chain is 2.9 MB; the run
/// log keeps the text in 32 KiB parts), while bounding what yaml-cpp builds
/// from the text: 4 MiB of one-character values parse in 3 s and 1 GB before
/// kMaxYamlNodes refuses them (docs/scenarios.md).
inline constexpr std::uintmax_t kMaxScenarioFileBytes = 4 * 1024 * 1024;
/// Nested maps and lists deeper than this are refused (a scenario needs 5).
inline constexpr int kMaxYamlDepth = 32;
/// Nodes visited when checking the keys, aliases counted each time they are used.
inline constexpr std::size_t kMaxYamlNodes = 200'000;

/// Times: |time.start|, |time.end| and the horizon, seconds (int64 ns hold ±292 years).
inline constexpr double kMaxTime = 1e8;
/// The shortest step, grid spacing or horizon: a microsecond.
inline constexpr double kMinDuration = 1e-6;

/// Sizes derived from the numbers; `limits:` in the scenario raises them.
struct ScenarioLimits {
  double grid_points =
      1e7;  ///< evaluation grid points over the horizon (memory: 8 B per output each)
  double macro_steps = 1e8;  ///< macro steps of a fixed-step algorithm over the horizon
  std::uint64_t run_log_bytes = std::uint64_t{64}
                                << 30;  ///< the run log, all segments: stopped above
  std::uint64_t run_log_segment_bytes = std::uint64_t{1} << 30;  ///< one file of the run log
};

namespace ranges {
/// A step or duration inside the horizon: [1 µs, horizon]; `maximum` is set per scenario.
NumberRange step(double horizon);
/// A bound on steps, which may exceed the horizon: [1 µs, 1e8 s].
NumberRange step_bound();
/// Relative tolerances: [1e-15, 1].
NumberRange relative_tolerance();
/// Absolute tolerances, in the units of the signals: [1e-20, 1e10].
NumberRange absolute_tolerance();
/// A whole number in [minimum, maximum].
NumberRange count(double minimum, double maximum);
}  // namespace ranges

/// `node` as a number within `range`, or a ConfigurationError
/// "file:line: key: VALUE is out of range (allowed: ...)".
double bounded_number(const YAML::Node& node, const std::string& source, const std::string& key,
                      const NumberRange& range);

/// "1e-06", "2.5": a number as the messages write it (%g).
std::string number_text(double value);

/// "from 1e-06 to 10 s", "0, or from ...": the range as the messages and docs say it.
std::string describe_range(const NumberRange& range);

/// The text of a scenario file; refuses a file larger than kMaxScenarioFileBytes
/// (reading at most one byte more, so that /dev/zero or a pipe fails at once),
/// a directory or an unreadable file, naming the file.
std::string read_scenario_file(const std::string& path);

/// Rejects duplicate keys (naming the lines of both), keys that are not scalars,
/// nesting deeper than kMaxYamlDepth and documents larger than kMaxYamlNodes.
void check_yaml_structure(const YAML::Node& root, const std::string& source);

/// A fixed macro step of `step` seconds over the scenario's horizon takes at most
/// limits.macro_steps steps; else a ConfigurationError naming `key` and the limit.
void check_macro_steps(const YAML::Node& node, const Scenario& scenario, const std::string& key,
                       double step);

/// The fewest bytes the run log of the scenario's `system` takes
/// (couplet::least_run_log_bytes) under `algorithm`: its macro steps at the longest step the
/// algorithm may take (algorithm.step, or max_step for the variable-step ones)
/// and its `grid_points` evaluation grid points.
std::uint64_t least_run_log_bytes(const Scenario& scenario, const System& system,
                                  const Algorithm& algorithm, std::size_t grid_points);

/// Before a run that writes a plain log: a ConfigurationError when
/// least_run_log_bytes() exceeds limits.run_log_bytes, saying what to change.
/// (A compressed log's size depends on its signals: its budget is enforced as
/// it grows.)
void check_run_log_projection(const Scenario& scenario, const System& system,
                              const Algorithm& algorithm, std::size_t grid_points);

/// The `limits:` section (absent: the defaults).
ScenarioLimits parse_limits(const YAML::Node& node, const std::string& source);

}  // namespace couplet::tools
