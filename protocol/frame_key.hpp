#pragma once
// The pre-shared key that authenticates every frame of a link (docs/links.md
// "Authenticated links"): 128 bits, the key of SipHash-2-4-128.
//
// A key file holds exactly 32 hexadecimal digits (the key's bytes, first byte
// first), optionally followed by one newline, and may be read by its owner
// only (like an ssh private key): a key others can read authenticates nobody.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace couplet::protocol {

inline constexpr std::size_t kFrameKeyBytes = 16;
using FrameKey = std::array<std::uint8_t, kFrameKeyBytes>;

/// Reads the key file `path`. Throws ConfigurationError naming the file and the
/// reason: unreadable, readable by group or others, or not 32 hex digits.
FrameKey read_frame_key(const std::string& path);

/// Writes a fresh random key (the system's CSPRNG) to `path`, which must not
/// exist, with mode 0600. Throws ConfigurationError naming the file.
void write_new_frame_key(const std::string& path);

}  // namespace couplet::protocol
