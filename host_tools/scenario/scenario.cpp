#include "host_tools/scenario/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#include "couplet/errors.hpp"
#include "host_tools/scenario/algorithm_reader.hpp"
#include "host_tools/scenario/clock_spec.hpp"
#include "host_tools/scenario/connection_converter.hpp"
#include "host_tools/scenario/scenario_file_path.hpp"
#include "host_tools/scenario/ssp_import.hpp"

namespace couplet::tools {

namespace {

// Far beyond any use, small enough that an int holds them.
constexpr double kMaxEulerSubsteps = 1e6;
constexpr double kMaxDeclaredOrder = 1e3;

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream stream(path);
  std::string part;
  while (std::getline(stream, part, '.')) {
    if (part.empty()) throw ConfigurationError("--set: empty element in key path '" + path + "'");
    parts.push_back(part);
  }
  return parts;
}

// Recursion rather than rebinding a YAML::Node cursor: assigning one Node to
// another copies content in yaml-cpp, which would corrupt the document.
void set_path(YAML::Node node, const std::vector<std::string>& parts, std::size_t index,
              const YAML::Node& value) {
  if (index + 1 == parts.size()) {
    node[parts[index]] = value;
    return;
  }
  if (!node[parts[index]] || !node[parts[index]].IsMap())
    node[parts[index]] = YAML::Node(YAML::NodeType::Map);
  set_path(node[parts[index]], parts, index + 1, value);
}

models::SolverSettings parse_solver(const YAML::Node& node, const std::string& source,
                                    const std::string& path, double horizon) {
  models::SolverSettings settings;
  if (!node) return settings;
  check_keys(node, source, path,
             {"type", "method", "rtol", "atol", "max_step", "substeps", "history"});
  if (node["type"]) {
    settings.kind =
        require_choice<models::SolverKind>(node["type"], source, path + ".type", "solver",
                                           {{"cvode", models::SolverKind::cvode},
                                            {"euler", models::SolverKind::euler},
                                            {"exact", models::SolverKind::exact}});
  }
  if (node["method"]) {
    settings.method = require_choice<models::CvodeMethod>(
        node["method"], source, path + ".method", "CVODE method",
        {{"bdf", models::CvodeMethod::bdf}, {"adams", models::CvodeMethod::adams}});
  }
  if (node["history"]) {
    settings.history = require_choice<models::CvodeHistory>(
        node["history"], source, path + ".history", "CVODE history",
        {{"restart", models::CvodeHistory::restart}, {"keep", models::CvodeHistory::keep}});
  }
  const auto read = [&](const char* key, double& target, const NumberRange& range) {
    if (node[key]) target = bounded_number(node[key], source, path + "." + key, range);
  };
  read("rtol", settings.relative_tolerance, ranges::relative_tolerance());
  read("atol", settings.absolute_tolerance, ranges::absolute_tolerance());
  read("max_step", settings.max_internal_step, ranges::step(horizon));
  if (node["substeps"]) {
    settings.euler_substeps = static_cast<int>(bounded_number(
        node["substeps"], source, path + ".substeps", ranges::count(1, kMaxEulerSubsteps)));
  }
  return settings;
}

models::CapabilityLimits parse_capabilities(const YAML::Node& node, const std::string& source,
                                            const std::string& path, double horizon) {
  models::CapabilityLimits limits;
  if (!node) return limits;
  check_keys(node, source, path,
             {"max_input_degree", "output_derivative_order", "imposed_step", "rollback",
              "intermediate_samples"});
  const auto whole = [&](const char* key) {
    return static_cast<int>(
        bounded_number(node[key], source, path + "." + key, ranges::count(0, kMaxDeclaredOrder)));
  };
  const auto flag = [&](const char* key, bool& target) {
    if (node[key]) target = require_flag(node[key], source, path + "." + key);
  };
  if (node["max_input_degree"]) limits.max_input_degree = whole("max_input_degree");
  if (node["output_derivative_order"])
    limits.output_derivative_order = whole("output_derivative_order");
  if (node["imposed_step"]) {
    limits.imposed_step = step_to_ticks(bounded_number(
        node["imposed_step"], source, path + ".imposed_step", ranges::step(horizon)));
  }
  flag("rollback", limits.can_rollback);
  flag("intermediate_samples", limits.intermediate_samples);
  return limits;
}

// `executor: sequential`, `executor: threads` (one thread per core) or the map
// `{type: sequential | threads, threads: N}`.
ExecutorSettings parse_executor(const YAML::Node& node, const std::string& source) {
  ExecutorSettings settings;
  if (!node || node.IsNull()) return settings;
  const YAML::Node type = node.IsMap() ? node["type"] : node;
  if (node.IsMap()) check_keys(node, source, "executor", {"type", "threads"});
  if (!type)
    throw ConfigurationError(locate(source, node, "executor") +
                             ": needs 'type' (sequential or threads)");
  const std::string path = node.IsMap() ? "executor.type" : "executor";
  settings.type =
      require_choice<ExecutorSettings::Type>(type, source, path, "executor",
                                             {{"sequential", ExecutorSettings::Type::sequential},
                                              {"threads", ExecutorSettings::Type::threads}});
  if (settings.type == ExecutorSettings::Type::threads) {
    settings.threads = std::max(1U, std::thread::hardware_concurrency());
  }
  if (node.IsMap() && node["threads"]) {
    if (settings.type != ExecutorSettings::Type::threads) {
      throw ConfigurationError(locate(source, node["threads"], "executor.threads") +
                               ": only with executor.type threads");
    }
    settings.threads = static_cast<std::size_t>(
        bounded_number(node["threads"], source, "executor.threads",
                       ranges::count(1, static_cast<double>(kMaxExecutorThreads))));
  }
  return settings;
}

// stimulus.table plays a file, which catalog parameters (numbers) cannot name:
// its settings are keys of the slave.
void parse_table_settings(const YAML::Node& node, const std::string& source,
                          const std::string& path, SlaveSpec& spec) {
  const bool is_table = spec.model == models::kTableStimulusName;
  for (const char* key : {"file", "interpolation"}) {
    if (node[key] && !is_table) {
      throw ConfigurationError(locate(source, node[key], path + "." + key) +
                               ": only with model: " + models::kTableStimulusName);
    }
  }
  if (!is_table) return;
  if (!node["file"]) {
    throw ConfigurationError(spec.where + ": " + models::kTableStimulusName +
                             " needs 'file' (a CSV file, relative to the scenario file)");
  }
  if (node["parameters"]) {
    throw ConfigurationError(locate(source, node["parameters"], path + ".parameters") + ": " +
                             models::kTableStimulusName +
                             " has no parameters (its settings are 'file' and 'interpolation')");
  }
  if (node["link"]) {
    throw ConfigurationError(locate(source, node["link"], path + ".link") + ": " +
                             models::kTableStimulusName +
                             " is played on the host: couplet-target cannot read its file");
  }
  spec.table_file = resolve_scenario_file(require_string(node["file"], source, path + ".file"),
                                          source, locate(source, node["file"], path + ".file"));
  if (node["interpolation"]) {
    spec.table_interpolation = require_choice<models::TableInterpolation>(
        node["interpolation"], source, path + ".interpolation", "interpolation",
        {{"hold", models::TableInterpolation::hold},
         {"linear", models::TableInterpolation::linear}});
  }
}

// Seconds a request may compute: from a millisecond (below that a busy target
// is not hung) to a day; 0 switches the limit off.
constexpr NumberRange kMaxStepTimeRange{1e-3, 86400.0, " s", true};

/// `isolate` and `max_step_time` (docs/fmi.md "Isolated FMUs", docs/links.md
/// "Liveness"): an isolated slave gets the link of a spawned couplet-target
/// on the loopback interface, which couplet-target serves as it serves any
/// spawned slave.
void parse_isolation(const YAML::Node& node, const std::string& source, const std::string& path,
                     SlaveSpec& spec) {
  if (const YAML::Node isolate = node["isolate"]) {
    const bool isolated = require_flag(isolate, source, path + ".isolate");
    const std::string where = locate(source, isolate, path + ".isolate");
    if (isolated && spec.link) {
      throw ConfigurationError(where +
                               ": a slave behind a link runs in another process already; "
                               "isolate: true runs it in a child process on a link of its own "
                               "(give one of them)");
    }
    if (isolated && !spec.table_file.empty()) {
      throw ConfigurationError(where + ": " + models::kTableStimulusName +
                               " is played on the host: couplet-target cannot read its file");
    }
    if (isolated) {
      LinkSpec link;
      link.udp = "127.0.0.1:0";
      link.spawn = true;
      link.where = where;
      spec.link = link;
    }
  }
  if (const YAML::Node limit = node["max_step_time"]) {
    if (!spec.link) {
      throw ConfigurationError(
          locate(source, limit, path + ".max_step_time") +
          ": applies to a slave in another process (isolate: true, or a link): a step of "
          "the master's own process cannot be stopped");
    }
    spec.max_step_time = bounded_number(limit, source, path + ".max_step_time", kMaxStepTimeRange);
  }
}

/// A parameter: a number, or true/false for a Boolean one (1 and 0).
double parameter_value(const YAML::Node& node, const std::string& source, const std::string& key) {
  if (node.IsScalar() && node.Tag() != "!") {  // a quoted "true" stays text
    const std::string& text = node.Scalar();
    if (text == "true") return 1.0;
    if (text == "false") return 0.0;
  }
  return require_number(node, source, key);
}

SlaveSpec parse_slave(const std::string& name, const YAML::Node& node, const std::string& source,
                      double horizon) {
  const std::string path = "slaves." + name;
  if (!node.IsMap()) {
    throw ConfigurationError(locate(source, node, path) +
                             ": must be a map with 'model', 'fmu', 'device' or 'dcp'");
  }
  check_keys(node, source, path,
             {"model", "fmu", "fmu_kind", "device", "dcp", "parameters", "solver", "capabilities",
              "link", "isolate", "max_step_time", "file", "interpolation"});
  SlaveSpec spec;
  spec.name = name;
  spec.where = locate(source, node, path);
  int sources = 0;
  for (const char* key : {"model", "fmu", "device", "dcp"}) sources += node[key] ? 1 : 0;
  if (sources != 1) {
    throw ConfigurationError(locate(source, node, path) +
                             ": give one of 'model' (a built-in model, see `couplet models`), "
                             "'fmu' (an FMU file), 'device' (a device program behind a link) "
                             "or 'dcp' (a DCP slave's description, .dcpx)");
  }
  if (node["fmu_kind"] && !node["fmu"])
    throw ConfigurationError(locate(source, node["fmu_kind"], path + ".fmu_kind") +
                             ": only with 'fmu'");
  if (node["device"]) {
    // The device's own program knows its ports; the host meets it over the link.
    spec.device = require_string(node["device"], source, path + ".device");
    if (!node["link"]) {
      throw ConfigurationError(
          locate(source, node["device"], path + ".device") +
          ": a device is served by its own program: give a 'link' "
          "(e.g. link: {udp: \"HOST:PORT\"}, or spawn: true with program: PATH)");
    }
    if (node["solver"])
      throw ConfigurationError(locate(source, node["solver"], path + ".solver") +
                               ": a device has no solver couplet chooses");
  } else if (node["model"]) {
    spec.model = require_string(node["model"], source, path + ".model");
  } else if (node["dcp"]) {
    spec.dcp = resolve_scenario_file(require_string(node["dcp"], source, path + ".dcp"), source,
                                     locate(source, node["dcp"], path + ".dcp"));
    if (node["solver"])
      throw ConfigurationError(locate(source, node["solver"], path + ".solver") +
                               ": a DCP slave has no solver couplet chooses");
  } else {
    spec.fmu = resolve_scenario_file(require_string(node["fmu"], source, path + ".fmu"), source,
                                     locate(source, node["fmu"], path + ".fmu"));
    if (const YAML::Node kind = node["fmu_kind"]) {
      const std::string text = require_string(kind, source, path + ".fmu_kind");
      if (text == "cs")
        spec.fmu_kind = models::FmuKind::co_simulation;
      else if (text == "me")
        spec.fmu_kind = models::FmuKind::model_exchange;
      else if (text == "se")
        spec.fmu_kind = models::FmuKind::scheduled_execution;
      else
        throw ConfigurationError(locate(source, kind, path + ".fmu_kind") +
                                 ": expected 'cs', 'me' or 'se' (FMI 3.0 scheduled execution)");
    }
  }
  parse_table_settings(node, source, path, spec);
  if (const YAML::Node parameters = node["parameters"]) {
    if (!parameters.IsMap())
      throw ConfigurationError(locate(source, parameters, path + ".parameters") +
                               ": must be a map");
    for (const auto& entry : parameters) {
      const std::string key = entry.first.as<std::string>();
      // An FMU's String and Binary variables take text: a quoted value, or one
      // that is no number (docs/fmi.md); the FMU checks the variable's type.
      if (!spec.fmu.empty() && entry.second.IsScalar()) {
        const bool quoted = entry.second.Tag() == "!";
        std::optional<double> number;
        try {
          number = parameter_value(entry.second, source, path + ".parameters." + key);
        } catch (const ConfigurationError&) {
        }
        if (quoted || !number) spec.text_parameters[key] = entry.second.Scalar();
        if (!number) continue;
      }
      const double value = parameter_value(entry.second, source, path + ".parameters." + key);
      if (!std::isfinite(value)) {
        throw ConfigurationError(locate(source, entry.second, path + ".parameters." + key) +
                                 ": must be a finite number");
      }
      spec.parameters[key] = value;
    }
  }
  spec.solver = parse_solver(node["solver"], source, path + ".solver", horizon);
  spec.capabilities =
      parse_capabilities(node["capabilities"], source, path + ".capabilities", horizon);
  if (!spec.dcp.empty()) {
    spec.link = parse_dcp_link(node["link"], source, path + ".link");
    if (!node["link"]) spec.link->where = spec.where;
  } else if (node["link"]) {
    spec.link = parse_link(node["link"], source, path + ".link");
  }
  parse_isolation(node, source, path, spec);
  if (spec.link && spec.link->spawn && !spec.device.empty() && spec.link->program.empty()) {
    throw ConfigurationError(spec.link->where + ": spawning device '" + spec.device +
                             "' needs program: PATH (its program; couplet-target serves "
                             "built-in models and FMUs only)");
  }
  return spec;
}

/// A connection's `factor` and `offset`: to = factor × from + offset.
struct LinearTransformation {
  std::size_t connection = 0;  ///< index in Scenario::connections
  double factor = 1.0;
  double offset = 0.0;
};

double finite_number(const YAML::Node& node, const std::string& source, const std::string& key) {
  const double value = require_number(node, source, key);
  if (!std::isfinite(value))
    throw ConfigurationError(locate(source, node, key) + ": expected a finite number");
  return value;
}

// groups: {name: {slaves: [member, ...], algorithm: {...}}} (docs/iterative.md).
std::vector<GroupSpec> parse_groups(const YAML::Node& node, const std::vector<SlaveSpec>& slaves,
                                    const std::string& source) {
  if (!node.IsMap())
    throw ConfigurationError(locate(source, node, "groups") +
                             ": must be a map of group name to {slaves, algorithm}");
  std::vector<GroupSpec> groups;
  for (const auto& entry : node) {
    GroupSpec group;
    group.name = entry.first.as<std::string>();
    const std::string path = "groups." + group.name;
    group.where = locate(source, entry.second, path);
    check_keys(entry.second, source, path, {"slaves", "algorithm"});
    const YAML::Node members = entry.second["slaves"];
    if (!members || !members.IsSequence() || members.size() == 0) {
      throw ConfigurationError(group.where + ": 'slaves' must be a non-empty list of slave names");
    }
    for (std::size_t k = 0; k < members.size(); ++k) {
      const std::string member =
          require_string(members[k], source, path + ".slaves[" + std::to_string(k) + "]");
      const bool declared = std::any_of(slaves.begin(), slaves.end(), [&](const SlaveSpec& slave) {
        return slave.name == member;
      });
      if (!declared)
        throw ConfigurationError(locate(source, members[k], path + ".slaves") + ": '" + member +
                                 "' is not declared under 'slaves'");
      for (const GroupSpec& other : groups) {
        if (std::find(other.members.begin(), other.members.end(), member) != other.members.end()) {
          throw ConfigurationError(locate(source, members[k], path + ".slaves") + ": '" + member +
                                   "' is already in group '" + other.name + "'");
        }
      }
      if (std::find(group.members.begin(), group.members.end(), member) != group.members.end()) {
        throw ConfigurationError(locate(source, members[k], path + ".slaves") + ": '" + member +
                                 "' is listed twice");
      }
      group.members.push_back(member);
    }
    if (std::any_of(slaves.begin(), slaves.end(),
                    [&](const SlaveSpec& slave) { return slave.name == group.name; })) {
      throw ConfigurationError(group.where + ": a group cannot have the name of a slave");
    }
    if (!entry.second["algorithm"])
      throw ConfigurationError(group.where +
                               ": missing 'algorithm' (type: ifosmondi or ifosmondi_jfm, step)");
    groups.push_back(std::move(group));
  }
  return groups;
}

// time.start and time.end each within ±kMaxTime, end after start by at least
// kMinDuration: the run's ticks, grid and step counts are then all in range.
void parse_time(const YAML::Node& time, const std::string& source, Scenario& scenario) {
  if (!time) throw ConfigurationError(source + ": missing 'time' (time.start, time.end)");
  check_keys(time, source, "time", {"start", "end"});
  const NumberRange range{-kMaxTime, kMaxTime, " s"};
  scenario.start = time["start"] ? bounded_number(time["start"], source, "time.start", range) : 0.0;
  if (!time["end"]) throw ConfigurationError(locate(source, time, "time.end") + ": missing");
  scenario.end = bounded_number(time["end"], source, "time.end", range);
  if (!(scenario.end - scenario.start >= kMinDuration)) {
    char text[96];
    std::snprintf(text, sizeof text, ": must be at least %g s after time.start (%g s)",
                  kMinDuration, scenario.start);
    throw ConfigurationError(locate(source, time["end"], "time.end") + text);
  }
}

// The grid's points are stored per output for the whole run: their number is
// what memory the evaluation takes.
void check_grid_points(const YAML::Node& node, const std::string& source,
                       const Scenario& scenario) {
  const double points = std::floor(scenario.horizon() / scenario.evaluation_grid) + 1.0;
  if (points > scenario.limits.grid_points) {
    char text[160];
    std::snprintf(
        text, sizeof text,
        ": %g s gives %.0f points over the %g s horizon, more than limits.grid_points (%.0f)",
        scenario.evaluation_grid, points, scenario.horizon(), scenario.limits.grid_points);
    throw ConfigurationError(locate(source, node, "evaluation.grid") + text +
                             ": take a coarser grid or raise limits.grid_points");
  }
}

}  // namespace

