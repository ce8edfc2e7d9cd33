#pragma once
// Rounding: how a Real output becomes the Integer value of the input it drives,
// on a connection that declares the rule (a scenario's `rounding:`,
// docs/algorithms.md, "Real to Integer"). The value is taken, like every
// discrete input, when the executor prepares the step, and held over it.
#include <cstdint>
#include <optional>
#include <string_view>

namespace couplet {

/// Numbered as the run log's Rounding (protocol/couplet.proto), which 0 leaves
/// for "not rounded".
enum class Rounding {
  nearest = 1,   ///< to the nearest integer, halves away from zero (2.5 → 3, −2.5 → −3)
  floor = 2,     ///< down (−0.5 → −1)
  ceil = 3,      ///< up (0.5 → 1)
  truncate = 4,  ///< toward zero (−1.7 → −1)
};

/// "nearest", "floor", "ceil", "truncate".
std::string_view to_string(Rounding rounding);
/// The rule of that name; nullopt for any other text.
std::optional<Rounding> rounding_named(std::string_view name);

/// `value` rounded by `rounding`; nullopt when the result is no 64-bit
/// integer (NaN, ±∞, beyond ±2⁶³). Allocates nothing (the stepping thread
/// calls it).
std::optional<std::int64_t> rounded(double value, Rounding rounding);

}  // namespace couplet
