// ${COUPLET_BUILD_DIR} in the file paths of scenarios (docs/scenarios.md, "File
// paths"): the shipped scenarios and the example validate and run from any
// working directory, with the build tree taken from the running couplet or from
// the environment; an unknown variable is refused by name with file and line; a
// missing file names the expanded path and where the variable pointed.
#include "targets/build_directory.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "couplet/errors.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

const targets::BuildDirectory kSomewhere{"/opt/somewhere", "a test"};

/// Runs `command` with COUPLET_BUILD_DIR as given ("" unsets it) from a working
/// directory outside the source and build trees.
std::string from_elsewhere(const std::string& command, const std::string& build_dir,
                           int& exit_code) {
  const fs::path elsewhere = fresh_directory("elsewhere");
  fs::create_directories(elsewhere);
  const std::string environment =
      build_dir.empty() ? "env -u COUPLET_BUILD_DIR " : "env COUPLET_BUILD_DIR=" + build_dir + " ";
  return command_output("cd " + elsewhere.string() + " && " + environment + command, exit_code);
}

std::string shipped(const std::string& relative) {
  return std::string(COUPLET_SOURCE_DIR) + "/" + relative;
}

const fs::path kBuildTree = fs::path(COUPLET_BINARY).parent_path();

TEST(PathVariables, ExpandsEveryOccurrenceOfTheBuildDirectory) {
  const targets::ExpandedPath expanded = targets::expand_path_variables(
      "${COUPLET_BUILD_DIR}/tests/${COUPLET_BUILD_DIR}.fmu", kSomewhere);
  EXPECT_EQ(expanded.path, "/opt/somewhere/tests//opt/somewhere.fmu");
  EXPECT_TRUE(expanded.used_build_directory);
}

TEST(PathVariables, LeavesAPathWithoutVariablesAsItIs) {
  const targets::ExpandedPath expanded =
      targets::expand_path_variables("../fmus/a$b.fmu", kSomewhere);
  EXPECT_EQ(expanded.path, "../fmus/a$b.fmu");
  EXPECT_FALSE(expanded.used_build_directory);
}

TEST(PathVariables, RefusesAnUnknownOrUnterminatedVariableByName) {
  try {
    targets::expand_path_variables("${HOME}/left.fmu", kSomewhere);
    FAIL() << "an unknown variable was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_STREQ(error.what(),
                 "unknown variable ${HOME} in '${HOME}/left.fmu' (a path may use "
                 "${COUPLET_BUILD_DIR} only)");
  }
  try {
    targets::expand_path_variables("${COUPLET_BUILD_DIR/left.fmu", kSomewhere);
    FAIL() << "an unterminated variable was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_STREQ(error.what(), "'${COUPLET_BUILD_DIR/left.fmu': '${' without its closing '}'");
  }
}

TEST(BuildDirectory, TheEnvironmentVariableWinsElseTheProgramsFolder) {
  const std::string saved =
      std::getenv("COUPLET_BUILD_DIR") ? std::getenv("COUPLET_BUILD_DIR") : "";
  ::setenv("COUPLET_BUILD_DIR", "/srv/build-x86/", 1);
  const targets::BuildDirectory configured = targets::build_directory();
  EXPECT_EQ(configured.path, "/srv/build-x86");
  EXPECT_EQ(configured.origin, "the environment variable COUPLET_BUILD_DIR");
  ::unsetenv("COUPLET_BUILD_DIR");
  const targets::BuildDirectory own = targets::build_directory();
  const fs::path self = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(own.path, self.parent_path().string());
  EXPECT_EQ(own.origin, "the folder of the running program " + self.string());
  ::setenv("COUPLET_BUILD_DIR", saved.c_str(), 1);
}

// The couplet under test finds its own build tree: no variable set, a working
// directory that is neither the source nor the build tree.
TEST(ShippedScenarios, ValidateFromAnotherWorkingDirectory) {
  for (const std::string scenario :
       {"scenarios/two_mass_switch_fmu.yaml", "scenarios/two_mass_switch_embedded.yaml",
        "examples/dc_motor/dc_motor.yaml"}) {
    int exit_code = -1;
    const std::string output = from_elsewhere(
        std::string(COUPLET_BINARY) + " validate " + shipped(scenario), "", exit_code);
    EXPECT_EQ(exit_code, 0) << scenario << ": " << output;
    EXPECT_NE(output.find(shipped(scenario) + ": valid"), std::string::npos) << output;
  }
}

