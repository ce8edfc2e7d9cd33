#pragma once
// Sequence numbers of requests (docs/links.md): 32 bits, increasing modulo 2^32,
// compared with serial-number arithmetic (RFC 1982) so that the comparison
// survives wraparound. 0 is reserved for unsequenced messages (pushes).
#include <cstdint>

namespace couplet::protocol {

using Sequence = std::uint32_t;

/// True when `candidate` comes after `reference`: the forward distance from
/// reference to candidate is less than half the number space.
constexpr bool is_newer(Sequence candidate, Sequence reference) {
  const Sequence distance = candidate - reference;  // modulo 2^32
  return distance != 0 && distance < 0x8000'0000U;
}

/// The sequence after `current`, skipping the reserved 0.
constexpr Sequence next_sequence(Sequence current) {
  const Sequence next = current + 1U;
  return next == 0 ? 1U : next;
}

}  // namespace couplet::protocol
