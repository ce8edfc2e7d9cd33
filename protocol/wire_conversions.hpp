#pragma once
// Between runtime types and wire messages (protocol/couplet.proto), for the
// links and the run log. Doubles are copied, never converted, so a value crosses
// the link (docs/links.md: a lossy link gives bit-identical results) and the log
// (replay) bit for bit. Conversions on the stepping path do not allocate;
// descriptions (start-up only) do. Descriptions convert faithfully: the link
// ends declare remote slaves rollback-less themselves.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "protocol/couplet.pb.h"
#include "couplet/polynomial.hpp"
#include "couplet/slave.hpp"

namespace couplet::wire {

void to_wire(const Polynomial& polynomial, couplet_wire_Polynomial& wire);
Polynomial from_wire(const couplet_wire_Polynomial& wire);

/// Copies a NUL-terminated name into a fixed-size wire field; throws
/// ConfigurationError naming `what` when it does not fit.
template <std::size_t Size>
void copy_name(char (&field)[Size], const std::string& text, const std::string& what);

void copy_name_into(std::span<char> field, const std::string& text, const std::string& what);

/// Whether a linearization of `states` states, `inputs` inputs and `outputs`
/// outputs (LinearizationLayout) fits one Linearization
/// (protocol::kMaxLinearizationValues values), computed without overflow.
bool linearization_fits(std::uint64_t states, std::size_t inputs, std::size_t outputs);

/// The wire form of a slave's description (target side). A slave whose
/// linearization does not fit one Linearization is described as one that
/// cannot linearize: over the link it cannot.
void to_wire(const SlaveDescription& description, const std::string& model, couplet_wire_Describe& wire);

/// A slave description from a Describe, every field checked first (docs/links.md
/// "What each side validates"): the version; names present, terminated, without
/// control characters and unique among the inputs and among the outputs; units
/// and the model name terminated and without control characters; counts within
/// the protocol's capacities; output_derivative_order such that
/// end_outputs_fit(); imposed_step_ns in [0, 2^61); a target that reports
/// intermediate samples takes at least one sample time; a real-time target
/// reports none and does not linearize; state_count such that a linearization
/// fits the protocol (linearization_fits). max_input_degree above Polynomial::kMaxDegree is clamped to it
/// (a target that takes degree 9 takes degree 7). Throws SlaveError naming
/// `slave_name` and the field on a message that breaks one of these rules.
SlaveDescription from_wire(const couplet_wire_Describe& wire, const std::string& slave_name);

/// Times a peer sends must lie strictly within ±2^61 ns (±73 years), so that no
/// sum or difference of two of them, or of a time and a step, overflows int64.
inline constexpr std::int64_t kTimeLimitNs = std::int64_t{1} << 61;
inline constexpr bool time_in_range(std::int64_t ns) { return ns > -kTimeLimitNs && ns < kTimeLimitNs; }

/// Whether (derivative_order + 1) rows of max(outputs, 1) values fit the
/// protocol's end outputs (protocol::kMaxEndOutputs), computed without
/// overflow: the highest order the protocol carries is 63 for one output, 31
/// for two, and so on.
bool end_outputs_fit(std::uint64_t derivative_order, std::size_t outputs);

/// What is wrong with a text field a peer sent: "" when nothing, else why (no
/// terminating NUL within the field, a control character). Does not allocate
/// when the text is fine.
std::string text_problem(std::span<const char> field);

/// What is wrong with an input polynomial a peer sent, "" when nothing: more
/// coefficients than the field holds, a degree above `max_degree`, an origin
/// that is not finite, a scale that is not finite and > 0, a coefficient that
/// is not finite. The text begins with the member (".scale = 0 must be finite
/// and > 0") or with " has degree ...", for the caller to append to the field's
/// name. Does not allocate when the polynomial is fine (the target's stepping
/// path).
std::string polynomial_problem(const couplet_wire_Polynomial& wire, int max_degree);

/// A double as text for messages: shortest round-trip form, "nan", "inf".
std::string number_text(double value);

/// An enum field as nanopb stored it: proto3 enums are open, so any int32 can
/// arrive. Read as an integer, never through the enum type, whose range a
/// compiler may assume (-fstrict-enums), so that range checks are not optimised away.
template <typename Enum>
std::int32_t enum_value(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(std::int32_t), "nanopb stores enums as int");
  std::int32_t value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

template <std::size_t Size>
void copy_name(char (&field)[Size], const std::string& text, const std::string& what) {
  copy_name_into(std::span<char>(field, Size), text, what);
}

}  // namespace couplet::wire
