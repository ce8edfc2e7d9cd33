#pragma once
// Frames of the wire protocol (docs/links.md). One frame is one UDP datagram, or one
// COBS block on a serial line:
//
//   offset 0   magic 0xC5
//          1   format version (1)
//          2   payload length, 16 bits little endian
//          4   payload: the nanopb encoding of an Envelope (protocol/couplet.proto)
//   4 + n      CRC-32 of bytes [0, 4 + n), little endian (protocol/crc32.hpp)
//
// The length makes a truncated frame recognisable as such; the CRC catches
// corruption that protobuf alone would decode into wrong numbers. Decoding
// rejects, with a reason, frames that are truncated, corrupted, oversized or not
// valid under the schema (arrays beyond their capacity included). Encoding and
// decoding never allocate.
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/couplet.pb.h"

namespace couplet::protocol {

using Envelope = couplet_wire_Envelope;

inline constexpr std::uint8_t kFrameMagic = 0xC5;
inline constexpr std::uint8_t kFrameVersion = 1;
inline constexpr std::size_t kFrameHeaderBytes = 4;
inline constexpr std::size_t kFrameChecksumBytes = 4;
inline constexpr std::size_t kMaxPayloadBytes = couplet_wire_Envelope_size;
inline constexpr std::size_t kMaxFrameBytes = kFrameHeaderBytes + kMaxPayloadBytes + kFrameChecksumBytes;
static_assert(kMaxPayloadBytes <= 0xFFFF, "the payload length is a 16-bit field");
static_assert(kMaxFrameBytes <= 65507, "a frame must fit one UDP datagram");

enum class FrameError : std::uint8_t {
  none,
  truncated,   ///< fewer bytes than the header announces
  oversized,   ///< more bytes than any valid frame, or than the header announces
  foreign,     ///< bad magic or format version
  corrupted,   ///< checksum mismatch
  malformed,   ///< the payload does not decode under the schema
  empty,       ///< an envelope without a body
};

struct DecodeResult {
  FrameError error = FrameError::none;
  const char* reason = "";  ///< static text, never null
  explicit operator bool() const { return error == FrameError::none; }
};

struct EncodeResult {
  std::size_t size = 0;     ///< bytes written, 0 on failure
  const char* reason = "";  ///< static text when size == 0
  explicit operator bool() const { return size != 0; }
};

/// Encodes `message` as a frame into `frame` (at least kMaxFrameBytes suffice).
/// Fails only when the message breaks the schema's capacities or `frame` is too small.
EncodeResult encode_frame(const Envelope& message, std::span<std::uint8_t> frame);

/// Decodes one frame into `message`. On failure `message` is unspecified.
DecodeResult decode_frame(std::span<const std::uint8_t> frame, Envelope& message);

const char* frame_error_name(FrameError error);

}  // namespace couplet::protocol
