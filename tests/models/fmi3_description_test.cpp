// FMI 3.0 FMUs: modelDescription.xml parsed into typed values (every variable
// type with its range, arrays with fixed and structural dimensions, clocks,
// the model structure by value reference), `couplet models` showing them, and
// bad files refused naming the file, the element, its line and the attribute.
#include "models/fmi/fmi3_description.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/slave_source.hpp"
#include "support/zip_writer.hpp"

namespace couplet::models::fmi3 {
namespace {

namespace fs = std::filesystem;

const std::string kFile = "FMU 'controller.fmu' modelDescription.xml";

// A controller with two periodic clocks, a triggered one, an array sized by a
// structural parameter and a 2×3 one; line numbers matter to the tests below.
const std::string kControllerXml = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="controller" instantiationToken="{a1b2c3}"
    generationTool="hand written">
  <CoSimulation modelIdentifier="controller" canHandleVariableCommunicationStepSize="true"
      hasEventMode="true" mightReturnEarlyFromDoStep="true" canGetAndSetFMUState="true"
      fixedInternalStepSize="0.0005" maxOutputDerivativeOrder="1"/>
  <ScheduledExecution modelIdentifier="controller_se" providesDirectionalDerivatives="true"/>
  <UnitDefinitions><Unit name="rad/s"><BaseUnit s="-1" rad="1"/></Unit></UnitDefinitions>
  <TypeDefinitions>
    <Float64Type name="Speed" unit="rad/s"/>
    <ClockType name="Fast" intervalVariability="constant" intervalDecimal="0.001"/>
    <EnumerationType name="Mode"><Item name="off" value="0"/><Item name="on" value="7"/></EnumerationType>
  </TypeDefinitions>
  <DefaultExperiment stepSize="0.001" stopTime="2"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Clock name="fast" valueReference="1" causality="input" declaredType="Fast" priority="1"/>
    <Clock name="slow" valueReference="2" causality="input" intervalVariability="fixed"
        intervalDecimal="0.01" shiftDecimal="0.005" priority="2"/>
    <Clock name="trigger" valueReference="3" causality="input" intervalVariability="triggered"/>
    <UInt64 name="n" valueReference="4" causality="structuralParameter" variability="fixed" start="3"/>
    <Float64 name="w" valueReference="5" causality="input" declaredType="Speed" start="0.5">
      <Dimension valueReference="4"/>
    </Float64>
    <Float64 name="u" valueReference="6" causality="output" variability="discrete" clocks="1 3"
        initial="exact" start="0"><Alias name="command"/></Float64>
    <Int8 name="level" valueReference="7" causality="output" variability="discrete" clocks="2"
        initial="exact" start="-128"/>
    <UInt16 name="M" valueReference="8" causality="parameter" variability="fixed" start="1 2 3 4 5 65535">
      <Dimension start="2"/><Dimension start="3"/>
    </UInt16>
    <String name="label" valueReference="9" causality="parameter" variability="fixed"><Start value="pump one"/></String>
    <Binary name="blob" valueReference="10" causality="parameter" variability="fixed"><Start value="0aFF"/></Binary>
    <Enumeration name="mode" valueReference="11" causality="input" declaredType="Mode" start="7"/>
    <Float64 name="x" valueReference="12" causality="local" start="1"/>
    <Float64 name="der(x)" valueReference="13" causality="local" derivative="12"/>
    <Boolean name="on" valueReference="14" causality="input" start="true"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="6" dependencies="5 11"/>
    <Output valueReference="7"/>
    <ContinuousStateDerivative valueReference="13"/>
  </ModelStructure>
</fmiModelDescription>
)xml";

/// `xml` with the one occurrence of `from` replaced by `to`.
std::string replaced(const std::string& xml, const std::string& from, const std::string& to) {
  const std::size_t at = xml.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: no " << from;
  EXPECT_EQ(xml.find(from, at + 1), std::string::npos) << "test bug: " << from << " is ambiguous";
  if (at == std::string::npos) return xml;
  std::string result = xml;
  result.replace(at, from.size(), to);
  return result;
}

/// "(line N)" of the first occurrence of `text` in `xml`.
std::string line_of(const std::string& xml, const std::string& text) {
  const std::size_t at = xml.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  const auto newlines =
      std::count(xml.begin(), xml.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  return "(line " + std::to_string(newlines + 1) + ")";
}

void expect_parse_error(const std::string& xml, const std::vector<std::string>& fragments) {
  std::string message;
  try {
    parse_description(xml, kFile);
    ADD_FAILURE() << "no ConfigurationError";
    return;
  } catch (const ConfigurationError& error) {
    message = error.what();
  }
  EXPECT_EQ(message.rfind(kFile + ": ", 0), 0u) << message;
  for (const std::string& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "message: " << message << "\nlacks: " << fragment;
  }
}

const Variable& variable(const Description& description, const std::string& name) {
  const auto index = description.find(name);
  if (!index) throw std::runtime_error("no variable " + name);
  return description.variables[*index];
}

TEST(Fmi3Description, ReadsInterfacesUnitsAndTheDefaultExperiment) {
  const Description description = parse_description(kControllerXml, kFile);
  EXPECT_EQ(description.fmi_version, "3.0");
  EXPECT_EQ(description.model_name, "controller");
  EXPECT_EQ(description.instantiation_token, "{a1b2c3}");
  EXPECT_EQ(description.generation_tool, "hand written");
  EXPECT_FALSE(description.model_exchange.has_value());
  ASSERT_TRUE(description.co_simulation.has_value());
  const CoSimulationInterface& cs = *description.co_simulation;
  EXPECT_EQ(cs.capabilities.model_identifier, "controller");
  EXPECT_TRUE(cs.can_handle_variable_communication_step_size);
  EXPECT_TRUE(cs.has_event_mode);
  EXPECT_TRUE(cs.might_return_early_from_do_step);
  EXPECT_FALSE(cs.provides_intermediate_update);
  EXPECT_TRUE(cs.capabilities.can_get_and_set_fmu_state);
  EXPECT_EQ(cs.fixed_internal_step_size, 0.0005);
  EXPECT_EQ(cs.max_output_derivative_order, 1);
  ASSERT_TRUE(description.scheduled_execution.has_value());
  EXPECT_EQ(description.scheduled_execution->capabilities.model_identifier, "controller_se");
  EXPECT_TRUE(description.scheduled_execution->capabilities.provides_directional_derivatives);
  ASSERT_EQ(description.units.count("rad/s"), 1u);
  EXPECT_EQ(description.default_experiment.step_size, 0.001);
  EXPECT_EQ(description.default_experiment.stop_time, 2.0);
}

TEST(Fmi3Description, ReadsEveryVariableWithItsTypeAndStartValues) {
  const Description description = parse_description(kControllerXml, kFile);
  ASSERT_EQ(description.variables.size(), 15u);
  const Variable& w = variable(description, "w");
  EXPECT_EQ(w.type, VariableType::float64);
  EXPECT_EQ(w.causality, Causality::input);
  EXPECT_EQ(w.variability, Variability::continuous);
  EXPECT_EQ(w.unit, "rad/s");  // from its declared type
  EXPECT_EQ(w.start, std::vector<std::string>{"0.5"});
  const Variable& level = variable(description, "level");
  EXPECT_EQ(level.type, VariableType::int8);
  EXPECT_EQ(level.start, std::vector<std::string>{"-128"});
  EXPECT_EQ(variable(description, "n").causality, Causality::structural_parameter);
  EXPECT_EQ(variable(description, "label").start, std::vector<std::string>{"pump one"});
  EXPECT_EQ(variable(description, "blob").start, std::vector<std::string>{"0aFF"});
  const Variable& mode = variable(description, "mode");
  EXPECT_EQ(mode.variability, Variability::discrete);  // the default of all but Floats
  ASSERT_EQ(mode.items.size(), 2u);
  EXPECT_EQ(mode.items[1].name, "on");
  EXPECT_EQ(mode.items[1].value, 7);
  EXPECT_EQ(variable(description, "der(x)").derivative, 12u);
  // An alias names the same variable.
  EXPECT_EQ(description.find("command"), description.find("u"));
  EXPECT_EQ(description.find(std::uint32_t{14}), description.find("on"));
  EXPECT_FALSE(description.find(std::uint32_t{99}).has_value());
}

TEST(Fmi3Description, ArraysTakeTheirExtentsFromDimensionsOrStructuralParameters) {
  const Description description = parse_description(kControllerXml, kFile);
  const Variable& w = variable(description, "w");
  EXPECT_EQ(description.extents(w), std::vector<std::uint64_t>{3});
  EXPECT_EQ(ArrayLayout(description).type_of(w), "Float64[3]");
  const Variable& matrix = variable(description, "M");
  EXPECT_EQ(description.extents(matrix), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(ArrayLayout(description).type_of(matrix), "UInt16[2,3]");
  EXPECT_EQ(matrix.start.size(), 6u);
  EXPECT_EQ(matrix.start.back(), "65535");
  EXPECT_EQ(ArrayLayout(description).type_of(variable(description, "u")), "Float64");
}

TEST(Fmi3Description, ClocksInheritTheirTypeAndVariablesNameTheirClocks) {
  const Description description = parse_description(kControllerXml, kFile);
  const Variable& fast = variable(description, "fast");
  ASSERT_TRUE(fast.clock.has_value());
  EXPECT_EQ(fast.clock->interval_variability, IntervalVariability::constant);  // ClockType
  EXPECT_EQ(fast.clock->interval_decimal, 0.001);
  EXPECT_EQ(fast.clock->priority, 1u);
  const Variable& slow = variable(description, "slow");
  EXPECT_EQ(slow.clock->interval_variability, IntervalVariability::fixed);
  EXPECT_EQ(slow.clock->shift_decimal, 0.005);
  EXPECT_EQ(variable(description, "trigger").clock->interval_variability,
            IntervalVariability::triggered);
  EXPECT_EQ(variable(description, "u").clocks, (std::vector<std::uint32_t>{1, 3}));
}

TEST(Fmi3Description, ModelStructureNamesVariablesByValueReference) {
  const Description description = parse_description(kControllerXml, kFile);
  ASSERT_EQ(description.outputs.size(), 2u);
  EXPECT_EQ(description.outputs[0].variable, *description.find("u"));
  ASSERT_TRUE(description.outputs[0].dependencies.has_value());
  EXPECT_EQ(*description.outputs[0].dependencies,
            (std::vector<std::size_t>{*description.find("w"), *description.find("mode")}));
  EXPECT_FALSE(description.outputs[1].dependencies.has_value());
  ASSERT_EQ(description.continuous_state_derivatives.size(), 1u);
  EXPECT_EQ(description.continuous_state_derivatives[0].variable, *description.find("der(x)"));
}

// Each integer type holds exactly its range; a Float any xs:double.
TEST(Fmi3Description, StartValuesAreCheckedAgainstTheirTypesRange) {
  struct Case {
    const char* type;
    const char* largest;
    const char* too_large;
  };
  for (const Case& c :
       {Case{"Int8", "127", "128"}, Case{"UInt8", "255", "256"}, Case{"Int16", "-32768", "-32769"},
        Case{"UInt16", "65535", "-1"}, Case{"Int32", "2147483647", "2147483648"},
        Case{"UInt32", "4294967295", "4294967296"},
        Case{"Int64", "-9223372036854775808", "-9223372036854775809"},
        Case{"UInt64", "18446744073709551615", "18446744073709551616"},
        Case{"Float64", "INF", "1e999"}, Case{"Float32", "-1.5e3", "x"},
        Case{"Boolean", "false", "yes"}}) {
    SCOPED_TRACE(c.type);
    const auto xml = [&c](const char* start) {
      return replaced(kControllerXml,
                      R"(<Boolean name="on" valueReference="14" causality="input" start="true"/>)",
                      std::string("<") + c.type +
                          R"( name="probe" valueReference="14" causality="input" start=")" + start +
                          "\"/>");
    };
    const Description description = parse_description(xml(c.largest), kFile);
    EXPECT_EQ(variable(description, "probe").start, std::vector<std::string>{c.largest});
    expect_parse_error(
        xml(c.too_large),
        {std::string(c.type) + " 'probe' " + line_of(kControllerXml, "<Boolean name=\"on\""),
         std::string("start: '") + c.too_large + "' is not a " + c.type});
  }
}

TEST(Fmi3Description, RefusesFilesThatAreNotFmi3) {
  expect_parse_error(replaced(kControllerXml, R"(fmiVersion="3.0")", R"(fmiVersion="2.0")"),
                     {"fmiModelDescription (line 2): fmiVersion", "not FMI 3.0 but FMI '2.0'"});
  expect_parse_error(replaced(kControllerXml, R"(instantiationToken="{a1b2c3}")", ""),
                     {"fmiModelDescription (line 2): instantiationToken: missing (required)"});
  expect_parse_error("<?xml version=\"1.0\"?>\n<fmiModelDescription fmiVersion=\"3.0\"\n",
                     {"malformed XML at line 2"});
  const std::string no_interface = replaced(
      replaced(
          kControllerXml,
          R"(  <ScheduledExecution modelIdentifier="controller_se" providesDirectionalDerivatives="true"/>
)",
          ""),
      R"(<CoSimulation modelIdentifier="controller")", R"(<Unused modelIdentifier="controller")");
  expect_parse_error(no_interface, {"fmiModelDescription (line 2)",
                                    "none of ModelExchange, CoSimulation and "
                                    "ScheduledExecution"});
}

TEST(Fmi3Description, RefusesBadVariablesNamingElementLineAndAttribute) {
  const std::string level_line = line_of(kControllerXml, R"(<Int8 name="level")");
  const std::string w_line = line_of(kControllerXml, R"(<Float64 name="w")");
  // A value reference used twice names the first user.
  expect_parse_error(replaced(kControllerXml, R"(name="level" valueReference="7")",
                              R"(name="level" valueReference="6")"),
                     {"Int8 'level' " + level_line +
                      ": valueReference: 6 is already the value reference of "
                      "Float64 'u' " +
                      line_of(kControllerXml, R"(<Float64 name="u")")});
  expect_parse_error(replaced(kControllerXml, R"(<Alias name="command"/>)", R"(<Alias name="n"/>)"),
                     {"Alias", "name: 'n' is already the name of UInt64"});
  expect_parse_error(
      replaced(kControllerXml, R"(causality="output" variability="discrete" clocks="2")",
               R"(causality="output" variability="continuous" clocks="2")"),
      {"Int8 'level' " + level_line + ": variability: continuous, but only a Float32 or Float64"});
  expect_parse_error(
      replaced(kControllerXml, R"(clocks="2")", R"(clocks="4")"),
      {"Int8 'level' " + level_line + ": clocks: 4 names a variable that is not a Clock"});
  expect_parse_error(replaced(kControllerXml, R"(clocks="2")", R"(clocks="2 x")"),
                     {"clocks: not a value reference 'x'"});
  expect_parse_error(replaced(kControllerXml, R"(derivative="12")", R"(derivative="7")"),
                     {"Float64 'der(x)'", "derivative: 7 names a variable that is not a Float"});
  expect_parse_error(replaced(kControllerXml, R"(derivative="12")", R"(derivative="77")"),
                     {"Float64 'der(x)'", "derivative: 77 names no variable"});
  expect_parse_error(replaced(kControllerXml, R"(declaredType="Speed")", R"(declaredType="Mode")"),
                     {"Float64 'w' " + w_line +
                      ": declaredType: 'Mode' is a EnumerationType, not a "
                      "Float64Type"});
  expect_parse_error(
      replaced(kControllerXml,
               R"(valueReference="3" causality="input" intervalVariability="triggered")",
               R"(valueReference="3" causality="input")"),
      {"Clock 'trigger'", "intervalVariability: missing (required for a Clock)"});
  expect_parse_error(
      replaced(kControllerXml, R"(<Start value="0aFF"/>)", R"(<Start value="0aF"/>)"),
      {"Binary 'blob'", "start: '0aF' is not a Binary (pairs of hexadecimal digits)"});
  expect_parse_error(
      replaced(kControllerXml, R"(<Item name="on" value="7"/>)", R"(<Item name="on"/>)"),
      {"EnumerationType (line", "Item (line", "value: missing (required)"});
  expect_parse_error(replaced(kControllerXml, "<ModelVariables>",
                              "<ModelVariables>\n    <Real name=\"r\" valueReference=\"40\"/>"),
                     {"Real (line", "not a variable type (expected one of Float32, Float64"});
}

TEST(Fmi3Description, RefusesArraysWhoseSizeIsNotKnownOrMatched) {
  const std::string w_line = line_of(kControllerXml, R"(<Float64 name="w")");
  expect_parse_error(replaced(kControllerXml, R"(start="0.5")", R"(start="1 2")"),
                     {"Float64 'w' " + w_line +
                      ": start: 2 values for 3 elements (give one for all, "
                      "or one per element)"});
  expect_parse_error(
      replaced(kControllerXml, R"(start="1 2 3 4 5 65535")", R"(start="1 2 3 4 5 65536")"),
      {"UInt16 'M'", "start: '65536' is not a UInt16"});
  expect_parse_error(replaced(kControllerXml, R"(<Dimension valueReference="4"/>)",
                              R"(<Dimension valueReference="6"/>)"),
                     {"Float64 'w' " + w_line +
                      ": Dimension valueReference: 6 names 'u', which is "
                      "not a scalar UInt64 structural parameter"});
  expect_parse_error(replaced(kControllerXml, R"(<Dimension valueReference="4"/>)",
                              R"(<Dimension valueReference="4" start="3"/>)"),
                     {"Float64 'w' " + w_line + ": Dimension " +
                      line_of(kControllerXml, R"(<Dimension valueReference="4"/>)") +
                      ": needs exactly one of start"});
  expect_parse_error(replaced(kControllerXml, R"(<Dimension valueReference="4"/>)",
                              R"(<Dimension valueReference="40"/>)"),
                     {"Dimension valueReference: 40 names no variable"});
  expect_parse_error(
      replaced(kControllerXml, R"(initial="exact" start="-128")", R"(initial="exact" start="1 2")"),
      {"Int8 'level' ", "start: 2 values for a scalar (no Dimension)"});
}

TEST(Fmi3Description, RefusesAModelStructureThatNamesTheWrongVariables) {
  const std::string output_line = line_of(kControllerXml, R"(<Output valueReference="7"/>)");
  expect_parse_error(replaced(kControllerXml, R"(<Output valueReference="7"/>)",
                              R"(<Output valueReference="5"/>)"),
                     {"ModelStructure/Output " + output_line +
                      ": valueReference: names 'w', whose causality is input, not output"});
  expect_parse_error(
      replaced(kControllerXml, R"(<Output valueReference="7"/>)",
               R"(<Output valueReference="70"/>)"),
      {"ModelStructure/Output " + output_line + ": valueReference: 70 names no variable"});
  expect_parse_error(replaced(kControllerXml, R"(dependencies="5 11")", R"(dependencies="5 50")"),
                     {"ModelStructure/Output", "dependencies: 50 names no variable"});
  expect_parse_error(replaced(kControllerXml, R"(<ContinuousStateDerivative valueReference="13"/>)",
                              R"(<ContinuousStateDerivative valueReference="12"/>)"),
                     {"ModelStructure/ContinuousStateDerivative",
                      "names 'x', which is not a Float "
                      "with a derivative attribute"});
}

class Fmi3Package : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        fs::temp_directory_path() /
        ("couplet_fmi3_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  std::string package(const std::map<std::string, std::string>& files) const {
    const fs::path path = directory_ / "controller.fmu";
    testing::write_zip(path, files);
    return path.string();
  }

