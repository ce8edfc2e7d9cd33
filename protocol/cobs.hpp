#pragma once
// Consistent Overhead Byte Stuffing (Cheshire & Baker 1999): a frame on a serial
// line is COBS(bytes) between two 0x00 delimiters, so a receiver resynchronises
// at the next zero after any corruption (docs/links.md, wire protocol).
// Allocation-free: the caller supplies the output buffer.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace couplet::protocol {

/// Bytes needed to COBS-encode `size` bytes (without the delimiter).
constexpr std::size_t cobs_encoded_capacity(std::size_t size) { return size + size / 254 + 1; }

/// Encodes `input` into `output` (no delimiter, no zero byte inside). Returns the
/// encoded size, or nullopt if `output` is too small.
std::optional<std::size_t> cobs_encode(std::span<const std::uint8_t> input, std::span<std::uint8_t> output);

/// Decodes one encoded frame (without its delimiter) into `output`. Returns the
/// decoded size, or nullopt if the input is not valid COBS (a zero byte inside, a
/// code running past the end) or `output` is too small.
std::optional<std::size_t> cobs_decode(std::span<const std::uint8_t> input, std::span<std::uint8_t> output);

}  // namespace couplet::protocol