TEST(ShippedScenarios, RunFromAnotherWorkingDirectory) {
  for (const std::string scenario :
       {"scenarios/two_mass_switch_fmu.yaml", "examples/dc_motor/dc_motor.yaml"}) {
    const fs::path output_directory = fresh_directory("shipped-run");
    int exit_code = -1;
    const std::string output =
        from_elsewhere(std::string(COUPLET_BINARY) + " run " + shipped(scenario) +
                           " --set time.end=0.2 --no-log -q -o " + output_directory.string(),
                       "", exit_code);
    ASSERT_EQ(exit_code, 0) << scenario << ": " << output;
    const nlohmann::json summary =
        nlohmann::json::parse(read_file(output_directory / "summary.json"));
    EXPECT_EQ(summary.at("status"), "completed") << scenario;
    EXPECT_DOUBLE_EQ(summary.at("end_time").get<double>(), 0.2) << scenario;
  }
}

// A build directory by any other name (here a link named build-elsewhere to the
// build tree: nothing copied) given through the environment.
TEST(ShippedScenarios, ValidateWithABuildDirectoryNamedOtherwise) {
  const fs::path renamed = fresh_directory("renamed-build");
  fs::create_directories(renamed);
  const fs::path link = renamed / "build-elsewhere";
  fs::create_directory_symlink(kBuildTree, link);
  int exit_code = -1;
  const std::string output = from_elsewhere(
      std::string(COUPLET_BINARY) + " validate " + shipped("scenarios/two_mass_switch_fmu.yaml"),
      link.string(), exit_code);
  EXPECT_EQ(exit_code, 0) << output;
}

TEST(ScenarioFilePaths, AMissingFileNamesTheExpandedPathAndWhereTheVariablePointed) {
  int exit_code = -1;
  const std::string output = from_elsewhere(
      std::string(COUPLET_BINARY) + " validate " + shipped("scenarios/two_mass_switch_fmu.yaml"),
      "/nonexistent-build", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_NE(
      output.find("couplet: configuration error: " + shipped("scenarios/two_mass_switch_fmu.yaml") +
                  ":11: slaves.left: no such file "
                  "/nonexistent-build/tests/fmus/switch_left.fmu (${COUPLET_BUILD_DIR} is "
                  "/nonexistent-build, the environment variable COUPLET_BUILD_DIR; build "
                  "the file there, or set COUPLET_BUILD_DIR to the build directory that "
                  "has it)"),
      std::string::npos)
      << output;
}

TEST(ScenarioFilePaths, AMissingDeviceProgramIsNamedWithItsLink) {
  int exit_code = -1;
  const std::string output = from_elsewhere(
      std::string(COUPLET_BINARY) + " validate " + shipped("examples/dc_motor/dc_motor.yaml"),
      "/nonexistent-build", exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_NE(
      output.find("dc_motor.yaml:18: slaves.motor.link.program: no such file "
                  "/nonexistent-build/examples/dc_motor/dc_motor_device (${COUPLET_BUILD_DIR} "
                  "is /nonexistent-build"),
      std::string::npos)
      << output;
}

TEST(ScenarioFilePaths, AnUnknownVariableIsRefusedWithFileAndLine) {
  const fs::path directory = fresh_directory("unknown-variable");
  fs::create_directories(directory);
  const fs::path scenario = directory / "scenario.yaml";
  std::ofstream(scenario) << "name: s\ntime: {start: 0, end: 1}\nslaves:\n  left:\n"
                             "    fmu: ${BUILD}/left.fmu\n"
                             "algorithm: {type: jacobi, step: 0.1}\n";
  try {
    tools::load_scenario(scenario.string());
    FAIL() << "an unknown variable was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_EQ(std::string(error.what()),
              scenario.string() +
                  ":5: slaves.left.fmu: unknown variable ${BUILD} in '${BUILD}/left.fmu' (a path "
                  "may use ${COUPLET_BUILD_DIR} only)");
  }
}

// A run log's scenario is parsed again by replay and export: its files need not
// exist any more, so parsing expands the path without opening it.
TEST(ScenarioFilePaths, ParsingDoesNotNeedTheFile) {
  const tools::Scenario scenario = tools::parse_scenario(
      "name: s\ntime: {start: 0, end: 1}\nslaves:\n  left:\n"
      "    fmu: ${COUPLET_BUILD_DIR}/gone.fmu\nalgorithm: {type: jacobi, step: 0.1}\n",
      "/logs/scenario.yaml");
  ASSERT_EQ(scenario.slaves.size(), 1U);
  EXPECT_EQ(scenario.slaves[0].fmu, (kBuildTree / "gone.fmu").string());
}

TEST(CoupletTarget, ExpandsTheBuildDirectoryInFmu) {
  int exit_code = -1;
  const std::string output =
      from_elsewhere((kBuildTree / "couplet-target").string() +
                         " --fmu '${COUPLET_BUILD_DIR}/tests/fmus/switch_left.fmu' --describe",
                     "", exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_NE(output.find("switch_left"), std::string::npos) << output;
}

}  // namespace
}  // namespace couplet::testing
