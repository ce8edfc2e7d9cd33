#pragma once
// Which scenarios `couplet test PATH...` runs (docs/testing.md): the files
// given, and in the directories given, searched recursively in sorted order,
// every `*.yaml` and `*.ssp` that declares `checks:` (an SSP package in its
// settings file PACKAGE.couplet.yaml, which is then not a scenario of its own).
#include <string>
#include <vector>

#include "host_tools/scenario/test_cases.hpp"

namespace couplet::tools {

struct TestScenario {
  std::string path;  ///< the scenario file or SSP package to run
  /// The scenario's `name`, or the file's stem: the JUnit test suite and the
  /// run directory under `couplet test -o DIR` (characters other than letters,
  /// digits, '_', '-', '.' become '_').
  std::string name;
  std::vector<TestCase> cases;  ///< empty: one run with no overrides
  /// The file could not be read as a scenario here: its run will say why
  /// (`couplet run` refuses it), and the test suite reports an error.
  std::string problem;
};

/// The test scenarios of `paths`. Throws ConfigurationError naming the path that
/// does not exist, a directory that holds no scenario declaring `checks:`, or
/// the two files of two scenarios with the same name (their run directories
/// would collide).
std::vector<TestScenario> discover_test_scenarios(const std::vector<std::string>& paths);

}  // namespace couplet::tools
