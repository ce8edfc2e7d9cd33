// The couplet command line: exit codes and messages that name the culprit.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>

#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr
};

CommandResult couplet(const std::string& arguments) {
  const std::string command = std::string(COUPLET_BINARY) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  CommandResult result;
  std::array<char, 4096> buffer{};
  while (const std::size_t read = fread(buffer.data(), 1, buffer.size(), pipe))
    result.output.append(buffer.data(), read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

const char* const kValidScenario = R"(name: small
time: {start: 0, end: 1}
slaves:
  left: {model: translational.mass}
  right: {model: translational.coupled_mass}
connections:
  - {from: left.x, to: right.x}
  - {from: left.v, to: right.v}
  - {from: right.f, to: left.f}
algorithm: {type: jacobi, step: 0.1}
)";

std::string write_scenario(const std::string& name, const std::string& text) {
  const auto path = fresh_directory("cli").string() + "-" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t position = text.find(from);
  EXPECT_NE(position, std::string::npos) << from;
  return text.replace(position, from.size(), to);
}

void expect_invalid(const std::string& name, const std::string& text, const std::string& culprit) {
  const CommandResult result = couplet("validate " + write_scenario(name, text));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(culprit), std::string::npos)
      << "expected '" << culprit << "' in: " << result.output;
}

TEST(Cli, ValidScenarioValidates) {
  const CommandResult result = couplet("validate " + write_scenario("valid", kValidScenario));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

TEST(Cli, UnconnectedInputIsNamed) {
  expect_invalid("unconnected", replace(kValidScenario, "  - {from: left.v, to: right.v}\n", ""),
                 "right.v");
}

TEST(Cli, UnknownPortIsNamedWithItsLine) {
  const std::string text =
      replace(kValidScenario, "{from: left.v, to: right.v}", "{from: left.speed, to: right.v}");
  expect_invalid("unknown-port", text, "no output 'speed'");
  expect_invalid("unknown-port-line", text, ":8:");
}

TEST(Cli, AlgebraicLoopIsNamed) {
  // Two feedthrough outputs feeding each other: rotational.omega2tau (tau depends on omega)
  // and coupling.linear (y depends on u).
  const std::string loop = R"(time: {end: 1}
slaves:
  a: {model: rotational.omega2tau}
  b: {model: coupling.linear, parameters: {factor: 0.5, offset: 0}}
connections:
  - {from: a.tau, to: b.u}
  - {from: b.y, to: a.omega}
algorithm: {type: jacobi, step: 0.1}
)";
  expect_invalid("loop", loop, "algebraic loop");
  expect_invalid("loop-names", loop, "a.tau");
}

TEST(Cli, UnknownModelParameterAndKeyAreNamed) {
  expect_invalid("unknown-model",
                 replace(kValidScenario, "translational.mass", "translational.masss"),
                 "translational.masss");
  expect_invalid("unknown-parameter",
                 replace(kValidScenario, "{model: translational.mass}",
                         "{model: translational.mass, parameters: {mass: 3}}"),
                 "mass");
  expect_invalid("unknown-key",
                 replace(kValidScenario, "algorithm: {type: jacobi, step: 0.1}",
                         "algorithm: {type: jacobi, stepsize: 0.1}"),
                 "algorithm.stepsize");
  expect_invalid("bad-order", replace(kValidScenario, "step: 0.1}", "step: 0.1, input_order: -1}"),
                 "algorithm.input_order");
  expect_invalid("bad-step", replace(kValidScenario, "step: 0.1}", "step: 0}"), "algorithm.step");
  expect_invalid("bad-algorithm", replace(kValidScenario, "type: jacobi", "type: newton"),
                 "unknown algorithm 'newton'");
}

