#include "protocol/dcp_pdu.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace couplet::protocol::dcp {

namespace {

static_assert(std::endian::native == std::endian::little,
              "DCP is little endian; couplet's hosts are too");

template <typename Value>
void put(std::span<std::uint8_t> out, std::size_t offset, Value value) {
  std::memcpy(out.data() + offset, &value, sizeof value);
}

template <typename Value>
Value get(std::span<const std::uint8_t> in, std::size_t offset) {
  Value value;
  std::memcpy(&value, in.data() + offset, sizeof value);
  return value;
}

void require_room(std::span<std::uint8_t> out, std::size_t size) {
  if (out.size() < size) throw std::logic_error("DCP encoder: buffer too small");
}

std::size_t put_header(std::span<std::uint8_t> out, PduType type, RequestHeader header,
                       std::size_t size) {
  require_room(out, size);
  put(out, 0, static_cast<std::uint8_t>(type));
  put(out, 1, header.sequence);
  put(out, 3, header.receiver);
  return size;
}

std::string hex(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", digits, value);
  return text;
}

struct ErrorName {
  std::uint16_t code;
  const char* name;
  const char* meaning;
};

// DCP 1.0's error codes and what each says about the request that got it.
constexpr ErrorName kErrors[] = {
    {0x0000, "NONE", "no error"},
    {0x1001, "PROTOCOL_ERROR_GENERIC", "a protocol error"},
    {0x1002, "PROTOCOL_ERROR_HEARTBEAT_MISSED", "the master's heartbeat was missed"},
    {0x1003, "PROTOCOL_ERROR_PDU_NOT_ALLOWED_IN_THIS_STATE",
     "the request is not allowed in the slave's state"},
    {0x1004, "PROTOCOL_ERROR_PROPERTY_VIOLATED", "a property of the slave description is violated"},
    {0x1005, "PROTOCOL_ERROR_STATE_TRANSITION_IN_PROGRESS", "a state transition is in progress"},
    {0x2001, "INVALID_LENGTH", "the PDU has the wrong length"},
    {0x2002, "INVALID_LOG_CATEGORY", "unknown log category"},
    {0x2003, "INVALID_LOG_LEVEL", "unknown log level"},
    {0x2004, "INVALID_LOG_MODE", "unknown log mode"},
    {0x2005, "INVALID_MAJOR_VERSION", "the DCP major version is not the slave's"},
    {0x2006, "INVALID_MINOR_VERSION", "the DCP minor version is not the slave's"},
    {0x2007, "INVALID_NETWORK_INFORMATION", "the network information is unusable"},
    {0x2008, "INVALID_OP_MODE", "the slave does not offer this operating mode"},
    {0x2009, "INVALID_PAYLOAD", "the payload is invalid"},
    {0x200A, "INVALID_SCOPE", "unknown scope"},
    {0x200B, "INVALID_SOURCE_DATA_TYPE", "the source data type cannot be converted"},
    {0x200C, "INVALID_START_TIME", "the start time is invalid"},
    {0x200D, "INVALID_STATE_ID", "the slave is not in the state the master expected"},
    {0x200E, "INVALID_STEPS", "the number of steps is not supported"},
    {0x200F, "INVALID_TIME_RESOLUTION", "the time resolution is not supported"},
    {0x2010, "INVALID_TRANSPORT_PROTOCOL", "the transport protocol is not supported"},
    {0x2011, "INVALID_UUID", "the UUID is not the slave's"},
    {0x2012, "INVALID_VALUE_REFERENCE", "unknown value reference"},
    {0x2013, "INVALID_SEQUENCE_ID", "the sequence number is not the next one"},
    {0x3001, "INCOMPLETE_CONFIG_GAP_INPUT_POS", "an input position is missing"},
    {0x3002, "INCOMPLETE_CONFIG_GAP_OUTPUT_POS", "an output position is missing"},
    {0x3003, "INCOMPLETE_CONFIG_GAP_TUNABLE_POS", "a tunable parameter position is missing"},
    {0x3004, "INCOMPLETE_CONFIG_NW_INFO_INPUT", "an input data id has no network information"},
    {0x3005, "INCOMPLETE_CONFIG_NW_INFO_OUTPUT", "an output data id has no network information"},
    {0x3006, "INCOMPLETE_CONFIG_NW_INFO_TUNABLE", "a parameter id has no network information"},
    {0x3007, "INCOMPLETE_CONFIG_SCOPE", "a data id has no scope"},
    {0x3008, "INCOMPLETE_CONFIG_STEPS", "an output data id has no steps"},
    {0x3009, "INCOMPLETE_CONFIG_TIME_RESOLUTION", "no time resolution was configured"},
    {0x300A, "INCOMPLETE_CONFIGURATION", "the configuration is incomplete"},
    {0x4001, "NOT_SUPPORTED_LOG_ON_NOTIFICATION", "logging on notification is not supported"},
    {0x4002, "NOT_SUPPORTED_LOG_ON_REQUEST", "logging on request is not supported"},
    {0x4003, "NOT_SUPPORTED_VARIABLE_STEPS", "variable steps are not supported"},
    {0x4004, "NOT_SUPPORTED_TRANSPORT_PROTOCOL", "the transport protocol is not supported"},
    {0x4005, "NOT_SUPPORTED_PDU", "the request is not supported"},
    {0x4006, "NOT_SUPPORTED_PDU_SIZE", "the PDU size is not supported"},
};

constexpr const char* kStateNames[] = {
    "ALIVE",        "CONFIGURATION", "PREPARING",      "PREPARED",      "CONFIGURING",
    "CONFIGURED",   "INITIALIZING",  "INITIALIZED",    "SENDING_I",     "SYNCHRONIZING",
    "SYNCHRONIZED", "RUNNING",       "COMPUTING",      "COMPUTED",      "SENDING_D",
    "STOPPING",     "STOPPED",       "ERROR_HANDLING", "ERROR_RESOLVED"};

}  // namespace

