// Fuzz target: a target's request handling (targets::TargetServer::handle), as
// a couplet-target serving a catalog model sees a session. The first input byte
// picks the model and whether the target runs in real-time mode; the rest is a
// sequence of records (fuzz_input.hpp), one frame each. Operation byte of a
// record: bit 0 set, the record is an Envelope payload wrapped in a valid
// header and CRC (so that the server's checks are reached, not only the
// codec's); clear, the record is the whole frame. Bit 1: the frame comes from
// another address than the session's. Bits 2-7: milliseconds that pass before
// it arrives (the clock is the harness's: session timeouts and the real-time
// schedule are exercised without waiting). In real-time mode the model is
// advanced to every communication time that has passed, as the serving loop does.
//
// Properties: no crash, no exception out of handle() (every bad request is
// answered with an error frame), and every answer is a frame that decodes.
#include <boost/endian/conversion.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_input.hpp"
#include "models/catalog.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"
#include "targets/target_server.hpp"

namespace {

using namespace couplet;

constexpr const char* kModels[] = {"translational.mass", "car.vehicle", "rotational.omega2tau",
                                   "translational.coupled_mass"};

std::span<const std::uint8_t> frame_of(const fuzz::Record& record, std::vector<std::uint8_t>& buffer) {
  if ((record.operation & 1) == 0) return record.bytes;
  const std::size_t payload = std::min<std::size_t>(record.bytes.size(), protocol::kMaxPayloadBytes);
  buffer.assign(protocol::kFrameHeaderBytes + payload + protocol::kFrameChecksumBytes, 0);
  buffer[0] = protocol::kFrameMagic;
  buffer[1] = protocol::kFrameVersion;
  boost::endian::store_little_u16(&buffer[2], static_cast<std::uint16_t>(payload));
  if (payload > 0) std::memcpy(&buffer[protocol::kFrameHeaderBytes], record.bytes.data(), payload);
  const std::size_t checked = protocol::kFrameHeaderBytes + payload;
  boost::endian::store_little_u32(&buffer[checked], protocol::crc32(std::span(buffer).first(checked)));
  return buffer;
}

void require_valid_answer(std::span<const std::uint8_t> answer, protocol::Envelope& decoded) {
  fuzz::require(static_cast<bool>(protocol::decode_frame(answer, decoded)), "the target answered an invalid frame");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  targets::TargetOptions options;
  options.model = kModels[(data[0] >> 1) & 3];
  options.realtime = (data[0] & 1) != 0;
  targets::TargetServer server(catalog, options);

  std::vector<std::uint8_t> wrapped;
  std::vector<std::uint8_t> answer(protocol::kMaxFrameBytes);
  const auto decoded = std::make_unique<protocol::Envelope>();
  // Any fixed origin: the server only compares and subtracts times.
  drivers::Deadline now = drivers::SteadyClock::time_point(std::chrono::hours(1000));
  fuzz::RecordReader records(std::span(data + 1, size - 1));
  while (const auto record = records.next()) {
    now += std::chrono::milliseconds(record->operation >> 2);
    const bool from_session_peer = (record->operation & 2) == 0;
    const std::size_t answered = server.handle(frame_of(*record, wrapped), answer, now, from_session_peer);
    fuzz::require(answered <= answer.size(), "an answer longer than its buffer");
    if (answered > 0) require_valid_answer(std::span(answer).first(answered), *decoded);
    // The serving loop's real-time schedule: at most a few periods per record,
    // so that a tiny period cannot make one input run for long.
    for (int period = 0; period < 4; ++period) {
      const auto boundary = server.next_boundary();
      if (!boundary || *boundary > now) break;
      const std::size_t pushed = server.advance_realtime(answer, now);
      if (pushed > 0) require_valid_answer(std::span(answer).first(pushed), *decoded);
    }
  }
  return 0;
}
