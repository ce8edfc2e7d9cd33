// Units as FMI 2.0 defines them (Functional Mock-up Interface 2.0, §2.2.2):
// SI base exponents, factor and offset; and a reader of unit symbols for
// the ports that declare a unit by name only (built-in models, devices,
// slaves behind a link).
#include "couplet/unit.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>
#include <vector>

namespace couplet {
namespace {

/// A symbol's definition and whether SI prefixes apply to it.
struct Symbol {
  const char* name;
  UnitDefinition unit;
  bool prefixable;
};

using E = std::array<int, 8>;  // kg, m, s, A, K, mol, cd, rad

const std::vector<Symbol>& symbols() {
  constexpr double pi = std::numbers::pi;
  static const std::vector<Symbol> table{
      {"kg", {E{1, 0, 0, 0, 0, 0, 0, 0}}, false},
      {"g", {E{1, 0, 0, 0, 0, 0, 0, 0}, 1e-3}, true},
      {"m", {E{0, 1, 0, 0, 0, 0, 0, 0}}, true},
      {"s", {E{0, 0, 1, 0, 0, 0, 0, 0}}, true},
      {"A", {E{0, 0, 0, 1, 0, 0, 0, 0}}, true},
      {"K", {E{0, 0, 0, 0, 1, 0, 0, 0}}, true},
      {"mol", {E{0, 0, 0, 0, 0, 1, 0, 0}}, true},
      {"cd", {E{0, 0, 0, 0, 0, 0, 1, 0}}, true},
      {"rad", {E{0, 0, 0, 0, 0, 0, 0, 1}}, true},
      {"N", {E{1, 1, -2, 0, 0, 0, 0, 0}}, true},
      {"J", {E{1, 2, -2, 0, 0, 0, 0, 0}}, true},
      {"W", {E{1, 2, -3, 0, 0, 0, 0, 0}}, true},
      {"Pa", {E{1, -1, -2, 0, 0, 0, 0, 0}}, true},
      {"Hz", {E{0, 0, -1, 0, 0, 0, 0, 0}}, true},
      {"C", {E{0, 0, 1, 1, 0, 0, 0, 0}}, true},
      {"V", {E{1, 2, -3, -1, 0, 0, 0, 0}}, true},
      {"Ohm", {E{1, 2, -3, -2, 0, 0, 0, 0}}, true},
      {"S", {E{-1, -2, 3, 2, 0, 0, 0, 0}}, true},
      {"F", {E{-1, -2, 4, 2, 0, 0, 0, 0}}, true},
      {"H", {E{1, 2, -2, -2, 0, 0, 0, 0}}, true},
      {"T", {E{1, 0, -2, -1, 0, 0, 0, 0}}, true},
      {"Wb", {E{1, 2, -2, -1, 0, 0, 0, 0}}, true},
      {"L", {E{0, 3, 0, 0, 0, 0, 0, 0}, 1e-3}, true},
      {"bar", {E{1, -1, -2, 0, 0, 0, 0, 0}, 1e5}, true},
      {"min", {E{0, 0, 1, 0, 0, 0, 0, 0}, 60.0}, false},
      {"h", {E{0, 0, 1, 0, 0, 0, 0, 0}, 3600.0}, false},
      {"deg", {E{0, 0, 0, 0, 0, 0, 0, 1}, pi / 180.0}, false},
      {"rpm", {E{0, 0, -1, 0, 0, 0, 0, 1}, 2.0 * pi / 60.0}, false},
      {"%", {E{}, 1e-2}, false},
      {"degC", {E{0, 0, 0, 0, 1, 0, 0, 0}, 1.0, 273.15}, false},
      {"degF", {E{0, 0, 0, 0, 1, 0, 0, 0}, 5.0 / 9.0, 459.67 * 5.0 / 9.0}, false},
  };
  return table;
}

struct Prefix {
  const char* name;
  double factor;
};

constexpr std::array<Prefix, 9> kPrefixes{{{"G", 1e9},
                                           {"M", 1e6},
                                           {"k", 1e3},
                                           {"h", 1e2},
                                           {"c", 1e-2},
                                           {"m", 1e-3},
                                           {"u", 1e-6},
                                           {"n", 1e-9},
                                           {"p", 1e-12}}};

/// A symbol with or without a prefix: the exact symbol first ("min", "mol",
/// "cd", "h" are not prefixed "in", "ol", ...).
std::optional<UnitDefinition> symbol_unit(std::string_view name) {
  for (const Symbol& symbol : symbols())
    if (name == symbol.name) return symbol.unit;
  for (const Prefix& prefix : kPrefixes) {
    const std::string_view head(prefix.name);
    if (name.size() <= head.size() || name.substr(0, head.size()) != head) continue;
    for (const Symbol& symbol : symbols()) {
      if (!symbol.prefixable || name.substr(head.size()) != symbol.name) continue;
      UnitDefinition unit = symbol.unit;
      unit.factor *= prefix.factor;
      return unit;
    }
  }
  return std::nullopt;
}

struct Term {
  UnitDefinition unit;
  int exponent = 1;
};

/// "m", "s2", "s-1", "m^2": a symbol and its exponent.
std::optional<Term> parse_term(std::string_view text) {
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isalpha(static_cast<unsigned char>(text[end])) || text[end] == '%'))
    ++end;
  if (end == 0) return std::nullopt;
  Term term;
  const std::optional<UnitDefinition> unit = symbol_unit(text.substr(0, end));
  if (!unit) return std::nullopt;
  term.unit = *unit;
  std::string_view exponent = text.substr(end);
  const bool caret = !exponent.empty() && exponent.front() == '^';
  if (caret) exponent.remove_prefix(1);
  if (caret || !exponent.empty()) {
    const auto [rest, error] =
        std::from_chars(exponent.data(), exponent.data() + exponent.size(), term.exponent);
    if (error != std::errc() || rest != exponent.data() + exponent.size() || term.exponent == 0)
      return std::nullopt;
  }
  return term;
}