  fs::path directory_;
};

TEST_F(Fmi3Package, CoupletModelsShowsTypesDimensionsAndClocks) {
  const std::string path = package({{"modelDescription.xml", kControllerXml}});
  const std::string text = fmu_source(path, FmuKind::automatic)->describe();
  for (const char* line : {
           "— controller (FMI 3.0, instantiation token {a1b2c3}, made by hand written)",
           "offers: cs se (couplet runs cs unless fmu_kind says otherwise; its ports: the numeric "
           "inputs and outputs, arrays as name[i], triggered input clocks and output clocks as "
           "Boolean ports of their names)",
           "co-simulation: canHandleVariableCommunicationStepSize yes, hasEventMode yes",
           "fixedInternalStepSize 0.0005 s",
           "scheduled execution: canGetAndSetFMUState no, providesDirectionalDerivatives yes",
           "    fast  input  constant 0.001 s  priority 1\n",
           "    slow  input  fixed 0.01 s shifted 0.005 s  priority 2\n",
           "    trigger  input  triggered\n",
           "Float64[3]    0.5",
           "UInt16[2,3]   1 2 3 4 5 65535",
           "(clocked by fast trigger)",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "lacks: " << line << "\n" << text;
  }
  // Locals are not ports: the state x is not listed.
  EXPECT_EQ(text.find("    x "), std::string::npos) << text;
}

TEST_F(Fmi3Package, ASlaveNeedsABinaryForThisPlatformAndAnInterfaceItRuns) {
  const std::string path = package({{"modelDescription.xml", kControllerXml},
                                    {"binaries/aarch64-darwin/controller.dylib", "not loaded"}});
  const auto source = fmu_source(path, FmuKind::automatic);
  EXPECT_EQ(source->identity(), "fmu:{a1b2c3}");
  SlaveSettings settings;
  settings.slave_name = "ctl";
  const auto refusal = [&settings](const SlaveSource& from) {
    try {
      from.make_slave(settings);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("no ConfigurationError");
  };
  EXPECT_EQ(refusal(*source), "FMU '" + path +
                                  "': binaries/x86_64-linux/controller.so is missing: couplet runs "
                                  "FMUs built for x86_64-linux (this FMU has binaries for: "
                                  "aarch64-darwin)");
  const std::string not_elf = package({{"modelDescription.xml", kControllerXml},
                                       {"binaries/x86_64-linux/controller.so", "not a library"}});
  EXPECT_NE(
      refusal(*fmu_source(not_elf, FmuKind::automatic))
          .find("FMU '" + not_elf + "': binaries/x86_64-linux/controller.so: cannot be loaded: "),
      std::string::npos);
  const std::string scheduled_only =
      package({{"modelDescription.xml",
                replaced(kControllerXml,
                         "<CoSimulation modelIdentifier=\"controller\" "
                         "canHandleVariableCommunicationStepSize=\"true\"\n"
                         "      hasEventMode=\"true\" mightReturnEarlyFromDoStep=\"true\" "
                         "canGetAndSetFMUState=\"true\"\n"
                         "      fixedInternalStepSize=\"0.0005\" maxOutputDerivativeOrder=\"1\"/>",
                         "")}});
  // Scheduled execution only: run through that interface, whose binary it lacks.
  EXPECT_NE(
      refusal(*fmu_source(scheduled_only, FmuKind::automatic))
          .find("FMU '" + scheduled_only + "': binaries/x86_64-linux/controller_se.so is missing"),
      std::string::npos);
  EXPECT_THROW(fmu_source(path, FmuKind::model_exchange), ConfigurationError);
}

TEST_F(Fmi3Package, TheArchiveRulesAndTheFileNameHoldForFmi3) {
  const std::string bad = package(
      {{"modelDescription.xml", replaced(kControllerXml, R"(start="0.5")", R"(start="fast")")}});
  try {
    fmu_source(bad, FmuKind::automatic);
    ADD_FAILURE() << "no ConfigurationError";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("FMU '" + bad + "' modelDescription.xml: Float64 'w' " +
                        line_of(kControllerXml, R"(<Float64 name="w")") +
                        ": start: 'fast' is not a Float64"),
              std::string::npos)
        << error.what();
  }
  const std::string escaping =
      package({{"modelDescription.xml", kControllerXml}, {"../escape.txt", "out"}});
  try {
    fmu_source(escaping, FmuKind::automatic);
    ADD_FAILURE() << "no ConfigurationError";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("../escape.txt"), std::string::npos) << error.what();
  }
  EXPECT_FALSE(fs::exists(directory_.parent_path() / "escape.txt"));
}

}  // namespace
}  // namespace couplet::models::fmi3