namespace {

// Each case is the scenario with its overrides after the command line's: it
// must load like any scenario. Its errors name the case, then the key.
/// The scenario keys of `root`, after `overrides`, into the Scenario of
/// `scenario_source`; messages name `source` (for an SSP package: its settings
/// file, whose lines the nodes it gave carry).
Scenario read_scenario(YAML::Node root, const std::string& source,
                       const std::vector<std::pair<std::string, std::string>>& overrides,
                       const std::string& scenario_source);

void check_test_cases(const YAML::Node& as_written, const std::string& source,
                      const Scenario& scenario,
                      const std::vector<std::pair<std::string, std::string>>& overrides) {
  for (const TestCase& test_case : scenario.cases) {
    std::vector<std::pair<std::string, std::string>> case_overrides = overrides;
    case_overrides.insert(case_overrides.end(), test_case.overrides.begin(),
                          test_case.overrides.end());
    case_overrides.emplace_back("cases", "~");  // the case alone, without the other cases
    try {
      read_scenario(YAML::Clone(as_written), source, case_overrides, source);
    } catch (const ConfigurationError& error) {
      throw ConfigurationError(test_case.where + ": " + error.what());
    }
  }
}

}  // namespace

std::string locate(const std::string& source, const YAML::Node& node, const std::string& key) {
  // parse_scenario parses the text after one added line, so that a node's
  // 0-based line is the 1-based line of the file, and line 0 means a node that
  // has no line in the file (a --set value, a node the overrides created).
  const YAML::Mark mark = node.Mark();
  if (mark.line > 0) return source + ":" + std::to_string(mark.line) + ": " + key;
  return source + ": " + key;
}

