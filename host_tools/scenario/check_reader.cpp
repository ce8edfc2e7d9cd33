#include "host_tools/scenario/check_reader.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/scenario_limits.hpp"

namespace couplet::tools {

namespace {

/// What one check's reader needs besides its node.
struct CheckContext {
  const std::string& source;
  double start;
  double end;
  bool monolithic_reference;
  bool wall_clock;
};

/// Reads the numbers and flags of one check, naming "checks[k].key" in errors.
class CheckReader {
 public:
  CheckReader(const YAML::Node& node, const CheckContext& context, std::string path)
      : node_(node), context_(context), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string key(const std::string& name) const { return path_ + "." + name; }
  std::string where(const YAML::Node& node, const std::string& name) const {
    return locate(context_.source, node, key(name));
  }

  double finite(const YAML::Node& node, const std::string& name) const {
    const double value = require_number(node, context_.source, key(name));
    if (!std::isfinite(value))
      throw ConfigurationError(where(node, name) + ": expected a finite number");
    return value;
  }

  double at_least_zero(const YAML::Node& node, const std::string& name, const char* unit) const {
    const double value = finite(node, name);
    if (value < 0.0) {
      throw ConfigurationError(where(node, name) + ": " + number_text(value) +
                               " is out of range (allowed: 0 or more" + unit + ")");
    }
    return value;
  }

  /// A time of the run: within [time.start, time.end].
  double run_time(const YAML::Node& node, const std::string& name) const {
    const double value = finite(node, name);
    if (value < context_.start || value > context_.end) {
      throw ConfigurationError(
          where(node, name) + ": " + number_text(value) + " s is outside the run (allowed: from " +
          number_text(context_.start) + " to " + number_text(context_.end) + " s)");
    }
    return value;
  }

  bool flag(const YAML::Node& node, const std::string& name) const {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      throw ConfigurationError(where(node, name) + ": expected true or false");
    }
  }

  /// `map` is a map of exactly the keys `allowed`, of which `required` must be given.
  void map_of(const YAML::Node& map, const std::string& name,
              const std::vector<std::string>& allowed,
              const std::vector<std::string>& required) const {
    check_keys(map, context_.source, key(name), allowed);
    for (const std::string& needed : required) {
      if (!map[needed]) throw ConfigurationError(where(map, name) + ": needs '" + needed + "'");
    }
  }

  const CheckContext& context() const { return context_; }
  const YAML::Node& node() const { return node_; }

