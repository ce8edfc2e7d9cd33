// Units as FMI 2.0 defines them (§2.2.2): reading unit symbols, SI bases,
// and the exact conversion between two units of one base.
#include "couplet/unit.hpp"

#include <gtest/gtest.h>

#include <numbers>

namespace couplet {
namespace {

UnitDefinition parsed(std::string_view text) {
  const std::optional<UnitDefinition> unit = parse_unit(text);
  EXPECT_TRUE(unit.has_value()) << text;
  return unit.value_or(UnitDefinition{});
}

TEST(Units, SymbolsReadAsPowerProductsOfTheSiBase) {
  EXPECT_EQ(base_text(parsed("m")), "m");
  EXPECT_EQ(base_text(parsed("m/s")), "m.s-1");
  EXPECT_EQ(base_text(parsed("m/s2")), "m.s-2");
  EXPECT_EQ(base_text(parsed("m/s^2")), "m.s-2");
  EXPECT_EQ(base_text(parsed("N")), "kg.m.s-2");
  EXPECT_EQ(base_text(parsed("N m")), "kg.m2.s-2");
  EXPECT_EQ(base_text(parsed("N.m")), "kg.m2.s-2");
  EXPECT_EQ(base_text(parsed("kg.m2")), "kg.m2");
  EXPECT_EQ(base_text(parsed("rad/s")), "s-1.rad");
  EXPECT_EQ(base_text(parsed("1/s")), "s-1");
  EXPECT_EQ(base_text(parsed("m.s-1")), "m.s-1");
  EXPECT_EQ(base_text(parsed("V")), "kg.m2.s-3.A-1");
  EXPECT_EQ(base_text(parsed("%")), "1");
  // The built-in models' spellings (docs/models.md) are all known.
  for (const char* unit : {"m", "m/s", "N", "rad/s", "N m"}) EXPECT_TRUE(parse_unit(unit)) << unit;
}

TEST(Units, PrefixesAndOtherUnitsCarryTheirFactor) {
  EXPECT_DOUBLE_EQ(parsed("km").factor, 1000.0);
  EXPECT_DOUBLE_EQ(parsed("mm").factor, 1e-3);
  EXPECT_DOUBLE_EQ(parsed("ms").factor, 1e-3);
  EXPECT_DOUBLE_EQ(parsed("g").factor, 1e-3);
  EXPECT_DOUBLE_EQ(parsed("kg").factor, 1.0);
  EXPECT_DOUBLE_EQ(parsed("kN").factor, 1e3);
  EXPECT_DOUBLE_EQ(parsed("hPa").factor, 1e2);
  EXPECT_DOUBLE_EQ(parsed("bar").factor, 1e5);
  EXPECT_DOUBLE_EQ(parsed("cm2").factor, 1e-4);
  EXPECT_EQ(parsed("min").factor, 60.0);  // minute, not milli-inch
  EXPECT_EQ(base_text(parsed("mol")), "mol");
  EXPECT_EQ(base_text(parsed("cd")), "cd");
  EXPECT_DOUBLE_EQ(parsed("deg").factor, std::numbers::pi / 180.0);
  EXPECT_DOUBLE_EQ(parsed("rpm").factor, std::numbers::pi / 30.0);
  EXPECT_EQ(base_text(parsed("rpm")), "s-1.rad");
  // km/h as FMI writes it: factor 1000/3600, correctly rounded.
  EXPECT_EQ(parsed("km/h").factor, 1000.0 / 3600.0);
  EXPECT_EQ(base_text(parsed("km/h")), "m.s-1");
}

TEST(Units, OffsetUnitsStandOnlyAlone) {
  EXPECT_EQ(parsed("degC").offset, 273.15);
  EXPECT_EQ(base_text(parsed("degC")), "K");
  EXPECT_FALSE(parse_unit("degC/s"));
  EXPECT_FALSE(parse_unit("degC2"));
  EXPECT_FALSE(parse_unit("m.degC"));
}

TEST(Units, WhatIsNotAUnitIsNotRead) {
  for (const char* text :
       {"", "furlong", "m//s", "m/s/s", "/s", "m.", "m..s", "m^", "m0", "2", "m/s x", "kkg"})
    EXPECT_FALSE(parse_unit(text)) << text;
}

// b = f₁ x + o₁ = f₂ y + o₂: y = (f₁/f₂) x + (o₁ − o₂)/f₂.
TEST(Units, ConversionFollowsTheBaseUnitRule) {
  const UnitConversion to_metres_per_second = *conversion_between(parsed("km/h"), parsed("m/s"));
  EXPECT_EQ(to_metres_per_second.factor, 1000.0 / 3600.0);
  EXPECT_EQ(to_metres_per_second.offset, 0.0);
  const UnitConversion to_kilometres_per_hour = *conversion_between(parsed("m/s"), parsed("km/h"));
  EXPECT_EQ(to_kilometres_per_hour.factor, 1.0 / (1000.0 / 3600.0));
  EXPECT_NEAR(to_kilometres_per_hour.factor * 10.0, 36.0, 1e-14);

  const UnitConversion to_kelvin = *conversion_between(parsed("degC"), parsed("K"));
  EXPECT_EQ(to_kelvin.factor, 1.0);
  EXPECT_EQ(to_kelvin.offset, 273.15);
  const UnitConversion fahrenheit = *conversion_between(parsed("degC"), parsed("degF"));
  EXPECT_NEAR(fahrenheit.factor * 100.0 + fahrenheit.offset, 212.0, 1e-12);
  EXPECT_NEAR(fahrenheit.offset, 32.0, 1e-12);

  EXPECT_FALSE(conversion_between(parsed("m"), parsed("m/s")));
  EXPECT_FALSE(conversion_between(parsed("N m"), parsed("J/rad")));  // torque is not energy
}

// An FMU's own definition (UnitDefinitions) is a UnitDefinition like the
// ones read from symbols: the same rule converts between the two.
TEST(Units, AnFmusDefinitionConvertsAgainstARecognisedSymbol) {
  const UnitDefinition kilometres_per_hour{{0, 1, -1, 0, 0, 0, 0, 0}, 0.2777777777777778, 0.0};
  EXPECT_EQ(kilometres_per_hour, parsed("km/h"));
  const UnitConversion conversion = *conversion_between(parsed("m/s"), kilometres_per_hour);
  EXPECT_EQ(conversion.factor, 1.0 / 0.2777777777777778);
}

}  // namespace
}  // namespace couplet
