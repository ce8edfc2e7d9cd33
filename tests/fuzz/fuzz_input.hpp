#pragma once
// Reading a fuzz input as a sequence of records: the harnesses that feed a
// conversation (frames to a target, answers to a master) cut their input into
// [one operation byte][16-bit little-endian length][that many bytes] records,
// so that libFuzzer's mutations (which insert, erase and copy byte ranges) keep
// most records intact. A record cut short by the end of the input takes what is
// left.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace couplet::fuzz {

/// The key of the codec target's sealed frames (its seeds are sealed with it).
inline constexpr std::array<std::uint8_t, 16> kSealingKey{0x6b, 0x65, 0x79, 0, 0, 0, 0, 0,
                                                          0,    0,    0,    0, 0, 0, 0, 1};

struct Record {
  std::uint8_t operation = 0;
  std::span<const std::uint8_t> bytes;
};

class RecordReader {
 public:
  explicit RecordReader(std::span<const std::uint8_t> input) : rest_(input) {}

  std::optional<Record> next() {
    if (rest_.size() < 3) return std::nullopt;
    const std::uint8_t operation = rest_[0];
    const std::size_t length = std::min<std::size_t>(rest_[1] | (std::size_t{rest_[2]} << 8), rest_.size() - 3);
    const Record record{operation, rest_.subspan(3, length)};
    rest_ = rest_.subspan(3 + length);
    return record;
  }

 private:
  std::span<const std::uint8_t> rest_;
};

/// Appends one record (for the seed corpus generator).
inline void append_record(std::vector<std::uint8_t>& input, std::uint8_t operation,
                          std::span<const std::uint8_t> bytes) {
  input.push_back(operation);
  input.push_back(static_cast<std::uint8_t>(bytes.size() & 0xFF));
  input.push_back(static_cast<std::uint8_t>(bytes.size() >> 8));
  input.insert(input.end(), bytes.begin(), bytes.end());
}

}  // namespace couplet::fuzz

namespace couplet::fuzz {

/// A broken property: report it and abort, which libFuzzer (and the corpus
/// regression driver, through its exit status) records as a crash.
[[noreturn]] void fail(const char* what);
inline void require(bool holds, const char* what) {
  if (!holds) fail(what);
}

}  // namespace couplet::fuzz
