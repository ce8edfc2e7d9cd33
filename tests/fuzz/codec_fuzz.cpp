// Fuzz target: the wire codec (protocol/codec.hpp). The first byte chooses how
// the rest is used: bit 0 clear, as a whole frame (header, checks and all); set,
// as a payload wrapped in a valid header and CRC, so that the nanopb schema
// decoding is reached without the fuzzer having to forge a checksum. Bit 1 set:
// the frame is read by a codec with a key (sealed frames), and a wrapped payload
// is sealed with a valid tag under that key and a nonce from the next 8 bytes.
// Properties: decoding never fails without a reason, and a decoded envelope
// encodes to a frame that decodes and encodes to the very same bytes.
#include <sodium.h>

#include <boost/endian/conversion.hpp>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_input.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"

namespace {

using namespace couplet;

std::vector<std::uint8_t> wrap_payload(std::span<const std::uint8_t> payload) {
  std::vector<std::uint8_t> frame(protocol::kFrameHeaderBytes + payload.size() + protocol::kFrameChecksumBytes);
  frame[0] = protocol::kFrameMagic;
  frame[1] = protocol::kFrameVersion;
  boost::endian::store_little_u16(&frame[2], static_cast<std::uint16_t>(payload.size()));
  if (!payload.empty()) std::memcpy(&frame[protocol::kFrameHeaderBytes], payload.data(), payload.size());
  const std::size_t checked = protocol::kFrameHeaderBytes + payload.size();
  boost::endian::store_little_u32(&frame[checked], protocol::crc32(std::span(frame).first(checked)));
  return frame;
}

constexpr protocol::FrameKey kKey = fuzz::kSealingKey;

/// A sealed frame of `payload`, with a valid tag and CRC.
std::vector<std::uint8_t> seal_payload(std::span<const std::uint8_t> payload, std::uint64_t nonce) {
  const std::size_t offset = protocol::kFrameHeaderBytes + protocol::kFrameNonceBytes;
  std::vector<std::uint8_t> frame(offset + payload.size() + protocol::kFrameTagBytes +
                                  protocol::kFrameChecksumBytes);
  frame[0] = protocol::kFrameMagic;
  frame[1] = protocol::kSealedFrameVersion;
  boost::endian::store_little_u16(&frame[2], static_cast<std::uint16_t>(payload.size()));
  boost::endian::store_little_u64(&frame[protocol::kFrameHeaderBytes], nonce);
  if (!payload.empty()) std::memcpy(&frame[offset], payload.data(), payload.size());
  const std::size_t tagged = offset + payload.size();
  crypto_shorthash_siphashx24(&frame[tagged], frame.data(), tagged, kKey.data());
  const std::size_t checked = tagged + protocol::kFrameTagBytes;
  boost::endian::store_little_u32(&frame[checked],
                                  protocol::crc32(std::span(frame).first(checked)));
  return frame;
}

void check_round_trip(const protocol::FrameCodec& codec, const protocol::Envelope& decoded,
                      std::uint64_t nonce) {
  std::vector<std::uint8_t> first(protocol::kMaxFrameBytes);
  const protocol::EncodeResult encoded = codec.encode(decoded, nonce, first);
  fuzz::require(static_cast<bool>(encoded), "a decoded envelope does not encode");
  const auto again = std::make_unique<protocol::Envelope>();
  std::uint64_t nonce_again = 0;
  fuzz::require(
      static_cast<bool>(codec.decode(std::span(first).first(encoded.size), *again, nonce_again)),
      "an encoded envelope does not decode");
  fuzz::require(nonce_again == nonce, "the nonce does not survive a round trip");
  std::vector<std::uint8_t> second(protocol::kMaxFrameBytes);
  const protocol::EncodeResult reencoded = codec.encode(*again, nonce, second);
  fuzz::require(reencoded.size == encoded.size &&
                    std::memcmp(first.data(), second.data(), encoded.size) == 0,
                "encode(decode(frame)) is not stable");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool wrapped = (data[0] & 1) != 0;
  const bool sealed = (data[0] & 2) != 0;
  std::span<const std::uint8_t> rest(data + 1, size - 1);
  std::uint64_t nonce = 0;
  if (sealed && wrapped) {
    if (rest.size() < sizeof nonce) return 0;
    std::memcpy(&nonce, rest.data(), sizeof nonce);
    rest = rest.subspan(sizeof nonce);
  }
  // A payload longer than 16 bits cannot be announced by the header.
  if (wrapped && rest.size() > 0xFFFF) return 0;
  const std::vector<std::uint8_t> frame = !wrapped
                                              ? std::vector<std::uint8_t>(rest.begin(), rest.end())
                                          : sealed ? seal_payload(rest, nonce)
                                                   : wrap_payload(rest);
  const protocol::FrameCodec codec = sealed ? protocol::FrameCodec(kKey) : protocol::FrameCodec();
  const auto message = std::make_unique<protocol::Envelope>();
  std::uint64_t decoded_nonce = 0;
  const protocol::DecodeResult result = codec.decode(frame, *message, decoded_nonce);
  fuzz::require(result.reason != nullptr, "a decode result without a reason");
  if (!result) {
    fuzz::require(std::strlen(result.reason) > 0, "a failed decode with an empty reason");
    fuzz::require(std::strlen(protocol::frame_error_name(result.error)) > 0, "an unnamed frame error");
    return 0;
  }
  check_round_trip(codec, *message, decoded_nonce);
  return 0;
}
