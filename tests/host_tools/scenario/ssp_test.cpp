// SSP packages as scenarios (docs/ssp.md): packages made here with libzip from
// the project's test FMUs run the two-mass switch exactly as the YAML scenario
// does, through the library and through `couplet run`; what couplet does not
// support is refused naming the package, the file, its line and the element.
#include <gtest/gtest.h>
#include <zip.h>

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <map>
#include <string>

#include "couplet/errors.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/ssp_import.hpp"
#include "host_tools/test_support.hpp"
#include "support/zip_writer.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

std::string fmu(const std::string& name) {
  return std::string(COUPLET_TEST_FMU_DIR) + "/" + name + ".fmu";
}

const char* const kNamespaces =
    "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\" "
    "xmlns:ssc=\"http://ssp-standard.org/SSP1/SystemStructureCommon\" "
    "xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\"";

std::string parameter(const std::string& name, const std::string& value,
                      const std::string& type = "Real") {
  return "<ssv:Parameter name=\"" + name + "\"><ssv:" + type + " value=\"" + value +
         "\"/></ssv:Parameter>";
}

/// The pieces of SystemStructure.ssd a test changes.
struct Structure {
  std::string left_component =
      "<ssd:Component name=\"left\" source=\"resources/switch_left.fmu\" "
      "implementation=\"CoSimulation\">";
  std::string left_connectors =
      "<ssd:Connectors><ssd:Connector name=\"f\" kind=\"input\"><ssc:Real "
      "unit=\"N\"/></ssd:Connector>"
      "<ssd:Connector name=\"x\" kind=\"output\"><ssc:Real "
      "unit=\"m\"/></ssd:Connector></ssd:Connectors>";
  // The left half's parameters from a parameter file, x0 from the system's binding below.
  std::string left_bindings =
      "<ssd:ParameterBindings><ssd:ParameterBinding "
      "source=\"resources/left.ssv\"/></ssd:ParameterBindings>";
  std::string right_component =
      "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\" "
      "implementation=\"ModelExchange\">"
      "</ssd:Component>";
  std::string x_connection =
      "<ssd:Connection startElement=\"left\" startConnector=\"x\" endElement=\"right\" "
      "endConnector=\"x\">"
      "<ssc:LinearTransformation factor=\"1\" offset=\"0\"/></ssd:Connection>";
  std::string extra_elements;
  std::string extra_connections;
  std::string units;  ///< an <ssd:Units> element, after the system
  std::string system_bindings =
      "<ssd:ParameterBindings><ssd:ParameterBinding prefix=\"left.\"><ssd:ParameterValues>"
      "<ssv:ParameterSet version=\"1.0\" name=\"start\"><ssv:Parameters>" +
      parameter("x0", "1") +
      "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding></"
      "ssd:ParameterBindings>";
  std::string version = "1.0";

  std::string text() const {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssd:SystemStructureDescription " +
           std::string(kNamespaces) + " version=\"" + version +
           "\" name=\"two_mass_switch_ssp\">\n" + "<ssd:System name=\"root\">\n<ssd:Elements>\n" +
           left_component + left_connectors + left_bindings + "</ssd:Component>\n" +
           right_component + "\n" + extra_elements + "</ssd:Elements>\n<ssd:Connections>\n" +
           x_connection + "\n" +
           "<ssd:Connection startElement=\"left\" startConnector=\"v\" endElement=\"right\" "
           "endConnector=\"v\"/>\n"
           "<ssd:Connection startElement=\"right\" startConnector=\"f\" endElement=\"left\" "
           "endConnector=\"f\"/>\n" +
           extra_connections + "</ssd:Connections>\n" + system_bindings + "\n</ssd:System>\n" +
           units +
           "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"200\"/>\n"
           "</ssd:SystemStructureDescription>\n";
  }
};

const std::string kLeftParameters =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssv:ParameterSet " + std::string(kNamespaces) +
    " version=\"1.0\" name=\"left\"><ssv:Parameters>" + parameter("m", "10") + parameter("c", "1") +
    parameter("d", "0.1") + parameter("v0", "0") + "</ssv:Parameters></ssv:ParameterSet>\n";

// The couplet settings of scenarios/two_mass_switch_fmu.yaml.
const std::string kSettings =
    "algorithm: {type: jacobi, step: 0.01, input_order: 1}\n"
    "reference: none\n"
    "evaluation: {grid: 0.01, signals: [left.x, left.v]}\n"
    "slaves:\n"
    "  right:\n"
    "    solver: {type: cvode, rtol: 1.0e-9, atol: 1.0e-11}\n";