 private:
  const YAML::Node& node_;
  const CheckContext& context_;
  std::string path_;
};

const std::vector<std::string> kCheckKeys{
    "name",    "signal", "stop_on_failure", "min",     "max",      "from",    "to",
    "settles", "at",     "matches",         "reaches", "realtime", "accuracy"};

CheckKind kind_of(const CheckReader& reader) {
  const YAML::Node& node = reader.node();
  std::vector<std::pair<CheckKind, std::string>> found;
  if (node["min"] || node["max"]) found.emplace_back(CheckKind::bounds, "min/max");
  for (const auto& [kind, key] : {std::pair{CheckKind::settles, "settles"},
                                  {CheckKind::at, "at"},
                                  {CheckKind::matches, "matches"},
                                  {CheckKind::reaches, "reaches"},
                                  {CheckKind::realtime, "realtime"},
                                  {CheckKind::accuracy, "accuracy"}}) {
    if (node[key]) found.emplace_back(kind, key);
  }
  if (found.size() == 1) return found.front().first;
  std::string given;
  for (const auto& [kind, key] : found) given += (given.empty() ? "" : ", ") + key;
  throw ConfigurationError(
      locate(reader.context().source, node, reader.path()) +
      ": needs exactly one of min/max, settles, at, matches, reaches, realtime, "
      "accuracy" +
      (found.empty() ? std::string(" (none given)") : " (given: " + given + ")"));
}

void read_window(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node& node = reader.node();
  if (node["from"]) check.from = reader.run_time(node["from"], "from");
  if (node["to"]) check.to = reader.run_time(node["to"], "to");
  if (check.from && check.to && *check.from > *check.to) {
    throw ConfigurationError(reader.where(node["to"], "to") + ": " + number_text(*check.to) +
                             " s is before from (" + number_text(*check.from) + " s)");
  }
}

void read_bounds(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node& node = reader.node();
  if (node["min"]) check.min = reader.finite(node["min"], "min");
  if (node["max"]) check.max = reader.finite(node["max"], "max");
  if (check.min && check.max && *check.min > *check.max) {
    throw ConfigurationError(reader.where(node["max"], "max") + ": " + number_text(*check.max) +
                             " is below min (" + number_text(*check.min) + ")");
  }
}

void read_settles(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["settles"];
  reader.map_of(map, "settles", {"value", "tolerance", "by"}, {"value", "tolerance", "by"});
  check.value = reader.finite(map["value"], "settles.value");
  check.tolerance = reader.at_least_zero(map["tolerance"], "settles.tolerance", "");
  check.time = reader.run_time(map["by"], "settles.by");
}

void read_at(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["at"];
  reader.map_of(map, "at", {"time", "value", "tolerance"}, {"time", "value", "tolerance"});
  check.time = reader.run_time(map["time"], "at.time");
  check.value = reader.finite(map["value"], "at.value");
  check.tolerance = reader.at_least_zero(map["tolerance"], "at.tolerance", "");
}

void read_matches(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["matches"];
  reader.map_of(map, "matches", {"file", "column", "tolerance", "relative"},
                {"file", "column", "tolerance"});
  const std::string& source = reader.context().source;
  const std::filesystem::path file =
      require_string(map["file"], source, reader.key("matches.file"));
  check.file =
      (file.is_absolute() ? file : std::filesystem::path(source).parent_path() / file).string();
  check.column = require_string(map["column"], source, reader.key("matches.column"));
  check.tolerance = reader.at_least_zero(map["tolerance"], "matches.tolerance", "");
  if (map["relative"]) check.relative = reader.flag(map["relative"], "matches.relative");
}

void read_reaches(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["reaches"];
  reader.map_of(map, "reaches", {"above", "below", "before"}, {"before"});
  if ((map["above"] ? 1 : 0) + (map["below"] ? 1 : 0) != 1) {
    throw ConfigurationError(reader.where(map, "reaches") +
                             ": needs exactly one of 'above' and 'below'");
  }
  check.above = static_cast<bool>(map["above"]);
  check.level = reader.finite(check.above ? map["above"] : map["below"],
                              check.above ? "reaches.above" : "reaches.below");
  check.time = reader.run_time(map["before"], "reaches.before");
}

void read_realtime(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["realtime"];
  reader.map_of(map, "realtime", {"max_overruns", "max_p99_lateness"}, {});
  if (!map["max_overruns"] && !map["max_p99_lateness"]) {
    throw ConfigurationError(reader.where(map, "realtime") +
                             ": needs max_overruns or max_p99_lateness (or both)");
  }
  if (map["max_overruns"]) {
    check.max_overruns = static_cast<std::uint64_t>(
        bounded_number(map["max_overruns"], reader.context().source,
                       reader.key("realtime.max_overruns"), ranges::count(0, 1e15)));
  }
  if (map["max_p99_lateness"])
    check.max_p99_lateness =
        reader.at_least_zero(map["max_p99_lateness"], "realtime.max_p99_lateness", " s");
  if (!reader.context().wall_clock) {
    throw ConfigurationError(reader.where(map, "realtime") +
                             ": the run is in virtual time, so it has no lateness to check "
                             "(the scenario needs clock: {type: wall})");
  }
}

void read_accuracy(const CheckReader& reader, CheckSpec& check) {
  const YAML::Node map = reader.node()["accuracy"];
  reader.map_of(map, "accuracy", {"signal", "max_nrmse"}, {"signal", "max_nrmse"});
  check.signal =
      require_string(map["signal"], reader.context().source, reader.key("accuracy.signal"));
  check.max_nrmse = reader.at_least_zero(map["max_nrmse"], "accuracy.max_nrmse", " %");
  if (!reader.context().monolithic_reference) {
    throw ConfigurationError(
        reader.where(map, "accuracy") +
        ": compares against the monolithic reference, which the scenario does not "
        "ask for (add reference: monolithic)");
  }
}

/// The keys of `check`'s kind only: a `from` on a `settles` check would be ignored.
void refuse_keys_of_other_kinds(const CheckReader& reader, const CheckSpec& check) {
  const YAML::Node& node = reader.node();
  const bool has_signal = check.kind != CheckKind::realtime && check.kind != CheckKind::accuracy;
  const bool windowed = check.kind == CheckKind::bounds || check.kind == CheckKind::matches;
  const auto refuse = [&](const char* key, const std::string& why) {
    if (node[key]) throw ConfigurationError(reader.where(node[key], key) + ": " + why);
  };
  const std::string kind(check_kind_name(check.kind));
  if (has_signal && !node["signal"]) {
    throw ConfigurationError(locate(reader.context().source, node, reader.path()) +
                             ": needs 'signal' (slave.output)");
  }
  if (check.kind == CheckKind::realtime)
    refuse("signal", "a realtime check is about the whole run");
  if (check.kind == CheckKind::accuracy)
    refuse("signal", "an accuracy check names its signal inside: accuracy: {signal, max_nrmse}");
  if (!windowed) {
    refuse("from", "only bounds (min/max) and matches checks take a window, not " + kind);
    refuse("to", "only bounds (min/max) and matches checks take a window, not " + kind);
  }
  if (!has_signal) {
    refuse("stop_on_failure",
           "a " + kind + " check is decided when the run has ended, so it cannot stop it");
  }
}

CheckSpec parse_check(const YAML::Node& node, const CheckContext& context, std::size_t index) {
  const std::string path = "checks[" + std::to_string(index) + "]";
  check_keys(node, context.source, path, kCheckKeys);
  if (!node["name"])
    throw ConfigurationError(locate(context.source, node, path) + ": needs 'name'");
  CheckSpec check;
  check.name = require_string(node["name"], context.source, path + ".name");
  if (check.name.empty())
    throw ConfigurationError(locate(context.source, node["name"], path + ".name") +
                             ": must not be empty");
  const CheckReader reader(node, context, path);
  check.kind = kind_of(reader);
  refuse_keys_of_other_kinds(reader, check);
  if (node["signal"])
    check.signal = require_string(node["signal"], context.source, path + ".signal");
  if (node["stop_on_failure"])
    check.stop_on_failure = reader.flag(node["stop_on_failure"], "stop_on_failure");
  read_window(reader, check);
  switch (check.kind) {
    case CheckKind::bounds:
      read_bounds(reader, check);
      break;
    case CheckKind::settles:
      read_settles(reader, check);
      break;
    case CheckKind::at:
      read_at(reader, check);
      break;
    case CheckKind::matches:
      read_matches(reader, check);
      break;
    case CheckKind::reaches:
      read_reaches(reader, check);
      break;
    case CheckKind::realtime:
      read_realtime(reader, check);
      break;
    case CheckKind::accuracy:
      read_accuracy(reader, check);
      break;
  }
  check.where = locate(context.source, node, path) + " '" + check.name + "'";
  return check;
}

// --- the CSV trace of `matches:` ---

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\"");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\"");
  return std::string(text.substr(first, last - first + 1));
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = line.find(',', begin);
    fields.push_back(trimmed(std::string_view(line).substr(begin, comma - begin)));
    if (comma == std::string::npos) return fields;
    begin = comma + 1;
  }
}