bool is_given(const YAML::Node& map, const char* key) {
  return map[key] && !map[key].IsNull();
}

double require_number(const YAML::Node& node, const std::string& source, const std::string& key) {
  try {
    if (node.IsScalar()) return node.as<double>();
  } catch (const YAML::Exception&) {
  }
  throw ConfigurationError(locate(source, node, key) + ": expected a number");
}

std::string require_string(const YAML::Node& node, const std::string& source,
                           const std::string& key) {
  if (!node.IsScalar()) throw ConfigurationError(locate(source, node, key) + ": expected a string");
  return node.as<std::string>();
}

bool require_flag(const YAML::Node& node, const std::string& source, const std::string& key) {
  try {
    return node.as<bool>();
  } catch (const YAML::Exception&) {
    throw ConfigurationError(locate(source, node, key) + ": expected true or false");
  }
}

void check_keys(const YAML::Node& map, const std::string& source, const std::string& path,
                const std::vector<std::string>& allowed) {
  if (!map.IsMap()) throw ConfigurationError(locate(source, map, path) + ": expected a map");
  for (const auto& entry : map) {
    const std::string key = entry.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      throw ConfigurationError(locate(source, entry.first, path.empty() ? key : path + "." + key) +
                               ": unknown key (allowed: " + join(allowed) + ")");
    }
  }
}