std::string to_string(State state) {
  const auto index = static_cast<std::uint8_t>(state);
  if (index <= kLastState) return kStateNames[index];
  return "state " + hex(index, 2);
}

std::string to_string(PduType type) {
  switch (type) {
    case PduType::stc_register:
      return "STC_register";
    case PduType::stc_deregister:
      return "STC_deregister";
    case PduType::stc_prepare:
      return "STC_prepare";
    case PduType::stc_configure:
      return "STC_configure";
    case PduType::stc_initialize:
      return "STC_initialize";
    case PduType::stc_run:
      return "STC_run";
    case PduType::stc_do_step:
      return "STC_do_step";
    case PduType::stc_send_outputs:
      return "STC_send_outputs";
    case PduType::stc_stop:
      return "STC_stop";
    case PduType::stc_reset:
      return "STC_reset";
    case PduType::cfg_time_res:
      return "CFG_time_res";
    case PduType::cfg_steps:
      return "CFG_steps";
    case PduType::cfg_input:
      return "CFG_input";
    case PduType::cfg_output:
      return "CFG_output";
    case PduType::cfg_clear:
      return "CFG_clear";
    case PduType::cfg_target_network_information:
      return "CFG_target_network_information";
    case PduType::cfg_source_network_information:
      return "CFG_source_network_information";
    case PduType::cfg_parameter:
      return "CFG_parameter";
    case PduType::cfg_tunable_parameter:
      return "CFG_tunable_parameter";
    case PduType::cfg_param_network_information:
      return "CFG_param_network_information";
    case PduType::cfg_logging:
      return "CFG_logging";
    case PduType::cfg_scope:
      return "CFG_scope";
    case PduType::inf_state:
      return "INF_state";
    case PduType::inf_error:
      return "INF_error";
    case PduType::inf_log:
      return "INF_log";
    case PduType::rsp_ack:
      return "RSP_ack";
    case PduType::rsp_nack:
      return "RSP_nack";
    case PduType::rsp_state_ack:
      return "RSP_state_ack";
    case PduType::rsp_error_ack:
      return "RSP_error_ack";
    case PduType::rsp_log_ack:
      return "RSP_log_ack";
    case PduType::ntf_state_changed:
      return "NTF_state_changed";
    case PduType::ntf_log:
      return "NTF_log";
    case PduType::dat_input_output:
      return "DAT_input_output";
    case PduType::dat_parameter:
      return "DAT_parameter";
  }
  return "PDU type " + hex(static_cast<unsigned>(type), 2);
}