/// A package of the two-mass switch, with its settings file beside it.
fs::path make_package(const std::string& name, const Structure& structure,
                      const std::string& settings = kSettings) {
  const fs::path directory = fresh_directory("ssp-" + name);
  fs::create_directories(directory);
  const fs::path package = directory / (name + ".ssp");
  write_zip(package, {{"SystemStructure.ssd", structure.text()},
                      {"resources/switch_left.fmu", "@" + fmu("switch_left")},
                      {"resources/switch_right.fmu", "@" + fmu("switch_right")},
                      {"resources/left.ssv", kLeftParameters}});
  if (!settings.empty()) {
    std::ofstream(tools::ssp_settings_path(package.string())) << settings;
  }
  return package;
}

std::string refusal(const fs::path& package) {
  try {
    tools::load_scenario(package.string());
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  ADD_FAILURE() << package << " was accepted";
  return "";
}

TEST(SspPackage, RunsAsTheYamlScenarioBitForBit) {
  const fs::path package = make_package("same", Structure{});
  const tools::Scenario scenario = tools::load_scenario(package.string());
  EXPECT_EQ(scenario.name, "two_mass_switch_ssp");
  EXPECT_EQ(scenario.end, 200.0);
  ASSERT_EQ(scenario.slaves.size(), 2u);
  EXPECT_EQ(scenario.slaves[0].name, "left");
  EXPECT_EQ(scenario.slaves[0].fmu_kind, models::FmuKind::co_simulation);
  EXPECT_EQ(scenario.slaves[1].fmu_kind, models::FmuKind::model_exchange);
  // From the parameter file, and from the system's binding with its prefix.
  const std::map<std::string, double, std::less<>> expected = {
      {"c", 1.0}, {"d", 0.1}, {"m", 10.0}, {"v0", 0.0}, {"x0", 1.0}};
  EXPECT_EQ(scenario.slaves[0].parameters, expected);
  EXPECT_EQ(scenario.connections.size(), 3u);

  const nlohmann::json from_package =
      tools::run_scenario(scenario, {fresh_directory("ssp-run").string(), false});
  const nlohmann::json from_yaml = run("two_mass_switch_fmu.yaml", {}, "ssp-yaml-run");
  EXPECT_EQ(from_package.at("decision_hash"), from_yaml.at("decision_hash"));
  EXPECT_EQ(read_file(run_directory("ssp-run") / "signals.csv"),
            read_file(run_directory("ssp-yaml-run") / "signals.csv"));
}

TEST(SspPackage, RunsThroughTheCommandLineWithOverridesAndReplays) {
  const fs::path package = make_package("cli", Structure{});
  const fs::path output = fresh_directory("ssp-cli-out");
  const std::string run_command = std::string(COUPLET_BINARY) + " run " + package.string() +
                                  " --set time.end=20 --set algorithm.step=0.02 -q -o " +
                                  output.string();
  ASSERT_EQ(std::system(run_command.c_str()), 0) << run_command;
  const nlohmann::json summary = nlohmann::json::parse(read_file(output / "summary.json"));
  EXPECT_EQ(summary.at("end_time").get<double>(), 20.0) << summary.dump();
  const std::string replay = std::string(COUPLET_BINARY) + " replay " +
                             (output / "run.log").string() + " --verify > /dev/null";
  EXPECT_EQ(std::system(replay.c_str()), 0) << replay;
  const std::string validate =
      std::string(COUPLET_BINARY) + " validate " + package.string() + " > /dev/null";
  EXPECT_EQ(std::system(validate.c_str()), 0);
}

// docs/ssp.md's example, as the build makes it (examples/ssp/), run as the docs show.
TEST(SspPackage, TheShippedExampleRunsAsItsYamlTwin) {
  const fs::path example =
      fs::path(COUPLET_BINARY).parent_path() / "examples" / "ssp" / "two_mass_switch.ssp";
  ASSERT_TRUE(fs::exists(example)) << example;
  ASSERT_TRUE(fs::exists(tools::ssp_settings_path(example.string())));
  const fs::path output = fresh_directory("ssp-example-out");
  const std::string command =
      std::string(COUPLET_BINARY) + " run " + example.string() + " -q -o " + output.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const nlohmann::json from_yaml = run("two_mass_switch_fmu.yaml", {}, "ssp-example-yaml");
  const nlohmann::json summary = nlohmann::json::parse(read_file(output / "summary.json"));
  EXPECT_EQ(summary.at("decision_hash"), from_yaml.at("decision_hash"));
  EXPECT_EQ(read_file(output / "signals.csv"),
            read_file(run_directory("ssp-example-yaml") / "signals.csv"));
}

// suppressUnitConversion="true" between connectors of different units: the
// value passes unchanged, through an identity converter, so that couplet does
// not convert it by the units either.
TEST(SspPackage, SuppressedUnitConversionPassesTheValueUnchanged) {
  Structure structure;
  structure.right_component =
      "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\" "
      "implementation=\"ModelExchange\"><ssd:Connectors>"
      "<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real unit=\"mm\"/></ssd:Connector>"
      "</ssd:Connectors></ssd:Component>";
  structure.x_connection =
      "<ssd:Connection startElement=\"left\" startConnector=\"x\" endElement=\"right\" "
      "endConnector=\"x\" suppressUnitConversion=\"true\"/>";
  const fs::path package = make_package("suppressed", structure);
  const tools::Scenario scenario = tools::load_scenario(package.string());
  const auto transform =
      std::find_if(scenario.slaves.begin(), scenario.slaves.end(),
                   [](const tools::SlaveSpec& slave) { return slave.name == "transform_right_x"; });
  ASSERT_NE(transform, scenario.slaves.end());
  EXPECT_EQ(transform->model, "coupling.linear");
  const std::map<std::string, double, std::less<>> identity = {{"factor", 1.0}, {"offset", 0.0}};
  EXPECT_EQ(transform->parameters, identity);
}

/// The transform slave's parameters in `scenario`, or nothing.
std::optional<std::map<std::string, double, std::less<>>> transform_parameters(
    const tools::Scenario& scenario, const std::string& name) {
  for (const tools::SlaveSpec& slave : scenario.slaves) {
    if (slave.name == name && slave.model == "coupling.linear") return slave.parameters;
  }
  return std::nullopt;
}

// Connectors of different units of one SI base are converted as FMI's
// BaseUnit rule says (SSP 1.0 uses FMI 2.0's unit definitions): by the SSD's
// <Units> where it defines the unit, else by the name as couplet reads it.
TEST(SspPackage, ConnectorsOfDifferentUnitsAreConvertedByTheirBaseUnits) {
  Structure by_name;
  by_name.right_component =
      "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\" "
      "implementation=\"ModelExchange\"><ssd:Connectors>"
      "<ssd:Connector name=\"x\" kind=\"input\"><ssc:Real unit=\"mm\"/></ssd:Connector>"
      "</ssd:Connectors></ssd:Component>";
  by_name.x_connection =
      "<ssd:Connection startElement=\"left\" startConnector=\"x\" endElement=\"right\" "
      "endConnector=\"x\"/>";
  const auto millimetres = transform_parameters(
      tools::load_scenario(make_package("units_by_name", by_name).string()), "transform_right_x");
  ASSERT_TRUE(millimetres.has_value());
  EXPECT_EQ(millimetres->at("factor"), 1000.0);
  EXPECT_EQ(millimetres->at("offset"), 0.0);
  // validate lists the converter, naming the SSD's line.
  const std::vector<std::string> notes = tools::validate_scenario(
      tools::load_scenario(make_package("units_by_name", by_name).string()));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("SystemStructure.ssd:"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find(": Connection 'left.x' -> 'right.x' ['m', 'mm']: converted, to = 1000 "
                          "* from (both m)"),
            std::string::npos)
      << notes[0];

  // A unit only the SSD defines: "inch" = 0.0254 m; m -> inch is 1/0.0254.
  Structure defined = by_name;
  const std::string mm = "unit=\"mm\"";
  defined.right_component.replace(defined.right_component.find(mm), mm.size(), "unit=\"inch\"");
  defined.units =
      "<ssd:Units><ssc:Unit name=\"inch\"><ssc:BaseUnit m=\"1\" factor=\"0.0254\"/></ssc:Unit>"
      "</ssd:Units>\n";
  const tools::Scenario inches =
      tools::load_scenario(make_package("units_defined", defined).string());
  const auto to_inches = transform_parameters(inches, "transform_right_x");
  ASSERT_TRUE(to_inches.has_value());
  EXPECT_EQ(to_inches->at("factor"), 1.0 / 0.0254);
  EXPECT_EQ(to_inches->at("offset"), 0.0);
  // And it runs: the converter's output is the position in inches.
  const fs::path output = fresh_directory("ssp-inches-run");
  tools::Scenario short_run = inches;
  short_run.end = 1.0;
  tools::run_scenario(short_run, {output.string(), false});
  const tools::ExportTable table =
      tools::communication_table(tools::read_run_log((output / "run.log").string()));
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(table.columns.begin(), table.columns.end(), name) -
                                    table.columns.begin());
  };
  const std::size_t x = column("left.x");
  const std::size_t y = column("transform_right_x.y");
  ASSERT_LT(y, table.columns.size());
  ASSERT_FALSE(table.rows.empty());
  for (const auto& row : table.rows) {
    ASSERT_TRUE(row[x] && row[y]);
    EXPECT_EQ(*row[y], 1.0 / 0.0254 * *row[x]);
  }

  // Two spellings of one unit need no converter: right.f [N] -> left.f [kg.m/s2].
  Structure spelled;
  spelled.left_connectors.replace(spelled.left_connectors.find("unit=\"N\""), 8,
                                  "unit=\"kg.m/s2\"");
  spelled.right_component =
      "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\" "
      "implementation=\"ModelExchange\"><ssd:Connectors>"
      "<ssd:Connector name=\"f\" kind=\"output\"><ssc:Real unit=\"N\"/></ssd:Connector>"
      "</ssd:Connectors></ssd:Component>";
  const tools::Scenario same = tools::load_scenario(make_package("units_same", spelled).string());
  EXPECT_FALSE(transform_parameters(same, "transform_left_f").has_value());
  EXPECT_EQ(same.slaves.size(), 2u);
}

