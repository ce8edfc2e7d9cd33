#include "host_tools/scenario/scenario_limits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/run_log_projection.hpp"

namespace couplet::tools {

namespace {

bool within(double value, const NumberRange& range) {
  if (!std::isfinite(value)) return false;
  if (range.whole && std::floor(value) != value) return false;
  if (range.zero_allowed && value == 0.0) return true;
  return value >= range.minimum && value <= range.maximum;
}

// Walks every node once per use, so that an alias used a million times counts a
// million times: the walk is bounded whatever the document.
class StructureCheck {
 public:
  explicit StructureCheck(const std::string& source) : source_(source) {}

  void visit(const YAML::Node& node, const std::string& path, int depth) {
    if (++visited_ > kMaxYamlNodes) {
      throw ConfigurationError(locate(source_, node, path.empty() ? "(document)" : path) +
                               ": the scenario holds more than " + std::to_string(kMaxYamlNodes) +
                               " values (aliases counted each time they are used)");
    }
    if (depth > kMaxYamlDepth) {
      throw ConfigurationError(locate(source_, node, path) + ": nested deeper than " +
                               std::to_string(kMaxYamlDepth) + " levels");
    }
    if (node.IsSequence()) {
      for (std::size_t k = 0; k < node.size(); ++k)
        visit(node[k], path + "[" + std::to_string(k) + "]", depth + 1);
    } else if (node.IsMap()) {
      visit_map(node, path, depth);
    }
  }

 private:
  void visit_map(const YAML::Node& node, const std::string& path, int depth) {
    std::map<std::string, int, std::less<>> lines;  // key → line of its first occurrence
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        throw ConfigurationError(locate(source_, entry.first, path.empty() ? "(top level)" : path) +
                                 ": a key must be a plain name, not a map, a list or null");
      }
      const std::string key = entry.first.Scalar();
      const std::string key_path = path.empty() ? key : path + "." + key;
      const int line = entry.first.Mark().line;  // 1-based: see locate()
      const auto [first, inserted] = lines.emplace(key, line);
      if (!inserted) {
        throw ConfigurationError(locate(source_, entry.first, key_path) +
                                 ": duplicate key (first at line " + std::to_string(first->second) +
                                 "; YAML keeps only one of them)");
      }
      visit(entry.second, key_path, depth + 1);
    }
  }

  const std::string& source_;
  std::size_t visited_ = 0;
};

NumberRange whole_range(double minimum, double maximum) {
  return {minimum, maximum, "", false, true};
}

}  // namespace

namespace ranges {
NumberRange step(double horizon) {
  return {kMinDuration, horizon, " s"};
}
NumberRange step_bound() {
  return {kMinDuration, kMaxTime, " s"};
}
NumberRange relative_tolerance() {
  return {1e-15, 1.0, ""};
}
NumberRange absolute_tolerance() {
  return {1e-20, 1e10, ""};
}
NumberRange count(double minimum, double maximum) {
  return whole_range(minimum, maximum);
}
}  // namespace ranges

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string describe_range(const NumberRange& range) {
  std::string text = range.whole ? "a whole number " : "";
  if (range.zero_allowed) text += "0, or ";
  text += "from " + number_text(range.minimum) + " to " + number_text(range.maximum) + range.unit;
  return text;
}

double bounded_number(const YAML::Node& node, const std::string& source, const std::string& key,
                      const NumberRange& range) {
  const double value = require_number(node, source, key);
  if (within(value, range)) return value;
  throw ConfigurationError(locate(source, node, key) + ": " + number_text(value) +
                           " is out of range (allowed: " + describe_range(range) + ")");
}