TEST(Cli, RunWritesSummaryAndSignals) {
  const auto directory = fresh_directory("cli-run");
  const CommandResult result = couplet("run " + write_scenario("run", kValidScenario) + " -o " +
                                       directory.string() + " --set algorithm.step=0.05");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream summary_file(directory / "summary.json");
  const auto summary = nlohmann::json::parse(summary_file);
  EXPECT_EQ(summary.at("macro_steps").get<int>(), 20);
  EXPECT_EQ(summary.at("algorithm"), "jacobi");
  std::ifstream signals(directory / "signals.csv");
  std::string header;
  std::getline(signals, header);
  EXPECT_EQ(header, "time,left.x,left.v,right.f");
}

TEST(Cli, ModelsListsPortsAndParameters) {
  const CommandResult result = couplet("models");
  EXPECT_EQ(result.exit_code, 0);
  for (const char* expected :
       {"rotational.omega2tau", "rotational.tau2omega", "translational.mass",
        "translational.coupled_mass", "switch_time", "anchor_after", "phi_in0"}) {
    EXPECT_NE(result.output.find(expected), std::string::npos) << expected;
  }
}

TEST(Cli, MissingFileAndBadOverrideExitNonZero) {
  EXPECT_EQ(couplet("validate /nonexistent.yaml").exit_code, 2);
  const CommandResult result =
      couplet("validate " + write_scenario("override", kValidScenario) + " --set algorithm.step");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("couplet: usage error: --set: usage: --set expects KEY=VALUE"),
            std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace couplet::testing

namespace couplet::testing {
namespace {

TEST(Cli, DeclaredCapabilitiesAreEnforced) {
  const std::string scenario = write_scenario("capabilities", kValidScenario);
  CommandResult result =
      couplet("validate " + scenario +
              " --set slaves.right.capabilities.max_input_degree=0 --set algorithm.input_order=1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("slave 'right' accepts input polynomials of degree at most 0"),
            std::string::npos)
      << result.output;
  result = couplet("validate " + scenario + " --set slaves.right.capabilities.imposed_step=0.03");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("slave 'right' imposes a step"), std::string::npos) << result.output;
  result = couplet("validate " + scenario + " --set slaves.right.capabilities.imposed_step=0.05");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  result =
      couplet("validate " + scenario + " --set slaves.left.capabilities.output_derivative_order=9");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("output_derivative_order"), std::string::npos) << result.output;
}

// Usage errors exit 2 with one line, as docs/cli.md says; --help and --version 0.
TEST(Cli, UsageErrorsExitTwoWithOneLine) {
  for (const char* arguments : {"", "run", "run --bogus x.yaml", "frobnicate", "run x.yaml --set",
                                "run x.yaml --progress-interval 0"}) {
    const CommandResult result = couplet(arguments);
    EXPECT_EQ(result.exit_code, 2) << "couplet " << arguments << ": " << result.output;
    EXPECT_EQ(result.output.rfind("couplet: usage error: ", 0), 0u) << result.output;
    EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  }
  EXPECT_EQ(couplet("--help").exit_code, 0);
  EXPECT_EQ(couplet("run --help").exit_code, 0);
}

/// `project(couplet VERSION x.y.z ...)` of the top-level CMakeLists.txt.
std::string project_version() {
  std::ifstream file(std::string(COUPLET_SOURCE_DIR) + "/CMakeLists.txt");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::string marker = "project(couplet VERSION ";
  const std::size_t position = text.find(marker);
  if (position == std::string::npos) return "no project() version";
  const std::size_t begin = position + marker.size();
  return text.substr(begin, text.find(' ', begin) - begin);
}

TEST(Cli, VersionIsTheProjectVersion) {
  const CommandResult result = couplet("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output, "couplet " + project_version() + "\n");
}

// The reference of a hardware-in-the-loop scenario is that of its models,
// solved locally: the links (and the targets' missing rollback) are ignored.
TEST(Cli, ReferenceIgnoresLinks) {
  for (const char* scenario : {"two_mass_switch_hil", "ifosmondi_damper_hil"}) {
    const auto directory = fresh_directory(std::string("cli-reference-") + scenario);
    const CommandResult result =
        couplet("reference " + scenario_path(std::string(scenario) + ".yaml") +
                " --set time.end=1 -o " + directory.string());
    EXPECT_EQ(result.exit_code, 0) << result.output;
    std::ifstream signals(directory / "signals.csv");
    const std::string text((std::istreambuf_iterator<char>(signals)),
                           std::istreambuf_iterator<char>());
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 102)
        << scenario;  // header, t = 0 ... 1 by 0.01
  }
}

// Off a terminal, a line every --progress-interval: a wall-clock run of 1 s
// outlasts several 0.2 s intervals. --quiet silences it.
TEST(Cli, ProgressLinesOffATerminalAndQuiet) {
  const std::string scenario =
      scenario_path("two_mass_switch.yaml") + " --set time.end=1 --set 'clock={type: wall}'";
  const auto directory = fresh_directory("cli-progress");
  CommandResult result =
      couplet("run " + scenario + " --progress-interval 0.2 -o " + directory.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::size_t line = result.output.find("couplet: t = ");
  ASSERT_NE(line, std::string::npos) << result.output;
  const std::string first = result.output.substr(line, result.output.find('\n', line) - line);
  EXPECT_NE(first.find(" / 1.000 s ("), std::string::npos) << first;
  EXPECT_NE(first.find(" s/s, ETA "), std::string::npos) << first;
  result = couplet("run " + scenario + " --progress-interval 0.2 --quiet -o " + directory.string());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.find("couplet: t = "), std::string::npos) << result.output;
}

TEST(Cli, RollbackLessAndSamplelessSlavesRunWithJacobi) {
  const auto directory = fresh_directory("cli-device");
  const CommandResult result =
      couplet("run " + write_scenario("device", kValidScenario) + " -o " + directory.string() +
              " --set slaves.right.capabilities.rollback=false"
              " --set slaves.left.capabilities.intermediate_samples=false");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream summary_file(directory / "summary.json");
  const auto summary = nlohmann::json::parse(summary_file);
  EXPECT_EQ(summary.at("evaluation").at("interpolated_slaves"), nlohmann::json::array({"left"}));
}

}  // namespace
}  // namespace couplet::testing