std::string to_string(OpMode mode) {
  switch (mode) {
    case OpMode::hard_real_time:
      return "HardRealTime";
    case OpMode::soft_real_time:
      return "SoftRealTime";
    case OpMode::non_real_time:
      return "NonRealTime";
  }
  return "op mode " + hex(static_cast<unsigned>(mode), 2);
}

std::string to_string(DataType type) {
  constexpr const char* kNames[] = {"Uint8", "Uint16", "Uint32",  "Uint64",  "Int8",   "Int16",
                                    "Int32", "Int64",  "Float32", "Float64", "String", "Binary"};
  const auto index = static_cast<std::uint8_t>(type);
  if (index < std::size(kNames)) return kNames[index];
  return "data type " + hex(index, 2);
}

std::string error_text(std::uint16_t error_code) {
  for (const ErrorName& error : kErrors) {
    if (error.code == error_code)
      return std::string(error.name) + " (" + hex(error_code, 4) + "): " + error.meaning;
  }
  return "unknown error code " + hex(error_code, 4);
}

std::size_t value_size(DataType type) {
  switch (type) {
    case DataType::uint8:
    case DataType::int8:
      return 1;
    case DataType::uint16:
    case DataType::int16:
      return 2;
    case DataType::uint32:
    case DataType::int32:
    case DataType::float32:
      return 4;
    case DataType::uint64:
    case DataType::int64:
    case DataType::float64:
      return 8;
    case DataType::string:
    case DataType::binary:
      return 0;
  }
  return 0;
}

bool is_numeric(DataType type) {
  return value_size(type) > 0;
}

std::size_t encode_stc(std::span<std::uint8_t> out, PduType type, RequestHeader header,
                       State expected) {
  put_header(out, type, header, kStcBytes);
  put(out, 4, static_cast<std::uint8_t>(expected));
  return kStcBytes;
}

std::size_t encode_register(std::span<std::uint8_t> out, RequestHeader header, const Uuid& slave,
                            OpMode mode, std::uint8_t major, std::uint8_t minor) {
  put_header(out, PduType::stc_register, header, kRegisterBytes);
  put(out, 4, static_cast<std::uint8_t>(State::alive));
  std::memcpy(out.data() + 5, slave.data(), slave.size());
  put(out, 21, static_cast<std::uint8_t>(mode));
  put(out, 22, major);
  put(out, 23, minor);
  return kRegisterBytes;
}

std::size_t encode_run(std::span<std::uint8_t> out, RequestHeader header, State expected,
                       std::int64_t start_time) {
  put_header(out, PduType::stc_run, header, kRunBytes);
  put(out, 4, static_cast<std::uint8_t>(expected));
  put(out, 5, start_time);
  return kRunBytes;
}

std::size_t encode_do_step(std::span<std::uint8_t> out, RequestHeader header, State expected,
                           std::uint32_t steps) {
  put_header(out, PduType::stc_do_step, header, kDoStepBytes);
  put(out, 4, static_cast<std::uint8_t>(expected));
  put(out, 5, steps);
  return kDoStepBytes;
}

std::size_t encode_time_res(std::span<std::uint8_t> out, RequestHeader header,
                            std::uint32_t numerator, std::uint32_t denominator) {
  put_header(out, PduType::cfg_time_res, header, kTimeResBytes);
  put(out, 4, numerator);
  put(out, 8, denominator);
  return kTimeResBytes;
}

