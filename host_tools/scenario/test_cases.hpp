#pragma once
// `cases:` of a test scenario (docs/testing.md): named sets of `--set`
// overrides, one test case each, run by `couplet test`:
//
//   cases:
//     light: {slaves.left.parameters.m: 0.5}
//     heavy: {slaves.left.parameters.m: 2.0, algorithm.step: 0.05}
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

namespace couplet::tools {

struct TestCase {
  std::string name;  ///< a directory name: letters, digits, '_', '-', '.'
  /// (key.path, value as YAML text), as `--set key.path=value` gives them.
  std::vector<std::pair<std::string, std::string>> overrides;
  YAML::Node node;    ///< where the case is declared, for messages
  std::string where;  ///< "file:line: cases.light"
};

/// Reads `cases:` (a map of case name to a map of key path to value). Throws
/// ConfigurationError naming the file, line and key of a case that is not a
/// non-empty map, of a name that is not a plain directory name, or of a key
/// path with an empty element or under `cases` itself.
std::vector<TestCase> parse_test_cases(const YAML::Node& node, const std::string& source);

/// "key.path=value" of one override, as a `couplet run --set` argument.
std::string set_argument(const std::pair<std::string, std::string>& override);

}  // namespace couplet::tools