std::optional<double> csv_number(const std::string& field) {
  double value = 0.0;
  const char* end = field.data() + field.size();
  const auto [stop, error] = std::from_chars(field.data(), end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::size_t column_index(const std::vector<std::string>& header, const std::string& name,
                         const std::string& file_where) {
  for (std::size_t k = 0; k < header.size(); ++k) {
    if (header[k] == name) return k;
  }
  std::string listed;
  for (const std::string& field : header) listed += (listed.empty() ? "" : ", ") + field;
  throw ConfigurationError(file_where + ": no column '" + name + "' (columns: " + listed + ")");
}

}  // namespace

std::vector<CheckSpec> parse_checks(const YAML::Node& node, const std::string& source,
                                    double scenario_start, double scenario_end,
                                    bool monolithic_reference, bool wall_clock) {
  std::vector<CheckSpec> checks;
  if (!node || node.IsNull()) return checks;
  if (!node.IsSequence()) {
    throw ConfigurationError(
        locate(source, node, "checks") +
        ": must be a list of checks ({name, signal, max: ...}, docs/scenarios.md)");
  }
  const CheckContext context{source, scenario_start, scenario_end, monolithic_reference,
                             wall_clock};
  std::set<std::string, std::less<>> names;
  for (std::size_t k = 0; k < node.size(); ++k) {
    CheckSpec check = parse_check(node[k], context, k);
    if (!names.insert(check.name).second) {
      throw ConfigurationError(check.where + ": the name is already used by an earlier check");
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

CheckTrace read_check_trace(const CheckSpec& check, double scenario_start, double scenario_end) {
  const std::string at = check.where + ": matches.file";
  std::ifstream file(check.file);
  if (!std::filesystem::is_regular_file(check.file) || !file) {
    throw ConfigurationError(at + ": cannot read '" + check.file + "'");
  }
  std::string line;
  if (!std::getline(file, line)) throw ConfigurationError(at + ": '" + check.file + "' is empty");
  const std::vector<std::string> header = csv_fields(line);
  const std::size_t time_column = column_index(header, "time", at + ": '" + check.file + "'");
  const std::size_t value_column =
      column_index(header, check.column, at + ": '" + check.file + "'");
  CheckTrace trace;
  for (std::size_t row = 2; std::getline(file, line); ++row) {
    if (trimmed(line).empty()) continue;
    const std::vector<std::string> fields = csv_fields(line);
    const std::string row_where = check.file + ":" + std::to_string(row);
    const auto field = [&](std::size_t column) {
      const std::optional<double> number =
          column < fields.size() ? csv_number(fields[column]) : std::nullopt;
      if (!number) {
        throw ConfigurationError(at + ": " + row_where + ": column '" + header[column] +
                                 "' is not a finite number");
      }
      return *number;
    };
    const double time = field(time_column);
    if (!trace.times.empty() && time <= trace.times.back()) {
      throw ConfigurationError(at + ": " + row_where + ": time " + number_text(time) +
                               " does not increase");
    }
    trace.times.push_back(time);
    trace.values.push_back(field(value_column));
  }
  const double from = check.from.value_or(scenario_start);
  const double to = check.to.value_or(scenario_end);
  if (trace.times.size() < 2 || trace.times.front() > from || trace.times.back() < to) {
    throw ConfigurationError(
        at + ": '" + check.file + "' must cover the checked window from " + number_text(from) +
        " to " + number_text(to) + " s with at least two rows" +
        (trace.times.empty() ? std::string(" (it has none)")
                             : " (it covers " + number_text(trace.times.front()) + " to " +
                                   number_text(trace.times.back()) + " s)"));
  }
  return trace;
}

}  // namespace couplet::tools
