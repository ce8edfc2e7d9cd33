#include "host_tools/scenario/test_discovery.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/scenario_limits.hpp"
#include "host_tools/scenario/ssp_import.hpp"

namespace couplet::tools {

namespace {

namespace fs = std::filesystem;

std::string directory_name(const std::string& name) {
  std::string safe = name;
  for (char& c : safe) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || c == '.';
    if (!plain) c = '_';
  }
  if (safe.empty() || safe == "." || safe == "..") safe = "scenario";
  return safe;
}

/// The YAML whose top-level keys say what the scenario declares: the file
/// itself, or an SSP package's settings file.
std::string settings_file(const fs::path& path) {
  return is_ssp_path(path.string()) ? ssp_settings_path(path.string()) : path.string();
}

/// Parses the keys `couplet test` needs; a file that does not parse keeps its
/// problem for the report (its run gives the full message).
TestScenario read_test_scenario(const fs::path& path, YAML::Node& root) {
  TestScenario scenario{path.string(), directory_name(path.stem().string()), {}, {}};
  const std::string source = settings_file(path);
  try {
    root = YAML::Load("\n" + read_scenario_file(source));
    if (!root.IsMap()) throw ConfigurationError(source + ": a scenario must be a YAML map");
    if (root["name"] && root["name"].IsScalar())
      scenario.name = directory_name(root["name"].as<std::string>());
    scenario.cases = parse_test_cases(root["cases"], source);
  } catch (const std::exception& error) {
    scenario.problem = error.what();
    root = YAML::Node();
  }
  return scenario;
}

bool declares_checks(const fs::path& path) {
  if (!fs::exists(settings_file(path))) return false;
  YAML::Node root;
  const TestScenario scenario = read_test_scenario(path, root);
  return !scenario.problem.empty() || (root.IsMap() && root["checks"]);
}

/// The settings file of a package beside it is part of the package.
bool is_package_settings(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string suffix = ".couplet.yaml";
  if (name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  return fs::exists(path.parent_path() / (name.substr(0, name.size() - suffix.size()) + ".ssp"));
}

std::vector<fs::path> scenarios_in(const fs::path& directory) {
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(directory)) {
    if (!entry.is_regular_file()) continue;
    const fs::path& path = entry.path();
    const bool candidate =
        path.extension() == ".ssp" || (path.extension() == ".yaml" && !is_package_settings(path));
    if (candidate && declares_checks(path)) found.push_back(path);
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    throw ConfigurationError("'" + directory.string() +
                             "': no scenario declaring checks: (*.yaml or *.ssp) found in it");
  }
  return found;
}

}  // namespace

std::vector<TestScenario> discover_test_scenarios(const std::vector<std::string>& paths) {
  std::vector<TestScenario> scenarios;
  std::map<std::string, std::string> files_by_name;
  for (const std::string& given : paths) {
    if (!fs::exists(given)) throw ConfigurationError("'" + given + "': no such file or directory");
    const std::vector<fs::path> files =
        fs::is_directory(given) ? scenarios_in(given) : std::vector<fs::path>{given};
    for (const fs::path& file : files) {
      YAML::Node root;
      TestScenario scenario = read_test_scenario(file, root);
      const auto [named, inserted] = files_by_name.emplace(scenario.name, scenario.path);
      if (!inserted) {
        throw ConfigurationError("'" + named->second + "' and '" + scenario.path +
                                 "': two scenarios named '" + scenario.name +
                                 "' (their run directories would collide): rename one");
      }
      scenarios.push_back(std::move(scenario));
    }
  }
  return scenarios;
}

}  // namespace couplet::tools
