// Units checked and converted at connections (docs/units.md): a connection
// between two units of one SI base (m/s and km/h, degC and K) gets a
// coupling.linear converter, said by `couplet validate`; units of different
// bases are refused naming both ends, both units and both bases. The fixture
// is tests/fmus/units.c (units: co-simulation; units_me: model exchange),
// whose ports declare km/h, degC and K in its UnitDefinitions.
#include <gtest/gtest.h>
#include <zip.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

/// push → left (a mass, v in m/s) → a.v [km/h]; a.temperature [degC] →
/// b.temperature_in [K]; a.v_shown [km/h] → b.v [km/h].
std::string speedometers(const char* fmu = "units") {
  const std::string units = std::string(COUPLET_TEST_FMU_DIR) + "/" + fmu + ".fmu";
  return "name: speedometers\ntime: {start: 0, end: 1}\nslaves:\n"
         "  push: {model: stimulus.constant, parameters: {value: 2}}\n"
         "  left: {model: translational.mass}\n"
         "  a:\n    fmu: " +
         units + "\n    parameters: {ambient: 25}\n  b:\n    fmu: " + units +
         "\nconnections:\n"
         "  - {from: push.y, to: left.f}\n"
         "  - {from: left.v, to: a.v}\n"
         "  - {from: a.temperature, to: b.temperature_in}\n"
         "  - {from: a.v_shown, to: b.v}\n"
         "algorithm: {type: gauss_seidel, step: 0.1}\nevaluation: {grid: 0.1}\nreference: none\n";
}

