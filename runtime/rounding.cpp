#include "runtime/rounding.hpp"

#include <array>
#include <cmath>
#include <utility>

namespace couplet {

namespace {

constexpr std::array<std::pair<Rounding, std::string_view>, 4> kNames{{
    {Rounding::nearest, "nearest"},
    {Rounding::floor, "floor"},
    {Rounding::ceil, "ceil"},
    {Rounding::truncate, "truncate"},
}};

}  // namespace

std::string_view to_string(Rounding rounding) {
  for (const auto& [rule, name] : kNames) {
    if (rule == rounding) return name;
  }
  return "unknown";
}

std::optional<Rounding> rounding_named(std::string_view name) {
  for (const auto& [rule, text] : kNames) {
    if (text == name) return rule;
  }
  return std::nullopt;
}

std::optional<std::int64_t> rounded(double value, Rounding rounding) {
  double whole = 0.0;
  switch (rounding) {
    case Rounding::nearest:
      whole = std::round(value);
      break;
    case Rounding::floor:
      whole = std::floor(value);
      break;
    case Rounding::ceil:
      whole = std::ceil(value);
      break;
    case Rounding::truncate:
      whole = std::trunc(value);
      break;
  }
  // [−2⁶³, 2⁶³) holds exactly the doubles that convert; NaN fails both tests.
  constexpr double kLimit = 9223372036854775808.0;  // 2⁶³
  if (!(whole >= -kLimit && whole < kLimit)) return std::nullopt;
  return static_cast<std::int64_t>(whole);
}

}  // namespace couplet
