// Fuzz target: an FMU's modelDescription.xml, read by the FMI 2.0 parser
// (models::fmi::parse_description) and by the FMI 3.0 one
// (models::fmi3::parse_description), what opening an FMU reads first. For FMI
// 3.0 every array's extents are then known and its start values are one or
// one per element. For FMI 2.0 every unit in it is read as couplet reads a
// port's unit: the FMU's UnitDefinitions, else the unit's name (parse_unit),
// and the conversion between every two of them. The contract: bad XML is a
// ConfigurationError with a message naming the file; reading a unit name
// never throws; a conversion between units of one base is finite when both
// definitions are, and none is offered between different bases.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/unit.hpp"
#include "fuzz_input.hpp"
#include "models/fmi/fmi3_description.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmu_description.hpp"

namespace {

using couplet::fuzz::require;

bool finite(const couplet::UnitDefinition& unit) {
  return std::isfinite(unit.factor) && std::isfinite(unit.offset) && unit.factor != 0.0;
}

void check_units(const couplet::models::fmi::Description& description) {
  std::vector<couplet::UnitDefinition> units;
  for (const couplet::models::fmi::Variable& variable : description.variables) {
    const auto defined = description.units.find(variable.unit);
    const std::optional<couplet::UnitDefinition> unit =
        defined != description.units.end() ? defined->second : couplet::parse_unit(variable.unit);
    if (!unit) continue;
    require(!couplet::base_text(*unit).empty(), "a unit without a base text");
    if (finite(*unit) && units.size() < 64) units.push_back(*unit);
  }
  for (const couplet::UnitDefinition& from : units) {
    for (const couplet::UnitDefinition& to : units) {
      const std::optional<couplet::UnitConversion> conversion =
          couplet::conversion_between(from, to);
      require(conversion.has_value() == (from.exponents == to.exponents),
              "a conversion offered between different bases, or refused within one");
    }
  }
}

void check_arrays(const couplet::models::fmi3::Description& description) {
  for (const couplet::models::fmi3::Variable& variable : description.variables) {
    std::uint64_t elements = 1;
    for (const std::uint64_t extent : description.extents(variable)) {
      if (extent != 0 && elements > UINT64_MAX / extent) return;  // no such array in memory
      elements *= extent;
    }
    require(variable.start.size() <= 1 || variable.start.size() == elements,
            "an array whose start values are neither one nor one per element");
    require(!couplet::models::fmi3::ArrayLayout(description).type_of(variable).empty(),
            "no type text");
  }
}

void expect_named(const couplet::ConfigurationError& error) {
  require(std::string(error.what()).rfind("fuzz.fmu modelDescription.xml", 0) == 0,
          "a configuration error that does not name the file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  try {
    check_units(couplet::models::fmi::parse_description(xml, "fuzz.fmu modelDescription.xml"));
  } catch (const couplet::ConfigurationError& error) {
    expect_named(error);
  }
  try {
    check_arrays(couplet::models::fmi3::parse_description(xml, "fuzz.fmu modelDescription.xml"));
  } catch (const couplet::ConfigurationError& error) {
    expect_named(error);
  }
  return 0;
}