std::string read_scenario_file(const std::string& path) {
  const std::string limit = std::to_string(kMaxScenarioFileBytes / 1024) + " KiB";
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    throw ConfigurationError("cannot open scenario file '" + path + "': no such file");
  if (std::filesystem::is_directory(status))
    throw ConfigurationError("scenario file '" + path + "' is a directory");
  // A regular file is refused by its size, before reading a byte of it.
  if (std::filesystem::is_regular_file(status)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error && size > kMaxScenarioFileBytes) {
      throw ConfigurationError("scenario file '" + path + "' is " + std::to_string(size) +
                               " bytes, more than a scenario may hold (" + limit + ")");
    }
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ConfigurationError("cannot open scenario file '" + path + "'");
  // A device or a pipe has no size: read one byte more than allowed, not to its end.
  std::string text(kMaxScenarioFileBytes + 1, '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (file.bad()) throw ConfigurationError("cannot read scenario file '" + path + "'");
  text.resize(static_cast<std::size_t>(file.gcount()));
  if (text.size() > kMaxScenarioFileBytes) {
    throw ConfigurationError("scenario file '" + path + "' holds more than a scenario may (" +
                             limit + "); is it a scenario?");
  }
  return text;
}

void check_yaml_structure(const YAML::Node& root, const std::string& source) {
  StructureCheck(source).visit(root, "", 0);
}

void check_macro_steps(const YAML::Node& node, const Scenario& scenario, const std::string& key,
                       double step) {
  const double steps = std::ceil(scenario.horizon() / step);
  if (steps <= scenario.limits.macro_steps) return;
  char text[192];
  std::snprintf(
      text, sizeof text,
      ": %g s makes %.4g macro steps over the %g s horizon, more than limits.macro_steps (%.4g): "
      "take a longer step or raise limits.macro_steps",
      step, steps, scenario.horizon(), scenario.limits.macro_steps);
  throw ConfigurationError(locate(scenario.source, node, key) + text);
}

std::uint64_t least_run_log_bytes(const Scenario& scenario, const System& system,
                                  const Algorithm& algorithm, std::size_t grid_points) {
  const double steps =
      std::min(std::ceil(scenario.horizon() / scenario.algorithm.longest_step), 1e18);
  return least_run_log_bytes(
      system, {static_cast<std::uint64_t>(steps), grid_points, to_ticks(scenario.end),
               algorithm.requirements().required_input_degree});
}

void check_run_log_projection(const Scenario& scenario, const System& system,
                              const Algorithm& algorithm, std::size_t grid_points) {
  const std::uint64_t least = least_run_log_bytes(scenario, system, algorithm, grid_points);
  if (least <= scenario.limits.run_log_bytes) return;
  char text[320];
  std::snprintf(
      text, sizeof text,
      ": the run log would take at least %.3g GB (%.4g macro steps of %g s, %zu grid points), more "
      "than "
      "limits.run_log_bytes (%.3g GB): take a longer algorithm.step, raise limits.run_log_bytes, "
      "compress the log (--compress-log) or run with --no-log",
      static_cast<double>(least) * 1e-9,
      std::ceil(scenario.horizon() / scenario.algorithm.longest_step),
      scenario.algorithm.longest_step, grid_points,
      static_cast<double>(scenario.limits.run_log_bytes) * 1e-9);
  throw ConfigurationError(scenario.source + text);
}

ScenarioLimits parse_limits(const YAML::Node& node, const std::string& source) {
  ScenarioLimits limits;
  if (!node || node.IsNull()) return limits;
  check_keys(node, source, "limits",
             {"grid_points", "macro_steps", "run_log_bytes", "run_log_segment_bytes"});
  if (node["grid_points"])
    limits.grid_points =
        bounded_number(node["grid_points"], source, "limits.grid_points", whole_range(1, 1e9));
  if (node["macro_steps"])
    limits.macro_steps =
        bounded_number(node["macro_steps"], source, "limits.macro_steps", whole_range(1, 1e12));
  if (node["run_log_bytes"]) {
    limits.run_log_bytes = static_cast<std::uint64_t>(bounded_number(
        node["run_log_bytes"], source, "limits.run_log_bytes", whole_range(1 << 20, 1e14)));
  }
  if (node["run_log_segment_bytes"]) {
    limits.run_log_segment_bytes = static_cast<std::uint64_t>(
        bounded_number(node["run_log_segment_bytes"], source, "limits.run_log_segment_bytes",
                       whole_range(1 << 20, 1e14)));
  }
  return limits;
}

}  // namespace couplet::tools
