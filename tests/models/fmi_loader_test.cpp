// FMI 2.0 FMU loading: modelDescription.xml parsing, unpacking the archive
// (hostile entries refused, nothing left behind) and resolving the fmi2*
// functions of the shared library. Every error names the file and the culprit.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/fmi/abandoned_archives.hpp"
#include "models/fmi/fmu_archive.hpp"
#include "models/fmi/fmu_description.hpp"
#include "models/fmi/fmu_library.hpp"
#include "couplet/errors.hpp"

namespace couplet::models::fmi {
namespace {

namespace fs = std::filesystem;

const std::string kFile = "fmu 'mass.fmu' modelDescription.xml";

// Variables, 1-based as in ModelStructure: 1 x, 2 der(x), 3 v, 4 der(v), 5 f,
// 6 a, 7 m, 8 count, 9 enabled, 10 label, 11 mode, 12 e, 13 time.
const std::string kCompleteXml = R"xml(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="mass" guid="{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
    generationTool="hand written" numberOfEventIndicators="1">
  <ModelExchange modelIdentifier="mass" completedIntegratorStepNotNeeded="true"
      canGetAndSetFMUstate="false"/>
  <CoSimulation modelIdentifier="mass_cs" canHandleVariableCommunicationStepSize="true"
      canInterpolateInputs="true" maxOutputDerivativeOrder="2" canGetAndSetFMUstate="true"
      canSerializeFMUstate="false" providesDirectionalDerivative="1"/>
  <UnitDefinitions>
    <Unit name="m"><BaseUnit m="1"/></Unit>
  </UnitDefinitions>
  <TypeDefinitions>
    <SimpleType name="Position"><Real quantity="Length" unit="m"/></SimpleType>
    <SimpleType name="Mode">
      <Enumeration><Item name="off" value="1"/><Item name="on" value="2"/></Enumeration>
    </SimpleType>
  </TypeDefinitions>
  <DefaultExperiment startTime="0" stopTime="10" tolerance="1e-6" stepSize="0.01"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="0" causality="output" initial="exact"
        description="position">
      <Real declaredType="Position" start="1.5"/>
    </ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="1">
      <Real derivative="1"/>
    </ScalarVariable>
    <ScalarVariable name="v" valueReference="2" causality="output" initial="exact">
      <Real unit="m/s" start="-0.25"/>
    </ScalarVariable>
    <ScalarVariable name="der(v)" valueReference="3">
      <Real unit="m/s2" derivative="3"/>
    </ScalarVariable>
    <ScalarVariable name="f" valueReference="4" causality="input">
      <Real unit="N" start="0"/>
    </ScalarVariable>
    <ScalarVariable name="a" valueReference="5" causality="output" initial="calculated">
      <Real declaredType="Position" unit="m/s2"/>
    </ScalarVariable>
    <ScalarVariable name="m" valueReference="6" causality="parameter" variability="fixed"
        initial="exact">
      <Real start="2"/>
    </ScalarVariable>
    <ScalarVariable name="count" valueReference="0" variability="discrete" initial="exact">
      <Integer start="-3"/>
    </ScalarVariable>
    <ScalarVariable name="enabled" valueReference="0" causality="parameter" variability="fixed">
      <Boolean start="true"/>
    </ScalarVariable>
    <ScalarVariable name="label" valueReference="0" causality="parameter" variability="fixed">
      <String start="hello"/>
    </ScalarVariable>
    <ScalarVariable name="mode" valueReference="1" causality="parameter" variability="tunable">
      <Enumeration declaredType="Mode" start="2"/>
    </ScalarVariable>
    <ScalarVariable name="e" valueReference="7" causality="output">
      <Real/>
    </ScalarVariable>
    <ScalarVariable name="time" valueReference="8" causality="independent"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs>
      <Unknown index="1" dependencies="1"/>
      <Unknown index="3" dependencies="3"/>
      <Unknown index="6" dependencies="1 3
          5" dependenciesKind="dependent dependent dependent"/>
      <Unknown index="12"/>
    </Outputs>
    <Derivatives>
      <Unknown index="4" dependencies="1 3 5"/>
      <Unknown index="2" dependencies="3"/>
    </Derivatives>
    <InitialUnknowns>
      <Unknown index="6" dependencies=""/>
    </InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>
)xml";

/// `xml` with its only occurrence of `from` replaced by `to`.
std::string replaced(const std::string& xml, const std::string& from, const std::string& to) {
  const std::size_t at = xml.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: " << from << " is not in the XML";
  EXPECT_EQ(xml.find(from, at + 1), std::string::npos) << "test bug: " << from << " is ambiguous";
  if (at == std::string::npos) return xml;
  std::string result = xml;
  result.replace(at, from.size(), to);
  return result;
}

/// The 1-based line of the first occurrence of `text` in `xml`.
std::size_t line_of(const std::string& xml, const std::string& text) {
  const std::size_t at = xml.find(text);
  EXPECT_NE(at, std::string::npos);
  return static_cast<std::size_t>(
             std::count(xml.begin(), xml.begin() + static_cast<std::ptrdiff_t>(at), '\n')) +
         1;
}

/// The message of the ConfigurationError that parsing `xml` throws.
std::string parse_error(const std::string& xml) {
  try {
    parse_description(xml, kFile);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ConfigurationError";
  return {};
}

void expect_parse_error(const std::string& xml, const std::vector<std::string>& fragments) {
  const std::string message = parse_error(xml);
  EXPECT_EQ(message.rfind(kFile + ": ", 0), 0u) << message;
  for (const std::string& fragment : fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "message: " << message << "\nlacks: " << fragment;
  }
}

std::size_t index_of(const Description& description, const std::string& name) {
  const auto index = description.find(name);
  EXPECT_TRUE(index.has_value()) << name;
  return index.value_or(0);
}

TEST(FmuDescription, ReadsTheModelAndItsInterfaces) {
  const Description description = parse_description(kCompleteXml, kFile);
  EXPECT_EQ(description.file, kFile);
  EXPECT_EQ(description.fmi_version, "2.0");
  EXPECT_EQ(description.model_name, "mass");
  EXPECT_EQ(description.guid, "{8c4e810f-3df3-4a00-8276-176fa3c9f000}");
  EXPECT_EQ(description.generation_tool, "hand written");
  EXPECT_EQ(description.number_of_event_indicators, 1u);

  ASSERT_TRUE(description.model_exchange.has_value());
  EXPECT_EQ(description.model_exchange->model_identifier, "mass");
  EXPECT_TRUE(description.model_exchange->completed_integrator_step_not_needed);
  EXPECT_FALSE(description.model_exchange->can_get_and_set_fmu_state);
  EXPECT_FALSE(description.model_exchange->needs_execution_tool);

  ASSERT_TRUE(description.co_simulation.has_value());
  const CoSimulationInterface& cs = *description.co_simulation;
  EXPECT_EQ(cs.model_identifier, "mass_cs");
  EXPECT_TRUE(cs.can_handle_variable_communication_step_size);
  EXPECT_TRUE(cs.can_interpolate_inputs);
  EXPECT_EQ(cs.max_output_derivative_order, 2);
  EXPECT_TRUE(cs.can_get_and_set_fmu_state);
  EXPECT_FALSE(cs.can_serialize_fmu_state);
  EXPECT_TRUE(cs.provides_directional_derivative);  // xs:boolean "1"
  EXPECT_FALSE(cs.can_run_asynchronuously);

  EXPECT_EQ(description.default_experiment.start_time, 0.0);
  EXPECT_EQ(description.default_experiment.stop_time, 10.0);
  EXPECT_EQ(description.default_experiment.tolerance, 1e-6);
  EXPECT_EQ(description.default_experiment.step_size, 0.01);
}

TEST(FmuDescription, ReadsVariablesOfEveryType) {
  const Description description = parse_description(kCompleteXml, kFile);
  ASSERT_EQ(description.variables.size(), 13u);

  const Variable& x = description.variables[index_of(description, "x")];
  EXPECT_EQ(x.value_reference, 0u);
  EXPECT_EQ(x.causality, Causality::output);
  EXPECT_EQ(x.variability, Variability::continuous);
  EXPECT_EQ(x.initial, Initial::exact);
  EXPECT_EQ(x.type, VariableType::real);
  EXPECT_EQ(x.start, 1.5);
  EXPECT_EQ(x.unit, "m");  // from declaredType Position
  EXPECT_EQ(x.description, "position");
  EXPECT_FALSE(x.derivative.has_value());

  const Variable& der_x = description.variables[index_of(description, "der(x)")];
  EXPECT_EQ(der_x.value_reference, 1u);
  EXPECT_EQ(der_x.causality, Causality::local);  // the defaults
  EXPECT_EQ(der_x.variability, Variability::continuous);
  EXPECT_EQ(der_x.initial, Initial::none);
  EXPECT_EQ(der_x.derivative, std::size_t{1});
  EXPECT_FALSE(der_x.start.has_value());
  EXPECT_EQ(der_x.unit, "");

  EXPECT_EQ(description.variables[index_of(description, "v")].start, -0.25);
  EXPECT_EQ(description.variables[index_of(description, "v")].unit, "m/s");
  EXPECT_EQ(description.variables[index_of(description, "f")].causality, Causality::input);
  const Variable& a = description.variables[index_of(description, "a")];
  EXPECT_EQ(a.unit, "m/s2");  // its own unit wins over the declared type's
  EXPECT_EQ(a.initial, Initial::calculated);

  const Variable& count = description.variables[index_of(description, "count")];
  EXPECT_EQ(count.type, VariableType::integer);
  EXPECT_EQ(count.variability, Variability::discrete);
  EXPECT_EQ(count.start, -3.0);

  const Variable& enabled = description.variables[index_of(description, "enabled")];
  EXPECT_EQ(enabled.type, VariableType::boolean);
  EXPECT_EQ(enabled.causality, Causality::parameter);
  EXPECT_EQ(enabled.variability, Variability::fixed);
  EXPECT_EQ(enabled.start, 1.0);

  const Variable& label = description.variables[index_of(description, "label")];
  EXPECT_EQ(label.type, VariableType::string);
  EXPECT_EQ(label.start_text, std::string("hello"));
  EXPECT_FALSE(label.start.has_value());

  const Variable& mode = description.variables[index_of(description, "mode")];
  EXPECT_EQ(mode.type, VariableType::enumeration);
  EXPECT_EQ(mode.variability, Variability::tunable);
  EXPECT_EQ(mode.start, 2.0);
  ASSERT_EQ(mode.items.size(), 2U);  // its declared type's items
  EXPECT_EQ(mode.items[0].name, "off");
  EXPECT_EQ(mode.items[0].value, 1);
  EXPECT_EQ(mode.items[1].name, "on");
  EXPECT_EQ(mode.items[1].value, 2);

  EXPECT_EQ(description.variables[index_of(description, "time")].causality, Causality::independent);
  EXPECT_FALSE(description.find("nonexistent").has_value());
  EXPECT_EQ(description.find("x"), std::size_t{0});
  EXPECT_EQ(description.find("time"), std::size_t{12});
}

// UnitDefinitions (§2.2.2): a Unit with a BaseUnit says what the unit means,
// factor and offset included; one without is a name only.
TEST(FmuDescription, ReadsUnitDefinitionsWithTheirBaseUnits) {
  std::string xml = replaced(kCompleteXml, R"(<Unit name="m"><BaseUnit m="1"/></Unit>)",
                             R"(<Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="km/h"><BaseUnit m="1" s="-1" factor="0.2777777777777778"/></Unit>
    <Unit name="degC"><BaseUnit K="1" offset="273.15"/></Unit>
    <Unit name="label"/>)");
  const Description description = parse_description(xml, kFile);
  ASSERT_EQ(description.units.size(), 3u);
  EXPECT_EQ(description.units.at("m"), (UnitDefinition{{0, 1, 0, 0, 0, 0, 0, 0}, 1.0, 0.0}));
  EXPECT_EQ(description.units.at("km/h"),
            (UnitDefinition{{0, 1, -1, 0, 0, 0, 0, 0}, 0.2777777777777778, 0.0}));
  EXPECT_EQ(description.units.at("degC"), (UnitDefinition{{0, 0, 0, 0, 1, 0, 0, 0}, 1.0, 273.15}));
  EXPECT_FALSE(description.units.contains("label"));
}

TEST(FmuDescription, RefusesATwiceDefinedUnitAndAZeroFactor) {
  expect_parse_error(replaced(kCompleteXml, R"(<Unit name="m"><BaseUnit m="1"/></Unit>)",
                              R"(<Unit name="m"><BaseUnit m="1"/></Unit><Unit name="m"/>)"),
                     {"name: a second Unit called 'm'"});
  expect_parse_error(
      replaced(kCompleteXml, R"(<BaseUnit m="1"/>)", R"(<BaseUnit m="1" factor="0"/>)"),
      {"BaseUnit (line", "factor: 0 (a unit's factor is never 0)"});
  expect_parse_error(replaced(kCompleteXml, R"(<BaseUnit m="1"/>)", R"(<BaseUnit m="one"/>)"),
                     {"BaseUnit (line", "m: not an integer 'one'"});
}

TEST(FmuDescription, ReadsTheModelStructureWithZeroBasedIndices) {
  const Description description = parse_description(kCompleteXml, kFile);
  ASSERT_EQ(description.outputs.size(), 4u);
  EXPECT_EQ(description.outputs[0].variable, 0u);
  EXPECT_EQ(description.outputs[0].dependencies, std::vector<std::size_t>{0});
  EXPECT_EQ(description.outputs[2].variable, 5u);
  EXPECT_EQ(description.outputs[2].dependencies, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(description.outputs[3].variable, 11u);
  EXPECT_FALSE(description.outputs[3].dependencies.has_value());  // absent

  ASSERT_EQ(description.derivatives.size(), 2u);
  EXPECT_EQ(description.derivatives[0].variable, 3u);
  EXPECT_EQ(description.derivatives[1].variable, 1u);

  ASSERT_EQ(description.initial_unknowns.size(), 1u);
  EXPECT_EQ(description.initial_unknowns[0].variable, 5u);
  ASSERT_TRUE(description.initial_unknowns[0].dependencies.has_value());  // "" is not absent
  EXPECT_TRUE(description.initial_unknowns[0].dependencies->empty());
}

TEST(FmuDescription, StatesFollowTheOrderOfDerivatives) {
  const Description description = parse_description(kCompleteXml, kFile);
  // <Derivatives> lists der(v) before der(x): the states are v, then x.
  EXPECT_EQ(description.states(), (std::vector<std::size_t>{2, 0}));
}

TEST(FmuDescription, DirectFeedthroughComesFromTheDependencies) {
  const Description description = parse_description(kCompleteXml, kFile);
  EXPECT_FALSE(description.has_direct_feedthrough(index_of(description, "x")));  // a state only
  EXPECT_FALSE(description.has_direct_feedthrough(index_of(description, "v")));
  EXPECT_TRUE(description.has_direct_feedthrough(index_of(description, "a")));  // lists input f
  // Absent dependencies: may depend on every known, and there is an input.
  EXPECT_TRUE(description.has_direct_feedthrough(index_of(description, "e")));
}

TEST(FmuDescription, AbsentDependenciesWithoutInputsAreNoFeedthrough) {
  std::string xml = replaced(kCompleteXml, R"(name="f" valueReference="4" causality="input")",
                             R"(name="f" valueReference="4" causality="local")");
  xml = replaced(xml, R"(dependencies="1 3
          5")",
                 R"(dependencies="1 3")");
  xml = replaced(xml, R"(<Unknown index="4" dependencies="1 3 5"/>)",
                 R"(<Unknown index="4" dependencies="1 3"/>)");
  const Description description = parse_description(xml, kFile);
  EXPECT_FALSE(description.has_direct_feedthrough(index_of(description, "e")));
  EXPECT_FALSE(description.has_direct_feedthrough(index_of(description, "a")));
}

TEST(FmuDescription, EnumSpellingsAreTheStandards) {
  EXPECT_STREQ(to_string(Causality::calculated_parameter), "calculatedParameter");
  EXPECT_STREQ(to_string(Causality::independent), "independent");
  EXPECT_STREQ(to_string(Variability::tunable), "tunable");
  EXPECT_STREQ(to_string(VariableType::real), "Real");
  EXPECT_STREQ(to_string(VariableType::enumeration), "Enumeration");
}

TEST(FmuDescription, MalformedXmlNamesTheLine) {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<fmiModelDescription fmiVersion=\"2.0\" guid=\"g\">\n"
      "  <ModelVariables>\n"
      "  </ModelVariable>\n"
      "</fmiModelDescription>\n";
  expect_parse_error(xml, {"malformed XML", "line 4", "mismatch"});
}

TEST(FmuDescription, RefusesAnotherRootElement) {
  expect_parse_error("<?xml version=\"1.0\"?>\n<fmiModelDescriptions fmiVersion=\"2.0\"/>",
                     {"fmiModelDescriptions (line 2)", "fmiModelDescription"});
}

TEST(FmuDescription, RefusesFmi1AndFmi3) {
  for (const char* version : {"1.0", "3.0"}) {
    SCOPED_TRACE(version);
    expect_parse_error(replaced(kCompleteXml, R"(fmiVersion="2.0")",
                                std::string("fmiVersion=\"") + version + "\""),
                       {"fmiModelDescription (line 2): fmiVersion", "not FMI 2.0 but FMI",
                        "couplet reads FMI 2.0 and 3.0", std::string("'") + version + "'"});
  }
}

TEST(FmuDescription, RequiresAGuid) {
  expect_parse_error(
      replaced(kCompleteXml, R"( guid="{8c4e810f-3df3-4a00-8276-176fa3c9f000}")", ""),
      {"fmiModelDescription (line 2): guid: missing"});
}

TEST(FmuDescription, RequiresCoSimulationOrModelExchange) {
  std::string xml = replaced(
      kCompleteXml, R"(<ModelExchange modelIdentifier="mass" completedIntegratorStepNotNeeded="true"
      canGetAndSetFMUstate="false"/>)",
      "");
  xml = replaced(
      xml, R"(<CoSimulation modelIdentifier="mass_cs" canHandleVariableCommunicationStepSize="true"
      canInterpolateInputs="true" maxOutputDerivativeOrder="2" canGetAndSetFMUstate="true"
      canSerializeFMUstate="false" providesDirectionalDerivative="1"/>)",
      "");
  expect_parse_error(
      xml, {"fmiModelDescription (line 2)", "neither a CoSimulation nor a ModelExchange"});
}

TEST(FmuDescription, RefusesADuplicateVariableName) {
  const std::string xml =
      replaced(kCompleteXml, R"(name="v" valueReference="2")", R"(name="x" valueReference="2")");
  expect_parse_error(
      xml,
      {"ScalarVariable 'x' (line " +
           std::to_string(line_of(xml, R"(name="x" valueReference="2")")) + "): name: duplicate",
       "ScalarVariable 1 (line " + std::to_string(line_of(xml, R"(name="x")")) + ")"});
}

TEST(FmuDescription, RefusesANegativeValueReference) {
  const std::string xml =
      replaced(kCompleteXml, R"(name="f" valueReference="4")", R"(name="f" valueReference="-1")");
  EXPECT_EQ(parse_error(xml), kFile + ": ScalarVariable 'f' (line " +
                                  std::to_string(line_of(xml, R"(name="f")")) +
                                  "): valueReference: not an unsigned integer '-1'");
}

TEST(FmuDescription, RefusesNumbersWithTrailingTextOrNonFinite) {
  expect_parse_error(replaced(kCompleteXml, R"(start="1.5")", R"(start="1.5m")"),
                     {"ScalarVariable 'x'", "Real: start: not a finite number '1.5m'"});
  expect_parse_error(replaced(kCompleteXml, R"(start="1.5")", R"(start="inf")"),
                     {"ScalarVariable 'x'", "Real: start: not a finite number 'inf'"});
  expect_parse_error(
      replaced(kCompleteXml, R"(<Integer start="-3"/>)", R"(<Integer start="3.5"/>)"),
      {"ScalarVariable 'count'", "Integer: start: not an integer '3.5'"});
  expect_parse_error(
      replaced(kCompleteXml, R"(numberOfEventIndicators="1")", R"(numberOfEventIndicators=" 1")"),
      {"numberOfEventIndicators: not an unsigned integer ' 1'"});
}

TEST(FmuDescription, RefusesABadBooleanFlag) {
  expect_parse_error(
      replaced(kCompleteXml, R"(completedIntegratorStepNotNeeded="true")",
               R"(completedIntegratorStepNotNeeded="yes")"),
      {"ModelExchange (line 4): completedIntegratorStepNotNeeded: not a boolean 'yes'"});
  expect_parse_error(
      replaced(kCompleteXml, R"(<Boolean start="true"/>)", R"(<Boolean start="on"/>)"),
      {"ScalarVariable 'enabled'", "Boolean: start: not a boolean 'on'"});
}

TEST(FmuDescription, RefusesAnUnknownEnumValue) {
  expect_parse_error(replaced(kCompleteXml, R"(causality="input")", R"(causality="inputs")"),
                     {"ScalarVariable 'f'", "causality: unknown value 'inputs'"});
}

TEST(FmuDescription, RequiresExactlyOneTypeElement) {
  expect_parse_error(replaced(kCompleteXml, R"(<Real derivative="1"/>)", ""),
                     {"ScalarVariable 'der(x)'", "no type element"});
  expect_parse_error(
      replaced(kCompleteXml, R"(<Real derivative="1"/>)", R"(<Real derivative="1"/><Integer/>)"),
      {"ScalarVariable 'der(x)'", "two type elements (Real and Integer)"});
}

TEST(FmuDescription, RefusesAnUnknownIndexOutOfRange) {
  expect_parse_error(
      replaced(kCompleteXml, R"(<Unknown index="12"/>)", R"(<Unknown index="14"/>)"),
      {"ModelStructure/Outputs/Unknown (line", "index: 14 is out of range", "1 to 13"});
  expect_parse_error(
      replaced(kCompleteXml, R"(<Unknown index="6" dependencies=""/>)",
               R"(<Unknown index="6" dependencies="0"/>)"),
      {"ModelStructure/InitialUnknowns/Unknown (line", "dependencies: 0 is out of range"});
}

TEST(FmuDescription, OutputsMustBeOutputsAndDerivativesDerivatives) {
  expect_parse_error(replaced(kCompleteXml, R"(<Unknown index="1" dependencies="1"/>)",
                              R"(<Unknown index="2" dependencies="1"/>)"),
                     {"ModelStructure/Outputs/Unknown (line", "index: names 'der(x)'",
                      "causality is local, not output"});
  expect_parse_error(replaced(kCompleteXml, R"(<Unknown index="2" dependencies="3"/>)",
                              R"(<Unknown index="5" dependencies="3"/>)"),
                     {"ModelStructure/Derivatives/Unknown (line", "index: names 'f'",
                      "not a Real with a derivative attribute"});
}

TEST(FmuDescription, RefusesADerivativePointingNowhere) {
  expect_parse_error(
      replaced(kCompleteXml, R"(derivative="3")", R"(derivative="42")"),
      {"ScalarVariable 'der(v)' (line", "Real: derivative: 42 names no ScalarVariable"});
  expect_parse_error(
      replaced(kCompleteXml, R"(derivative="3")", R"(derivative="8")"),
      {"ScalarVariable 'der(v)' (line", "derivative: 8 names 'count', which is not a Real"});
}

TEST(FmuDescription, RefusesAModelIdentifierThatIsNoFileStem) {
  for (const char* identifier : {"../evil", "", "a/b", "lib.so"}) {
    SCOPED_TRACE(identifier);
    expect_parse_error(
        replaced(kCompleteXml, R"(modelIdentifier="mass")",
                 std::string("modelIdentifier=\"") + identifier + "\""),
        {"ModelExchange (line 4): modelIdentifier: '" + std::string(identifier) + "'",
         "not a plain file name stem"});
  }
}

TEST(FmuDescription, RefusesAnEnumerationItemWithoutValue) {
  expect_parse_error(replaced(kCompleteXml, R"(<Item name="on" value="2"/>)", R"(<Item name="on"/>)"),
                     {"SimpleType (line 14): Item (line 15)", "value: missing (required)"});
}

TEST(FmuDescription, RefusesAnUnknownDeclaredType) {
  expect_parse_error(replaced(kCompleteXml, R"(<Enumeration declaredType="Mode" start="2"/>)",
                              R"(<Enumeration declaredType="Modes" start="2"/>)"),
                     {"ScalarVariable 'mode'", "declaredType: no SimpleType 'Modes'"});
}

// --- Archive -------------------------------------------------------------------------------

struct ZipEntry {
  ZipEntry(std::string entry_name, std::string entry_content,
           std::optional<std::uint32_t> entry_unix_mode = std::nullopt, bool entry_stored = false)
      : name(std::move(entry_name)),
        content(std::move(entry_content)),
        unix_mode(entry_unix_mode),
        stored(entry_stored) {}

