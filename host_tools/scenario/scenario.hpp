#pragma once
// Scenario files (YAML) and their `--set key.path=value` overrides (docs/scenarios.md).
// Every error names the key, and the file and line where yaml-cpp gives it.
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/scenario/algorithm_settings.hpp"
#include "host_tools/scenario/check_reader.hpp"
#include "host_tools/scenario/clock_spec.hpp"
#include "host_tools/scenario/link_spec.hpp"
#include "host_tools/scenario/scenario_limits.hpp"
#include "host_tools/scenario/test_cases.hpp"
#include "models/ode_slave.hpp"
#include "models/slave_source.hpp"
#include "runtime/rounding.hpp"

namespace couplet::tools {

struct SlaveSpec {
  std::string name;
  std::string model;   ///< a catalog model, or empty when `fmu`, `device` or `dcp` is set
  std::string fmu;     ///< an FMU file, resolved against the scenario file's directory
  std::string device;  ///< a device program's name (couplet/device.hpp); always behind a link
  /// A DCP slave's description (DCPX), resolved against the scenario file's
  /// directory (docs/dcp.md); its `link` is always set, `udp` empty for the
  /// control endpoint the description names.
  std::string dcp;
  models::FmuKind fmu_kind = models::FmuKind::automatic;
  /// stimulus.table (`file`, `interpolation`): its CSV file, resolved against the
  /// scenario file's directory, and how it passes between rows.
  std::string table_file;
  models::TableInterpolation table_interpolation = models::TableInterpolation::linear;
  std::map<std::string, double, std::less<>> parameters;  ///< overrides of the defaults
  /// An FMU's values given as text: quoted, or no number (models::SlaveSettings).
  std::map<std::string, std::string, std::less<>> text_parameters;
  models::SolverSettings solver;
  models::CapabilityLimits capabilities;  ///< declared limits (device emulation)
  /// Set: the slave sits behind a link (docs/links.md); `isolate: true` sets it
  /// to a spawned couplet-target on the loopback interface (docs/fmi.md).
  std::optional<LinkSpec> link;
  /// Seconds a slave behind a link may compute one request (answering
  /// "working") before it is declared hung; 0: no limit (`max_step_time`).
  double max_step_time = kDefaultMaxStepTime;
  static constexpr double kDefaultMaxStepTime = 60.0;
  std::string where;  ///< "file:line: slaves.left" for messages
};

struct ConnectionSpec {
  std::string from;   ///< "slave.output"
  std::string to;     ///< "slave.input"
  std::string where;  ///< "connections[2] (line 14)" for messages
  /// One half of a connection with factor/offset: a coupling.linear slave
  /// converts between its ends, which must therefore be Real.
  bool converted = false;
  /// A Real output to an Integer input: how the value is rounded (`rounding:`).
  std::optional<Rounding> rounding;
};

/// A group of slaves solved by an iterative algorithm inside, seen by the outer
/// algorithm as one composite slave named `name` (docs/iterative.md). Members are
/// declared under `slaves` as usual and listed here.
struct GroupSpec {
  std::string name;
  std::vector<std::string> members;  ///< slave names, in the group's order
  GroupAlgorithmSettings algorithm;  ///< groups.NAME.algorithm
  std::string where;                 ///< "file:line: groups.g" for messages
};

/// `executor:` — who makes the slave calls of a batch (docs/executors.md).
struct ExecutorSettings {
  enum class Type { sequential, threads };
  Type type = Type::sequential;
  /// The threads sharing each wave, the stepping thread included (type threads).
  std::size_t threads = 1;
};

/// The most threads `executor.threads` accepts.
inline constexpr std::size_t kMaxExecutorThreads = 1024;

struct Scenario {
  std::string source;  ///< file name, for messages
  std::string text;    ///< the YAML as run, overrides applied (the run log keeps it for replay)
  std::string name;
  double start = 0.0;
  double end = 0.0;
  std::vector<SlaveSpec> slaves;  ///< in file order (the Gauss–Seidel order)
  std::vector<ConnectionSpec> connections;
  AlgorithmSettings algorithm;    ///< `algorithm:`, built by make_algorithm (host_tools/assembly/)
  ClockSpec clock;                ///< `clock:`; absent: the virtual clock
  std::vector<GroupSpec> groups;  ///< composite slaves (docs/iterative.md)
  bool monolithic_reference = false;
  double evaluation_grid = 0.01;
  std::vector<std::string> evaluation_signals;  ///< empty: every output
  ScenarioLimits limits;      ///< `limits:`: derived sizes allowed (docs/scenarios.md)
  ExecutorSettings executor;  ///< `executor:` (default: sequential)
  std::vector<CheckSpec>
      checks;  ///< `checks:`: what the run should do (host_tools/scenario/check_reader.hpp)
  /// `cases:`: the test cases `couplet test` runs (docs/testing.md); each one's
  /// overrides were checked to give a valid scenario.
  std::vector<TestCase> cases;
  /// An SSP package's unpacked files (docs/ssp.md), which the FMU paths point
  /// into: kept while the scenario is, so that its slaves can be built.
  std::shared_ptr<const void> package;
  /// The converters an SSP package's connector units made, one line each
  /// (`couplet validate` lists them as it lists a scenario's).
  std::vector<std::string> package_unit_conversions;

  /// time.end − time.start, seconds.
  double horizon() const { return end - start; }
};

/// "key.path=value" → (key path, value).
std::pair<std::string, std::string> parse_override(const std::string& assignment);

/// Loads and checks a scenario into its typed settings: its structure, every
/// number against its allowed range, the algorithm's and the clock's settings;
/// overrides are applied first.
/// A path ending in ".ssp" is an SSP package, read with its settings file
/// (host_tools/scenario/ssp_import.hpp).
Scenario load_scenario(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& overrides = {});

/// Same, from YAML text (`source` names it in messages).
Scenario parse_scenario(const std::string& text, const std::string& source,
                        const std::vector<std::pair<std::string, std::string>>& overrides = {});

/// "file:line: key" for messages about a node.
std::string locate(const std::string& source, const YAML::Node& node, const std::string& key);

/// Whether `map` gives `key` a value: a key given as `null` counts as absent, so
/// that an override (`--set algorithm.min_step=null`) can take a key away, and
/// switch a scenario between an algorithm's variants.
bool is_given(const YAML::Node& map, const char* key);

/// A scalar of the expected type, or a ConfigurationError naming the key.
double require_number(const YAML::Node& node, const std::string& source, const std::string& key);
std::string require_string(const YAML::Node& node, const std::string& source,
                           const std::string& key);
bool require_flag(const YAML::Node& node, const std::string& source, const std::string& key);

/// The value named by `node`, a string among `choices`; otherwise a
/// ConfigurationError "file:line: key: unknown WHAT 'name' (choice, ...)".
template <class Value>
Value require_choice(const YAML::Node& node, const std::string& source, const std::string& key,
                     std::string_view what,
                     std::initializer_list<std::pair<std::string_view, Value>> choices) {
  const std::string name = require_string(node, source, key);
  std::string listed;
  for (const auto& [text, value] : choices) {
    if (name == text) return value;
    listed += (listed.empty() ? "" : ", ") + std::string(text);
  }
  throw ConfigurationError(locate(source, node, key) + ": unknown " + std::string(what) + " '" +
                           name + "' (" + listed + ")");
}

/// Throws ConfigurationError naming the first key of `map` not in `allowed`.
void check_keys(const YAML::Node& map, const std::string& source, const std::string& path,
                const std::vector<std::string>& allowed);

}  // namespace couplet::tools
