// The DCP codec against the layouts of DCP 1.0 (docs/dcp.md), byte by byte:
// the expected bytes are written out here from the layout tables, not
// produced by the codec.
#include "protocol/dcp_pdu.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace couplet::protocol::dcp {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes encoded(std::size_t size, const std::array<std::uint8_t, 64>& buffer) {
  return Bytes(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
}

TEST(DcpPdu, RegisterCarriesUuidModeAndVersion) {
  std::array<std::uint8_t, 64> out{};
  const Uuid uuid{0x6f, 0x1c, 0x2d, 0x3e, 0x4a, 0x5b, 0x46, 0xc7,
                  0xd8, 0xe9, 0xf0, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5};
  const std::size_t size = encode_register(out, {0x0102, 7}, uuid, OpMode::non_real_time, 1, 0);
  EXPECT_EQ(encoded(size, out),
            (Bytes{0x01, 0x02, 0x01, 0x07, 0x00, 0x6f, 0x1c, 0x2d, 0x3e, 0x4a, 0x5b, 0x46,
                   0xc7, 0xd8, 0xe9, 0xf0, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0x02, 0x01, 0x00}));
}

TEST(DcpPdu, StateChangingRequestsCarryTheExpectedState) {
  std::array<std::uint8_t, 64> out{};
  EXPECT_EQ(encoded(encode_stc(out, PduType::stc_send_outputs, {9, 1}, State::computed), out),
            (Bytes{0x08, 0x09, 0x00, 0x01, 0x0D}));
  EXPECT_EQ(encoded(encode_do_step(out, {10, 1}, State::running, 250), out),
            (Bytes{0x07, 0x0A, 0x00, 0x01, 0x0B, 0xFA, 0x00, 0x00, 0x00}));
  EXPECT_EQ(encoded(encode_run(out, {11, 1}, State::configured, -2), out),
            (Bytes{0x06, 0x0B, 0x00, 0x01, 0x05, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
}

TEST(DcpPdu, ConfigurationRequests) {
  std::array<std::uint8_t, 64> out{};
  EXPECT_EQ(encoded(encode_time_res(out, {2, 1}, 1, 1000), out),
            (Bytes{0x20, 0x02, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00}));
  EXPECT_EQ(encoded(encode_steps(out, {3, 1}, 2, 5), out),
            (Bytes{0x21, 0x03, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x02, 0x00}));
  EXPECT_EQ(encoded(encode_cfg_input(out, {4, 1}, 1, 3, 0x1122334455667788, DataType::int32), out),
            (Bytes{0x22, 0x04, 0x00, 0x01, 0x01, 0x00, 0x03, 0x00, 0x88, 0x77, 0x66, 0x55, 0x44,
                   0x33, 0x22, 0x11, 0x06}));
  EXPECT_EQ(encoded(encode_cfg_output(out, {5, 1}, 2, 0, 4), out),
            (Bytes{0x23, 0x05, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0}));
  // 127.0.0.1 as a number, little endian; UDP_IPv4 is transport protocol 0.
  EXPECT_EQ(encoded(encode_network_information(out, PduType::cfg_target_network_information, {6, 1},
                                               2, 0x1F90, 0x7F000001),
                    out),
            (Bytes{0x25, 0x06, 0x00, 0x01, 0x02, 0x00, 0x00, 0x90, 0x1F, 0x01, 0x00, 0x00, 0x7F}));
  EXPECT_EQ(encoded(encode_scope(out, {7, 1}, 1, Scope::run), out),
            (Bytes{0x2B, 0x07, 0x00, 0x01, 0x01, 0x00, 0x02}));
  EXPECT_EQ(encoded(encode_basic(out, PduType::inf_state, {8, 1}), out),
            (Bytes{0x80, 0x08, 0x00, 0x01}));
  EXPECT_EQ(encoded(encode_parameter(out, {9, 1}, 5, DataType::int16, -3), out),
            (Bytes{0x27, 0x09, 0x00, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0, 0x05, 0xFD, 0xFF}));
}

TEST(DcpPdu, DataValuesArePackedInTheirTypes) {
  std::array<std::uint8_t, 64> out{};
  encode_data_header(out, 0x0304, 1);
  std::size_t offset = kDataHeaderBytes;
  offset += write_value(std::span(out).subspan(offset), DataType::float64, 1.5);
  offset += write_value(std::span(out).subspan(offset), DataType::int32, -2.4);
  offset += write_value(std::span(out).subspan(offset), DataType::uint8, 300.0);  // saturated
  offset += write_value(std::span(out).subspan(offset), DataType::float32, 0.5);
  EXPECT_EQ(encoded(offset, out),
            (Bytes{0xF0, 0x04, 0x03, 0x01, 0x00, 0,    0,    0,    0,    0,    0,
                   0xF8, 0x3F, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x3F}));
  const std::span<const std::uint8_t> values(out.data() + kDataHeaderBytes, offset);
  EXPECT_EQ(read_value(values, DataType::float64), 1.5);
  EXPECT_EQ(read_integer(values.subspan(8), DataType::int32), -2);
  EXPECT_EQ(read_integer(values.subspan(12), DataType::uint8), 255);
  EXPECT_EQ(read_value(values.subspan(13), DataType::float32), 0.5);
}

TEST(DcpPdu, AnswersDecode) {
  const char* reason = nullptr;
  const Bytes nack{0xB1, 0x1A, 0x00, 0x01, 0x1B, 0x00, 0x0E, 0x20};
  const auto answer = decode_answer(nack, reason);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->kind, AnswerKind::nack);
  EXPECT_EQ(answer->sequence, 26);
  EXPECT_EQ(answer->sender, 1);
  EXPECT_EQ(answer->expected_sequence, 27);
  EXPECT_EQ(answer->error_code, 0x200E);
  EXPECT_EQ(error_text(answer->error_code),
            "INVALID_STEPS (0x200E): the number of steps is not supported");

  const auto state = decode_answer(Bytes{0xE0, 0x01, 0x0D}, reason);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->kind, AnswerKind::state_changed);
  EXPECT_EQ(to_string(state->state), "COMPUTED");

  const Bytes data{0xF0, 0x05, 0x00, 0x02, 0x00, 0xAA, 0xBB};
  const auto values = decode_answer(data, reason);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->kind, AnswerKind::data);
  EXPECT_EQ(values->sequence, 5);
  EXPECT_EQ(values->data_id, 2);
  EXPECT_EQ(values->payload.size(), 2u);
  EXPECT_EQ(values->payload[0], 0xAA);
}

