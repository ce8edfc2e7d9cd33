#include "protocol/run_log_frame.hpp"

#include <pb_decode.h>
#include <pb_encode.h>

#include <algorithm>
#include <boost/endian/conversion.hpp>
#include <cstring>
#include <stdexcept>

#include "protocol/crc32.hpp"

namespace couplet::protocol {

EncodeResult encode_log_frame(const LogRecord& record, std::span<std::uint8_t> frame) {
  if (frame.size() < kLogFrameOverhead) return {0, "frame buffer too small"};
  pb_ostream_t stream = pb_ostream_from_buffer(frame.data() + 4, frame.size() - kLogFrameOverhead);
  if (!pb_encode(&stream, couplet_wire_LogRecord_fields, &record))
    return {0, PB_GET_ERROR(&stream)};
  const std::size_t payload = stream.bytes_written;
  boost::endian::store_little_u32(frame.data(), static_cast<std::uint32_t>(payload));
  boost::endian::store_little_u32(frame.data() + 4 + payload, crc32(frame.first(4 + payload)));
  return {payload + kLogFrameOverhead, ""};
}

RunLogReader::RunLogReader(const std::string& path)
    : path_(path), file_(path, std::ios::binary), buffer_(kMaxLogFrameBytes) {
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
  if (compressed_) return "frame " + std::to_string(frame) + " in block " + std::to_string(blocks_);
  return "frame " + std::to_string(frame) + " at byte offset " + std::to_string(offset);
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

LogReadStatus RunLogReader::next(LogRecord& record) {
  if (stopped_) return final_;
  const std::string where = position(frames_ + 1, offset_);
  const std::size_t length_bytes = read_frames(buffer_.data(), 4);
  if (length_bytes == 0) {
    // Between frames: the log ends here, or at a block cut or damaged.
    if (block_status_ == LogBlockStatus::cut) return fail(LogReadStatus::cut, block_problem_);
    if (block_status_ == LogBlockStatus::corrupted)
      return fail(LogReadStatus::corrupted, block_problem_);
    stopped_ = true;
    return LogReadStatus::end;
  }
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
  ++frames_;
  record_offset_ = offset_;
  offset_ += payload + kLogFrameOverhead;
  return LogReadStatus::record;
}

}  // namespace couplet::protocol
