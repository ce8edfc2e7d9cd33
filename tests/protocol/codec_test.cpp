// Frames of the wire protocol: every message round-trips exactly; truncated,
// bit-flipped, oversized and schema-breaking frames are rejected with a reason
// (docs/links.md, protocol/codec.hpp).
#include "protocol/codec.hpp"

#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <boost/endian/conversion.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "protocol/crc32.hpp"
#include "protocol/limits.hpp"

namespace couplet::protocol {
namespace {

using Frame = std::vector<std::uint8_t>;

std::unique_ptr<Envelope> blank(pb_size_t body) {
  auto message = std::make_unique<Envelope>();
  *message = Envelope{};
  message->session = 0x0123'4567'89AB'CDEFULL;
  message->sequence = 0xFFFF'FFFEU;
  message->which_body = body;
  return message;
}

std::uint32_t load_crc(const Frame& frame) {
  return boost::endian::load_little_u32(&frame[frame.size() - kFrameChecksumBytes]);
}

/// Makes a frame's CRC right again after a change (a forger can, a line cannot).
void store_crc(Frame& frame) {
  const std::size_t checked = frame.size() - kFrameChecksumBytes;
  boost::endian::store_little_u32(&frame[checked], crc32(std::span(frame).first(checked)));
}

Frame encode(const Envelope& message) {
  Frame frame(kMaxFrameBytes);
  const EncodeResult result = encode_frame(message, frame);
  EXPECT_TRUE(result) << result.reason;
  frame.resize(result.size);
  return frame;
}

void copy_name(char* target, const char* text) { std::strcpy(target, text); }

couplet_wire_Polynomial polynomial(double origin, int degree) {
  couplet_wire_Polynomial p{};
  p.origin = origin;
  p.scale = 0.01;
  p.coefficients_count = static_cast<pb_size_t>(degree + 1);
  for (int k = 0; k <= degree; ++k) p.coefficients[k] = std::ldexp(1.0 / 3.0, -k) * (k % 2 ? -1 : 1);
  return p;
}

// One fully populated instance of every message, with awkward doubles (subnormal,
// negative zero, infinities, NaN payload bits) to prove exactness.
std::vector<std::unique_ptr<Envelope>> every_message() {
  std::vector<std::unique_ptr<Envelope>> messages;
  {
    auto m = blank(couplet_wire_Envelope_hello_tag);
    m->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_describe_tag);
    auto& d = m->body.describe;
    d.version = 1;
    copy_name(d.model, "translational.coupled_mass");
    d.inputs_count = 2;
    copy_name(d.inputs[0].name, "x");
    copy_name(d.inputs[1].name, "v");
    d.outputs_count = 1;
    copy_name(d.outputs[0].name, "f");
    d.outputs[0].direct_feedthrough = true;
    d.has_capabilities = true;
    d.capabilities = {7, 3, true, true, 0, true, 1024, false};
    d.accepts_configure = true;
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_configure_tag);
    auto& c = m->body.configure;
    copy_name(c.slave_name, "right");
    copy_name(c.model, "translational.mass");
    c.parameters_count = kMaxParameters;
    for (std::size_t k = 0; k < kMaxParameters; ++k) {
      copy_name(c.parameters[k].name, std::string("p").append(std::to_string(k)).c_str());
      c.parameters[k].value = 0.1 * static_cast<double>(k);
    }
    c.has_solver = true;
    c.solver = {couplet_wire_SolverKind_SOLVER_EULER, couplet_wire_CvodeMethod_CVODE_ADAMS, 1e-9, 1e-11, 0.5, 10};
    c.has_limits = true;
    c.limits = {true, 0, true, 1, 1'000'000, false, true};
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_initialize_tag);
    m->body.initialize.start_ns = -5'000'000'000;
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_start_tag);
    m->body.start.realtime_factor = 0.5;
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_evaluate_outputs_tag);
    auto& e = m->body.evaluate_outputs;
    e.inputs_count = kMaxPorts;
    for (std::size_t k = 0; k < kMaxPorts; ++k) e.inputs[k] = polynomial(1.5, static_cast<int>(k % 8));
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_outputs_tag);
    auto& o = m->body.outputs;
    o.time_ns = 123'456'789'012;
    o.derivative_order = 3;
    o.values_count = kMaxEndOutputs;
    for (std::size_t k = 0; k < kMaxEndOutputs; ++k) o.values[k] = std::sin(static_cast<double>(k)) * 1e300;
    o.values[0] = -0.0;
    o.values[1] = std::numeric_limits<double>::denorm_min();
    o.values[2] = std::numeric_limits<double>::infinity();
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_step_request_tag);
    auto& r = m->body.step_request;
    r.start_ns = 99'990'000'000;
    r.end_ns = 100'000'000'000;
    r.inputs_count = 3;
    for (std::size_t k = 0; k < 3; ++k) r.inputs[k] = polynomial(99.99, 7);
    r.sample_times_ns_count = kMaxSampleTimes;
    for (std::size_t k = 0; k < kMaxSampleTimes; ++k) r.sample_times_ns[k] = r.start_ns + static_cast<std::int64_t>(k) + 1;
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_step_result_tag);
    auto& r = m->body.step_result;
    r.status = couplet_wire_Status_STATUS_LATE;
    r.time_ns = 100'000'000'000;
    r.derivative_order = 1;
    r.end_outputs_count = 4;
    for (std::size_t k = 0; k < 4; ++k) r.end_outputs[k] = 1.0 / (1.0 + static_cast<double>(k));
    r.samples_count = kMaxSampleValues;
    for (std::size_t k = 0; k < kMaxSampleValues; ++k) r.samples[k] = std::cos(static_cast<double>(k));
    r.samples[5] = std::numeric_limits<double>::quiet_NaN();
    r.has_timing = true;
    r.timing = {1'000, 2'000, -300};
    messages.push_back(std::move(m));
  }
  {
    auto m = blank(couplet_wire_Envelope_heartbeat_tag);
    m->body.heartbeat.sender_time_ns = 42;
    messages.push_back(std::move(m));
  }
  messages.push_back(blank(couplet_wire_Envelope_stop_tag));
  messages.push_back(blank(couplet_wire_Envelope_ack_tag));
  {
    auto m = blank(couplet_wire_Envelope_error_tag);
    m->body.error.code = couplet_wire_ErrorCode_ERROR_SLAVE_FAILED;
    copy_name(m->body.error.text, "slave 'right' failed at t = 1.5 s: CV_CONV_FAILURE");
    messages.push_back(std::move(m));
  }
  return messages;
}