TEST(DcpPdu, MalformedAnswersAreRefusedWithAReason) {
  const auto refused = [](const Bytes& datagram) {
    const char* reason = nullptr;
    const bool decoded = decode_answer(datagram, reason).has_value();
    return decoded ? std::string("decoded") : std::string(reason);
  };
  EXPECT_EQ(refused({}), "an empty datagram");
  EXPECT_EQ(refused({0xB0, 0x01, 0x00}), "a length other than its type's");
  EXPECT_EQ(refused({0xB0, 0x01, 0x00, 0x01, 0x00}), "a length other than its type's");
  EXPECT_EQ(refused({0xE0, 0x01, 0x13}), "a state DCP does not define");
  EXPECT_EQ(refused({0x07, 0x01, 0x00, 0x01, 0x0B, 1, 0, 0, 0}), "a type a slave does not send");
  EXPECT_EQ(refused({0xF0, 0x01, 0x00, 0x02}), "a length other than its type's");
}

TEST(DcpPdu, RequestsDecodeOnTheSlavesSide) {
  const char* reason = nullptr;
  const Bytes run{0x06, 0x0B, 0x00, 0x01, 0x05, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  const auto decoded = decode_request(run, reason);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->type, PduType::stc_run);
  EXPECT_EQ(decoded->sequence, 11);
  EXPECT_EQ(decoded->receiver, 1);
  EXPECT_EQ(decoded->state, State::configured);
  EXPECT_EQ(decoded->start_time, -2);
  const Bytes network{0x26, 0x06, 0x00, 0x01, 0x01, 0x00, 0x00, 0x90, 0x1F, 0x01, 0x00, 0x00, 0x7F};
  const auto source = decode_request(network, reason);
  ASSERT_TRUE(source);
  EXPECT_EQ(source->data_id, 1);
  EXPECT_EQ(source->port, 0x1F90);
  EXPECT_EQ(source->address, 0x7F000001u);
  const auto refused = [](const Bytes& datagram) {
    const char* why = nullptr;
    return decode_request(datagram, why).has_value() ? std::string("decoded") : std::string(why);
  };
  EXPECT_EQ(refused({0x07, 0x0A, 0x00, 0x01, 0x0B, 0xFA, 0x00, 0x00}),
            "a length other than its type's");
  EXPECT_EQ(refused({0x03, 0x01, 0x00, 0x01, 0x20}), "a state DCP does not define");
  EXPECT_EQ(refused({0xB0, 0x01, 0x00, 0x01}), "a type couplet's DCP slave does not serve");
}

TEST(DcpPdu, AnswersEncodeOnTheSlavesSide) {
  std::array<std::uint8_t, 64> out{};
  EXPECT_EQ(encoded(encode_ack(out, 0x0102, 1), out), (Bytes{0xB0, 0x02, 0x01, 0x01}));
  EXPECT_EQ(encoded(encode_nack(out, 7, 1, 6, 0x2013), out),
            (Bytes{0xB1, 0x07, 0x00, 0x01, 0x06, 0x00, 0x13, 0x20}));
  EXPECT_EQ(encoded(encode_state_ack(out, 9, 1, State::running), out),
            (Bytes{0xB2, 0x09, 0x00, 0x01, 0x0B}));
  EXPECT_EQ(encoded(encode_error_ack(out, 9, 1, 0x1001), out),
            (Bytes{0xB3, 0x09, 0x00, 0x01, 0x01, 0x10}));
  EXPECT_EQ(encoded(encode_state_changed(out, 1, State::computed), out), (Bytes{0xE0, 0x01, 0x0D}));
}

TEST(DcpPdu, NamesForMessages) {
  EXPECT_EQ(to_string(State::error_resolved), "ERROR_RESOLVED");
  EXPECT_EQ(to_string(static_cast<State>(0x42)), "state 0x42");
  EXPECT_EQ(to_string(PduType::stc_do_step), "STC_do_step");
  EXPECT_EQ(to_string(DataType::int32), "Int32");
  EXPECT_EQ(error_text(0x4004),
            "NOT_SUPPORTED_TRANSPORT_PROTOCOL (0x4004): the transport protocol is not supported");
  EXPECT_EQ(error_text(0x7777), "unknown error code 0x7777");
}

}  // namespace
}  // namespace couplet::protocol::dcp