std::pair<std::string, std::string> parse_override(const std::string& assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigurationError("--set '" + assignment + "': expected key.path=value");
  }
  return {assignment.substr(0, equals), assignment.substr(equals + 1)};
}

namespace {

/// For a YAML error on line `line` (1-based) of `text`: a hint when that line
/// holds an unquoted name with brackets, such as an array element's port
/// "arr.u[2]", which YAML's flow style reads as the start of a sequence.
std::string bracket_hint(const std::string& text, std::size_t line) {
  std::size_t begin = 0;
  for (std::size_t k = 1; k < line && begin != std::string::npos; ++k) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos) return "";
  const std::string_view row = std::string_view(text).substr(begin, text.find('\n', begin) - begin);
  for (std::size_t k = 1; k < row.size(); ++k) {
    const char before = row[k - 1];
    if (row[k] == '[' && (std::isalnum(static_cast<unsigned char>(before)) || before == '_'))
      return " (a name with brackets, such as the array element \"arr.u[2]\", is quoted "
             "inside { } and [ ])";
  }
  return "";
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& source,
                        const std::vector<std::pair<std::string, std::string>>& overrides) {
  YAML::Node root;
  try {
    // One line before the text: every node of the file then has a line > 0, and
    // yaml-cpp's line 0 is left to nodes from elsewhere (see locate()).
    root = YAML::Load("\n" + text);
  } catch (const YAML::ParserException& error) {
    throw ConfigurationError(source +
                             (error.mark.line > 0 ? ":" + std::to_string(error.mark.line) : "") +
                             ": not valid YAML: " + error.msg +
                             bracket_hint(text, static_cast<std::size_t>(error.mark.line)));
  }
  if (!root.IsMap()) throw ConfigurationError(source + ": a scenario must be a YAML map");
  check_yaml_structure(root, source);
  return read_scenario(root, source, overrides, source);
}

