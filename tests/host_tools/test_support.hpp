#pragma once
// Helpers for the integration tests: run a scenario file with overrides into a
// fresh temporary directory and read back summary.json.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/cli/commands.hpp"

namespace couplet::testing {

/// What a shell command printed (standard output and error), and its exit code.
inline std::string command_output(const std::string& command, int& exit_code) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  exit_code = WEXITSTATUS(::pclose(pipe));
  return output;
}

inline std::string scenario_path(const std::string& name) {
  return std::string(COUPLET_SOURCE_DIR) + "/scenarios/" + name;
}

/// The shipped scenarios name the files the build makes as ${COUPLET_BUILD_DIR}/…,
/// which couplet takes from the folder of its own executable. Test programs live in
/// BUILD/tests, so they point the variable at the couplet under test, as a user
/// running a scenario from another program would (unless the caller set it).
inline const bool kBuildDirectoryOfTheCoupletUnderTest = [] {
  const std::string build_tree = std::filesystem::path(COUPLET_BINARY).parent_path().string();
  return ::setenv("COUPLET_BUILD_DIR", build_tree.c_str(), 0) == 0;
}();

/// Output directory of the run `name` in this test process. ctest runs tests in
/// parallel, and several tests run the same case: the process id keeps them
/// from removing each other's files.
inline std::filesystem::path run_directory(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("couplet-test-" + std::to_string(::getpid()) + "-" + name);
}

inline std::filesystem::path fresh_directory(const std::string& name) {
  const auto directory = run_directory(name);
  std::filesystem::remove_all(directory);
  return directory;
}

/// What `couplet SUBCOMMAND FILE` did, FILE being `text` written to a fresh
/// scenario.yaml of the test directory `name` (`run` writes into its out/).
struct CoupletOutcome {
  int exit_code = -1;
  std::string output;
  std::filesystem::path out;
};

inline CoupletOutcome couplet_on_text(const std::string& subcommand, const std::string& text,
                                      const std::string& name) {
  const auto directory = fresh_directory(name);
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "scenario.yaml") << text;
  CoupletOutcome result;
  result.out = directory / "out";
  const std::string target = subcommand == "run" ? " -o " + result.out.string() : "";
  result.output = command_output(std::string(COUPLET_BINARY) + " " + subcommand + " " +
                                     (directory / "scenario.yaml").string() + target,
                                 result.exit_code);
  return result;
}

/// Columns of signals.csv by header name.
inline std::map<std::string, std::vector<double>> read_columns(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::string line;
  std::getline(stream, line);
  std::vector<std::string> names;
  std::stringstream header(line);
  for (std::string name; std::getline(header, name, ',');) names.push_back(name);
  std::map<std::string, std::vector<double>> columns;
  while (std::getline(stream, line)) {
    std::stringstream row(line);
    std::string cell;
    for (std::size_t k = 0; std::getline(row, cell, ','); ++k)
      columns[names[k]].push_back(std::stod(cell));
  }
  return columns;
}

/// A scenario of scenarios/ with `key.path=value` overrides.
inline tools::Scenario load(const std::string& scenario, const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments) overrides.push_back(tools::parse_override(assignment));
  return tools::load_scenario(scenario_path(scenario), overrides);
}

inline nlohmann::json run(const std::string& scenario, const std::vector<std::string>& assignments,
                          const std::string& directory_name) {
  return tools::run_scenario(load(scenario, assignments), {fresh_directory(directory_name).string(), false});
}

/// The whole text of a file ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The decision hash in a run's summary.json.
inline std::string hash_of(const std::filesystem::path& out) {
  return nlohmann::json::parse(read_file(out / "summary.json")).at("decision_hash");
}

/// `couplet replay --verify` of a run's log reproduces its decision hash, and
/// `couplet inspect` of the log shows `line`.
inline void expect_replayed_and_inspected(const CoupletOutcome& outcome, const std::string& line) {
  int exit_code = -1;
  const std::string log = (outcome.out / "run.log").string();
  const std::string replay =
      command_output(std::string(COUPLET_BINARY) + " replay --verify " + log, exit_code);
  EXPECT_EQ(exit_code, 0) << replay;
  const std::string hash = hash_of(outcome.out);
  EXPECT_NE(replay.find(hash + " (recorded " + hash + ")"), std::string::npos) << replay;
  const std::string inspect =
      command_output(std::string(COUPLET_BINARY) + " inspect " + log, exit_code);
  EXPECT_EQ(exit_code, 0) << inspect;
  EXPECT_NE(inspect.find(line), std::string::npos) << inspect;
}

inline double nrmse(const nlohmann::json& summary, const std::string& signal) {
  return summary.at("errors").at(signal).at("nrmse_pct").get<double>();
}

inline double rmse(const nlohmann::json& summary, const std::string& signal) {
  return summary.at("errors").at(signal).at("rmse").get<double>();
}

}  // namespace couplet::testing