// Integer and Boolean connectors connect like Real ones: a package of two
// tally counters runs as the same YAML scenario does, bit for bit.
TEST(SspPackage, IntegerAndBooleanConnectorsRunAsTheYamlScenario) {
  const fs::path directory = fresh_directory("ssp-tally");
  fs::create_directories(directory);
  const auto connector = [](const char* name, const char* kind, const char* type) {
    return std::string("<ssd:Connector name=\"") + name + "\" kind=\"" + kind + "\"><ssc:" + type +
           "/></ssd:Connector>";
  };
  const std::string ssd =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssd:SystemStructureDescription " +
      std::string(kNamespaces) +
      " version=\"1.0\" name=\"tallies\">\n<ssd:System name=\"root\">\n<ssd:Elements>\n"
      "<ssd:Component name=\"a\" source=\"resources/tally.fmu\"><ssd:Connectors>" +
      connector("count", "output", "Integer") + connector("odd", "output", "Boolean") +
      "</ssd:Connectors></ssd:Component>\n"
      "<ssd:Component name=\"b\" source=\"resources/tally.fmu\"><ssd:Connectors>" +
      connector("increment", "input", "Integer") + connector("enable", "input", "Boolean") +
      "</ssd:Connectors></ssd:Component>\n"
      "<ssd:Component name=\"u\" source=\"resources/units.fmu\"><ssd:Connectors>" +
      connector("v", "input", "Real") + connector("temperature_in", "input", "Real") +
      "</ssd:Connectors></ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n"
      "<ssd:Connection startElement=\"a\" startConnector=\"count\" endElement=\"b\" "
      "endConnector=\"increment\"/>\n"
      "<ssd:Connection startElement=\"a\" startConnector=\"odd\" endElement=\"b\" "
      "endConnector=\"enable\"/>\n"
      "<ssd:Connection startElement=\"a\" startConnector=\"count\" endElement=\"u\" "
      "endConnector=\"v\"/>\n"
      "<ssd:Connection startElement=\"b\" startConnector=\"count\" endElement=\"u\" "
      "endConnector=\"temperature_in\"/>\n</ssd:Connections>\n</ssd:System>\n"
      "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"6\"/>\n"
      "</ssd:SystemStructureDescription>\n";
  const fs::path package = directory / "tallies.ssp";
  write_zip(package, {{"SystemStructure.ssd", ssd},
                      {"resources/tally.fmu", "@" + fmu("tally")},
                      {"resources/units.fmu", "@" + fmu("units")}});
  const std::string settings =
      "algorithm: {type: gauss_seidel, step: 0.5}\nevaluation: {grid: 0.5}\nreference: none\n";
  std::ofstream(tools::ssp_settings_path(package.string())) << settings;
  const fs::path yaml = directory / "tallies.yaml";
  std::ofstream(yaml) << "name: tallies\ntime: {start: 0, end: 6}\nslaves:\n  a: {fmu: " +
                             fmu("tally") + "}\n  b: {fmu: " + fmu("tally") +
                             "}\n  u: {fmu: " + fmu("units") +
                             "}\nconnections:\n  - {from: a.count, to: b.increment}\n"
                             "  - {from: a.odd, to: b.enable}\n"
                             "  - {from: a.count, to: u.v}\n"
                             "  - {from: b.count, to: u.temperature_in}\n" +
                             settings;

  const nlohmann::json from_package = tools::run_scenario(
      tools::load_scenario(package.string()), {fresh_directory("ssp-tally-run").string(), false});
  const nlohmann::json from_yaml = tools::run_scenario(
      tools::load_scenario(yaml.string()), {fresh_directory("ssp-tally-yaml").string(), false});
  EXPECT_EQ(from_package.at("decision_hash"), from_yaml.at("decision_hash"));
  const std::string signals = read_file(run_directory("ssp-tally-run") / "signals.csv");
  EXPECT_EQ(signals, read_file(run_directory("ssp-tally-yaml") / "signals.csv"));
  EXPECT_NE(signals.find("b.count"), std::string::npos) << signals;
  // The Integer counts, held on the units FMU's Real inputs, pass through it:
  // under Gauss–Seidel u steps last and holds its sources' new counts.
  const auto columns = read_columns(run_directory("ssp-tally-run") / "signals.csv");
  EXPECT_EQ(columns.at("u.v_shown"), columns.at("a.count")) << signals;
  EXPECT_EQ(columns.at("u.temperature_seen"), columns.at("b.count")) << signals;
  EXPECT_GT(columns.at("b.count").back(), 0) << signals;
}