namespace couplet::testing {
namespace {

// A device program's equations are unknown: the reference says so, naming the
// slave, before any target is started.
TEST(Cli, ReferenceRefusesADeviceProgram) {
  const std::string scenario = std::string(COUPLET_SOURCE_DIR) + "/examples/dc_motor/dc_motor.yaml";
  const CommandResult result =
      couplet("reference " + scenario + " -o " + fresh_directory("cli-reference-device").string());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(
                "dc_motor.yaml:16: slaves.motor: the device program 'dc_motor' has no equations"),
            std::string::npos)
      << result.output;
}

// couplet maps at start only what every command needs (docs/results.md,
// "Start-up time"): matio, and through it HDF5, curl, Kerberos and LDAP, is
// loaded when a MAT-file is written (log_export_test writes them through it),
// Open MPI when mpirun started the run (mpi_executor_test). The dynamic
// loader lists what it maps, as ldd does.
TEST(StartUp, CoupletMapsNeitherMatioNorOpenMpiAtStart) {
  int exit_code = -1;
  const std::string loaded =
      command_output("LD_TRACE_LOADED_OBJECTS=1 " + std::string(COUPLET_BINARY), exit_code);
  EXPECT_EQ(exit_code, 0) << loaded;
  ASSERT_NE(loaded.find("libcouplet-core"), std::string::npos) << "no loader listing:\n" << loaded;
  for (const char* library :
       {"libmatio", "libhdf5", "libcurl", "libkrb5", "libmpi", "libopen-rte", "libhwloc"})
    EXPECT_EQ(loaded.find(library), std::string::npos) << library << " is mapped at start:\n"
                                                       << loaded;
}

}  // namespace
}  // namespace couplet::testing
