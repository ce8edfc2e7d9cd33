#include "protocol/run_log_frame.hpp"

#include <pb_decode.h>
#include <pb_encode.h>

#include <algorithm>
#include <array>
#include <boost/endian/conversion.hpp>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "protocol/crc32.hpp"

namespace couplet::protocol {

namespace {

/// Room for a LogRecord field's tag (field numbers below 16: one byte) and its
/// length (a varint of at most five bytes).
constexpr std::size_t kFieldHeadRoom = 6;

/// Encodes `body`, the value of LogRecord's field `field`, into `out` as
/// pb_encode(LogRecord) would, in one pass. nanopb encodes a submessage twice,
/// once to learn its size, and the calls and plans — the records of every step,
/// which the log's writer thread must keep up with — are the bulk of a log: the
/// body is written after room for its tag and length, which are then written
/// in front of it. 0 when `out` has not the room (pb_encode is then asked).
std::size_t encode_body_in_one_pass(std::uint32_t field, const pb_msgdesc_t* fields,
                                    const void* body, std::span<std::uint8_t> out) {
  if (out.size() < kFieldHeadRoom) return 0;
  pb_ostream_t stream =
      pb_ostream_from_buffer(out.data() + kFieldHeadRoom, out.size() - kFieldHeadRoom);
  if (!pb_encode(&stream, fields, body)) return 0;
  const std::size_t length = stream.bytes_written;
  std::array<std::uint8_t, kFieldHeadRoom> head{};
  pb_ostream_t head_stream = pb_ostream_from_buffer(head.data(), head.size());
  if (!pb_encode_tag(&head_stream, PB_WT_STRING, field) || !pb_encode_varint(&head_stream, length))
    return 0;
  const std::size_t head_length = head_stream.bytes_written;
  std::memmove(out.data() + head_length, out.data() + kFieldHeadRoom, length);
  std::memcpy(out.data(), head.data(), head_length);
  return head_length + length;
}

/// The payload of `record` in one pass where it is a call or a plan; 0 otherwise.
std::size_t encode_step_record(const LogRecord& record, std::span<std::uint8_t> out) {
  switch (record.which_body) {
    case couplet_wire_LogRecord_call_tag:
      return encode_body_in_one_pass(couplet_wire_LogRecord_call_tag, couplet_wire_SlaveCall_fields,
                                     &record.body.call, out);
    case couplet_wire_LogRecord_plan_tag:
      return encode_body_in_one_pass(couplet_wire_LogRecord_plan_tag, couplet_wire_LogPlan_fields,
                                     &record.body.plan, out);
    default:
      return 0;
  }
}

}  // namespace

EncodeResult encode_log_frame(const LogRecord& record, std::span<std::uint8_t> frame) {
  if (frame.size() < kLogFrameOverhead) return {0, "frame buffer too small"};
  const std::span<std::uint8_t> out = frame.subspan(4, frame.size() - kLogFrameOverhead);
  std::size_t payload = encode_step_record(record, out);
  if (payload == 0) {
    pb_ostream_t stream = pb_ostream_from_buffer(out.data(), out.size());
    if (!pb_encode(&stream, couplet_wire_LogRecord_fields, &record))
      return {0, PB_GET_ERROR(&stream)};
    payload = stream.bytes_written;
  }
  boost::endian::store_little_u32(frame.data(), static_cast<std::uint32_t>(payload));
  boost::endian::store_little_u32(frame.data() + 4 + payload, crc32(frame.first(4 + payload)));
  return {payload + kLogFrameOverhead, ""};
}

std::string log_segment_path(const std::string& first, std::uint32_t number) {
  const std::filesystem::path path(first);
  std::filesystem::path segment = path;
  segment.replace_filename(path.stem().string() + "." + std::to_string(number) +
                           path.extension().string());
  return segment.string();
}

std::uint64_t log_bytes_on_disk(const std::string& first) {
  std::uint64_t bytes = 0;
  for (std::uint32_t number = 1;; ++number) {
    std::error_code error;
    const std::uintmax_t size =
        std::filesystem::file_size(number == 1 ? first : log_segment_path(first, number), error);
    if (error) return bytes;
    bytes += size;
  }
}

LogSegmentHeader encode_log_segment_header(std::uint32_t number, std::uint64_t identity,
                                           bool compressed) {
  LogSegmentHeader header{};
  std::memcpy(header.data(), compressed ? kCompressedLogSegmentMagic : kLogSegmentMagic,
              kLogMagicBytes);
  boost::endian::store_little_u32(header.data() + kLogMagicBytes, number);
  boost::endian::store_little_u64(header.data() + kLogMagicBytes + 4, identity);
  const std::span<const std::uint8_t> checked(header.data(), kLogSegmentHeaderBytes - 4);
  boost::endian::store_little_u32(header.data() + kLogSegmentHeaderBytes - 4, crc32(checked));
  return header;
}

RunLogReader::RunLogReader(const std::string& path)
    : path_(path), segment_path_(path), file_(path, std::ios::binary), buffer_(kMaxLogFrameBytes) {
  if (!file_) throw std::runtime_error("cannot open run log '" + path + "'");
  char magic[kLogMagicBytes] = {};
  file_.read(magic, kLogMagicBytes);
  const bool whole = file_.gcount() == static_cast<std::streamsize>(kLogMagicBytes);
  compressed_ = whole && std::memcmp(magic, kCompressedLogMagic, kLogMagicBytes) == 0;
  if (!whole || (!compressed_ && std::memcmp(magic, kLogMagic, kLogMagicBytes) != 0)) {
    fail(LogReadStatus::corrupted,
         "'" + path +
             "' is not a couplet run log (it does not start with COUPLOG1 "
             "or COUPLOGZ)");
    return;
  }
  offset_ = file_offset_ = kLogMagicBytes;
}

LogReadStatus RunLogReader::fail(LogReadStatus status, const std::string& why) {
  stopped_ = true;
  final_ = status;
  problem_ = why;
  return status;
}

std::string RunLogReader::position(std::uint64_t frame, std::uint64_t offset) const {
  const std::string in_segment = segment_ == 1 ? "" : " of '" + segment_path_ + "'";
  if (compressed_)
    return "frame " + std::to_string(frame) + " in block " + std::to_string(blocks_) + in_segment;
  return "frame " + std::to_string(frame) + " at byte offset " + std::to_string(offset) +
         in_segment;
}

bool RunLogReader::more_segments() const {
  std::error_code error;
  return !ended_ && std::filesystem::exists(log_segment_path(path_, segment_ + 1), error);
}

// A segment follows only whole frames (or blocks): its frames go on where the
// last segment's ended. Its header must name the next number and this run.
bool RunLogReader::open_next_segment() {
  const std::uint32_t number = segment_ + 1;
  segment_path_ = log_segment_path(path_, number);
  segment_ = number;
  blocks_ = 0;
  block_status_ = LogBlockStatus::block;
  block_frames_.clear();
  block_at_ = 0;
  file_.close();
  file_.clear();
  file_.open(segment_path_, std::ios::binary);
  const std::string where = "segment " + std::to_string(number) + " '" + segment_path_ + "': ";
  const auto refuse = [&](LogReadStatus status, const std::string& why) {
    fail(status, where + why);
    return false;
  };
  if (!file_) return refuse(LogReadStatus::corrupted, "cannot be opened");
  LogSegmentHeader header{};
  file_.read(reinterpret_cast<char*>(header.data()), kLogSegmentHeaderBytes);
  if (file_.gcount() != static_cast<std::streamsize>(kLogSegmentHeaderBytes)) {
    segment_header_cut_ = true;
    return refuse(LogReadStatus::cut, "ends inside its header (the run was cut while starting it)");
  }
  if (!have_identity_) return refuse(LogReadStatus::corrupted, "follows a log without a header");
  if (header == encode_log_segment_header(number, identity_, compressed_)) {
    offset_ = file_offset_ = kLogSegmentHeaderBytes;
    return true;
  }
  const std::span<const std::uint8_t> checked(header.data(), kLogSegmentHeaderBytes - 4);
  if (crc32(checked) != boost::endian::load_little_u32(header.data() + kLogSegmentHeaderBytes - 4))
    return refuse(LogReadStatus::corrupted, "checksum mismatch in its header: corrupted");
  const char* magic = compressed_ ? kCompressedLogSegmentMagic : kLogSegmentMagic;
  if (std::memcmp(header.data(), magic, kLogMagicBytes) != 0) {
    return refuse(LogReadStatus::corrupted, std::string("is not a segment of a ") +
                                                (compressed_ ? "compressed" : "plain") +
                                                " run log (it does not start with " + magic + ")");
  }
  const std::uint64_t identity = boost::endian::load_little_u64(header.data() + kLogMagicBytes + 4);
  if (identity != identity_) {
    return refuse(LogReadStatus::corrupted, "belongs to another run (identity " +
                                                std::to_string(identity) + ", this log's " +
                                                std::to_string(identity_) + ")");
  }
  return refuse(LogReadStatus::corrupted,
                "holds segment " +
                    std::to_string(boost::endian::load_little_u32(header.data() + kLogMagicBytes)));
}

std::string RunLogReader::record_position() const {
  return position(frames_, record_offset_);
}

bool RunLogReader::next_block() {
  if (block_status_ != LogBlockStatus::block) return false;
  const std::string where =
      "block " + std::to_string(blocks_ + 1) + " at byte offset " + std::to_string(file_offset_);
  const auto stop = [&](LogBlockStatus status, const std::string& why) {
    block_status_ = status;
    block_problem_ = where + ": " + why;
    return false;
  };
  std::uint8_t header[kLogBlockHeaderBytes];
  file_.read(reinterpret_cast<char*>(header), kLogBlockHeaderBytes);
  const auto header_bytes = static_cast<std::size_t>(file_.gcount());
  if (header_bytes == 0) {
    block_status_ = LogBlockStatus::end;
    return false;
  }
  if (header_bytes < kLogBlockHeaderBytes)
    return stop(LogBlockStatus::cut,
                "the log ends inside the block's header (the run was cut while writing it)");
  const std::size_t compressed = boost::endian::load_little_u32(header);
  const std::size_t frames = boost::endian::load_little_u32(header + 4);
  if (frames > kMaxLogBlockFrameBytes || compressed > max_compressed_log_block_bytes()) {
    return stop(LogBlockStatus::corrupted, "lengths " + std::to_string(compressed) + " and " +
                                               std::to_string(frames) +
                                               " exceed a block's: corrupted");
  }
  const std::size_t size = kLogBlockHeaderBytes + compressed + kLogBlockChecksumBytes;
  block_bytes_.resize(size);
  std::copy_n(header, kLogBlockHeaderBytes, block_bytes_.begin());
  file_.read(reinterpret_cast<char*>(block_bytes_.data()) + kLogBlockHeaderBytes,
             static_cast<std::streamsize>(size - kLogBlockHeaderBytes));
  const auto rest = static_cast<std::size_t>(file_.gcount());
  if (rest < size - kLogBlockHeaderBytes) {
    return stop(LogBlockStatus::cut, "the log ends after " +
                                         std::to_string(kLogBlockHeaderBytes + rest) +
                                         " of the block's " + std::to_string(size) +
                                         " bytes (the run was cut while writing it)");
  }
  std::string problem;
  const LogBlockStatus status = decompress_log_block(block_bytes_, block_frames_, problem);
  if (status != LogBlockStatus::block) return stop(status, problem);
  block_at_ = 0;
  ++blocks_;
  file_offset_ += size;
  return true;
}

std::size_t RunLogReader::read_frames(std::uint8_t* to, std::size_t count) {
  if (!compressed_) {
    file_.read(reinterpret_cast<char*>(to), static_cast<std::streamsize>(count));
    return static_cast<std::size_t>(file_.gcount());
  }
  std::size_t done = 0;
  while (done < count) {
    if (block_at_ == block_frames_.size() && !next_block()) break;
    const std::size_t part = std::min(count - done, block_frames_.size() - block_at_);
    std::copy_n(block_frames_.begin() + static_cast<std::ptrdiff_t>(block_at_), part, to + done);
    block_at_ += part;
    done += part;
  }
  return done;
}

// A frame the log did not hold whole: a damaged block says so; otherwise the
// log ends inside the frame (or inside a cut block).
LogReadStatus RunLogReader::short_frame(const std::string& where, const std::string& what) {
  if (block_status_ == LogBlockStatus::corrupted)
    return fail(LogReadStatus::corrupted, block_problem_);
  const std::string cut_block =
      block_status_ == LogBlockStatus::cut ? " (" + block_problem_ + ")" : "";
  return fail(LogReadStatus::cut, where + ": " + what + cut_block);
}

bool RunLogReader::resume() {
  if (!stopped_ || ended_) return false;
  if (final_ != LogReadStatus::end && final_ != LogReadStatus::cut) return false;
  if (block_status_ == LogBlockStatus::corrupted) return false;
  stopped_ = false;
  final_ = LogReadStatus::end;
  problem_.clear();
  if (segment_header_cut_) {
    // Open that segment again: its header may be whole now.
    segment_header_cut_ = false;
    segment_ -= 1;
    reopen_segment_ = true;
    return true;
  }
  // Back to where the last whole frame (a compressed log: block) ended.
  block_status_ = LogBlockStatus::block;
  block_problem_.clear();
  block_frames_.clear();
  block_at_ = 0;
  file_.clear();
  file_.seekg(static_cast<std::streamoff>(compressed_ ? file_offset_ : offset_));
  return static_cast<bool>(file_);
}

LogReadStatus RunLogReader::next(LogRecord& record) {
  if (stopped_) return final_;
  if (reopen_segment_) {
    reopen_segment_ = false;
    if (!open_next_segment()) return final_;
  }
  std::size_t length_bytes = read_frames(buffer_.data(), 4);
  while (length_bytes == 0) {
    // Between frames: the log ends here, at a block cut or damaged, or goes on
    // in the next segment.
    if (block_status_ == LogBlockStatus::cut) return fail(LogReadStatus::cut, block_problem_);
    if (block_status_ == LogBlockStatus::corrupted)
      return fail(LogReadStatus::corrupted, block_problem_);
    if (!more_segments()) {
      stopped_ = true;
      return LogReadStatus::end;
    }
    if (!open_next_segment()) return final_;
    length_bytes = read_frames(buffer_.data(), 4);
  }
  const std::string where = position(frames_ + 1, offset_);
  if (length_bytes < 4)
    return short_frame(where,
                       "the log ends inside the frame's length (the run was cut while writing it)");
  const std::size_t payload = boost::endian::load_little_u32(buffer_.data());
  if (payload > kMaxLogPayloadBytes) {
    return fail(LogReadStatus::corrupted,
                where + ": length " + std::to_string(payload) + " exceeds the largest record (" +
                    std::to_string(kMaxLogPayloadBytes) + " bytes): corrupted");
  }
  const std::size_t rest = read_frames(buffer_.data() + 4, payload + 4);
  if (rest < payload + 4) {
    return short_frame(where, "the log ends after " + std::to_string(4 + rest) +
                                  " of the frame's " + std::to_string(payload + kLogFrameOverhead) +
                                  " bytes (the run was cut while writing it)");
  }
  const std::span<const std::uint8_t> checked(buffer_.data(), 4 + payload);
  if (crc32(checked) != boost::endian::load_little_u32(buffer_.data() + 4 + payload)) {
    return fail(LogReadStatus::corrupted, where + ": checksum mismatch: corrupted");
  }
  record = LogRecord{};
  pb_istream_t stream = pb_istream_from_buffer(buffer_.data() + 4, payload);
  if (!pb_decode(&stream, couplet_wire_LogRecord_fields, &record)) {
    return fail(LogReadStatus::malformed, where + ": the record does not decode (" +
                                              std::string(PB_GET_ERROR(&stream)) + ")");
  }
  if (record.which_body == 0) return fail(LogReadStatus::malformed, where + ": an empty record");
  if (record.which_body == couplet_wire_LogRecord_header_tag && !have_identity_) {
    identity_ = record.body.header.wall_clock_start_ns;
    have_identity_ = true;
  }
  ended_ = ended_ || record.which_body == couplet_wire_LogRecord_end_tag;
  ++frames_;
  record_offset_ = offset_;
  offset_ += payload + kLogFrameOverhead;
  return LogReadStatus::record;
}

}  // namespace couplet::protocol