/// Multiplies `product` by the terms of `text` ("kg.m2", "N m"), each raised
/// to `sign` times its exponent; false when a term is not a unit. "1" is the
/// empty product (as in "1/s").
bool multiply(std::string_view text, int sign, UnitDefinition& product, double& factor,
              int& terms) {
  if (text == "1") return true;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find_first_of(".* ", begin);
    if (end == std::string_view::npos) end = text.size();
    const std::optional<Term> term = parse_term(text.substr(begin, end - begin));
    if (!term) return false;
    const int exponent = sign * term->exponent;
    for (std::size_t k = 0; k < product.exponents.size(); ++k)
      product.exponents[k] += exponent * term->unit.exponents[k];
    for (int n = 0; n < std::abs(term->exponent); ++n) factor *= term->unit.factor;
    if (term->unit.offset != 0.0) {
      if (term->exponent != 1 || sign != 1) return false;
      product.offset = term->unit.offset;
    }
    ++terms;
    begin = end + 1;
  }
  return true;
}

}  // namespace

std::string base_text(const UnitDefinition& unit) {
  std::string text;
  for (std::size_t k = 0; k < kSiBaseUnits.size(); ++k) {
    const int exponent = unit.exponents[k];
    if (exponent == 0) continue;
    if (!text.empty()) text += '.';
    text += kSiBaseUnits[k];
    if (exponent != 1) text += std::to_string(exponent);
  }
  return text.empty() ? "1" : text;
}

std::optional<UnitDefinition> parse_unit(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const std::size_t slash = text.find('/');
  if (slash != std::string_view::npos && text.find('/', slash + 1) != std::string_view::npos)
    return std::nullopt;
  UnitDefinition unit;
  double numerator = 1.0;
  double denominator = 1.0;
  int terms = 0;
  if (!multiply(text.substr(0, slash), 1, unit, numerator, terms)) return std::nullopt;
  if (slash != std::string_view::npos &&
      !multiply(text.substr(slash + 1), -1, unit, denominator, terms))
    return std::nullopt;
  // An offset (degC) is only meaningful for the unit alone: "degC/s" is a rate.
  if (unit.offset != 0.0 && terms != 1) return std::nullopt;
  unit.factor = numerator / denominator;
  return unit;
}

std::optional<UnitConversion> conversion_between(const UnitDefinition& from,
                                                 const UnitDefinition& to) {
  if (from.exponents != to.exponents) return std::nullopt;
  return UnitConversion{from.factor / to.factor, (from.offset - to.offset) / to.factor};
}

}  // namespace couplet
