#pragma once
// PDUs of the Distributed Co-Simulation Protocol, DCP 1.0 (Modelica
// Association, "DCP Specification Document, Version 1.0", 2019; layouts as the
// reference implementation modelica/DCPLib lays them out): one PDU per UDP
// datagram, fixed little-endian layouts, no checksum and no retransmission of
// its own. This file is couplet's own codec, written from those layouts
// (docs/dcp.md lists them).
//
// Master requests start with type (u8), sequence number (u16), receiver (u8);
// state-changing (STC) requests add the state the master expects the slave to
// be in. Data PDUs carry type, a sequence number per data id, the data id and
// the packed values. Answers and notifications come back from the slave.
//
// Encoding writes into a caller's buffer; decoding checks every field (type,
// exact length, state and error codes, the sender) and never allocates, so both
// may run on the stepping thread.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace couplet::protocol::dcp {

enum class PduType : std::uint8_t {
  stc_register = 0x01,
  stc_deregister = 0x02,
  stc_prepare = 0x03,
  stc_configure = 0x04,
  stc_initialize = 0x05,
  stc_run = 0x06,
  stc_do_step = 0x07,
  stc_send_outputs = 0x08,
  stc_stop = 0x09,
  stc_reset = 0x0A,
  cfg_time_res = 0x20,
  cfg_steps = 0x21,
  cfg_input = 0x22,
  cfg_output = 0x23,
  cfg_clear = 0x24,
  cfg_target_network_information = 0x25,
  cfg_source_network_information = 0x26,
  cfg_parameter = 0x27,
  cfg_tunable_parameter = 0x28,
  cfg_param_network_information = 0x29,
  cfg_logging = 0x2A,
  cfg_scope = 0x2B,
  inf_state = 0x80,
  inf_error = 0x81,
  inf_log = 0x82,
  rsp_ack = 0xB0,
  rsp_nack = 0xB1,
  rsp_state_ack = 0xB2,
  rsp_error_ack = 0xB3,
  rsp_log_ack = 0xB4,
  ntf_state_changed = 0xE0,
  ntf_log = 0xE1,
  dat_input_output = 0xF0,
  dat_parameter = 0xF1,
};

enum class State : std::uint8_t {
  alive = 0x00,
  configuration = 0x01,
  preparing = 0x02,
  prepared = 0x03,
  configuring = 0x04,
  configured = 0x05,
  initializing = 0x06,
  initialized = 0x07,
  sending_i = 0x08,
  synchronizing = 0x09,
  synchronized = 0x0A,
  running = 0x0B,
  computing = 0x0C,
  computed = 0x0D,
  sending_d = 0x0E,
  stopping = 0x0F,
  stopped = 0x10,
  error_handling = 0x11,
  error_resolved = 0x12,
};
inline constexpr std::uint8_t kLastState = 0x12;

enum class OpMode : std::uint8_t { hard_real_time = 0, soft_real_time = 1, non_real_time = 2 };

/// Data types of variables and of values on the wire. couplet exchanges the
/// numeric ones (uint8 … float64); string and binary are named in messages.
enum class DataType : std::uint8_t {
  uint8 = 0,
  uint16 = 1,
  uint32 = 2,
  uint64 = 3,
  int8 = 4,
  int16 = 5,
  int32 = 6,
  int64 = 7,
  float32 = 8,
  float64 = 9,
  string = 10,
  binary = 11,
};

enum class Scope : std::uint8_t { initialization_and_run = 0, initialization = 1, run = 2 };

inline constexpr std::uint8_t kTransportUdpIpv4 = 0;

/// "ALIVE", "RUNNING", ...; "state 0x42" for a number DCP does not define.
std::string to_string(State state);
std::string to_string(PduType type);
std::string to_string(OpMode mode);
std::string to_string(DataType type);
/// "INVALID_STEPS (0x200E): the number of steps is not supported", or
/// "unknown error code 0x7777".
std::string error_text(std::uint16_t error_code);

/// Bytes a value of a numeric type takes on the wire; 0 for string and binary.
std::size_t value_size(DataType type);
bool is_numeric(DataType type);

/// The largest PDU couplet sends or accepts: one UDP datagram over IPv4.
inline constexpr std::size_t kMaxPduBytes = 65507;