std::size_t encode_steps(std::span<std::uint8_t> out, RequestHeader header, std::uint16_t data_id,
                         std::uint32_t steps) {
  put_header(out, PduType::cfg_steps, header, kStepsBytes);
  put(out, 4, steps);
  put(out, 8, data_id);
  return kStepsBytes;
}

std::size_t encode_cfg_input(std::span<std::uint8_t> out, RequestHeader header,
                             std::uint16_t data_id, std::uint16_t position,
                             std::uint64_t value_reference, DataType source_type) {
  put_header(out, PduType::cfg_input, header, kCfgInputBytes);
  put(out, 4, data_id);
  put(out, 6, position);
  put(out, 8, value_reference);
  put(out, 16, static_cast<std::uint8_t>(source_type));
  return kCfgInputBytes;
}

std::size_t encode_cfg_output(std::span<std::uint8_t> out, RequestHeader header,
                              std::uint16_t data_id, std::uint16_t position,
                              std::uint64_t value_reference) {
  put_header(out, PduType::cfg_output, header, kCfgOutputBytes);
  put(out, 4, data_id);
  put(out, 6, position);
  put(out, 8, value_reference);
  return kCfgOutputBytes;
}

std::size_t encode_basic(std::span<std::uint8_t> out, PduType type, RequestHeader header) {
  return put_header(out, type, header, kBasicBytes);
}

std::size_t encode_network_information(std::span<std::uint8_t> out, PduType type,
                                       RequestHeader header, std::uint16_t data_id,
                                       std::uint16_t port, std::uint32_t address) {
  put_header(out, type, header, kNetworkInformationBytes);
  put(out, 4, data_id);
  put(out, 6, kTransportUdpIpv4);
  put(out, 7, port);
  put(out, 9, address);
  return kNetworkInformationBytes;
}

std::size_t encode_scope(std::span<std::uint8_t> out, RequestHeader header, std::uint16_t data_id,
                         Scope scope) {
  put_header(out, PduType::cfg_scope, header, kScopeBytes);
  put(out, 4, data_id);
  put(out, 6, static_cast<std::uint8_t>(scope));
  return kScopeBytes;
}

std::size_t encode_parameter(std::span<std::uint8_t> out, RequestHeader header,
                             std::uint64_t value_reference, DataType type, double value) {
  put_header(out, PduType::cfg_parameter, header, kParameterHeaderBytes + value_size(type));
  put(out, 4, value_reference);
  put(out, 12, static_cast<std::uint8_t>(type));
  return kParameterHeaderBytes + write_value(out.subspan(kParameterHeaderBytes), type, value);
}

void encode_data_header(std::span<std::uint8_t> out, std::uint16_t sequence,
                        std::uint16_t data_id) {
  require_room(out, kDataHeaderBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::dat_input_output));
  put(out, 1, sequence);
  put(out, 3, data_id);
}

namespace {

template <typename Integer>
Integer saturated(double value) {
  if (std::isnan(value)) return 0;
  const double rounded = std::nearbyint(value);
  if (rounded <= static_cast<double>(std::numeric_limits<Integer>::min()))
    return std::numeric_limits<Integer>::min();
  // 2^63 and 2^64 are exact doubles; the maximum of a 64-bit type is not.
  if (rounded >= std::ldexp(1.0, std::numeric_limits<Integer>::digits))
    return std::numeric_limits<Integer>::max();
  return static_cast<Integer>(rounded);
}

}  // namespace

