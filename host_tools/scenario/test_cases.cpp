#include "host_tools/scenario/test_cases.hpp"

#include <algorithm>

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

namespace {

// A case names a directory of `couplet test -o DIR` and a JUnit class name.
bool plain_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

bool valid_key_path(const std::string& path) {
  if (path.empty() || path.front() == '.' || path.back() == '.' ||
      path.find("..") != std::string::npos)
    return false;
  return path != "cases" && path.rfind("cases.", 0) != 0;
}

/// The value as YAML text that reads back to the same node (flow style, one line).
std::string yaml_text(const YAML::Node& value) {
  YAML::Emitter emitter;
  emitter << YAML::Flow << value;
  return emitter.c_str();
}

TestCase parse_case(const std::string& name, const YAML::Node& overrides,
                    const std::string& source) {
  const std::string path = "cases." + name;
  if (!plain_name(name)) {
    throw ConfigurationError(locate(source, overrides, path) +
                             ": a case name may hold only letters, digits, '_', '-' and '.'");
  }
  if (!overrides.IsMap() || overrides.size() == 0) {
    throw ConfigurationError(
        locate(source, overrides, path) +
        ": must be a non-empty map of key.path to value (e.g. {algorithm.step: 0.05})");
  }
  TestCase test_case{name, {}, overrides, locate(source, overrides, path)};
  for (const auto& entry : overrides) {
    const std::string key = require_string(entry.first, source, path);
    if (!valid_key_path(key)) {
      throw ConfigurationError(
          locate(source, entry.first, path + "." + key) +
          ": expected a key path such as slaves.left.parameters.m (not under 'cases')");
    }
    test_case.overrides.emplace_back(key, yaml_text(entry.second));
  }
  return test_case;
}

}  // namespace

std::vector<TestCase> parse_test_cases(const YAML::Node& node, const std::string& source) {
  if (!node || node.IsNull()) return {};
  if (!node.IsMap() || node.size() == 0) {
    throw ConfigurationError(locate(source, node, "cases") +
                             ": must be a non-empty map of case name to {key.path: value, ...}");
  }
  std::vector<TestCase> cases;
  for (const auto& entry : node)
    cases.push_back(parse_case(require_string(entry.first, source, "cases"), entry.second, source));
  return cases;
}

std::string set_argument(const std::pair<std::string, std::string>& override) {
  return override.first + "=" + override.second;
}

}  // namespace couplet::tools
