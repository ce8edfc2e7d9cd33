#include "protocol/codec.hpp"

#include <algorithm>

#include <boost/endian/conversion.hpp>
#include <pb_decode.h>
#include <pb_encode.h>

#include "protocol/crc32.hpp"

namespace couplet::protocol {

namespace {

DecodeResult fail(FrameError error, const char* reason) { return {error, reason}; }

}  // namespace

EncodeResult encode_frame(const Envelope& message, std::span<std::uint8_t> frame) {
  if (frame.size() < kFrameHeaderBytes + kFrameChecksumBytes) return {0, "frame buffer too small"};
  const std::size_t payload_room = std::min(frame.size() - kFrameHeaderBytes - kFrameChecksumBytes, kMaxPayloadBytes);
  pb_ostream_t stream = pb_ostream_from_buffer(frame.data() + kFrameHeaderBytes, payload_room);
  if (!pb_encode(&stream, couplet_wire_Envelope_fields, &message)) return {0, PB_GET_ERROR(&stream)};
  const std::size_t payload = stream.bytes_written;
  frame[0] = kFrameMagic;
  frame[1] = kFrameVersion;
  boost::endian::store_little_u16(&frame[2], static_cast<std::uint16_t>(payload));
  const std::size_t checked = kFrameHeaderBytes + payload;
  boost::endian::store_little_u32(&frame[checked], crc32(frame.first(checked)));
  return {checked + kFrameChecksumBytes, ""};
}

DecodeResult decode_frame(std::span<const std::uint8_t> frame, Envelope& message) {
  if (frame.size() > kMaxFrameBytes) return fail(FrameError::oversized, "oversized: longer than the largest valid frame");
  if (frame.size() < kFrameHeaderBytes + kFrameChecksumBytes) {
    return fail(FrameError::truncated, "truncated: shorter than a frame header and checksum");
  }
  if (frame[0] != kFrameMagic || frame[1] != kFrameVersion) {
    return fail(FrameError::foreign, "not a couplet frame: bad magic or format version");
  }
  const std::size_t payload = boost::endian::load_little_u16(&frame[2]);
  const std::size_t expected = kFrameHeaderBytes + payload + kFrameChecksumBytes;
  if (frame.size() < expected) return fail(FrameError::truncated, "truncated: fewer bytes than the header announces");
  if (frame.size() > expected) return fail(FrameError::oversized, "oversized: more bytes than the header announces");
  if (payload > kMaxPayloadBytes) return fail(FrameError::oversized, "oversized: payload longer than the largest message");
  const std::size_t checked = kFrameHeaderBytes + payload;
  if (crc32(frame.first(checked)) != boost::endian::load_little_u32(&frame[checked])) {
    return fail(FrameError::corrupted, "corrupted: checksum mismatch");
  }
  pb_istream_t stream = pb_istream_from_buffer(frame.data() + kFrameHeaderBytes, payload);
  if (!pb_decode(&stream, couplet_wire_Envelope_fields, &message)) {
    // nanopb's reasons are static strings: "array overflow", "string overflow", ...
    return fail(FrameError::malformed, PB_GET_ERROR(&stream));
  }
  if (message.which_body == 0) return fail(FrameError::empty, "empty: an envelope without a message");
  return {};
}

const char* frame_error_name(FrameError error) {
  switch (error) {
    case FrameError::none: return "none";
    case FrameError::truncated: return "truncated";
    case FrameError::oversized: return "oversized";
    case FrameError::foreign: return "foreign";
    case FrameError::corrupted: return "corrupted";
    case FrameError::malformed: return "malformed";
    case FrameError::empty: return "empty";
  }
  return "unknown";
}

}  // namespace couplet::protocol