// --- Encoding (master → slave). Each writes the PDU to the front of `out` and
// returns its size; `out` must hold at least the size given here.

inline constexpr std::size_t kStcBytes = 5;
inline constexpr std::size_t kRegisterBytes = 24;
inline constexpr std::size_t kRunBytes = 13;
inline constexpr std::size_t kDoStepBytes = 9;
inline constexpr std::size_t kTimeResBytes = 12;
inline constexpr std::size_t kStepsBytes = 10;
inline constexpr std::size_t kCfgInputBytes = 17;
inline constexpr std::size_t kCfgOutputBytes = 16;
inline constexpr std::size_t kBasicBytes = 4;
inline constexpr std::size_t kNetworkInformationBytes = 13;
inline constexpr std::size_t kScopeBytes = 7;
inline constexpr std::size_t kParameterHeaderBytes = 13;
inline constexpr std::size_t kDataHeaderBytes = 5;

using Uuid = std::array<std::uint8_t, 16>;

/// The header every master request shares.
struct RequestHeader {
  std::uint16_t sequence = 0;
  std::uint8_t receiver = 0;
};

/// STC_deregister, _prepare, _configure, _initialize, _send_outputs, _stop,
/// _reset: the header and the state the master expects.
std::size_t encode_stc(std::span<std::uint8_t> out, PduType type, RequestHeader header,
                       State expected);
std::size_t encode_register(std::span<std::uint8_t> out, RequestHeader header, const Uuid& slave,
                            OpMode mode, std::uint8_t major, std::uint8_t minor);
std::size_t encode_run(std::span<std::uint8_t> out, RequestHeader header, State expected,
                       std::int64_t start_time);
std::size_t encode_do_step(std::span<std::uint8_t> out, RequestHeader header, State expected,
                           std::uint32_t steps);
std::size_t encode_time_res(std::span<std::uint8_t> out, RequestHeader header,
                            std::uint32_t numerator, std::uint32_t denominator);
std::size_t encode_steps(std::span<std::uint8_t> out, RequestHeader header, std::uint16_t data_id,
                         std::uint32_t steps);
std::size_t encode_cfg_input(std::span<std::uint8_t> out, RequestHeader header,
                             std::uint16_t data_id, std::uint16_t position,
                             std::uint64_t value_reference, DataType source_type);
std::size_t encode_cfg_output(std::span<std::uint8_t> out, RequestHeader header,
                              std::uint16_t data_id, std::uint16_t position,
                              std::uint64_t value_reference);
/// CFG_clear, INF_state, INF_error: the header alone.
std::size_t encode_basic(std::span<std::uint8_t> out, PduType type, RequestHeader header);
/// CFG_target_network_information or CFG_source_network_information, UDP over
/// IPv4; `address` as a number, 127.0.0.1 = 0x7F000001.
std::size_t encode_network_information(std::span<std::uint8_t> out, PduType type,
                                       RequestHeader header, std::uint16_t data_id,
                                       std::uint16_t port, std::uint32_t address);
/// CFG_parameter: a numeric parameter's value, written as `type`.
std::size_t encode_parameter(std::span<std::uint8_t> out, RequestHeader header,
                             std::uint64_t value_reference, DataType type, double value);
std::size_t encode_scope(std::span<std::uint8_t> out, RequestHeader header, std::uint16_t data_id,
                         Scope scope);
/// DAT_input_output's header; the values follow at kDataHeaderBytes
/// (write_value).
void encode_data_header(std::span<std::uint8_t> out, std::uint16_t sequence, std::uint16_t data_id);

/// Writes `value` as `type` at `out`, converted (integers rounded to nearest,
/// saturated at the type's range). Returns value_size(type).
std::size_t write_value(std::span<std::uint8_t> out, DataType type, double value);
/// Reads a value of `type` from the front of `in` (value_size(type) bytes).
double read_value(std::span<const std::uint8_t> in, DataType type);
/// Same for the exact integer, for Integer ports (uint64 above 2^63 saturates).
std::int64_t read_integer(std::span<const std::uint8_t> in, DataType type);

// --- Decoding (slave → master).