std::size_t write_value(std::span<std::uint8_t> out, DataType type, double value) {
  require_room(out, value_size(type));
  switch (type) {
    case DataType::uint8:
      put(out, 0, saturated<std::uint8_t>(value));
      break;
    case DataType::uint16:
      put(out, 0, saturated<std::uint16_t>(value));
      break;
    case DataType::uint32:
      put(out, 0, saturated<std::uint32_t>(value));
      break;
    case DataType::uint64:
      put(out, 0, saturated<std::uint64_t>(value));
      break;
    case DataType::int8:
      put(out, 0, saturated<std::int8_t>(value));
      break;
    case DataType::int16:
      put(out, 0, saturated<std::int16_t>(value));
      break;
    case DataType::int32:
      put(out, 0, saturated<std::int32_t>(value));
      break;
    case DataType::int64:
      put(out, 0, saturated<std::int64_t>(value));
      break;
    case DataType::float32:
      put(out, 0, static_cast<float>(value));
      break;
    case DataType::float64:
      put(out, 0, value);
      break;
    case DataType::string:
    case DataType::binary:
      throw std::logic_error("DCP: write_value of a non-numeric type");
  }
  return value_size(type);
}

std::int64_t read_integer(std::span<const std::uint8_t> in, DataType type) {
  switch (type) {
    case DataType::uint8:
      return get<std::uint8_t>(in, 0);
    case DataType::uint16:
      return get<std::uint16_t>(in, 0);
    case DataType::uint32:
      return get<std::uint32_t>(in, 0);
    case DataType::uint64: {
      const auto value = get<std::uint64_t>(in, 0);
      return value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? std::numeric_limits<std::int64_t>::max()
                 : static_cast<std::int64_t>(value);
    }
    case DataType::int8:
      return get<std::int8_t>(in, 0);
    case DataType::int16:
      return get<std::int16_t>(in, 0);
    case DataType::int32:
      return get<std::int32_t>(in, 0);
    case DataType::int64:
      return get<std::int64_t>(in, 0);
    case DataType::float32:
      return saturated<std::int64_t>(get<float>(in, 0));
    case DataType::float64:
      return saturated<std::int64_t>(get<double>(in, 0));
    case DataType::string:
    case DataType::binary:
      break;
  }
  throw std::logic_error("DCP: read_integer of a non-numeric type");
}

double read_value(std::span<const std::uint8_t> in, DataType type) {
  switch (type) {
    case DataType::float32:
      return get<float>(in, 0);
    case DataType::float64:
      return get<double>(in, 0);
    case DataType::uint64:
      return static_cast<double>(get<std::uint64_t>(in, 0));
    default:
      return static_cast<double>(read_integer(in, type));
  }
}

std::optional<Answer> decode_answer(std::span<const std::uint8_t> pdu, const char*& reason) {
  if (pdu.empty()) {
    reason = "an empty datagram";
    return std::nullopt;
  }
  Answer answer;
  const auto exact = [&](std::size_t size) {
    if (pdu.size() == size) return true;
    reason = "a length other than its type's";
    return false;
  };
  const auto valid_state = [&](std::uint8_t state) {
    if (state <= kLastState) return true;
    reason = "a state DCP does not define";
    return false;
  };
  switch (static_cast<PduType>(pdu[0])) {
    case PduType::rsp_ack:
      if (!exact(4)) return std::nullopt;
      answer.kind = AnswerKind::ack;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.sender = pdu[3];
      return answer;
    case PduType::rsp_nack:
      if (!exact(8)) return std::nullopt;
      answer.kind = AnswerKind::nack;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.sender = pdu[3];
      answer.expected_sequence = get<std::uint16_t>(pdu, 4);
      answer.error_code = get<std::uint16_t>(pdu, 6);
      return answer;
    case PduType::rsp_state_ack:
      if (!exact(5) || !valid_state(pdu[4])) return std::nullopt;
      answer.kind = AnswerKind::state_ack;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.sender = pdu[3];
      answer.state = static_cast<State>(pdu[4]);
      return answer;
    case PduType::rsp_error_ack:
      if (!exact(6)) return std::nullopt;
      answer.kind = AnswerKind::error_ack;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.sender = pdu[3];
      answer.error_code = get<std::uint16_t>(pdu, 4);
      return answer;
    case PduType::rsp_log_ack:
      if (pdu.size() < 4) {
        reason = "a length other than its type's";
        return std::nullopt;
      }
      answer.kind = AnswerKind::log;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.sender = pdu[3];
      answer.payload = pdu.subspan(4);
      return answer;
    case PduType::ntf_state_changed:
      if (!exact(3) || !valid_state(pdu[2])) return std::nullopt;
      answer.kind = AnswerKind::state_changed;
      answer.sender = pdu[1];
      answer.state = static_cast<State>(pdu[2]);
      return answer;
    case PduType::ntf_log:
      if (pdu.size() < 11) {
        reason = "a length other than its type's";
        return std::nullopt;
      }
      answer.kind = AnswerKind::log;
      answer.sender = pdu[1];
      answer.payload = pdu.subspan(11);
      return answer;
    case PduType::dat_input_output:
      if (pdu.size() < kDataHeaderBytes) {
        reason = "a length other than its type's";
        return std::nullopt;
      }
      answer.kind = AnswerKind::data;
      answer.sequence = get<std::uint16_t>(pdu, 1);
      answer.data_id = get<std::uint16_t>(pdu, 3);
      answer.payload = pdu.subspan(kDataHeaderBytes);
      return answer;
    default:
      reason = "a type a slave does not send";
      return std::nullopt;
  }
}

