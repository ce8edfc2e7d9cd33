#include "protocol/run_log_frame.hpp"

#include <pb_decode.h>
#include <pb_encode.h>

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
  if (file_.gcount() != static_cast<std::streamsize>(kLogMagicBytes) ||
      std::memcmp(magic, kLogMagic, kLogMagicBytes) != 0) {
    fail(LogReadStatus::corrupted,
         "'" + path + "' is not a couplet run log (it does not start with COUPLOG1)");
    return;
  }
  offset_ = kLogMagicBytes;
}

LogReadStatus RunLogReader::fail(LogReadStatus status, const std::string& why) {
  stopped_ = true;
  final_ = status;
  problem_ = why;
  return status;
}

namespace {

std::string frame_position(std::uint64_t frame, std::uint64_t offset) {
  return "frame " + std::to_string(frame) + " at byte offset " + std::to_string(offset);
}

}  // namespace

std::string RunLogReader::record_position() const {
  return frame_position(frames_, record_offset_);
}

LogReadStatus RunLogReader::next(LogRecord& record) {
  if (stopped_) return final_;
  const std::string where = frame_position(frames_ + 1, offset_);
  file_.read(reinterpret_cast<char*>(buffer_.data()), 4);
  const auto length_bytes = static_cast<std::size_t>(file_.gcount());
  if (length_bytes == 0) {
    stopped_ = true;
    return LogReadStatus::end;
  }
  if (length_bytes < 4) {
    return fail(
        LogReadStatus::cut,
        where + ": the log ends inside the frame's length (the run was cut while writing it)");
  }
  const std::size_t payload = boost::endian::load_little_u32(buffer_.data());
  if (payload > kMaxLogPayloadBytes) {
    return fail(LogReadStatus::corrupted,
                where + ": length " + std::to_string(payload) + " exceeds the largest record (" +
                    std::to_string(kMaxLogPayloadBytes) + " bytes): corrupted");
  }
  file_.read(reinterpret_cast<char*>(buffer_.data()) + 4,
             static_cast<std::streamsize>(payload + 4));
  const auto rest = static_cast<std::size_t>(file_.gcount());
  if (rest < payload + 4) {
    return fail(LogReadStatus::cut, where + ": the log ends after " + std::to_string(4 + rest) +
                                        " of the frame's " +
                                        std::to_string(payload + kLogFrameOverhead) +
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
