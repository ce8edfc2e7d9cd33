// Fuzz target: the wire codec (protocol/codec.hpp). The first byte chooses how
// the rest is used: even, as a whole frame (header, checks and all); odd, as a
// payload wrapped in a valid header and CRC, so that the nanopb schema decoding
// is reached without the fuzzer having to forge a checksum. Properties: decoding
// never fails without a reason, and a decoded envelope encodes to a frame that
// decodes and encodes to the very same bytes.
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

void check_round_trip(const protocol::Envelope& decoded) {
  std::vector<std::uint8_t> first(protocol::kMaxFrameBytes);
  const protocol::EncodeResult encoded = protocol::encode_frame(decoded, first);
  fuzz::require(static_cast<bool>(encoded), "a decoded envelope does not encode");
  const auto again = std::make_unique<protocol::Envelope>();
  fuzz::require(static_cast<bool>(protocol::decode_frame(std::span(first).first(encoded.size), *again)),
                "an encoded envelope does not decode");
  std::vector<std::uint8_t> second(protocol::kMaxFrameBytes);
  const protocol::EncodeResult reencoded = protocol::encode_frame(*again, second);
  fuzz::require(reencoded.size == encoded.size &&
                    std::memcmp(first.data(), second.data(), encoded.size) == 0,
                "encode(decode(frame)) is not stable");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  // A payload longer than 16 bits cannot be announced by the header.
  if ((data[0] & 1) != 0 && rest.size() > 0xFFFF) return 0;
  const std::vector<std::uint8_t> frame =
      (data[0] & 1) != 0 ? wrap_payload(rest) : std::vector<std::uint8_t>(rest.begin(), rest.end());
  const auto message = std::make_unique<protocol::Envelope>();
  const protocol::DecodeResult result = protocol::decode_frame(frame, *message);
  fuzz::require(result.reason != nullptr, "a decode result without a reason");
  if (!result) {
    fuzz::require(std::strlen(result.reason) > 0, "a failed decode with an empty reason");
    fuzz::require(std::strlen(protocol::frame_error_name(result.error)) > 0, "an unnamed frame error");
    return 0;
  }
  check_round_trip(*message);
  return 0;
}
