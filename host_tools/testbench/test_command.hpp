#pragma once
// `couplet test PATH... [--junit FILE] [--jobs N] [-o DIR]` (docs/testing.md):
// every test scenario found (test_discovery.hpp), and each of its cases, run
// as a separate `couplet run` child process of this very program
// (/proc/self/exe) into DIR/<scenario>[/<case>], at most N at a time; the
// verdicts as a table on stdout and, with --junit, as JUnit XML. With --live,
// each run serves its live page, and its address is printed as it starts.
#include <cstddef>
#include <string>
#include <vector>

#include "host_tools/testbench/test_results.hpp"

namespace couplet::tools {

struct TestOptions {
  std::vector<std::string> paths;  ///< scenario files and directories
  std::string junit_path;          ///< empty: no JUnit XML
  std::size_t jobs = 0;            ///< runs at a time; 0: one per core
  std::string output_directory = "out";
  /// `--live [ADDR:]PORT`: each run serves its live view (docs/live.md), run k
  /// of the suite at PORT + k (any free port each when PORT is 0); empty: none.
  std::string live_endpoint;
};

/// The exit code of `couplet test` when a check failed (and every run ran).
inline constexpr int kExitTestFailed = 3;

/// Runs the suites and returns their results, in the order found.
std::vector<SuiteResult> run_test_suites(const TestOptions& options);

/// The table: scenario, case, check, verdict; then the totals.
std::string test_table(const std::vector<SuiteResult>& suites);

/// 0 every check passed; 3 a check failed; 1 a run failed or crashed.
int test_exit_code(const std::vector<SuiteResult>& suites);

/// `couplet test`: runs, prints the table, writes the JUnit XML; the exit code.
/// Throws ConfigurationError for a path that gives no scenario (a usage error).
int test_command(const TestOptions& options);

}  // namespace couplet::tools
