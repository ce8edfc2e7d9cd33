#pragma once
// One check of a scenario's `checks:` list, typed (docs/scenarios.md#checks):
// what host_tools/scenario/check_reader.cpp reads from the YAML and
// host_tools/checks/check_evaluator.cpp evaluates.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace couplet::tools {

enum class CheckKind { bounds, settles, at, matches, reaches, realtime, accuracy };

/// "bounds", "settles", ...: the kind as summary.json `checks[].kind` writes it.
constexpr std::string_view check_kind_name(CheckKind kind) {
  switch (kind) {
    case CheckKind::bounds:
      return "bounds";
    case CheckKind::settles:
      return "settles";
    case CheckKind::at:
      return "at";
    case CheckKind::matches:
      return "matches";
    case CheckKind::reaches:
      return "reaches";
    case CheckKind::realtime:
      return "realtime";
    case CheckKind::accuracy:
      return "accuracy";
  }
  return "bounds";
}

/// A trace of `matches:` read from its CSV file: strictly increasing times.
struct CheckTrace {
  std::vector<double> times;
  std::vector<double> values;
};

struct CheckSpec {
  std::string name;
  CheckKind kind = CheckKind::bounds;
  /// "slave.output" the check looks at; empty for `realtime`. `accuracy`
  /// names its signal inside its map, copied here.
  std::string signal;
  bool stop_on_failure = false;
  /// bounds, matches: the window looked at, seconds (absent: the whole run).
  std::optional<double> from;
  std::optional<double> to;

  std::optional<double> min;  ///< bounds
  std::optional<double> max;  ///< bounds
  double value = 0.0;         ///< settles, at: the expected value
  double tolerance = 0.0;     ///< settles, at, matches
  double time = 0.0;          ///< settles: `by`; at: `time`; reaches: `before`
  double level = 0.0;         ///< reaches: the level to go above or below
  bool above = true;          ///< reaches: above (true) or below (false)
  bool relative = false;      ///< matches: tolerance × |trace value|
  std::string file;           ///< matches: the CSV, resolved against the scenario's directory
  std::string column;         ///< matches: the column of the CSV
  std::optional<std::uint64_t> max_overruns;  ///< realtime
  std::optional<double> max_p99_lateness;     ///< realtime, seconds
  double max_nrmse = 0.0;                     ///< accuracy, percent

  std::string where;  ///< "file:line: checks[2] 'name'" for messages
};

}  // namespace couplet::tools
