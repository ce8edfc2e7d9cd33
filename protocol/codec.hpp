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
//
// A link with a pre-shared key (protocol/frame_key.hpp) seals its frames,
// format version 2:
//
//   offset 0   magic 0xC5
//          1   format version (2)
//          2   payload length, 16 bits little endian
//          4   nonce, 64 bits little endian: the target's session nonce (0 in a Hello)
//         12   payload
//     12 + n   tag: SipHash-2-4-128 under the key of bytes [0, 12 + n)
//     28 + n   CRC-32 of bytes [0, 28 + n), little endian
//
// The CRC still tells line noise (CRC wrong) from another key or a forgery (CRC
// right, tag wrong); the tag is checked before the payload is decoded. SipHash:
// J.-P. Aumasson, D. J. Bernstein, "SipHash: a fast short-input PRF",
// INDOCRYPT 2012, doi:10.1007/978-3-642-34931-7_28; computed by libsodium
// (crypto_shorthash_siphashx24).
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/couplet.pb.h"
#include "protocol/frame_key.hpp"

namespace couplet::protocol {

using Envelope = couplet_wire_Envelope;

inline constexpr std::uint8_t kFrameMagic = 0xC5;
inline constexpr std::uint8_t kFrameVersion = 1;
inline constexpr std::size_t kFrameHeaderBytes = 4;
inline constexpr std::size_t kFrameChecksumBytes = 4;
inline constexpr std::uint8_t kSealedFrameVersion = 2;
inline constexpr std::size_t kFrameNonceBytes = 8;
inline constexpr std::size_t kFrameTagBytes = 16;
inline constexpr std::size_t kFrameSealBytes =
    kFrameNonceBytes + kFrameTagBytes;  ///< what sealing adds
inline constexpr std::size_t kMaxPayloadBytes = couplet_wire_Envelope_size;
/// The largest frame, plain or sealed.
inline constexpr std::size_t kMaxFrameBytes =
    kFrameHeaderBytes + kMaxPayloadBytes + kFrameSealBytes + kFrameChecksumBytes;
static_assert(kMaxPayloadBytes <= 0xFFFF, "the payload length is a 16-bit field");
static_assert(kMaxFrameBytes <= 65507, "a frame must fit one UDP datagram");

enum class FrameError : std::uint8_t {
  none,
  truncated,        ///< fewer bytes than the header announces
  oversized,        ///< more bytes than any valid frame, or than the header announces
  foreign,          ///< bad magic or format version
  corrupted,        ///< checksum mismatch
  malformed,        ///< the payload does not decode under the schema
  empty,            ///< an envelope without a body
  sealed,           ///< a sealed frame, and this side has no key
  unsealed,         ///< a plain frame, and this side requires sealed ones
  unauthenticated,  ///< a sealed frame whose tag does not match this side's key
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

/// One side's frames: plain without a key, sealed with one. A sealing codec
/// accepts sealed frames under its key only; a plain one accepts plain frames
/// only. Never allocates.
class FrameCodec {
 public:
  FrameCodec() = default;
  explicit FrameCodec(const FrameKey& key);

  bool sealed() const { return sealed_; }
  /// Encodes `message` as a frame, sealed with `nonce` when this codec has a key
  /// (the nonce is ignored otherwise).
  EncodeResult encode(const Envelope& message, std::uint64_t nonce,
                      std::span<std::uint8_t> frame) const;
  /// Decodes a frame; `nonce` receives a sealed frame's nonce (0 for a plain one).
  /// The tag is checked before the payload is decoded.
  DecodeResult decode(std::span<const std::uint8_t> frame, Envelope& message,
                      std::uint64_t& nonce) const;

 private:
  FrameKey key_{};
  bool sealed_ = false;
};

}  // namespace couplet::protocol