TEST(Codec, EveryMessageRoundTripsBitForBit) {
  const auto messages = every_message();
  EXPECT_EQ(messages.size(), 13U) << "one per body of the oneof";
  for (const auto& message : messages) {
    const Frame frame = encode(*message);
    EXPECT_LE(frame.size(), kMaxFrameBytes);
    auto decoded = std::make_unique<Envelope>();
    const DecodeResult result = decode_frame(frame, *decoded);
    ASSERT_TRUE(result) << "body " << message->which_body << ": " << result.reason;
    EXPECT_EQ(decoded->which_body, message->which_body);
    // Re-encoding gives the same bytes: every field, every double bit, survived.
    EXPECT_EQ(encode(*decoded), frame) << "body " << message->which_body;
  }
}

TEST(Codec, DoublesAreCarriedExactly) {
  auto message = blank(couplet_wire_Envelope_outputs_tag);
  message->body.outputs.values_count = 3;
  message->body.outputs.values[0] = std::nextafter(1.0, 2.0);
  message->body.outputs.values[1] = -std::numeric_limits<double>::denorm_min();
  message->body.outputs.values[2] = 0.1 + 0.2;
  auto decoded = std::make_unique<Envelope>();
  ASSERT_TRUE(decode_frame(encode(*message), *decoded));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(std::memcmp(&decoded->body.outputs.values[k], &message->body.outputs.values[k], sizeof(double)), 0);
  }
}

TEST(Codec, RejectsEveryTruncation) {
  const auto messages = every_message();
  auto decoded = std::make_unique<Envelope>();
  for (const auto& message : messages) {
    const Frame frame = encode(*message);
    for (std::size_t size = 0; size < frame.size(); size += 1 + size / 7) {
      const DecodeResult result = decode_frame(std::span(frame).first(size), *decoded);
      ASSERT_FALSE(result) << "accepted " << size << " of " << frame.size() << " bytes";
      EXPECT_EQ(result.error, FrameError::truncated) << result.reason;
      EXPECT_STRNE(result.reason, "");
    }
  }
}

