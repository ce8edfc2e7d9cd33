#include "protocol/cobs.hpp"

namespace couplet::protocol {

std::optional<std::size_t> cobs_encode(std::span<const std::uint8_t> input, std::span<std::uint8_t> output) {
  if (output.size() < cobs_encoded_capacity(input.size())) return std::nullopt;
  std::size_t code_position = 0;  // where the current block's length code goes
  std::size_t written = 1;
  std::uint8_t code = 1;  // 1 + bytes in the current block
  for (std::size_t k = 0; k < input.size(); ++k) {
    const std::uint8_t byte = input[k];
    if (byte != 0) {
      output[written++] = byte;
      ++code;
    }
    // A zero ends the block; so does a full block of 254 non-zero bytes. A full
    // block at the very end of the input needs no further code byte.
    if (byte == 0 || code == 0xFF) {
      output[code_position] = code;
      code = 1;
      if (byte != 0 && k + 1 == input.size()) return written;
      code_position = written++;
    }
  }
  output[code_position] = code;
  return written;
}

std::optional<std::size_t> cobs_decode(std::span<const std::uint8_t> input, std::span<std::uint8_t> output) {
  std::size_t read = 0;
  std::size_t written = 0;
  while (read < input.size()) {
    const std::uint8_t code = input[read++];
    if (code == 0) return std::nullopt;
    const std::size_t block = code - 1U;
    if (read + block > input.size() || written + block > output.size()) return std::nullopt;
    for (std::size_t k = 0; k < block; ++k) {
      if (input[read] == 0) return std::nullopt;
      output[written++] = input[read++];
    }
    // A block shorter than 254 bytes stood for a zero, except at the very end.
    if (code != 0xFF && read < input.size()) {
      if (written >= output.size()) return std::nullopt;
      output[written++] = 0;
    }
  }
  return written;
}

}  // namespace couplet::protocol