// FMI 3.0 components connect like FMI 2.0 ones: typed ports of two types3
// FMUs and an element of an arrays3 array (connector "u[2]") run as the same
// YAML scenario does, bit for bit.
TEST(SspPackage, Fmi3ComponentsRunAsTheYamlScenario) {
  const fs::path directory = fresh_directory("ssp-fmi3");
  fs::create_directories(directory);
  const auto connector = [](const char* name, const char* kind, const char* type) {
    return std::string("<ssd:Connector name=\"") + name + "\" kind=\"" + kind + "\"><ssc:" + type +
           "/></ssd:Connector>";
  };
  const auto connection = [](const char* from, const char* output, const char* to,
                             const char* input) {
    return std::string("<ssd:Connection startElement=\"") + from + "\" startConnector=\"" + output +
           "\" endElement=\"" + to + "\" endConnector=\"" + input + "\"/>\n";
  };
  const std::string ssd =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ssd:SystemStructureDescription " +
      std::string(kNamespaces) +
      " version=\"1.0\" name=\"fmi3\">\n<ssd:System name=\"root\">\n<ssd:Elements>\n"
      "<ssd:Component name=\"a\" source=\"resources/types3.fmu\"><ssd:Connectors>" +
      connector("y_i8", "output", "Integer") + connector("y_b", "output", "Boolean") +
      connector("y_f64", "output", "Real") + connector("y_f32", "output", "Real") +
      "</ssd:Connectors></ssd:Component>\n"
      "<ssd:Component name=\"b\" source=\"resources/types3.fmu\"><ssd:Connectors>" +
      connector("u_i8", "input", "Integer") + connector("u_b", "input", "Boolean") +
      connector("u_f64", "input", "Real") + connector("u_i32", "input", "Integer") +
      "</ssd:Connectors></ssd:Component>\n"
      "<ssd:Component name=\"arr\" source=\"resources/arrays3.fmu\"><ssd:Connectors>" +
      connector("u[2]", "input", "Real") + connector("grid[4]", "output", "Integer") +
      "</ssd:Connectors></ssd:Component>\n</ssd:Elements>\n<ssd:Connections>\n" +
      connection("a", "y_i8", "b", "u_i8") + connection("a", "y_b", "b", "u_b") +
      connection("a", "y_f64", "b", "u_f64") + connection("arr", "grid[4]", "b", "u_i32") +
      connection("a", "y_f32", "arr", "u[2]") +
      "</ssd:Connections>\n</ssd:System>\n"
      "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"2\"/>\n"
      "</ssd:SystemStructureDescription>\n";
  const fs::path package = directory / "fmi3.ssp";
  write_zip(package, {{"SystemStructure.ssd", ssd},
                      {"resources/types3.fmu", "@" + fmu("types3")},
                      {"resources/arrays3.fmu", "@" + fmu("arrays3")}});
  const std::string settings =
      "algorithm: {type: jacobi, step: 0.5}\nevaluation: {grid: 0.5}\nreference: none\n";
  std::ofstream(tools::ssp_settings_path(package.string())) << settings;
  const fs::path yaml = directory / "fmi3.yaml";
  std::ofstream(yaml) << "name: fmi3\ntime: {start: 0, end: 2}\nslaves:\n  a: {fmu: " +
                             fmu("types3") + "}\n  b: {fmu: " + fmu("types3") +
                             "}\n  arr: {fmu: " + fmu("arrays3") +
                             "}\nconnections:\n  - {from: a.y_i8, to: b.u_i8}\n"
                             "  - {from: a.y_b, to: b.u_b}\n"
                             "  - {from: a.y_f64, to: b.u_f64}\n"
                             "  - {from: \"arr.grid[4]\", to: b.u_i32}\n"
                             "  - {from: a.y_f32, to: \"arr.u[2]\"}\n" +
                             settings;

  const nlohmann::json from_package = tools::run_scenario(
      tools::load_scenario(package.string()), {fresh_directory("ssp-fmi3-run").string(), false});
  const nlohmann::json from_yaml = tools::run_scenario(
      tools::load_scenario(yaml.string()), {fresh_directory("ssp-fmi3-yaml").string(), false});
  EXPECT_EQ(from_package.at("decision_hash"), from_yaml.at("decision_hash"));
  const std::string signals = read_file(run_directory("ssp-fmi3-run") / "signals.csv");
  EXPECT_EQ(signals, read_file(run_directory("ssp-fmi3-yaml") / "signals.csv"));
  const auto columns = read_columns(run_directory("ssp-fmi3-run") / "signals.csv");
  EXPECT_EQ(columns.at("b.y_i8").back(), -128) << signals;
  EXPECT_EQ(columns.at("b.y_i32").back(), 21) << signals;  // grid[4]: row 2, column 1
  // arrays3: y[2]' = 2 u[2], u[2] = a's y_f32, the largest float, for 2 s.
  EXPECT_EQ(columns.at("arr.y[2]").back(), 4.0 * static_cast<double>(FLT_MAX)) << signals;
}

