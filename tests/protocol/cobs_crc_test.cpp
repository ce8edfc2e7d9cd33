// COBS framing and CRC-32 against published vectors (docs/links.md: COBS
// framing with a CRC).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "protocol/cobs.hpp"
#include "protocol/crc32.hpp"

namespace couplet::protocol {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes encode(const Bytes& input) {
  Bytes output(cobs_encoded_capacity(input.size()));
  const auto size = cobs_encode(input, output);
  EXPECT_TRUE(size.has_value());
  output.resize(size.value_or(0));
  return output;
}

Bytes decode(const Bytes& input) {
  Bytes output(input.size());
  const auto size = cobs_decode(input, output);
  EXPECT_TRUE(size.has_value());
  output.resize(size.value_or(0));
  return output;
}

Bytes range(std::size_t first, std::size_t last) {  // bytes first..last inclusive, mod 256
  Bytes bytes;
  for (std::size_t value = first; value <= last; ++value) bytes.push_back(static_cast<std::uint8_t>(value & 0xFF));
  return bytes;
}

Bytes concat(Bytes head, const Bytes& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// The examples of the COBS article (Cheshire & Baker; also Wikipedia "COBS").
TEST(Cobs, PublishedVectors) {
  struct Vector {
    Bytes decoded, encoded;
  };
  const std::vector<Vector> vectors = {
      {{0x00}, {0x01, 0x01}},
      {{0x00, 0x00}, {0x01, 0x01, 0x01}},
      {{0x00, 0x11, 0x00}, {0x01, 0x02, 0x11, 0x01}},
      {{0x11, 0x22, 0x00, 0x33}, {0x03, 0x11, 0x22, 0x02, 0x33}},
      {{0x11, 0x22, 0x33, 0x44}, {0x05, 0x11, 0x22, 0x33, 0x44}},
      {{0x11, 0x00, 0x00, 0x00}, {0x02, 0x11, 0x01, 0x01, 0x01}},
      {range(1, 254), concat({0xFF}, range(1, 254))},
      {range(0, 254), concat(concat({0x01, 0xFF}, range(1, 254)), {})},
      {range(1, 255), concat(concat({0xFF}, range(1, 254)), {0x02, 0xFF})},
      {concat(range(2, 255), {0x00}), concat(concat({0xFF}, range(2, 255)), {0x01, 0x01})},
      {concat(range(3, 255), {0x00, 0x01}), concat(concat({0xFE}, range(3, 255)), {0x02, 0x01})},
  };
  for (std::size_t k = 0; k < vectors.size(); ++k) {
    EXPECT_EQ(encode(vectors[k].decoded), vectors[k].encoded) << "vector " << k;
    EXPECT_EQ(decode(vectors[k].encoded), vectors[k].decoded) << "vector " << k;
  }
}

TEST(Cobs, EncodedFramesContainNoZeroAndRoundTrip) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    Bytes input(static_cast<std::size_t>(random() % 1200));
    for (auto& byte : input) byte = static_cast<std::uint8_t>(random() % 4 == 0 ? 0 : random());
    const Bytes encoded = encode(input);
    EXPECT_LE(encoded.size(), cobs_encoded_capacity(input.size()));
    for (const std::uint8_t byte : encoded) ASSERT_NE(byte, 0);
    EXPECT_EQ(decode(encoded), input);
  }
}

TEST(Cobs, RejectsInvalidInput) {
  std::array<std::uint8_t, 16> output{};
  const Bytes with_zero = {0x03, 0x11, 0x00};
  EXPECT_FALSE(cobs_decode(with_zero, output).has_value());
  const Bytes code_past_end = {0x05, 0x11, 0x22};
  EXPECT_FALSE(cobs_decode(code_past_end, output).has_value());
  const Bytes too_long = encode(Bytes(40, 0x42));
  EXPECT_FALSE(cobs_decode(too_long, output).has_value());
  std::array<std::uint8_t, 2> small{};
  EXPECT_FALSE(cobs_encode(Bytes{1, 2, 3}, small).has_value());
}

std::uint32_t crc_of(std::string_view text) {
  return crc32({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

// The CRC-32 check value ("123456789") and two well-known strings.
TEST(Crc32, KnownVectors) {
  EXPECT_EQ(crc_of("123456789"), 0xCBF43926U);
  EXPECT_EQ(crc_of(""), 0x00000000U);
  EXPECT_EQ(crc_of("The quick brown fox jumps over the lazy dog"), 0x414FA339U);
}

}  // namespace
}  // namespace couplet::protocol