// Every single-bit flip of a frame is caught (CRC-32 detects all of them), by
// the header checks or by the checksum.
TEST(Codec, RejectsEveryBitFlip) {
  auto message = blank(couplet_wire_Envelope_step_request_tag);
  message->body.step_request.inputs_count = 2;
  message->body.step_request.inputs[0] = polynomial(0.0, 3);
  message->body.step_request.inputs[1] = polynomial(0.0, 1);
  message->body.step_request.end_ns = 10'000'000;
  const Frame frame = encode(*message);
  auto decoded = std::make_unique<Envelope>();
  for (std::size_t bit = 0; bit < frame.size() * 8; ++bit) {
    Frame corrupted = frame;
    corrupted[bit / 8] ^= static_cast<std::uint8_t>(1U << (bit % 8));
    const DecodeResult result = decode_frame(corrupted, *decoded);
    ASSERT_FALSE(result) << "bit " << bit << " flipped and accepted";
  }
  Frame corrupted = frame;
  corrupted[10] ^= 0x10;
  EXPECT_EQ(decode_frame(corrupted, *decoded).error, FrameError::corrupted);
}

TEST(Codec, RejectsOversizedFrames) {
  auto decoded = std::make_unique<Envelope>();
  const Frame huge(kMaxFrameBytes + 1, 0xC5);
  EXPECT_EQ(decode_frame(huge, *decoded).error, FrameError::oversized);
  Frame trailing = encode(*blank(couplet_wire_Envelope_stop_tag));
  trailing.push_back(0);
  EXPECT_EQ(decode_frame(trailing, *decoded).error, FrameError::oversized);
}

// A frame with a valid checksum whose payload breaks the schema's capacity (more
// sample times than the target can hold) is rejected by the decoder, not
// written past the array.
TEST(Codec, RejectsArraysBeyondTheirCapacity) {
  std::vector<std::uint8_t> request;  // StepRequest: field 4, packed sint64
  std::vector<std::uint8_t> packed(kMaxSampleTimes + 1, 0x02);  // zigzag(1) each
  request.push_back(0x22);  // field 4, length-delimited
  std::size_t length = packed.size();
  while (length >= 0x80) {
    request.push_back(static_cast<std::uint8_t>(length | 0x80));
    length >>= 7;
  }
  request.push_back(static_cast<std::uint8_t>(length));
  request.insert(request.end(), packed.begin(), packed.end());
  std::vector<std::uint8_t> payload = {0x8A, 0x01};  // field 17, length-delimited
  length = request.size();
  while (length >= 0x80) {
    payload.push_back(static_cast<std::uint8_t>(length | 0x80));
    length >>= 7;
  }
  payload.push_back(static_cast<std::uint8_t>(length));
  payload.insert(payload.end(), request.begin(), request.end());

  // Frame it by hand around a valid header and checksum.
  Frame frame = encode(*blank(couplet_wire_Envelope_stop_tag));
  frame.resize(kFrameHeaderBytes);
  frame[2] = static_cast<std::uint8_t>(payload.size() & 0xFF);
  frame[3] = static_cast<std::uint8_t>(payload.size() >> 8);
  frame.insert(frame.end(), payload.begin(), payload.end());
  Frame with_crc = frame;
  with_crc.resize(frame.size() + 4);
  const std::uint32_t crc = crc32(frame);
  for (std::size_t k = 0; k < 4; ++k) with_crc[frame.size() + k] = static_cast<std::uint8_t>(crc >> (8 * k));

  auto decoded = std::make_unique<Envelope>();
  const DecodeResult result = decode_frame(with_crc, *decoded);
  EXPECT_EQ(result.error, FrameError::malformed);
  EXPECT_STREQ(result.reason, "array overflow");
}

TEST(Codec, RejectsForeignAndEmptyFrames) {
  auto decoded = std::make_unique<Envelope>();
  Frame frame = encode(*blank(couplet_wire_Envelope_ack_tag));
  Frame foreign = frame;
  foreign[0] = 0x00;
  EXPECT_EQ(decode_frame(foreign, *decoded).error, FrameError::foreign);
  auto empty = blank(0);
  EXPECT_EQ(decode_frame(encode(*empty), *decoded).error, FrameError::empty);
}

TEST(Codec, EncodingBeyondCapacityFails) {
  auto message = blank(couplet_wire_Envelope_step_result_tag);
  message->body.step_result.samples_count = kMaxSampleValues + 1;
  Frame frame(kMaxFrameBytes);
  EXPECT_FALSE(encode_frame(*message, frame));
}

// ---------------------------------------------------------------------------
// Sealed frames (format version 2): a nonce and a SipHash-2-4-128 tag.