enum class AnswerKind : std::uint8_t {
  ack,            ///< RSP_ack
  nack,           ///< RSP_nack: expected_sequence, error_code
  state_ack,      ///< RSP_state_ack: state
  error_ack,      ///< RSP_error_ack: error_code
  state_changed,  ///< NTF_state_changed: state
  log,            ///< NTF_log (or RSP_log_ack): not interpreted
  data,           ///< DAT_input_output: data_id, sequence, payload
};

/// One decoded PDU from a slave; `payload` points into the decoded buffer.
struct Answer {
  AnswerKind kind = AnswerKind::ack;
  std::uint8_t sender = 0;
  std::uint16_t sequence = 0;           ///< answered request (RSP_*), or data sequence (DAT)
  std::uint16_t expected_sequence = 0;  ///< RSP_nack
  std::uint16_t error_code = 0;         ///< RSP_nack, RSP_error_ack
  State state = State::alive;           ///< RSP_state_ack, NTF_state_changed
  std::uint16_t data_id = 0;            ///< DAT_input_output
  std::span<const std::uint8_t> payload;
};

/// Decodes one datagram from a slave. Returns nullopt and sets `reason` (a
/// fixed text, no allocation) when it is not a valid slave PDU: empty, an
/// unknown or master-only type, a length other than the layout's, or a state
/// DCP does not define.
std::optional<Answer> decode_answer(std::span<const std::uint8_t> pdu, const char*& reason);

// --- The slave's side (couplet-target --dcp): requests decoded, answers encoded.

/// One decoded master request; which fields are set depends on `type`.
struct Request {
  PduType type = PduType::inf_state;
  std::uint16_t sequence = 0;  ///< requests; for DAT_input_output the data sequence
  std::uint8_t receiver = 0;
  State state = State::alive;  ///< STC: the state the master expects
  Uuid uuid{};                 ///< STC_register
  std::uint8_t op_mode = 0;    ///< STC_register (any number: the slave checks it)
  std::uint8_t major = 0;
  std::uint8_t minor = 0;
  std::int64_t start_time = 0;  ///< STC_run
  std::uint32_t steps = 0;      ///< STC_do_step, CFG_steps
  std::uint32_t numerator = 0;  ///< CFG_time_res
  std::uint32_t denominator = 0;
  std::uint16_t data_id = 0;  ///< CFG_input/_output/_steps/_scope/network information, DAT
  std::uint16_t position = 0;
  std::uint64_t value_reference = 0;  ///< CFG_input/_output/_parameter
  std::uint8_t data_type = 0;         ///< CFG_input/_parameter: the source type (any number)
  std::uint8_t transport = 0;         ///< network information
  std::uint16_t port = 0;
  std::uint32_t address = 0;
  std::uint8_t scope = 0;                 ///< CFG_scope (any number)
  std::span<const std::uint8_t> payload;  ///< DAT_input_output's values, CFG_parameter's value
};

/// Decodes one datagram from a master. Returns nullopt and sets `reason` (a
/// fixed text) when it is not a request couplet's slave side knows: empty, a
/// type a master does not send or that couplet does not serve (logging,
/// tunable parameters), a length other than the layout's, a state DCP does
/// not define. The numbers a slave must judge (op mode, data type, scope,
/// transport) are left to it.
std::optional<Request> decode_request(std::span<const std::uint8_t> pdu, const char*& reason);

inline constexpr std::size_t kAckBytes = 4;
inline constexpr std::size_t kNackBytes = 8;
inline constexpr std::size_t kStateAckBytes = 5;
inline constexpr std::size_t kErrorAckBytes = 6;
inline constexpr std::size_t kStateChangedBytes = 3;

std::size_t encode_ack(std::span<std::uint8_t> out, std::uint16_t sequence, std::uint8_t sender);
std::size_t encode_nack(std::span<std::uint8_t> out, std::uint16_t sequence, std::uint8_t sender,
                        std::uint16_t expected_sequence, std::uint16_t error_code);
std::size_t encode_state_ack(std::span<std::uint8_t> out, std::uint16_t sequence,
                             std::uint8_t sender, State state);
std::size_t encode_error_ack(std::span<std::uint8_t> out, std::uint16_t sequence,
                             std::uint8_t sender, std::uint16_t error_code);
std::size_t encode_state_changed(std::span<std::uint8_t> out, std::uint8_t sender, State state);

}  // namespace couplet::protocol::dcp
