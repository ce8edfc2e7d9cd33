// Fuzz target: the serial framing (protocol/cobs.hpp, protocol/crc32.hpp) as
// drivers/serial_transport.cpp applies it. The input is a byte stream off the
// line: it is cut at the 0x00 delimiters, every piece COBS-decoded into a
// buffer of the largest frame's size and, when it decodes, read as a frame.
// Properties: COBS decoding never writes past its buffer or returns more than
// it holds; every input encodes to a zero-free block that decodes to the input;
// the CRC of a frame followed by its own CRC is the CRC-32 residue.
#include <algorithm>
#include <memory>
#include <vector>

#include "fuzz_input.hpp"
#include "protocol/cobs.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"

namespace {

using namespace couplet;

void decode_stream(std::span<const std::uint8_t> stream) {
  std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
  const auto message = std::make_unique<protocol::Envelope>();
  while (!stream.empty()) {
    const auto delimiter = std::find(stream.begin(), stream.end(), std::uint8_t{0});
    const std::span<const std::uint8_t> block(stream.begin(), delimiter);
    stream = delimiter == stream.end() ? std::span<const std::uint8_t>{}
                                       : std::span<const std::uint8_t>(delimiter + 1, stream.end());
    if (block.empty()) continue;
    const auto decoded = protocol::cobs_decode(block, frame);
    if (!decoded) continue;
    fuzz::require(*decoded <= frame.size() && *decoded <= block.size(), "COBS decoded more than it was given");
    static_cast<void>(protocol::decode_frame(std::span(frame).first(*decoded), *message));
  }
}

void check_cobs_round_trip(std::span<const std::uint8_t> input) {
  std::vector<std::uint8_t> encoded(protocol::cobs_encoded_capacity(input.size()));
  const auto encoded_size = protocol::cobs_encode(input, encoded);
  fuzz::require(encoded_size.has_value(), "COBS encoding into its announced capacity failed");
  const std::span<const std::uint8_t> block = std::span(encoded).first(*encoded_size);
  fuzz::require(std::find(block.begin(), block.end(), std::uint8_t{0}) == block.end(),
                "a COBS block holds a zero byte");
  std::vector<std::uint8_t> decoded(input.size());
  const auto decoded_size = protocol::cobs_decode(block, decoded);
  fuzz::require(decoded_size == input.size() && std::equal(input.begin(), input.end(), decoded.begin()),
                "COBS decode(encode(x)) != x");
  if (!input.empty()) {
    std::vector<std::uint8_t> small(input.size() - 1);
    fuzz::require(!protocol::cobs_decode(block, small).has_value(), "COBS decoded into a buffer too small");
  }
}

void check_crc_residue(std::span<const std::uint8_t> input) {
  std::vector<std::uint8_t> checked(input.begin(), input.end());
  const std::uint32_t crc = protocol::crc32(input);
  for (int shift = 0; shift < 32; shift += 8) checked.push_back(static_cast<std::uint8_t>(crc >> shift));
  // Appending a reflected CRC-32 (little endian) gives the constant residue.
  fuzz::require(protocol::crc32(checked) == 0x2144DF1CU, "CRC-32 residue");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> input(data, size);
  decode_stream(input);
  check_cobs_round_trip(input);
  check_crc_residue(input);
  return 0;
}