constexpr FrameKey kKey{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

Frame seal(const FrameCodec& codec, const Envelope& message, std::uint64_t nonce) {
  Frame frame(kMaxFrameBytes);
  const EncodeResult result = codec.encode(message, nonce, frame);
  EXPECT_TRUE(result) << result.reason;
  frame.resize(result.size);
  return frame;
}

TEST(SealedCodec, TheTagIsSipHash24With128BitsOverHeaderNonceAndPayload) {
  // The primitive: the reference vector of SipHash-2-4-128 (key 00..0f, empty
  // message), which the embedded core's SipHash must give too.
  std::array<std::uint8_t, kFrameTagBytes> empty{};
  crypto_shorthash_siphashx24(empty.data(), nullptr, 0, kKey.data());
  EXPECT_EQ(empty, (std::array<std::uint8_t, 16>{0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6,
                                                 0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93}));
  // The layout: C5 02 length | nonce | payload | tag | CRC-32.
  const FrameCodec codec(kKey);
  const auto message = blank(couplet_wire_Envelope_stop_tag);
  const Frame plain = encode(*message);
  const Frame sealed = seal(codec, *message, 0x1122'3344'5566'7788ULL);
  const std::size_t payload = plain.size() - kFrameHeaderBytes - kFrameChecksumBytes;
  ASSERT_EQ(sealed.size(), plain.size() + kFrameSealBytes);
  EXPECT_EQ(sealed[1], kSealedFrameVersion);
  EXPECT_EQ(sealed[4], 0x88) << "the nonce, little endian";
  EXPECT_EQ(sealed[11], 0x11);
  EXPECT_TRUE(std::equal(plain.begin() + kFrameHeaderBytes,
                         plain.begin() + kFrameHeaderBytes + payload,
                         sealed.begin() + kFrameHeaderBytes + kFrameNonceBytes))
      << "the payload is the plain frame's";
  const std::size_t tagged = kFrameHeaderBytes + kFrameNonceBytes + payload;
  std::array<std::uint8_t, kFrameTagBytes> tag{};
  crypto_shorthash_siphashx24(tag.data(), sealed.data(), tagged, kKey.data());
  EXPECT_TRUE(std::equal(tag.begin(), tag.end(), sealed.begin() + tagged));
  EXPECT_EQ(load_crc(sealed), crc32(std::span(sealed).first(sealed.size() - kFrameChecksumBytes)));
}

TEST(SealedCodec, EveryMessageRoundTripsWithItsNonce) {
  const FrameCodec codec(kKey);
  for (const auto& message : every_message()) {
    const Frame frame = seal(codec, *message, 42);
    auto decoded = std::make_unique<Envelope>();
    std::uint64_t nonce = 0;
    ASSERT_TRUE(codec.decode(frame, *decoded, nonce)) << "body " << message->which_body;
    EXPECT_EQ(nonce, 42U);
    EXPECT_EQ(seal(codec, *decoded, nonce), frame) << "body " << message->which_body;
  }
}

TEST(SealedCodec, AnotherKeyAPlainFrameAndAChangedByteAreRefusedByName) {
  const FrameCodec codec(kKey);
  FrameKey other_key = kKey;
  other_key[15] ^= 0x80;
  const FrameCodec other(other_key);
  const FrameCodec keyless;
  const auto message = blank(couplet_wire_Envelope_stop_tag);
  auto decoded = std::make_unique<Envelope>();
  std::uint64_t nonce = 7;

  DecodeResult result = other.decode(seal(codec, *message, 1), *decoded, nonce);
  EXPECT_EQ(result.error, FrameError::unauthenticated);
  EXPECT_STREQ(result.reason, "unauthenticated: the tag does not match this side's key");
  EXPECT_EQ(nonce, 0U) << "no nonce from a frame that failed";
  EXPECT_EQ(codec.decode(encode(*message), *decoded, nonce).error, FrameError::unsealed);
  EXPECT_EQ(keyless.decode(seal(codec, *message, 1), *decoded, nonce).error, FrameError::sealed);
  EXPECT_EQ(decode_frame(seal(codec, *message, 1), *decoded).error, FrameError::sealed);

  // Every byte before the tag changed, the CRC made right again: the tag fails.
  const Frame genuine = seal(codec, *message, 9);
  const std::size_t tagged = genuine.size() - kFrameTagBytes - kFrameChecksumBytes;
  for (std::size_t k = kFrameHeaderBytes; k < tagged; ++k) {
    Frame forged = genuine;
    forged[k] ^= 0x01;
    store_crc(forged);
    EXPECT_EQ(codec.decode(forged, *decoded, nonce).error, FrameError::unauthenticated)
        << "byte " << k;
  }
  // Line noise is still noise: a flipped bit without a new CRC is corruption.
  Frame noisy = genuine;
  noisy[5] ^= 0x10;
  EXPECT_EQ(codec.decode(noisy, *decoded, nonce).error, FrameError::corrupted);
}

}  // namespace
}  // namespace couplet::protocol
