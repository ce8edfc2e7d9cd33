// Validation errors name the scenario line (docs/cli.md: "Errors are one line on
// stderr naming the file, line and key"): an unconnected input, an algebraic
// loop, a degree a slave cannot take, an imposed step, and a connection written
// backwards, which also says which way the port goes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "couplet/errors.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

/// The message validate_scenario() refuses scenarios/two_mass_switch.yaml with,
/// under `assignments`.
std::string refusal(const std::vector<std::string>& assignments) {
  try {
    tools::validate_scenario(load("two_mass_switch.yaml", assignments));
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

const std::string kScenario = scenario_path("two_mass_switch.yaml");

TEST(ValidationLocations, AnUnconnectedInputNamesItsSlavesLine) {
  EXPECT_EQ(refusal({"connections=[{from: left.x, to: right.x}, {from: left.v, to: right.v}]"}),
            kScenario + ":9: slaves.left: input 'left.f' is not connected: add a connection to it");
}

TEST(ValidationLocations, ADegreeASlaveCannotTakeNamesItsLine) {
  EXPECT_EQ(refusal({"algorithm.input_order=2", "slaves.right.capabilities.max_input_degree=1"}),
            kScenario +
                ":13: slaves.right: slave 'right' accepts input polynomials of degree at "
                "most 1, but algorithm 'jacobi' sends degree 2");
}

TEST(ValidationLocations, AnImposedStepNamesItsSlavesLine) {
  EXPECT_EQ(refusal({"slaves.left.capabilities.imposed_step=0.03"}),
            kScenario +
                ":9: slaves.left: slave 'left' imposes a step of 0.030000 s; "
                "algorithm.step and the time span must be multiples of it");
}

TEST(ValidationLocations, AnAlgebraicLoopNamesTheConnectionThatClosesIt) {
  const std::filesystem::path directory = fresh_directory("loop");
  std::filesystem::create_directories(directory);
  const std::string file = (directory / "loop.yaml").string();
  std::ofstream(file) << "name: loop\n"
                         "time: {start: 0, end: 1}\n"
                         "slaves:\n"
                         "  a: {model: coupling.linear, parameters: {factor: 0.5, offset: 1}}\n"
                         "  b: {model: coupling.linear, parameters: {factor: 0.5, offset: 0}}\n"
                         "connections:\n"
                         "  - {from: a.y, to: b.u}\n"
                         "  - {from: b.y, to: a.u}\n"
                         "algorithm: {type: jacobi, step: 0.1}\n"
                         "reference: none\n";
  try {
    tools::validate_scenario(tools::load_scenario(file));
    FAIL() << "the loop was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what())
                  .find(file + ":8: connections[1]: algebraic loop through direct-feedthrough "
                               "outputs: a.y -> b.y -> a.y"),
              std::string::npos)
        << error.what();
  }
}

TEST(ValidationLocations, AConnectionWrittenBackwardsSaysWhichWayThePortGoes) {
  const std::string message =
      refusal({"connections=[{from: left.x, to: right.x}, "
               "{from: left.v, to: right.v}, {from: left.f, to: right.f}]"});
  EXPECT_NE(message.find(": connections[2]: connection endpoint 'left.f': slave 'left' has no "
                         "output 'f': 'f' is an input of that slave (a connection runs from: an "
                         "output, to: an input); its outputs: x, v"),
            std::string::npos)
      << message;
}

TEST(ValidationLocations, AnUnknownPortIsNotCalledAnInput) {
  const std::string message =
      refusal({"connections=[{from: left.x, to: right.x}, "
               "{from: left.v, to: right.v}, {from: right.g, to: left.f}]"});
  EXPECT_NE(message.find("slave 'right' has no output 'g'; its outputs: f"), std::string::npos)
      << message;
}

// Both ends declare a unit and they differ in their SI base: refused, naming
// both ends, both units, both bases and what to do.
TEST(ValidationLocations, AConnectionBetweenDifferentUnitsNamesBothEndsAndUnits) {
  const std::string message =
      refusal({"connections=[{from: left.x, to: right.v}, "
               "{from: left.v, to: right.x}, {from: right.f, to: left.f}]"});
  EXPECT_NE(message.find(": connections[0]: 'left.x' [m] -> 'right.v' [m/s]: the units differ, "
                         "and their SI bases differ (m, m.s-1); declare the conversion on the "
                         "connection (factor, offset: to = factor * from + offset) or give both "
                         "ends one unit"),
            std::string::npos)
      << message;
}

// factor/offset on a connection: a coupling.linear slave between the ends,
// placed before the target; the target receives factor × source + offset
// exactly, and the units of the two ends no longer need to agree.
TEST(ValidationLocations, AConnectionsLinearTransformationConvertsExactly) {
  const std::filesystem::path directory = fresh_directory("transformation");
  std::filesystem::create_directories(directory);
  const std::string file = (directory / "transformation.yaml").string();
  std::ofstream(file) << "name: transformation\n"
                         "time: {start: 0, end: 1}\n"
                         "slaves:\n"
                         "  speed: {model: stimulus.constant, parameters: {value: 36}}\n"
                         "  left: {model: translational.mass}\n"
                         "  right: {model: translational.coupled_mass}\n"
                         "connections:\n"
                         "  - {from: speed.y, to: left.f, factor: 0.2777777777777778, offset: 1}\n"
                         "  - {from: left.v, to: right.x, factor: 1}\n"
                         "  - {from: left.v, to: right.v}\n"
                         "algorithm: {type: jacobi, step: 0.1}\n"
                         "reference: none\n";
  const tools::Scenario scenario = tools::load_scenario(file);
  std::vector<std::string> order;
  for (const tools::SlaveSpec& slave : scenario.slaves) order.push_back(slave.name);
  EXPECT_EQ(order, (std::vector<std::string>{"speed", "transform_left_f", "left",
                                             "transform_right_x", "right"}));
  EXPECT_NO_THROW(tools::validate_scenario(scenario));
  const nlohmann::json summary =
      tools::run_scenario(scenario, {(directory / "out").string(), false});
  EXPECT_EQ(summary["status"], "completed");
  std::ifstream signals(directory / "out" / "signals.csv");
  std::string header, row;
  std::getline(signals, header);
  std::getline(signals, row);
  EXPECT_EQ(header.rfind("time,speed.y,transform_left_f.y,left.x,left.v,transform_right_x.y,", 0),
            0u)
      << header;
  EXPECT_EQ(row.rfind("0,36,11,", 0), 0u) << row;  // 0.2777777777777778 × 36 + 1
}

}  // namespace
}  // namespace couplet::testing