// A LinearTransformation becomes a coupling.linear slave between the ends: at
// every communication time its output is factor * the source's + offset, the
// value the target's input was refreshed with.
TEST(SspPackage, ALinearTransformationScalesTheConnection) {
  Structure structure;
  structure.x_connection =
      "<ssd:Connection startElement=\"left\" startConnector=\"x\" endElement=\"right\" "
      "endConnector=\"x\"><ssc:LinearTransformation factor=\"2\" offset=\"0.5\"/></ssd:Connection>";
  const fs::path package =
      make_package("scaled", structure,
                   "algorithm: {type: jacobi, step: 0.01, input_order: 1}\ntime: {end: 20}\n");
  const tools::Scenario scenario = tools::load_scenario(package.string());
  ASSERT_EQ(scenario.slaves.size(), 3u);
  const tools::SlaveSpec& transform = scenario.slaves[2];
  EXPECT_EQ(transform.name, "transform_right_x");
  EXPECT_EQ(transform.model, "coupling.linear");
  const std::map<std::string, double, std::less<>> parameters = {{"factor", 2.0}, {"offset", 0.5}};
  EXPECT_EQ(transform.parameters, parameters);
  const auto connected = [&](const std::string& from, const std::string& to) {
    return std::any_of(
        scenario.connections.begin(), scenario.connections.end(),
        [&](const tools::ConnectionSpec& c) { return c.from == from && c.to == to; });
  };
  EXPECT_TRUE(connected("left.x", "transform_right_x.u"));
  EXPECT_TRUE(connected("transform_right_x.y", "right.x"));
  EXPECT_FALSE(connected("left.x", "right.x"));

  const fs::path output = fresh_directory("ssp-scaled-run");
  tools::run_scenario(scenario, {output.string(), false});
  const tools::ExportTable table =
      tools::communication_table(tools::read_run_log((output / "run.log").string()));
  const auto column = [&](const std::string& name) {
    const auto found = std::find(table.columns.begin(), table.columns.end(), name);
    EXPECT_NE(found, table.columns.end()) << name;
    return static_cast<std::size_t>(found - table.columns.begin());
  };
  const std::size_t x = column("left.x");
  const std::size_t y = column("transform_right_x.y");
  ASSERT_EQ(table.rows.size(), 2001u);
  for (const auto& row : table.rows) {
    ASSERT_TRUE(row[x] && row[y]);
    EXPECT_NEAR(*row[y], 2.0 * *row[x] + 0.5, 1e-12);
  }
}