TEST(UnitConversion, ValidateSaysWhichConnectionsItConvertsAndHow) {
  const CoupletOutcome outcome = couplet_on_text("validate", speedometers(), "units_validate");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_NE(outcome.output.find(": connections[1]: 'left.v' [m/s] -> 'a.v' [km/h]: converted, "
                                "to = 3.6 * from (both m.s-1)\n"),
            std::string::npos)
      << outcome.output;
  EXPECT_NE(outcome.output.find(": connections[2]: 'a.temperature' [degC] -> "
                                "'b.temperature_in' [K]: converted, to = 1 * from + 273.15 "
                                "(both K)\n"),
            std::string::npos)
      << outcome.output;
  // One unit on both ends: nothing to say.
  EXPECT_EQ(outcome.output.find("connections[3]"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find(": valid\n"), std::string::npos) << outcome.output;
}

// b = f₁ x + o₁ = f₂ y + o₂ (FMI 2.0 §2.2.2): 25 degC reach b as 298.15 K, and
// the converter before a carries 1/(1000/3600) × left.v.
TEST(UnitConversion, TheConvertedValuesFollowTheBaseUnitRule) {
  const CoupletOutcome outcome = couplet_on_text("run", speedometers(), "units_run");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  for (const char* column : {"transform_a_v.y", "transform_b_temperature_in.y", "left.v",
                             "a.v_shown", "b.temperature_seen", "b.v_shown"})
    ASSERT_TRUE(columns.contains(column)) << column;
  const std::vector<double>& seen = columns.at("b.temperature_seen");
  ASSERT_EQ(seen.size(), 11u);
  for (const double kelvin : seen) EXPECT_EQ(kelvin, 25.0 + 273.15);
  const std::vector<double>& speed = columns.at("left.v");
  const std::vector<double>& converted = columns.at("transform_a_v.y");
  EXPECT_GT(speed.back(), 0.05);  // the mass moves: the test compares something
  for (std::size_t k = 0; k < speed.size(); ++k)
    EXPECT_EQ(converted[k], 1.0 / (1000.0 / 3600.0) * speed[k]) << "row " << k;
  // The FMU shows, in km/h, what it was given.
  EXPECT_EQ(columns.at("a.v_shown").back(), converted.back());
}

// The monolithic reference (model exchange FMUs, units_me) puts the same
// converters between its subsystems: 25 degC reach b as 298.15 K there too,
// and a shows 3.6 x the reference's speed.
TEST(UnitConversion, TheMonolithicReferenceConvertsAsTheCoSimulationDoes) {
  std::string text = speedometers("units_me");
  text.replace(text.find("reference: none"), 15, "reference: monolithic");
  const CoupletOutcome outcome = couplet_on_text("run", text, "units_reference");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  for (const char* column :
       {"left.v:reference", "a.v_shown:reference", "b.temperature_seen:reference"})
    ASSERT_TRUE(columns.contains(column)) << column;
  for (const double kelvin : columns.at("b.temperature_seen:reference"))
    EXPECT_EQ(kelvin, 25.0 + 273.15);
  const std::vector<double>& speed = columns.at("left.v:reference");
  const std::vector<double>& shown = columns.at("a.v_shown:reference");
  EXPECT_GT(speed.back(), 0.05);
  for (std::size_t k = 0; k < speed.size(); ++k)
    EXPECT_NEAR(shown[k], 3.6 * speed[k], 1e-12 * (1.0 + shown[k])) << "row " << k;
  // And the co-simulation follows it.
  EXPECT_NEAR(columns.at("a.v_shown").back(), shown.back(), 1e-6);
}

TEST(UnitConversion, UnitsOfDifferentBasesAreRefusedNamingBothEndsUnitsAndBases) {
  std::string text = speedometers();
  const std::string written = "  - {from: a.temperature, to: b.temperature_in}\n";
  text.replace(text.find(written), written.size(), "  - {from: left.x, to: b.temperature_in}\n");
  const CoupletOutcome outcome = couplet_on_text("validate", text, "units_refused");
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;  // a configuration error
  EXPECT_NE(outcome.output.find(": connections[2]: 'left.x' [m] -> 'b.temperature_in' [K]: the "
                                "units differ, and their SI bases differ (m, K); declare the "
                                "conversion on the connection"),
            std::string::npos)
      << outcome.output;
}

// A conversion the scenario declares (factor/offset) is the connection's:
// no second one is added.
TEST(UnitConversion, ADeclaredConversionTakesThePlaceOfTheUnitsOne) {
  std::string text = speedometers();
  const std::string written = "  - {from: left.v, to: a.v}\n";
  text.replace(text.find(written), written.size(), "  - {from: left.v, to: a.v, factor: 2}\n");
  const CoupletOutcome outcome = couplet_on_text("run", text, "units_declared");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  EXPECT_FALSE(columns.contains("transform_a_v_2.y"));
  const std::vector<double>& speed = columns.at("left.v");
  EXPECT_EQ(columns.at("transform_a_v.y").back(), 2.0 * speed.back());
}

/// A copy of the units FMU whose speed unit is named "kph": a name couplet
/// does not read, defined only by the FMU's UnitDefinitions (m/s, factor 1/3.6).
std::filesystem::path units_fmu_with_kph(const std::filesystem::path& directory) {
  std::filesystem::create_directories(directory);
  const std::filesystem::path copy = directory / "units_kph.fmu";
  std::filesystem::copy_file(std::string(COUPLET_TEST_FMU_DIR) + "/units.fmu", copy,
                             std::filesystem::copy_options::overwrite_existing);
  int error = 0;
  zip_t* archive = zip_open(copy.c_str(), 0, &error);
  EXPECT_NE(archive, nullptr) << error;
  zip_file_t* file = zip_fopen(archive, "modelDescription.xml", 0);
  EXPECT_NE(file, nullptr);
  std::string text;
  char buffer[4096];
  for (zip_int64_t read = 0; (read = zip_fread(file, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(read));
  zip_fclose(file);
  for (std::size_t at = 0; (at = text.find("km/h", at)) != std::string::npos;)
    text.replace(at, 4, "kph");
  // libzip reads the buffer at zip_close: memory it frees itself.
  void* data = std::malloc(text.size());
  std::memcpy(data, text.data(), text.size());
  zip_source_t* source = zip_source_buffer(archive, data, text.size(), 1);
  EXPECT_GE(zip_file_add(archive, "modelDescription.xml", source, ZIP_FL_OVERWRITE), 0);
  EXPECT_EQ(zip_close(archive), 0);
  return copy;
}

// An FMU behind couplet-target sends its unit definitions with its port
// names: "kph", which couplet cannot read by name, converts from m/s by the
// FMU's own BaseUnit over a UDP link as it does locally (the same hash and
// signals), instead of being refused as an unknown unit.
TEST(UnitConversion, AnFmuBehindALinkSendsItsUnitDefinitions) {
  const std::filesystem::path fmu = units_fmu_with_kph(fresh_directory("units-kph-fmu"));
  std::string text = speedometers();
  const std::string units = std::string(COUPLET_TEST_FMU_DIR) + "/units.fmu";
  text.replace(text.find(units), units.size(), fmu.string());  // a: the kph copy
  const CoupletOutcome local = couplet_on_text("run", text, "units-kph-local");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const std::string marker = "parameters: {ambient: 25}\n";
  std::string linked = text;
  linked.insert(linked.find(marker) + marker.size(),
                "    link: {spawn: true, udp: \"127.0.0.1:0\"}\n");
  const CoupletOutcome remote = couplet_on_text("run", linked, "units-kph-udp");
  ASSERT_EQ(remote.exit_code, 0) << remote.output;
  EXPECT_EQ(hash_of(remote.out), hash_of(local.out));
  const auto columns = read_columns(remote.out / "signals.csv");
  EXPECT_EQ(columns.at("transform_a_v.y").back(),
            1.0 / (1000.0 / 3600.0) * columns.at("left.v").back());
}

}  // namespace
}  // namespace couplet::testing