namespace {

Scenario read_scenario(YAML::Node root, const std::string& source,
                       const std::vector<std::pair<std::string, std::string>>& overrides,
                       const std::string& scenario_source) {
  const YAML::Node as_written = YAML::Clone(root);  // the test cases start from it
  for (const auto& [key, value] : overrides) {
    YAML::Node parsed;
    try {
      parsed = YAML::Load(value);
    } catch (const YAML::ParserException&) {
      parsed = YAML::Node(value);
    }
    check_yaml_structure(parsed, "--set " + key);
    set_path(root, split_path(key), 0, parsed);
  }
  check_keys(root, source, "",
             {"name", "time", "slaves", "connections", "algorithm", "groups", "reference",
              "evaluation", "clock", "limits", "executor", "checks", "cases"});

  Scenario scenario;
  std::vector<LinearTransformation> transformations;  // declared on connections
  scenario.source = source;  // what the readers' messages name; scenario_source at the end
  scenario.text = YAML::Dump(root);
  scenario.name = root["name"] ? require_string(root["name"], source, "name") : scenario_source;
  parse_time(root["time"], source, scenario);
  scenario.limits = parse_limits(root["limits"], source);
  scenario.executor = parse_executor(root["executor"], source);

  const YAML::Node slaves = root["slaves"];
  if (!slaves || !slaves.IsMap() || slaves.size() == 0)
    throw ConfigurationError(
        source + ": 'slaves' must be a non-empty map of slave name to {model, parameters, solver}");
  for (const auto& entry : slaves)
    scenario.slaves.push_back(
        parse_slave(entry.first.as<std::string>(), entry.second, source, scenario.horizon()));

  if (const YAML::Node connections = root["connections"]) {
    if (!connections.IsSequence())
      throw ConfigurationError(locate(source, connections, "connections") +
                               ": must be a list of {from: slave.output, to: slave.input}");
    for (std::size_t k = 0; k < connections.size(); ++k) {
      const std::string path = "connections[" + std::to_string(k) + "]";
      const YAML::Node connection = connections[k];
      check_keys(connection, source, path, {"from", "to", "factor", "offset", "rounding"});
      if (!connection["from"] || !connection["to"])
        throw ConfigurationError(locate(source, connection, path) + ": needs 'from' and 'to'");
      scenario.connections.push_back({require_string(connection["from"], source, path + ".from"),
                                      require_string(connection["to"], source, path + ".to"),
                                      locate(source, connection, path), false, std::nullopt});
      if (const YAML::Node rounding = connection["rounding"]) {
        const std::string name = require_string(rounding, source, path + ".rounding");
        scenario.connections.back().rounding = rounding_named(name);
        if (!scenario.connections.back().rounding)
          throw ConfigurationError(locate(source, rounding, path + ".rounding") + ": '" + name +
                                   "' is no rounding (nearest, floor, ceil or truncate)");
      }
      if (connection["factor"] || connection["offset"]) {
        transformations.push_back(
            {scenario.connections.size() - 1,
             connection["factor"] ? finite_number(connection["factor"], source, path + ".factor")
                                  : 1.0,
             connection["offset"] ? finite_number(connection["offset"], source, path + ".offset")
                                  : 0.0});
      }
    }
  }

  if (const YAML::Node groups = root["groups"]; groups && !groups.IsNull())
    scenario.groups = parse_groups(groups, scenario.slaves, source);
  // Each becomes what the SSP import makes of one (ssp.md): a coupling.linear
  // slave between the two ends.
  for (const LinearTransformation& transformation : transformations)
    insert_converter(scenario, transformation.connection,
                     {transformation.factor, transformation.offset});
  const YAML::Node algorithm = root["algorithm"];
  if (!algorithm)
    throw ConfigurationError(source + ": missing 'algorithm' (algorithm.type, algorithm.step)");

  if (const YAML::Node reference = root["reference"]) {
    const std::string kind = require_string(reference, source, "reference");
    if (kind == "monolithic")
      scenario.monolithic_reference = true;
    else if (kind != "none")
      throw ConfigurationError(locate(source, reference, "reference") +
                               ": expected 'monolithic' or 'none'");
  }
  if (const YAML::Node evaluation = root["evaluation"]) {
    check_keys(evaluation, source, "evaluation", {"grid", "signals"});
    if (evaluation["grid"]) {
      scenario.evaluation_grid =
          bounded_number(evaluation["grid"], source, "evaluation.grid", ranges::step_bound());
    }
    if (const YAML::Node signals = evaluation["signals"]) {
      if (!signals.IsSequence())
        throw ConfigurationError(locate(source, signals, "evaluation.signals") +
                                 ": must be a list of slave.output");
      for (std::size_t k = 0; k < signals.size(); ++k) {
        scenario.evaluation_signals.push_back(
            require_string(signals[k], source, "evaluation.signals[" + std::to_string(k) + "]"));
      }
    }
  }
  scenario.clock = parse_clock(root["clock"], source);
  scenario.checks = parse_checks(root["checks"], source, scenario.start, scenario.end,
                                 scenario.monolithic_reference, scenario.clock.wall);
  const YAML::Node evaluation = root["evaluation"];
  check_grid_points(evaluation && evaluation["grid"] ? evaluation["grid"] : root, source, scenario);
  // Every number of the algorithm and of the groups' algorithms, checked now:
  // before a system is built or anything is sized from them.
  scenario.algorithm = parse_algorithm(algorithm, scenario);
  const YAML::Node& groups = std::as_const(root)["groups"];
  for (GroupSpec& group : scenario.groups)
    group.algorithm = parse_group_algorithm(groups[group.name]["algorithm"], scenario, group.name);
  scenario.cases = parse_test_cases(root["cases"], source);
  check_test_cases(as_written, source, scenario, overrides);
  scenario.source = scenario_source;
  return scenario;
}

}  // namespace

Scenario load_scenario(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& overrides) {
  if (!is_ssp_path(path)) return parse_scenario(read_scenario_file(path), path, overrides);
  const SspScenario package = import_ssp(path);
  const bool algorithm_given =
      std::any_of(overrides.begin(), overrides.end(), [](const auto& override) {
        return override.first == "algorithm" || override.first.rfind("algorithm.", 0) == 0;
      });
  if (!package.root["algorithm"] && !algorithm_given) {
    throw ConfigurationError(
        "SSP '" + path + "': no couplet settings: write them into " + ssp_settings_path(path) +
        " beside it (algorithm: {type: jacobi, step: 0.01} at least; docs/ssp.md) "
        "or give --set 'algorithm={type: jacobi, step: 0.01}'");
  }
  // The package's keys, and the settings file's with their lines: read as they
  // are, with messages naming the settings file where it exists.
  Scenario scenario = read_scenario(
      package.root, package.settings_path.empty() ? path : package.settings_path, overrides, path);
  scenario.package = package.package;
  scenario.package_unit_conversions = package.unit_conversions;
  return scenario;
}

}  // namespace couplet::tools