TEST(SspPackage, SettingsCannotChangeTheStructure) {
  EXPECT_NE(refusal(make_package("settings-connections", Structure{},
                                 kSettings + "connections: [{from: left.x, to: right.x}]\n"))
                .find("connections: unknown key"),
            std::string::npos);
  const std::string unknown = refusal(make_package(
      "settings-unknown", Structure{},
      "algorithm: {type: jacobi, step: 0.01}\nslaves:\n  middle: {solver: {type: cvode}}\n"));
  EXPECT_NE(
      unknown.find("settings-unknown.couplet.yaml:3: slaves.middle: no component of that name"),
      std::string::npos)
      << unknown;
  const std::string fmu_path = refusal(
      make_package("settings-fmu", Structure{},
                   "algorithm: {type: jacobi, step: 0.01}\nslaves:\n  left: {fmu: other.fmu}\n"));
  EXPECT_NE(fmu_path.find("slaves.left.fmu: unknown key"), std::string::npos) << fmu_path;
}

// The settings are read where they were written: a wrong value names the
// settings file and its line, and the scenario keeps the package's name.
TEST(SspPackage, SettingsErrorsNameTheSettingsFileAndLine) {
  const std::string bad_step =
      refusal(make_package("settings-bad-step", Structure{},
                           "name: stepped\nalgorithm:\n  type: jacobi\n  step: -0.01\n"));
  EXPECT_NE(bad_step.find("settings-bad-step.couplet.yaml:4: algorithm.step"), std::string::npos)
      << bad_step;
  const std::string bad_solver = refusal(make_package(
      "settings-bad-solver", Structure{},
      "algorithm: {type: jacobi, step: 0.01}\nslaves:\n  left:\n    solver: {type: rk9}\n"));
  EXPECT_NE(bad_solver.find("settings-bad-solver.couplet.yaml:4: slaves.left.solver.type"),
            std::string::npos)
      << bad_solver;
  const fs::path package = make_package("settings-good", Structure{});
  EXPECT_EQ(tools::load_scenario(package.string()).source, package.string());
}

