#pragma once
// Frames of the run log (docs/run-log.md):
//
//   file   "COUPLOG1" (8 bytes), then frames
//   frame  payload length n (uint32 LE) | payload: one LogRecord (nanopb) |
//          CRC-32 of the 4 + n bytes before it (uint32 LE)
//
// or, compressed, "COUPLOGZ" and the same frames in zstd blocks
// (protocol/run_log_block.hpp); the reader reads both.
//
// A long run's log is segmented (docs/run-log.md "Segments"): the frames go on
// in further files beside the first, run.2.log, run.3.log, ..., each starting
//
//   segment  "COUPSEG1" (plain) or "COUPSEGZ" (compressed) | segment number
//            (uint32 LE, 2, 3, ...) | the run's identity (uint64 LE: the header
//            record's wall_clock_start_ns) | CRC-32 of the 20 bytes before it
//
// and then whole frames (or blocks) only, so that the reader reads the
// segments as one log and a segment of another run is never taken for one.
//
// A length prefix instead of the wire's 16-bit header: log records (a whole
// scenario, thousands of samples) exceed 64 KiB. The CRC covers the length, so
// a corrupted length is caught when its frame is, not taken for a cut file.
// Encoding never allocates (the recorder calls it on the stepping thread).
#include <array>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "protocol/codec.hpp"
#include "protocol/couplet.pb.h"
#include "protocol/run_log_block.hpp"

namespace couplet::protocol {

using LogRecord = couplet_wire_LogRecord;

inline constexpr std::size_t kLogMagicBytes = 8;
inline constexpr char kLogMagic[kLogMagicBytes + 1] = "COUPLOG1";
inline constexpr std::size_t kLogFrameOverhead = 8;  ///< length and checksum
inline constexpr std::size_t kMaxLogPayloadBytes = couplet_wire_LogRecord_size;
inline constexpr std::size_t kMaxLogFrameBytes = kMaxLogPayloadBytes + kLogFrameOverhead;

inline constexpr char kLogSegmentMagic[kLogMagicBytes + 1] = "COUPSEG1";
inline constexpr char kCompressedLogSegmentMagic[kLogMagicBytes + 1] = "COUPSEGZ";
inline constexpr std::size_t kLogSegmentHeaderBytes = kLogMagicBytes + 4 + 8 + 4;
using LogSegmentHeader = std::array<std::uint8_t, kLogSegmentHeaderBytes>;

/// The file of segment `number` (2, 3, ...) of the log whose first segment is
/// `first`: "out/run.log" → "out/run.2.log" ("out/log" → "out/log.2").
std::string log_segment_path(const std::string& first, std::uint32_t number);

/// The bytes of the log whose first segment is `first`: its segments up to the
/// first missing one, as the reader reads them.
std::uint64_t log_bytes_on_disk(const std::string& first);

/// The first bytes of segment `number` of the run `identity`.
LogSegmentHeader encode_log_segment_header(std::uint32_t number, std::uint64_t identity,
                                           bool compressed);

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
  /// Throws std::runtime_error naming `path` when it cannot be opened. `path`
  /// is the log's first segment; the further segments are read after it.
  explicit RunLogReader(const std::string& path);

  /// The next record into `record`; on anything but `record`, problem() says why.
  LogReadStatus next(LogRecord& record);

  /// For a log still being written: after next() returned `end`, or `cut`
  /// where the writer was writing, forgets that, so that next() reads on from
  /// the first byte after the last whole record (or block, or segment header)
  /// once the writer has added more. False, changing nothing, when next() has
  /// not stopped, after the end record, and at damage (corrupted, malformed).
  bool resume();

  std::uint64_t frames_read() const { return frames_; }
  /// Bytes of complete frames (and the magic) read so far in the current
  /// segment; of a compressed log, bytes of its frames as they were before
  /// compression.
  std::uint64_t offset() const { return offset_; }
  /// Whether the log is compressed ("COUPLOGZ").
  bool compressed() const { return compressed_; }
  /// "frame 17 at byte offset 4711" (compressed: "frame 17 in block 3") for
  /// the record next() returned last, so that a reader can name the record
  /// whose content it refuses.
  std::string record_position() const;
  /// "frame 17 at byte offset 4711: ..." for the status next() returned last.
  const std::string& problem() const { return problem_; }

 private:
  LogReadStatus fail(LogReadStatus status, const std::string& why);
  /// Up to `count` bytes of frames into `to`: from the file, or from its
  /// blocks decompressed. Fewer at the end of the log, or where a block is cut
  /// or damaged (block_status_ and block_problem_ say which).
  std::size_t read_frames(std::uint8_t* to, std::size_t count);
  /// The next block of a compressed log into block_frames_; false at its end
  /// or at a cut or damaged block.
  bool next_block();
  /// The status and message of a frame that `read_frames` left short.
  LogReadStatus short_frame(const std::string& where, const std::string& what);
  std::string position(std::uint64_t frame, std::uint64_t offset) const;
  /// At the clean end of a segment: whether the log goes on in another one.
  bool more_segments() const;
  /// Opens the next segment and checks its header; on a bad one, fail()s.
  bool open_next_segment();

  std::string path_;
  std::string segment_path_;  ///< the file read now
  std::uint32_t segment_ = 1;
  /// The run's identity, from its header record: what a segment must carry.
  std::uint64_t identity_ = 0;
  bool have_identity_ = false;
  bool ended_ = false;  ///< the end record was read: no segment follows
  std::ifstream file_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t frames_ = 0;
  std::uint64_t offset_ = 0;
  std::uint64_t record_offset_ = 0;  ///< where the frame of the last record begins
  std::string problem_;
  bool stopped_ = false;
  LogReadStatus final_ = LogReadStatus::end;  ///< what next() returns once stopped
  /// The next segment's header was cut: resume() opens it again.
  bool segment_header_cut_ = false;
  bool reopen_segment_ = false;  ///< next() opens segment segment_ + 1 first
  // A compressed log: the current block's frames and how far they were read.
  bool compressed_ = false;
  std::vector<std::uint8_t> block_bytes_;
  std::vector<std::uint8_t> block_frames_;
  std::size_t block_at_ = 0;
  std::uint64_t blocks_ = 0;       ///< blocks read
  std::uint64_t file_offset_ = 0;  ///< where the next block begins in the file
  LogBlockStatus block_status_ = LogBlockStatus::block;
  std::string block_problem_;
};

}  // namespace couplet::protocol