std::optional<Request> decode_request(std::span<const std::uint8_t> pdu, const char*& reason) {
  if (pdu.empty()) {
    reason = "an empty datagram";
    return std::nullopt;
  }
  Request request;
  request.type = static_cast<PduType>(pdu[0]);
  const auto sized = [&](std::size_t size) {
    if (pdu.size() == size) return true;
    reason = "a length other than its type's";
    return false;
  };
  if (request.type == PduType::dat_input_output) {
    if (pdu.size() < kDataHeaderBytes) {
      reason = "a length other than its type's";
      return std::nullopt;
    }
    request.sequence = get<std::uint16_t>(pdu, 1);
    request.data_id = get<std::uint16_t>(pdu, 3);
    request.payload = pdu.subspan(kDataHeaderBytes);
    return request;
  }
  if (pdu.size() < kBasicBytes) {
    reason = "a length other than its type's";
    return std::nullopt;
  }
  request.sequence = get<std::uint16_t>(pdu, 1);
  request.receiver = pdu[3];
  const auto stc = [&](std::size_t size) {
    if (!sized(size)) return false;
    if (pdu[4] > kLastState) {
      reason = "a state DCP does not define";
      return false;
    }
    request.state = static_cast<State>(pdu[4]);
    return true;
  };
  switch (request.type) {
    case PduType::stc_register:
      if (!stc(kRegisterBytes)) return std::nullopt;
      std::memcpy(request.uuid.data(), pdu.data() + 5, request.uuid.size());
      request.op_mode = pdu[21];
      request.major = pdu[22];
      request.minor = pdu[23];
      return request;
    case PduType::stc_deregister:
    case PduType::stc_prepare:
    case PduType::stc_configure:
    case PduType::stc_initialize:
    case PduType::stc_send_outputs:
    case PduType::stc_stop:
    case PduType::stc_reset:
      if (!stc(kStcBytes)) return std::nullopt;
      return request;
    case PduType::stc_run:
      if (!stc(kRunBytes)) return std::nullopt;
      request.start_time = get<std::int64_t>(pdu, 5);
      return request;
    case PduType::stc_do_step:
      if (!stc(kDoStepBytes)) return std::nullopt;
      request.steps = get<std::uint32_t>(pdu, 5);
      return request;
    case PduType::cfg_time_res:
      if (!sized(kTimeResBytes)) return std::nullopt;
      request.numerator = get<std::uint32_t>(pdu, 4);
      request.denominator = get<std::uint32_t>(pdu, 8);
      return request;
    case PduType::cfg_steps:
      if (!sized(kStepsBytes)) return std::nullopt;
      request.steps = get<std::uint32_t>(pdu, 4);
      request.data_id = get<std::uint16_t>(pdu, 8);
      return request;
    case PduType::cfg_input:
    case PduType::cfg_output:
      if (!sized(request.type == PduType::cfg_input ? kCfgInputBytes : kCfgOutputBytes))
        return std::nullopt;
      request.data_id = get<std::uint16_t>(pdu, 4);
      request.position = get<std::uint16_t>(pdu, 6);
      request.value_reference = get<std::uint64_t>(pdu, 8);
      if (request.type == PduType::cfg_input) request.data_type = pdu[16];
      return request;
    case PduType::cfg_clear:
    case PduType::inf_state:
    case PduType::inf_error:
      if (!sized(kBasicBytes)) return std::nullopt;
      return request;
    case PduType::cfg_target_network_information:
    case PduType::cfg_source_network_information:
      if (pdu.size() < 7) {
        reason = "a length other than its type's";
        return std::nullopt;
      }
      request.data_id = get<std::uint16_t>(pdu, 4);
      request.transport = pdu[6];
      if (request.transport == kTransportUdpIpv4) {
        if (!sized(kNetworkInformationBytes)) return std::nullopt;
        request.port = get<std::uint16_t>(pdu, 7);
        request.address = get<std::uint32_t>(pdu, 9);
      }
      return request;
    case PduType::cfg_parameter:
      if (pdu.size() < kParameterHeaderBytes) {
        reason = "a length other than its type's";
        return std::nullopt;
      }
      request.value_reference = get<std::uint64_t>(pdu, 4);
      request.data_type = pdu[12];
      request.payload = pdu.subspan(kParameterHeaderBytes);
      return request;
    case PduType::cfg_scope:
      if (!sized(kScopeBytes)) return std::nullopt;
      request.data_id = get<std::uint16_t>(pdu, 4);
      request.scope = pdu[6];
      return request;
    default:
      reason = "a type couplet's DCP slave does not serve";
      return std::nullopt;
  }
}