TEST(SspPackage, WithoutSettingsSaysWhereTheyGo) {
  const std::string message = refusal(make_package("no-settings", Structure{}, ""));
  EXPECT_NE(message.find("no-settings.couplet.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("algorithm"), std::string::npos) << message;
}

/// The right component with its connector f, an output in `unit`.
std::string right_f_in(const std::string& unit) {
  return "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\"><ssd:Connectors>"
         "<ssd:Connector name=\"f\" kind=\"output\"><ssc:Real unit=\"" +
         unit + "\"/></ssd:Connector></ssd:Connectors></ssd:Component>";
}

struct Unsupported {
  const char* label;
  void (*change)(Structure&);
  const char* expected;  ///< in the message, besides the package's name
};

class SspRefusal : public ::testing::TestWithParam<Unsupported> {};

TEST_P(SspRefusal, NamesTheElement) {
  Structure structure;
  GetParam().change(structure);
  const std::string message = refusal(make_package(GetParam().label, structure));
  EXPECT_NE(message.find("SSP '"), std::string::npos) << message;
  EXPECT_NE(message.find(std::string(GetParam().label) + ".ssp"), std::string::npos) << message;
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Unsupported, SspRefusal,
    ::testing::Values(
        Unsupported{"nested_system",
                    [](Structure& s) {
                      s.extra_elements = "<ssd:System name=\"inner\"><ssd:Elements/></ssd:System>";
                    },
                    "SystemStructure.ssd:7: System 'inner': sub-systems are not supported"},
        Unsupported{
            "mapped_connection",
            [](Structure& s) {
              s.x_connection =
                  "<ssd:Connection startElement=\"left\" startConnector=\"x\" endElement=\"right\" "
                  "endConnector=\"x\"><ssc:IntegerMappingTransformation/></ssd:Connection>";
            },
            "Connection 'left.x' -> 'right.x': IntegerMappingTransformation is not supported "
            "(couplet transforms Real values only"},
        Unsupported{
            "system_input",
            [](Structure& s) {
              s.extra_connections =
                  "<ssd:Connection startConnector=\"u\" endElement=\"right\" endConnector=\"x\"/>";
            },
            "starts at the system's own connector 'u'"},
        Unsupported{
            "unit_bases",
            [](Structure& s) {
              s.left_connectors =
                  "<ssd:Connectors><ssd:Connector name=\"f\" kind=\"input\"><ssc:Real unit=\"m\"/>"
                  "</ssd:Connector></ssd:Connectors>";
              s.right_component = right_f_in("N");
            },
            "Connection 'right.f' -> 'left.f': units differ ('N', 'm'), and their SI bases "
            "differ (kg.m.s-2, m)"},
        Unsupported{"unknown_unit",
                    [](Structure& s) { s.right_component = right_f_in("furlong/fortnight"); },
                    "units differ ('furlong/fortnight', 'N'), and couplet does not know "
                    "'furlong/fortnight': define it in the SSD's Units"},
        Unsupported{"transformed_units",
                    [](Structure& s) {
                      s.right_component = right_f_in("kN");
                      s.x_connection =
                          "<ssd:Connection startElement=\"left\" startConnector=\"x\" "
                          "endElement=\"right\" endConnector=\"x\"/>"
                          "<ssd:Connection startElement=\"right\" startConnector=\"f\" "
                          "endElement=\"left\" endConnector=\"f\"><ssc:LinearTransformation "
                          "factor=\"2\"/></ssd:Connection>";
                    },
                    "a LinearTransformation between connectors of different units ('kN', 'N')"},
        Unsupported{"mixed_types",
                    [](Structure& s) {
                      s.left_connectors =
                          "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:Real/>"
                          "</ssd:Connector></ssd:Connectors>";
                      s.right_component =
                          "<ssd:Component name=\"right\" source=\"resources/switch_right.fmu\">"
                          "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"input\">"
                          "<ssc:Enumeration name=\"e\"/></ssd:Connector></ssd:Connectors>"
                          "</ssd:Component>";
                    },
                    "'left.x' is Real and 'right.x' is Integer: a connection joins connectors of "
                    "one type, or an Integer output to a Real input"},
        Unsupported{"string_connector",
                    [](Structure& s) {
                      s.left_connectors =
                          "<ssd:Connectors><ssd:Connector name=\"x\" kind=\"output\"><ssc:String/>"
                          "</ssd:Connector></ssd:Connectors>";
                    },
                    "'left.x' is String: couplet couples Real, Integer and Boolean connectors"},
        Unsupported{"string_parameter",
                    [](Structure& s) {
                      s.system_bindings =
                          "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
                          "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>" +
                          parameter("left.label", "heavy", "String") +
                          "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></"
                          "ssd:ParameterBinding>"
                          "</ssd:ParameterBindings>";
                    },
                    "String parameters are not supported"},
        Unsupported{
            "parameter_mapping",
            [](Structure& s) {
              s.left_bindings =
                  "<ssd:ParameterBindings><ssd:ParameterBinding source=\"resources/left.ssv\">"
                  "<ssd:ParameterMapping source=\"resources/map.ssm\"/></ssd:ParameterBinding>"
                  "</ssd:ParameterBindings>";
            },
            "ParameterMapping: parameter mappings are not supported"},
        Unsupported{
            "escaping_source",
            [](Structure& s) {
              s.right_component =
                  "<ssd:Component name=\"right\" source=\"../switch_right.fmu\"></ssd:Component>";
            },
            "Component 'right': source '../switch_right.fmu': couplet reads files inside the "
            "package only"},
        Unsupported{
            "missing_source",
            [](Structure& s) {
              s.right_component =
                  "<ssd:Component name=\"right\" source=\"resources/none.fmu\"></ssd:Component>";
            },
            "source 'resources/none.fmu': not in the package"},
        Unsupported{"ssd_component",
                    [](Structure& s) {
                      s.extra_elements =
                          "<ssd:Component name=\"sub\" type=\"application/x-ssp-package\" "
                          "source=\"resources/s.ssp\"/>";
                    },
                    "Component 'sub': type 'application/x-ssp-package' is not supported"},
        Unsupported{
            "unknown_parameter",
            [](Structure& s) {
              s.system_bindings =
                  "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>"
                  "<ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>" +
                  parameter("mass", "3") +
                  "</ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></"
                  "ssd:ParameterBinding>"
                  "</ssd:ParameterBindings>";
            },
            "a system-level parameter must name a component: component.variable ('mass' does not)"},
        Unsupported{"version_2", [](Structure& s) { s.version = "2.0"; },
                    "SSP version '2.0' is not supported"}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(SspPackage, DamagedPackagesAreRefusedByName) {
  const fs::path directory = fresh_directory("ssp-damaged");
  fs::create_directories(directory);
  const fs::path not_zip = directory / "not_zip.ssp";
  std::ofstream(not_zip) << "not a zip";
  EXPECT_NE(refusal(not_zip).find("SSP '" + not_zip.string() + "': not a zip archive"),
            std::string::npos);

  const fs::path no_ssd = directory / "no_ssd.ssp";
  write_zip(no_ssd, {{"resources/left.ssv", kLeftParameters}});
  EXPECT_NE(refusal(no_ssd).find("SystemStructure.ssd: not in the package"), std::string::npos)
      << refusal(no_ssd);

  const fs::path malformed = directory / "malformed.ssp";
  write_zip(malformed, {{"SystemStructure.ssd",
                         "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription>\n<oops"}});
  EXPECT_NE(refusal(malformed).find("SystemStructure.ssd: malformed XML at line 3"),
            std::string::npos)
      << refusal(malformed);

  const fs::path escaping = directory / "escaping.ssp";
  write_zip(escaping, {{"../evil.ssd", "x"}});
  EXPECT_NE(refusal(escaping).find("entry '../evil.ssd'"), std::string::npos) << refusal(escaping);
  EXPECT_FALSE(fs::exists(directory.parent_path() / "evil.ssd"));
}

}  // namespace
}  // namespace couplet::testing
