#pragma once
// The frames of a run log file (docs/run-log.md), for tests that craft records
// with a valid checksum: split a log into frames, decode and re-encode one,
// join them again.
#include <gtest/gtest.h>
#include <pb_decode.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include "protocol/run_log_frame.hpp"

namespace couplet::testing {

using Bytes = std::vector<std::uint8_t>;
using Frames = std::vector<Bytes>;  ///< whole frames: length, payload, checksum

inline Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::uint32_t little_endian(const std::uint8_t* bytes) {
  return std::uint32_t{bytes[0]} | (std::uint32_t{bytes[1]} << 8) | (std::uint32_t{bytes[2]} << 16) |
         (std::uint32_t{bytes[3]} << 24);
}

inline Frames split_frames(const Bytes& log) {
  Frames frames;
  for (std::size_t at = protocol::kLogMagicBytes; at + 4 <= log.size();) {
    const std::size_t size = little_endian(&log[at]) + protocol::kLogFrameOverhead;
    frames.emplace_back(log.begin() + static_cast<std::ptrdiff_t>(at),
                        log.begin() + static_cast<std::ptrdiff_t>(at + size));
    at += size;
  }
  return frames;
}

inline Bytes join(const Frames& frames) {
  Bytes log(protocol::kLogMagic, protocol::kLogMagic + protocol::kLogMagicBytes);
  for (const Bytes& frame : frames) log.insert(log.end(), frame.begin(), frame.end());
  return log;
}

inline std::unique_ptr<protocol::LogRecord> decode(const Bytes& frame) {
  auto record = std::make_unique<protocol::LogRecord>();
  pb_istream_t stream = pb_istream_from_buffer(frame.data() + 4, frame.size() - protocol::kLogFrameOverhead);
  EXPECT_TRUE(pb_decode(&stream, couplet_wire_LogRecord_fields, record.get()));
  return record;
}

inline Bytes encode(const protocol::LogRecord& record) {
  Bytes frame(protocol::kMaxLogFrameBytes);
  const protocol::EncodeResult encoded = protocol::encode_log_frame(record, frame);
  EXPECT_TRUE(encoded);
  frame.resize(encoded.size);
  return frame;
}

}  // namespace couplet::testing