  std::string name;
  std::string content;
  std::optional<std::uint32_t> unix_mode;  ///< st_mode, stored in the external attributes
  bool stored = false;                     ///< uncompressed, so the test can patch its bytes
};

std::string read_file(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream << content;
}

/// Fixture: a private TMPDIR, so that the couplet-fmu-* directories seen are
/// this test's own (tests of other programs may run at the same time).
class FmuArchive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* tmpdir = std::getenv("TMPDIR")) original_tmpdir_ = tmpdir;
    std::string pattern = (fs::temp_directory_path() / "fmi-loader-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    work_ = pattern;
    ASSERT_EQ(::setenv("TMPDIR", work_.c_str(), 1), 0);
  }

  void TearDown() override {
    if (original_tmpdir_) {
      ::setenv("TMPDIR", original_tmpdir_->c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
    std::error_code ignored;
    fs::remove_all(work_, ignored);
  }

  fs::path write_zip(const std::string& file_name, const std::vector<ZipEntry>& entries) const {
    const fs::path path = work_ / file_name;
    int error = 0;
    zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    EXPECT_NE(archive, nullptr) << "zip_open error " << error;
    if (archive == nullptr) return path;
    for (const ZipEntry& entry : entries) {
      // The buffers live in `entries` until zip_close reads them.
      zip_source_t* source =
          zip_source_buffer(archive, entry.content.data(), entry.content.size(), 0);
      const zip_int64_t index = zip_file_add(archive, entry.name.c_str(), source, ZIP_FL_ENC_UTF_8);
      EXPECT_GE(index, 0) << entry.name << ": " << zip_strerror(archive);
      if (index < 0) {
        zip_source_free(source);
        continue;
      }
      const auto entry_index = static_cast<zip_uint64_t>(index);
      if (entry.unix_mode) {
        EXPECT_EQ(zip_file_set_external_attributes(archive, entry_index, 0, ZIP_OPSYS_UNIX,
                                                   *entry.unix_mode << 16),
                  0);
      }
      if (entry.stored) {
        EXPECT_EQ(zip_set_file_compression(archive, entry_index, ZIP_CM_STORE, 0), 0);
      }
    }
    EXPECT_EQ(zip_close(archive), 0) << zip_strerror(archive);
    return path;
  }

  std::set<fs::path> unpack_directories() const {
    std::set<fs::path> directories;
    for (const fs::directory_entry& entry : fs::directory_iterator(work_)) {
      if (entry.path().filename().string().rfind("couplet-fmu-", 0) == 0) {
        directories.insert(entry.path());
      }
    }
    return directories;
  }

  /// Unpacking `path` throws a ConfigurationError naming the FMU and containing
  /// every fragment, and leaves no directory behind.
  void expect_refused(const fs::path& path, const std::vector<std::string>& fragments) const {
    const std::set<fs::path> before = unpack_directories();
    try {
      Archive::unpack(path.string());
      ADD_FAILURE() << path << " was unpacked";
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.rfind("FMU '" + path.string() + "': ", 0), 0u) << message;
      for (const std::string& fragment : fragments) {
        EXPECT_NE(message.find(fragment), std::string::npos)
            << "message: " << message << "\nlacks: " << fragment;
      }
    }
    EXPECT_EQ(unpack_directories(), before);
  }

  void expect_entry_refused(const ZipEntry& entry,
                            const std::vector<std::string>& fragments) const {
    SCOPED_TRACE(entry.name);
    const std::vector<ZipEntry> entries{{"modelDescription.xml", "<fmiModelDescription/>"}, entry};
    expect_refused(write_zip("hostile.fmu", entries), fragments);
  }

  /// `path`'s bytes with `from` (found exactly once) replaced by `to`, same length.
  static void patch(const fs::path& path, const std::string& from, const std::string& to) {
    ASSERT_EQ(from.size(), to.size());
    std::string bytes = read_file(path);
    const std::size_t at = bytes.find(from);
    ASSERT_NE(at, std::string::npos);
    ASSERT_EQ(bytes.find(from, at + 1), std::string::npos);
    bytes.replace(at, from.size(), to);
    write_file(path, bytes);
  }

  std::optional<std::string> original_tmpdir_;
  fs::path work_;
};

const std::vector<ZipEntry> kGoodEntries{
    {"modelDescription.xml", "<fmiModelDescription/>", std::nullopt},
    {"binaries/", "", S_IFDIR | 0755},
    {"binaries/linux64/mass.so",
     std::string("\x7f"
                 "ELF and more",
                 13),
     S_IFREG | 0755},
    {"resources/data/table.csv", "t,x\n0,1\n", S_IFREG | 0644},
    {"documentation/", "", std::nullopt},
};

TEST_F(FmuArchive, UnpacksFilesAndDirectoriesIntoAPrivateDirectory) {
  const fs::path fmu = write_zip("good.fmu", kGoodEntries);
  fs::path directory;
  {
    const Archive archive = Archive::unpack(fmu.string());
    directory = archive.directory();
    EXPECT_EQ(archive.fmu_path(), fmu.string());
    EXPECT_EQ(directory.parent_path(), work_);
    EXPECT_EQ(directory.filename().string().rfind("couplet-fmu-", 0), 0u);
    EXPECT_EQ(fs::status(directory).permissions(), fs::perms::owner_all);

    EXPECT_EQ(read_file(directory / "modelDescription.xml"), "<fmiModelDescription/>");
    EXPECT_EQ(read_file(directory / "binaries/linux64/mass.so"), kGoodEntries[2].content);
    EXPECT_EQ(read_file(directory / "resources/data/table.csv"), "t,x\n0,1\n");
    EXPECT_TRUE(fs::is_directory(directory / "documentation"));
    EXPECT_NE(
        fs::status(directory / "binaries/linux64/mass.so").permissions() & fs::perms::owner_exec,
        fs::perms::none);
    EXPECT_EQ(
        fs::status(directory / "resources/data/table.csv").permissions() & fs::perms::owner_exec,
        fs::perms::none);
  }
  EXPECT_FALSE(fs::exists(directory));
}

TEST_F(FmuArchive, TheLastOwnerAfterAMoveRemovesTheDirectory) {
  const fs::path fmu = write_zip("good.fmu", kGoodEntries);
  fs::path directory;
  {
    Archive first = Archive::unpack(fmu.string());
    directory = first.directory();
    {
      const Archive second = std::move(first);
      EXPECT_EQ(second.directory(), directory);
      EXPECT_TRUE(first.directory().empty());  // NOLINT(bugprone-use-after-move): the contract
    }
    EXPECT_FALSE(fs::exists(directory));
  }

  Archive kept = Archive::unpack(fmu.string());
  const fs::path replaced_directory = kept.directory();
  Archive other = Archive::unpack(fmu.string());
  const fs::path other_directory = other.directory();
  kept = std::move(other);
  EXPECT_FALSE(fs::exists(replaced_directory));  // the overwritten owner's directory goes
  EXPECT_EQ(kept.directory(), other_directory);
  EXPECT_TRUE(fs::exists(other_directory));
}

TEST_F(FmuArchive, RefusesEntriesThatEscape) {
  expect_entry_refused({"../escape.txt", "x"}, {"entry '../escape.txt'", "'..' path component"});
  expect_entry_refused({"/abs.txt", "x"}, {"entry '/abs.txt'", "absolute path"});
  expect_entry_refused({"a/../../b", "x"}, {"entry 'a/../../b'", "'..' path component"});
  expect_entry_refused({"a/..", "x"}, {"entry 'a/..'", "'..' path component"});
  expect_entry_refused({"..\\evil.txt", "x"}, {"backslash"});
}

TEST_F(FmuArchive, RefusesSymbolicLinksAndSpecialFiles) {
  expect_entry_refused({"binaries/linux64/link.so", "/etc/passwd", S_IFLNK | 0777},
                       {"entry 'binaries/linux64/link.so'", "symbolic link"});
  expect_entry_refused({"fifo", "", S_IFIFO | 0644},
                       {"entry 'fifo'", "neither a regular file nor a directory"});
}

TEST_F(FmuArchive, RefusesAFileThatIsNotAZip) {
  write_file(work_ / "text.fmu", "this is not a zip archive, only text\n");
  expect_refused(work_ / "text.fmu", {"not a zip archive ("});
  write_file(work_ / "empty.fmu", "");
  expect_refused(work_ / "empty.fmu", {"not a zip archive"});
}

TEST_F(FmuArchive, RefusesAMissingFile) {
  expect_refused(work_ / "missing.fmu", {"no such file"});
}

TEST_F(FmuArchive, RefusesADamagedEntryAndRemovesWhatWasUnpacked) {
  const std::string content = "0123456789abcdefghijklmnopqrstuvwxyz";
  const fs::path fmu =
      write_zip("damaged.fmu", {{"modelDescription.xml", "<fmiModelDescription/>"},
                                {"resources/data.txt", content, std::nullopt, true}});
  std::string damaged = content;
  damaged[10] = 'A';
  patch(fmu, content, damaged);
  expect_refused(fmu, {"entry 'resources/data.txt'", "damaged", "CRC"});
}

// Little-endian 32-bit field, as zip headers store sizes.
std::string le32(std::uint32_t value) {
  std::string bytes(4, '\0');
  for (std::size_t i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  return bytes;
}

TEST_F(FmuArchive, RefusesAnEntryLargerThanItsHeaderSays) {
  // A stored entry of 300 bytes whose headers declare 10: the data read, not
  // the header, must count.
  const std::string content(300, 'z');
  const fs::path fmu = write_zip("lying.fmu", {{"big.bin", content, std::nullopt, true}});
  std::string bytes = read_file(fmu);
  // The uncompressed size follows the CRC and the compressed size, in both the
  // local header and the central directory: "size size" appears exactly twice.
  const std::string sizes = le32(300) + le32(300);
  const std::string lying = le32(300) + le32(10);
  std::size_t at = 0;
  int patched = 0;
  while ((at = bytes.find(sizes, at)) != std::string::npos) {
    bytes.replace(at, sizes.size(), lying);
    ++patched;
  }
  ASSERT_EQ(patched, 2);
  write_file(fmu, bytes);
  expect_refused(fmu, {"entry 'big.bin'"});
}

TEST_F(FmuArchive, RefusesAnArchiveDeclaringMoreThanOneGibibyte) {
  const std::string content(300, 'z');
  const fs::path fmu = write_zip("huge.fmu", {{"huge.bin", content, std::nullopt, true}});
  std::string bytes = read_file(fmu);
  const std::string sizes = le32(300) + le32(300);
  const std::string huge = le32(300) + le32(0x50000000u);  // 1.25 GiB
  std::size_t at = 0;
  while ((at = bytes.find(sizes, at)) != std::string::npos) bytes.replace(at, sizes.size(), huge);
  write_file(fmu, bytes);
  expect_refused(fmu, {"more than 1 GiB"});
}

TEST_F(FmuArchive, RefusesTwoEntriesOfTheSameName) {
  // libzip's writer refuses duplicates, so rename one entry in the bytes.
  const fs::path fmu = write_zip("twice.fmu", {{"model.xmA", "first"}, {"model.xmB", "second"}});
  std::string bytes = read_file(fmu);
  std::size_t at = 0;
  while ((at = bytes.find("model.xmB", at)) != std::string::npos) bytes.replace(at, 9, "model.xmA");
  write_file(fmu, bytes);
  expect_refused(fmu, {"entry 'model.xmA'", "a second entry of that name"});
}

// --- Library -------------------------------------------------------------------------------

TEST(FmuLibrary, RefusesALibraryWithoutFmiFunctions) {
  const std::string libm = "/lib/x86_64-linux-gnu/libm.so.6";
  if (!fs::exists(libm)) GTEST_SKIP() << libm << " is not here";
  try {
    const Library library(libm, "mass.fmu", {});
    FAIL() << "libm was accepted as an FMU";
  } catch (const ConfigurationError& error) {
    EXPECT_STREQ(error.what(),
                 "FMU 'mass.fmu': lib/x86_64-linux-gnu/libm.so.6: missing function "
                 "fmi2GetTypesPlatform");
  }
}

TEST(FmuLibrary, ReportsTheDlopenError) {
  try {
    const Library library("/nonexistent/binaries/linux64/mass.so", "mass.fmu",
                          {InterfaceKind::model_exchange});
    FAIL() << "a missing library was loaded";
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("FMU 'mass.fmu': binaries/linux64/mass.so: cannot load (", 0), 0u)
        << message;
    EXPECT_NE(message.find("No such file"), std::string::npos) << message;
  }
}

// Unpacked FMUs of a process that died without its destructors (kill -9, a
// crash) are removed by the next process that unpacks one; the directories of
// living processes, and names couplet did not make, stay.

/// Runs `body` in a child process, which exits with what `body` returns (its
/// locals destroyed), and waits for it: the exit status, or 128 + the signal
/// that ended it.
template <typename Body>
int in_child_process(Body body) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(body());
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(FmuArchive, DirectoryNameCarriesTheProcessId) {
  const Archive archive = Archive::unpack(write_zip("good.fmu", kGoodEntries).string());
  const std::string name = archive.directory().filename().string();
  const std::string prefix = "couplet-fmu-" + std::to_string(::getpid()) + "-";
  EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
  EXPECT_EQ(name.size(), prefix.size() + 6) << name;
}

TEST_F(FmuArchive, RemovesOnlyTheDirectoriesOfDeadProcesses) {
  pid_t gone = 0;
  {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    gone = child;  // reaped: no process has this id now
  }
  const std::vector<fs::path> abandoned = {work_ / ("couplet-fmu-" + std::to_string(gone) + "-a1B2c3")};
  const std::vector<fs::path> kept = {
      work_ / ("couplet-fmu-" + std::to_string(::getpid()) + "-d4E5f6"),  // this process lives
      work_ / "couplet-fmu-g7H8i9",                                       // no process id in the name
      work_ / ("couplet-fmu-" + std::to_string(gone) + "-toolong"),      // not mkdtemp's suffix
      work_ / ("other-" + std::to_string(gone) + "-j0K1l2"),
  };
  for (const fs::path& directory : abandoned) {
    fs::create_directories(directory / "binaries/linux64");
    write_file(directory / "binaries/linux64/model.so", "bytes");
  }
  for (const fs::path& directory : kept) fs::create_directories(directory);

  EXPECT_EQ(remove_abandoned_unpacked_archives(work_), abandoned.size());
  for (const fs::path& directory : abandoned) EXPECT_FALSE(fs::exists(directory)) << directory;
  for (const fs::path& directory : kept) EXPECT_TRUE(fs::exists(directory)) << directory;
  EXPECT_EQ(remove_abandoned_unpacked_archives(work_), 0u);
}

TEST_F(FmuArchive, NextProcessRemovesTheDirectoryOfAKilledOne) {
  const fs::path fmu = write_zip("good.fmu", kGoodEntries);
  // The first process unpacks and is killed before its destructor runs.
  ASSERT_EQ(in_child_process([&] {
              const Archive archive = Archive::unpack(fmu.string());
              ::raise(SIGKILL);
              return 0;
            }),
            128 + SIGKILL);
  const std::set<fs::path> left = unpack_directories();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(fs::exists(*left.begin() / "binaries/linux64/mass.so"));
  // The next process to unpack an FMU removes it, and keeps its own until it ends.
  ASSERT_EQ(in_child_process([&] {
              const Archive archive = Archive::unpack(fmu.string());
              const std::set<fs::path> now = unpack_directories();
              const bool only_its_own = now.size() == 1 && *now.begin() == archive.directory();
              return only_its_own ? 0 : 1;
            }),
            0);
  EXPECT_TRUE(unpack_directories().empty());
}

}  // namespace
}  // namespace couplet::models::fmi
