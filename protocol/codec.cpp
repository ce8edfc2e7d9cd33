#include "protocol/codec.hpp"

#include <pb_decode.h>
#include <pb_encode.h>
#include <sodium.h>

#include <algorithm>
#include <boost/endian/conversion.hpp>
#include <stdexcept>

#include "protocol/crc32.hpp"

namespace couplet::protocol {

namespace {

DecodeResult fail(FrameError error, const char* reason) { return {error, reason}; }

std::size_t payload_offset(bool sealed) {
  return kFrameHeaderBytes + (sealed ? kFrameNonceBytes : 0);
}
std::size_t trailer_bytes(bool sealed) {
  return (sealed ? kFrameTagBytes : 0) + kFrameChecksumBytes;
}

void compute_tag(std::span<const std::uint8_t> tagged, const FrameKey& key, std::uint8_t* tag) {
  static_assert(crypto_shorthash_siphashx24_BYTES == kFrameTagBytes);
  static_assert(crypto_shorthash_siphashx24_KEYBYTES == kFrameKeyBytes);
  crypto_shorthash_siphashx24(tag, tagged.data(), tagged.size(), key.data());
}

/// Plain frames for the codec without a key.
constexpr FrameKey kNoKey{};

/// Sealed with `nonce` under `key`, or plain.
EncodeResult encode_with(const Envelope& message, std::span<std::uint8_t> frame, bool sealed,
                         const FrameKey& key, std::uint64_t nonce) {
  const std::size_t offset = payload_offset(sealed);
  if (frame.size() < offset + trailer_bytes(sealed)) return {0, "frame buffer too small"};
  const std::size_t payload_room =
      std::min(frame.size() - offset - trailer_bytes(sealed), kMaxPayloadBytes);
  pb_ostream_t stream = pb_ostream_from_buffer(frame.data() + offset, payload_room);
  if (!pb_encode(&stream, couplet_wire_Envelope_fields, &message)) return {0, PB_GET_ERROR(&stream)};
  const std::size_t payload = stream.bytes_written;
  frame[0] = kFrameMagic;
  frame[1] = sealed ? kSealedFrameVersion : kFrameVersion;
  boost::endian::store_little_u16(&frame[2], static_cast<std::uint16_t>(payload));
  std::size_t checked = offset + payload;
  if (sealed) {
    boost::endian::store_little_u64(&frame[kFrameHeaderBytes], nonce);
    compute_tag(frame.first(checked), key, &frame[checked]);
    checked += kFrameTagBytes;
  }
  boost::endian::store_little_u32(&frame[checked], crc32(frame.first(checked)));
  return {checked + kFrameChecksumBytes, ""};
}

/// Accepts frames sealed under `key` when `sealing`, plain frames otherwise.
DecodeResult decode_with(std::span<const std::uint8_t> frame, Envelope& message, bool sealing,
                         const FrameKey& key, std::uint64_t& nonce) {
  nonce = 0;
  if (frame.size() > kMaxFrameBytes) return fail(FrameError::oversized, "oversized: longer than the largest valid frame");
  if (frame.size() < kFrameHeaderBytes + kFrameChecksumBytes) {
    return fail(FrameError::truncated, "truncated: shorter than a frame header and checksum");
  }
  if (frame[0] != kFrameMagic || (frame[1] != kFrameVersion && frame[1] != kSealedFrameVersion)) {
    return fail(FrameError::foreign, "not a couplet frame: bad magic or format version");
  }
  const bool sealed = frame[1] == kSealedFrameVersion;
  const std::size_t offset = payload_offset(sealed);
  const std::size_t payload = boost::endian::load_little_u16(&frame[2]);
  const std::size_t expected = offset + payload + trailer_bytes(sealed);
  if (frame.size() < expected) return fail(FrameError::truncated, "truncated: fewer bytes than the header announces");
  if (frame.size() > expected) return fail(FrameError::oversized, "oversized: more bytes than the header announces");
  if (payload > kMaxPayloadBytes) return fail(FrameError::oversized, "oversized: payload longer than the largest message");
  const std::size_t checked = expected - kFrameChecksumBytes;
  if (crc32(frame.first(checked)) != boost::endian::load_little_u32(&frame[checked])) {
    return fail(FrameError::corrupted, "corrupted: checksum mismatch");
  }
  if (sealed && !sealing)
    return fail(FrameError::sealed, "sealed: an authenticated frame, and this side has no key");
  if (!sealed && sealing) {
    return fail(FrameError::unsealed,
                "unsealed: a plain frame, and this side requires authenticated ones");
  }
  if (sealed) {
    std::uint8_t tag[kFrameTagBytes];
    compute_tag(frame.first(offset + payload), key, tag);
    if (sodium_memcmp(tag, &frame[offset + payload], kFrameTagBytes) != 0) {
      return fail(FrameError::unauthenticated,
                  "unauthenticated: the tag does not match this side's key");
    }
    nonce = boost::endian::load_little_u64(&frame[kFrameHeaderBytes]);
  }
  pb_istream_t stream = pb_istream_from_buffer(frame.data() + offset, payload);
  if (!pb_decode(&stream, couplet_wire_Envelope_fields, &message)) {
    // nanopb's reasons are static strings: "array overflow", "string overflow", ...
    return fail(FrameError::malformed, PB_GET_ERROR(&stream));
  }
  if (message.which_body == 0) return fail(FrameError::empty, "empty: an envelope without a message");
  return {};
}

}  // namespace

EncodeResult encode_frame(const Envelope& message, std::span<std::uint8_t> frame) {
  return encode_with(message, frame, false, kNoKey, 0);
}

DecodeResult decode_frame(std::span<const std::uint8_t> frame, Envelope& message) {
  std::uint64_t nonce = 0;
  return decode_with(frame, message, false, kNoKey, nonce);
}

FrameCodec::FrameCodec(const FrameKey& key) : key_(key), sealed_(true) {
  // Idempotent and thread-safe; SipHash itself needs no initialisation, this
  // only keeps to libsodium's rule of calling it first.
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot be initialised");
}

EncodeResult FrameCodec::encode(const Envelope& message, std::uint64_t nonce,
                                std::span<std::uint8_t> frame) const {
  return encode_with(message, frame, sealed_, key_, nonce);
}

DecodeResult FrameCodec::decode(std::span<const std::uint8_t> frame, Envelope& message,
                                std::uint64_t& nonce) const {
  return decode_with(frame, message, sealed_, key_, nonce);
}

const char* frame_error_name(FrameError error) {
  switch (error) {
    case FrameError::none: return "none";
    case FrameError::truncated: return "truncated";
    case FrameError::oversized: return "oversized";
    case FrameError::foreign: return "foreign";
    case FrameError::corrupted: return "corrupted";
    case FrameError::malformed: return "malformed";
    case FrameError::empty: return "empty";
    case FrameError::sealed:
      return "sealed";
    case FrameError::unsealed:
      return "unsealed";
    case FrameError::unauthenticated:
      return "unauthenticated";
  }
  return "unknown";
}

}  // namespace couplet::protocol
