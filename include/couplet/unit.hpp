#pragma once
// Physical units as FMI 2.0 defines them (§2.2.2, "Definition of Units"): a
// unit is a power product of the SI base units kg, m, s, A, K, mol, cd and
// rad, with a factor and an offset,
//
//   value in SI base units = factor · value + offset,
//
// so that km/h is m·s⁻¹ with factor 1000/3600 and degC is K with offset
// 273.15. Two units with the same base convert exactly by that rule; units
// with different bases never do (docs/units.md).
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace couplet {

/// The SI base units in FMI's order: the attribute names of a <BaseUnit>
/// (FMI 2.0, and SSP's ssc:BaseUnit) and the order of UnitDefinition::exponents.
inline constexpr std::array<const char*, 8> kSiBaseUnits{"kg", "m",   "s",  "A",
                                                         "K",  "mol", "cd", "rad"};

struct UnitDefinition {
  /// Exponents of kg, m, s, A, K, mol, cd, rad (kSiBaseUnits).
  std::array<int, 8> exponents{};
  double factor = 1.0;
  double offset = 0.0;

  friend bool operator==(const UnitDefinition&, const UnitDefinition&) = default;
};

/// The SI base of `unit` as FMI writes exponents: "m.s-1", "kg.m.s-2", "1"
/// for a dimensionless one.
std::string base_text(const UnitDefinition& unit);

/// A unit written as couplet's built-in models and devices write them: SI
/// symbols with or without a decimal prefix (N, kN, mm, ms, kg, g, Pa, bar,
/// V, mA, Ohm, ...), some others (h, min, deg, rpm, degC, degF, L, %), joined
/// by '.', '*' or ' ' and one '/', each with an integer exponent ("m/s2",
/// "kg.m2", "N m", "m/s^2", "km/h"). nullopt when `text` is none of these.
/// An offset unit (degC, degF) stands only alone.
std::optional<UnitDefinition> parse_unit(std::string_view text);

/// to = factor · from + offset.
struct UnitConversion {
  double factor = 1.0;
  double offset = 0.0;
};

/// How a value in `from` becomes one in `to`: value in base units
/// b = f₁ · x + o₁ = f₂ · y + o₂, so y = (f₁/f₂) · x + (o₁ − o₂)/f₂. nullopt
/// when the bases differ.
std::optional<UnitConversion> conversion_between(const UnitDefinition& from,
                                                 const UnitDefinition& to);

}  // namespace couplet