std::size_t encode_ack(std::span<std::uint8_t> out, std::uint16_t sequence, std::uint8_t sender) {
  require_room(out, kAckBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::rsp_ack));
  put(out, 1, sequence);
  put(out, 3, sender);
  return kAckBytes;
}

std::size_t encode_nack(std::span<std::uint8_t> out, std::uint16_t sequence, std::uint8_t sender,
                        std::uint16_t expected_sequence, std::uint16_t error_code) {
  require_room(out, kNackBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::rsp_nack));
  put(out, 1, sequence);
  put(out, 3, sender);
  put(out, 4, expected_sequence);
  put(out, 6, error_code);
  return kNackBytes;
}

std::size_t encode_state_ack(std::span<std::uint8_t> out, std::uint16_t sequence,
                             std::uint8_t sender, State state) {
  require_room(out, kStateAckBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::rsp_state_ack));
  put(out, 1, sequence);
  put(out, 3, sender);
  put(out, 4, static_cast<std::uint8_t>(state));
  return kStateAckBytes;
}

std::size_t encode_error_ack(std::span<std::uint8_t> out, std::uint16_t sequence,
                             std::uint8_t sender, std::uint16_t error_code) {
  require_room(out, kErrorAckBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::rsp_error_ack));
  put(out, 1, sequence);
  put(out, 3, sender);
  put(out, 4, error_code);
  return kErrorAckBytes;
}

std::size_t encode_state_changed(std::span<std::uint8_t> out, std::uint8_t sender, State state) {
  require_room(out, kStateChangedBytes);
  put(out, 0, static_cast<std::uint8_t>(PduType::ntf_state_changed));
  put(out, 1, sender);
  put(out, 2, static_cast<std::uint8_t>(state));
  return kStateChangedBytes;
}

}  // namespace couplet::protocol::dcp
