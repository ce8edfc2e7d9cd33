// A run log frame holds the LogRecord exactly as nanopb's pb_encode writes it:
// calls and plans, which encode_log_frame writes in one pass (their body
// after room for its tag and length), byte for byte too (protocol/run_log_frame.hpp).
#include "protocol/run_log_frame.hpp"

#include <gtest/gtest.h>
#include <pb_encode.h>

#include <boost/endian/conversion.hpp>
#include <memory>
#include <vector>

#include "protocol/crc32.hpp"

namespace couplet::protocol {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::unique_ptr<LogRecord> blank(pb_size_t body) {
  auto record = std::make_unique<LogRecord>();
  *record = LogRecord{};
  record->which_body = body;
  return record;
}

/// What pb_encode writes for the whole record: the reference.
Bytes nanopb_payload(const LogRecord& record) {
  Bytes payload(kMaxLogPayloadBytes);
  pb_ostream_t stream = pb_ostream_from_buffer(payload.data(), payload.size());
  EXPECT_TRUE(pb_encode(&stream, couplet_wire_LogRecord_fields, &record)) << PB_GET_ERROR(&stream);
  payload.resize(stream.bytes_written);
  return payload;
}

/// The frame encode_log_frame writes into a buffer of `room` bytes.
Bytes frame_of(const LogRecord& record, std::size_t room = kMaxLogFrameBytes) {
  Bytes frame(room);
  const EncodeResult encoded = encode_log_frame(record, frame);
  EXPECT_TRUE(encoded) << encoded.reason;
  frame.resize(encoded.size);
  return frame;
}

void expect_frame_holds(const Bytes& frame, const Bytes& payload) {
  ASSERT_EQ(frame.size(), payload.size() + kLogFrameOverhead);
  EXPECT_EQ(boost::endian::load_little_u32(frame.data()), payload.size());
  EXPECT_EQ(Bytes(frame.begin() + 4, frame.end() - 4), payload);
  const std::span<const std::uint8_t> checked(frame.data(), frame.size() - 4);
  EXPECT_EQ(boost::endian::load_little_u32(frame.data() + frame.size() - 4), crc32(checked));
}

std::unique_ptr<LogRecord> step_call() {
  auto record = blank(couplet_wire_LogRecord_call_tag);
  couplet_wire_SlaveCall& call = record->body.call;
  call.plan = 41;
  call.slave = 1;
  call.kind = couplet_wire_SlaveCallKind_CALL_STEP;
  call.start_ns = 400'000'000;
  call.end_ns = 410'000'000;
  call.inputs_count = 3;
  for (pb_size_t i = 0; i < call.inputs_count; ++i) {
    call.inputs[i].origin = 0.4;
    call.inputs[i].scale = 0.01 * (i + 1);
    call.inputs[i].coefficients_count = i + 1;  // degrees 0, 1, 2
    for (pb_size_t k = 0; k <= i; ++k) call.inputs[i].coefficients[k] = -1.5 + k + 0.25 * i;
  }
  call.sample_times_ns_count = 2;
  call.sample_times_ns[0] = 405'000'000;
  call.sample_times_ns[1] = 410'000'000;
  call.samples_count = 4;
  for (pb_size_t k = 0; k < call.samples_count; ++k) call.samples[k] = 1e-3 * k;
  call.end_outputs_count = 2;
  call.end_outputs[0] = 0.125;
  call.end_outputs[1] = -7.0;
  call.discrete_outputs_count = 1;
  call.discrete_outputs[0] = -3;
  return record;
}

TEST(RunLogFrame, ACallIsWhatNanopbWritesForTheRecord) {
  const auto record = step_call();
  expect_frame_holds(frame_of(*record), nanopb_payload(*record));
}

TEST(RunLogFrame, APlanIsWhatNanopbWritesForTheRecord) {
  auto record = blank(couplet_wire_LogRecord_plan_tag);
  couplet_wire_LogPlan& plan = record->body.plan;
  plan.plan = 7;
  plan.macro_steps = 3;
  plan.frontier_ns = 30'000'000;
  plan.internals_count = 3;
  plan.internals[0] = 1e-9;
  plan.internals[1] = 2.0;
  plan.internals[2] = -0.0;
  expect_frame_holds(frame_of(*record), nanopb_payload(*record));
}

// All fields at their defaults: the body is empty, its tag and zero length remain.
TEST(RunLogFrame, AnEmptyCallKeepsItsTagAndLength) {
  const auto record = blank(couplet_wire_LogRecord_call_tag);
  const Bytes payload = nanopb_payload(*record);
  ASSERT_EQ(payload, (Bytes{0x22, 0x00}));
  expect_frame_holds(frame_of(*record), payload);
}

// A body whose tag and length take fewer than the six bytes of room made for
// them fits a buffer of exactly its frame's size (pb_encode writes it then).
TEST(RunLogFrame, ABufferOfTheFramesExactSizeSuffices) {
  const auto record = step_call();
  const Bytes payload = nanopb_payload(*record);
  expect_frame_holds(frame_of(*record, payload.size() + kLogFrameOverhead), payload);
  Bytes small(payload.size() + kLogFrameOverhead - 1);
  EXPECT_FALSE(encode_log_frame(*record, small));
}

// The header is not a step's record: it goes through pb_encode as before.
TEST(RunLogFrame, OtherRecordsAreWhatNanopbWrites) {
  auto record = blank(couplet_wire_LogRecord_end_tag);
  record->body.end.plans = 12;
  record->body.end.decision_hash = 0xFEDC'BA98'7654'3210ULL;
  expect_frame_holds(frame_of(*record), nanopb_payload(*record));
}

}  // namespace
}  // namespace couplet::protocol
