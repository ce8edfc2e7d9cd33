#pragma once
// Frames of the run log (docs/run-log.md):
//
//   file   "COUPLOG1" (8 bytes), then frames
//   frame  payload length n (uint32 LE) | payload: one LogRecord (nanopb) |
//          CRC-32 of the 4 + n bytes before it (uint32 LE)
//
// A length prefix instead of the wire's 16-bit header: log records (a whole
// scenario, thousands of samples) exceed 64 KiB. The CRC covers the length, so
// a corrupted length is caught when its frame is, not taken for a cut file.
// Encoding never allocates (the recorder calls it on the stepping thread).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "protocol/codec.hpp"
#include "protocol/couplet.pb.h"

namespace couplet::protocol {

using LogRecord = couplet_wire_LogRecord;

inline constexpr std::size_t kLogMagicBytes = 8;
inline constexpr char kLogMagic[kLogMagicBytes + 1] = "COUPLOG1";
inline constexpr std::size_t kLogFrameOverhead = 8;  ///< length and checksum
inline constexpr std::size_t kMaxLogPayloadBytes = couplet_wire_LogRecord_size;
inline constexpr std::size_t kMaxLogFrameBytes = kMaxLogPayloadBytes + kLogFrameOverhead;

/// Encodes `record` as one frame into `frame` (kMaxLogFrameBytes suffice).
EncodeResult encode_log_frame(const LogRecord& record, std::span<std::uint8_t> frame);

enum class LogReadStatus : std::uint8_t {
  record,     ///< a record was read
  end,        ///< the file ends after a complete frame
  cut,        ///< the file ends inside a frame (crash or kill while it was written)
  corrupted,  ///< checksum mismatch, impossible length, or not a run log
  malformed,  ///< the checksum holds but the payload breaks the schema
};

/// Reads a run log frame by frame. Never throws after construction and never
/// reads past a bad frame: what came before it stays usable.
class RunLogReader {
 public:
  /// Throws std::runtime_error naming `path` when it cannot be opened.
  explicit RunLogReader(const std::string& path);

  /// The next record into `record`; on anything but `record`, problem() says why.
  LogReadStatus next(LogRecord& record);

  std::uint64_t frames_read() const { return frames_; }
  /// Bytes of complete frames (and the magic) read so far.
  std::uint64_t offset() const { return offset_; }
  /// "frame 17 at byte offset 4711" for the record next() returned last, so
  /// that a reader can name the record whose content it refuses.
  std::string record_position() const;
  /// "frame 17 at byte offset 4711: ..." for the status next() returned last.
  const std::string& problem() const { return problem_; }

 private:
  LogReadStatus fail(LogReadStatus status, const std::string& why);

  std::string path_;
  std::ifstream file_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t frames_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t record_offset_ = 0;  ///< where the frame of the last record begins
  std::string problem_;
  bool stopped_ = false;
  LogReadStatus final_ = LogReadStatus::end;  ///< what next() returns once stopped
};

}  // namespace couplet::protocol
