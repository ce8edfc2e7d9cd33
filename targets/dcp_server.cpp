#include "targets/dcp_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <pugixml.hpp>
#include <sstream>

#include "couplet/errors.hpp"

namespace couplet::targets {

namespace dcp = protocol::dcp;
using dcp::PduType;
using dcp::State;

namespace {

// DCP 1.0's error codes that this slave answers with.
constexpr std::uint16_t kNotAllowedInThisState = 0x1003;
constexpr std::uint16_t kGenericError = 0x1001;
constexpr std::uint16_t kInvalidMajorVersion = 0x2005;
constexpr std::uint16_t kInvalidMinorVersion = 0x2006;
constexpr std::uint16_t kInvalidNetworkInformation = 0x2007;
constexpr std::uint16_t kInvalidOpMode = 0x2008;
constexpr std::uint16_t kInvalidScope = 0x200A;
constexpr std::uint16_t kInvalidSourceDataType = 0x200B;
constexpr std::uint16_t kInvalidStateId = 0x200D;
constexpr std::uint16_t kInvalidSteps = 0x200E;
constexpr std::uint16_t kInvalidTimeResolution = 0x200F;
constexpr std::uint16_t kInvalidTransportProtocol = 0x2010;
constexpr std::uint16_t kInvalidUuid = 0x2011;
constexpr std::uint16_t kInvalidValueReference = 0x2012;
constexpr std::uint16_t kInvalidSequenceId = 0x2013;
constexpr std::uint16_t kGapInputPosition = 0x3001;
constexpr std::uint16_t kGapOutputPosition = 0x3002;
constexpr std::uint16_t kNoInputNetworkInformation = 0x3004;
constexpr std::uint16_t kNoOutputNetworkInformation = 0x3005;
constexpr std::uint16_t kNoTimeResolution = 0x3009;

/// The requests each state takes (DCP 1.0's state machine, NonRealTime).
bool allowed(State state, PduType type) {
  switch (type) {
    case PduType::inf_state:
      return true;
    case PduType::inf_error:
      return state == State::error_handling || state == State::error_resolved;
    case PduType::stc_register:
      return state == State::alive;
    case PduType::stc_deregister:
      return state == State::configuration || state == State::stopped ||
             state == State::error_resolved;
    case PduType::stc_prepare:
    case PduType::cfg_time_res:
    case PduType::cfg_steps:
    case PduType::cfg_input:
    case PduType::cfg_output:
    case PduType::cfg_clear:
    case PduType::cfg_target_network_information:
    case PduType::cfg_source_network_information:
    case PduType::cfg_parameter:
    case PduType::cfg_scope:
      return state == State::configuration;
    case PduType::stc_configure:
      return state == State::prepared;
    case PduType::stc_initialize:
      return state == State::configured;
    case PduType::stc_run:
      return state == State::configured || state == State::synchronized;
    case PduType::stc_do_step:
      return state == State::synchronized || state == State::running;
    case PduType::stc_send_outputs:
      return state == State::initialized || state == State::computed;
    case PduType::stc_stop:
      return state != State::alive && state != State::configuration && state != State::stopping &&
             state != State::stopped && state != State::error_handling &&
             state != State::error_resolved;
    case PduType::stc_reset:
      return state == State::stopped || state == State::error_resolved;
    case PduType::dat_input_output:
      return state != State::alive && state != State::configuration;
    default:
      return false;
  }
}

bool is_stc(PduType type) {
  return static_cast<std::uint8_t>(type) >= 0x01 && static_cast<std::uint8_t>(type) <= 0x0A;
}

drivers::PeerAddress ipv4_peer(std::uint32_t address, std::uint16_t port) {
  sockaddr_in socket_address{};
  socket_address.sin_family = AF_INET;
  socket_address.sin_port = htons(port);
  socket_address.sin_addr.s_addr = htonl(address);
  drivers::PeerAddress peer;
  std::memcpy(peer.bytes.data(), &socket_address, sizeof socket_address);
  peer.size = sizeof socket_address;
  return peer;
}

}  // namespace

DcpServer::DcpServer(std::shared_ptr<const models::SlaveSource> source,
                     ParameterOverrides parameters, std::string name)
    : source_(std::move(source)), parameters_(std::move(parameters)), name_(std::move(name)) {
  // The description, from a slave made now: the command line's parameters are
  // checked at start, not when a master prepares.
  slave_description_ =
      source_->make_slave({name_, parameters_, {}, {}, std::nullopt})->description();
  // A UUID that names what is served (BLAKE2b of its identity): the same
  // model or FMU gives the same UUID, as its description file expects.
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialize");
  const std::string identity = source_->identity();
  crypto_generichash(uuid_.data(), uuid_.size(),
                     reinterpret_cast<const unsigned char*>(identity.data()), identity.size(),
                     nullptr, 0);
  uuid_[6] = static_cast<std::uint8_t>((uuid_[6] & 0x0F) | 0x50);  // name-based, RFC 4122 style
  uuid_[8] = static_cast<std::uint8_t>((uuid_[8] & 0x3F) | 0x80);
  std::uint64_t reference = 1;
  const auto add = [&](const std::string& variable, bool output, bool discrete, std::size_t port,
                       dcp::DataType type, const std::string& unit) {
    variables_.push_back({variable, reference++, output, discrete, port, type, unit});
  };
  const SlaveDescription& d = slave_description_;
  for (std::size_t i = 0; i < d.inputs.size(); ++i)
    add(d.inputs[i].name, false, false, i, dcp::DataType::float64, d.inputs[i].unit);
  for (std::size_t i = 0; i < d.outputs.size(); ++i)
    add(d.outputs[i].name, true, false, i, dcp::DataType::float64, d.outputs[i].unit);
  const auto discrete_type = [](DiscreteType type) {
    return type == DiscreteType::boolean ? dcp::DataType::uint8 : dcp::DataType::int64;
  };
  for (std::size_t i = 0; i < d.discrete_inputs.size(); ++i)
    add(d.discrete_inputs[i].name, false, true, i, discrete_type(d.discrete_inputs[i].type),
        d.discrete_inputs[i].unit);
  for (std::size_t i = 0; i < d.discrete_outputs.size(); ++i)
    add(d.discrete_outputs[i].name, true, true, i, discrete_type(d.discrete_outputs[i].type),
        d.discrete_outputs[i].unit);
  input_values_.assign(d.inputs.size(), 0.0);
  input_polynomials_.assign(d.inputs.size(), Polynomial());
  end_outputs_.assign((d.capabilities.output_derivative_order + 1) * d.outputs.size(), 0.0);
  discrete_inputs_.resize(d.discrete_inputs.size());
  for (std::size_t i = 0; i < d.discrete_inputs.size(); ++i)
    discrete_inputs_[i] = d.discrete_inputs[i].start;
  discrete_outputs_.assign(d.discrete_outputs.size(), 0);
}

DcpServer::~DcpServer() = default;

std::string DcpServer::slave_description(const std::string& host, std::uint16_t port) const {
  pugi::xml_document document;
  auto declaration = document.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  declaration.append_attribute("encoding") = "UTF-8";
  pugi::xml_node root = document.append_child("dcpSlaveDescription");
  root.append_attribute("dcpMajorVersion") = 1;
  root.append_attribute("dcpMinorVersion") = 0;
  root.append_attribute("dcpSlaveName") = name_.c_str();
  char uuid[37];
  std::snprintf(uuid, sizeof uuid,
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", uuid_[0],
                uuid_[1], uuid_[2], uuid_[3], uuid_[4], uuid_[5], uuid_[6], uuid_[7], uuid_[8],
                uuid_[9], uuid_[10], uuid_[11], uuid_[12], uuid_[13], uuid_[14], uuid_[15]);
  root.append_attribute("uuid") = uuid;
  pugi::xml_node nrt = root.append_child("OpMode").append_child("NonRealTime");
  nrt.append_attribute("defaultSteps") = 1;
  nrt.append_attribute("fixedSteps") = false;
  // Any resolution: the master's macro step, or a divisor of it.
  pugi::xml_node range = root.append_child("TimeRes").append_child("ResolutionRange");
  range.append_attribute("numeratorFrom") = 1;
  range.append_attribute("numeratorTo") = 4294967295U;
  range.append_attribute("denominator") = 1000000000U;
  pugi::xml_node udp = root.append_child("TransportProtocols").append_child("UDP_IPv4");
  pugi::xml_node control = udp.append_child("Control");
  control.append_attribute("host") = host.c_str();
  control.append_attribute("port") = port;
  pugi::xml_node data = udp.append_child("DAT_input_output");
  data.append_attribute("host") = host.c_str();
  pugi::xml_node ports = data.append_child("AvailablePort");
  ports.append_attribute("port") = port;  // one socket for everything
  pugi::xml_node flags = root.append_child("CapabilityFlags");
  flags.append_attribute("canAcceptConfigPdus") = true;
  flags.append_attribute("canHandleReset") = true;
  flags.append_attribute("canHandleVariableSteps") = true;
  pugi::xml_node list = root.append_child("Variables");
  for (const DcpServedVariable& served : variables_) {
    pugi::xml_node node = list.append_child("Variable");
    node.append_attribute("name") = served.name.c_str();
    node.append_attribute("valueReference") =
        static_cast<unsigned long long>(served.value_reference);
    pugi::xml_node causality = node.append_child(served.output ? "Output" : "Input");
    pugi::xml_node type = causality.append_child(dcp::to_string(served.type).c_str());
    if (!served.output) {
      const double start =
          served.discrete ? static_cast<double>(discrete_inputs_[served.port]) : 0.0;
      type.append_attribute("start") = start;
    }
    if (!served.unit.empty() && !served.discrete)
      type.append_attribute("unit") = served.unit.c_str();
  }
  std::ostringstream text;
  document.save(text, "  ");
  return text.str();
}

drivers::DcpSlot DcpServer::slot_of(std::uint64_t value_reference, dcp::DataType type) const {
  const DcpServedVariable& served = *variable(value_reference);
  return {value_reference, type, served.discrete, served.port};
}

const DcpServedVariable* DcpServer::variable(std::uint64_t value_reference) const {
  if (value_reference == 0 || value_reference > variables_.size()) return nullptr;
  return &variables_[value_reference - 1];
}

void DcpServer::enter(State state) {
  state_ = state;
  transport_->send_to({buffer_.data(), dcp::encode_state_changed(buffer_, id_, state)}, master_);
}

void DcpServer::clear_configuration() {
  inputs_.clear();
  outputs_.clear();
  numerator_ = denominator_ = 0;
  slave_.reset();
}

void DcpServer::fail(const std::string& why) {
  std::cerr << name_ << ": DCP slave error: " << why << "\n";
  error_code_ = kGenericError;
  enter(State::error_handling);
  slave_.reset();
  enter(State::error_resolved);
}

std::uint16_t DcpServer::check(const dcp::Request& request, std::uint16_t own_port) const {
  if (!allowed(state_, request.type)) return kNotAllowedInThisState;
  if (is_stc(request.type) && request.state != state_) return kInvalidStateId;
  switch (request.type) {
    case PduType::stc_register:
      if (request.uuid != uuid_) return kInvalidUuid;
      if (request.op_mode != static_cast<std::uint8_t>(dcp::OpMode::non_real_time))
        return kInvalidOpMode;
      if (request.major != 1) return kInvalidMajorVersion;
      if (request.minor != 0) return kInvalidMinorVersion;
      return 0;
    case PduType::stc_prepare: {
      if (numerator_ == 0) return kNoTimeResolution;
      // A data id without positions (only its scope or network information
      // configured) carries nothing.
      for (const auto& [id, data] : inputs_) {
        if (data.positions.empty()) continue;
        if (!data.source_configured) return kNoInputNetworkInformation;
        if (data.positions.rbegin()->first + 1u != data.positions.size()) return kGapInputPosition;
      }
      for (const auto& [id, data] : outputs_) {
        if (data.positions.empty()) continue;
        if (!data.target) return kNoOutputNetworkInformation;
        if (data.positions.rbegin()->first + 1u != data.positions.size()) return kGapOutputPosition;
      }
      return 0;
    }
    case PduType::stc_do_step:
      return request.steps == 0 ? kInvalidSteps : 0;
    case PduType::cfg_time_res:
      if (request.numerator == 0 || request.denominator == 0 ||
          std::uint64_t{request.numerator} * kTicksPerSecond % request.denominator != 0) {
        return kInvalidTimeResolution;  // ticks of whole nanoseconds only
      }
      return 0;
    case PduType::cfg_input: {
      const DcpServedVariable* target = variable(request.value_reference);
      if (target == nullptr || target->output) return kInvalidValueReference;
      if (request.data_type > static_cast<std::uint8_t>(dcp::DataType::float64))
        return kInvalidSourceDataType;
      return 0;
    }
    case PduType::cfg_output: {
      const DcpServedVariable* source = variable(request.value_reference);
      return source == nullptr || !source->output ? kInvalidValueReference : 0;
    }
    case PduType::cfg_parameter:
      return kInvalidValueReference;  // none: --param sets them
    case PduType::cfg_source_network_information:
    case PduType::cfg_target_network_information:
      if (request.transport != dcp::kTransportUdpIpv4) return kInvalidTransportProtocol;
      if (request.type == PduType::cfg_source_network_information && request.port != own_port)
        return kInvalidNetworkInformation;  // everything comes through the one socket
      return request.port == 0 ? kInvalidNetworkInformation : 0;
    case PduType::cfg_scope:
      return request.scope > 2 ? kInvalidScope : 0;
    default:
      return 0;
  }
}

void DcpServer::configure(const dcp::Request& request) {
  switch (request.type) {
    case PduType::cfg_time_res:
      numerator_ = request.numerator;
      denominator_ = request.denominator;
      break;
    case PduType::cfg_input:
      inputs_[request.data_id].positions[request.position] =
          slot_of(request.value_reference, static_cast<dcp::DataType>(request.data_type));
      break;
    case PduType::cfg_output:
      outputs_[request.data_id].positions[request.position] =
          slot_of(request.value_reference, variable(request.value_reference)->type);
      break;
    case PduType::cfg_source_network_information:
      inputs_[request.data_id].source_configured = true;
      break;
    case PduType::cfg_target_network_information:
      outputs_[request.data_id].target = ipv4_peer(request.address, request.port);
      break;
    case PduType::cfg_scope: {
      auto& data =
          inputs_.count(request.data_id) ? inputs_[request.data_id] : outputs_[request.data_id];
      data.scope = static_cast<dcp::Scope>(request.scope);
      break;
    }
    case PduType::cfg_clear:
      clear_configuration();
      last_sequence_ = register_sequence_;  // as after STC_register (as DCPLib's slaves do)
      break;
    default:
      break;  // CFG_steps: NonRealTime sends outputs when asked
  }
}

void DcpServer::take_inputs(const dcp::Request& request) {
  const auto data = inputs_.find(request.data_id);
  if (data == inputs_.end()) {
    ++counters_.foreign;
    return;
  }
  if (request.payload.size() != data->second.bytes) {
    ++counters_.rejected;
    return;
  }
  drivers::unpack_values(data->second.slots, request.payload, input_values_, discrete_inputs_);
}

void DcpServer::send_outputs(bool initialization) {
  for (auto& [id, data] : outputs_) {
    if (data.slots.empty() ||
        (initialization ? data.scope == dcp::Scope::run : data.scope == dcp::Scope::initialization))
      continue;
    dcp::encode_data_header(buffer_, data.sequence++, id);
    const std::size_t bytes =
        drivers::pack_values(data.slots, end_outputs_, discrete_outputs_,
                             std::span(buffer_).subspan(dcp::kDataHeaderBytes));
    transport_->send_to({buffer_.data(), dcp::kDataHeaderBytes + bytes}, *data.target);
  }
}

void DcpServer::carry_out(const dcp::Request& request) {
  try {
    switch (request.type) {
      case PduType::stc_prepare:
        enter(State::preparing);
        for (auto* data_ids : {&inputs_, &outputs_}) {
          for (auto& [id, data] : *data_ids) {  // positions without gaps: checked
            data.slots.clear();
            for (const auto& [position, slot] : data.positions) data.slots.push_back(slot);
            data.bytes = drivers::payload_bytes(data.slots);
          }
        }
        slave_ = source_->make_slave({name_, parameters_, {}, {}, std::nullopt});
        enter(State::prepared);
        break;
      case PduType::stc_configure:
        enter(State::configuring);
        enter(State::configured);
        break;
      case PduType::stc_initialize: {
        enter(State::initializing);
        time_ = 0;
        slave_->setup(time_);
        for (std::size_t i = 0; i < input_values_.size(); ++i)
          input_polynomials_[i] = Polynomial::constant(0.0, input_values_[i]);
        slave_->evaluate_outputs(input_polynomials_, end_outputs_);
        slave_->evaluate_discrete_outputs(discrete_outputs_);
        enter(State::initialized);
        break;
      }
      case PduType::stc_send_outputs: {
        const bool initialization = state_ == State::initialized;
        enter(initialization ? State::sending_i : State::sending_d);
        send_outputs(initialization);
        enter(initialization ? State::configured : State::running);
        break;
      }
      case PduType::stc_run:
        if (state_ == State::configured) {
          enter(State::synchronizing);
          enter(State::synchronized);
        } else {
          enter(State::running);
        }
        break;
      case PduType::stc_do_step: {
        enter(State::computing);
        const Time resolution =
            static_cast<Time>(std::uint64_t{numerator_} * kTicksPerSecond / denominator_);
        const Time end = time_ + resolution * Time{request.steps};
        const double start = to_seconds(time_);
        for (std::size_t i = 0; i < input_values_.size(); ++i)
          input_polynomials_[i] = Polynomial::constant(start, input_values_[i]);
        slave_->step({time_, end, input_polynomials_, {}, discrete_inputs_},
                     {end_outputs_, {}, discrete_outputs_});
        time_ = end;
        ++counters_.steps;
        enter(State::computed);
        break;
      }
      case PduType::stc_stop:
        enter(State::stopping);
        enter(State::stopped);
        break;
      case PduType::stc_reset:
        error_code_ = 0;
        clear_configuration();
        last_sequence_ = register_sequence_;  // as after STC_register (as DCPLib's slaves do)
        enter(State::configuration);
        break;
      case PduType::stc_deregister:
        clear_configuration();
        enter(State::alive);
        ++counters_.sessions;
        break;
      default:
        break;
    }
  } catch (const std::exception& error) {
    fail(error.what());
  }
}

void DcpServer::handle(std::span<const std::uint8_t> datagram, const drivers::PeerAddress& sender,
                       drivers::Transport& transport, std::uint16_t own_port) {
  transport_ = &transport;
  ++counters_.datagrams;
  const char* reason = nullptr;
  const std::optional<dcp::Request> decoded = dcp::decode_request(datagram, reason);
  if (!decoded) {
    ++counters_.rejected;
    return;
  }
  const dcp::Request& request = *decoded;
  if (request.type == PduType::dat_input_output) {
    if (state_ != State::alive && sender == master_ && allowed(state_, request.type))
      take_inputs(request);
    else
      ++counters_.foreign;
    return;
  }
  if (request.type == PduType::inf_state && state_ == State::alive) {
    transport.send_to({buffer_.data(),
                       dcp::encode_state_ack(buffer_, request.sequence, request.receiver, state_)},
                      sender);
    return;
  }
  if (state_ != State::alive && (request.receiver != id_ || !(sender == master_))) {
    ++counters_.foreign;
    return;
  }
  if (state_ != State::alive &&
      request.sequence != static_cast<std::uint16_t>(last_sequence_ + 1)) {
    ++counters_.nacks;
    transport.send_to(
        {buffer_.data(),
         dcp::encode_nack(buffer_, request.sequence, id_,
                          static_cast<std::uint16_t>(last_sequence_ + 1), kInvalidSequenceId)},
        sender);
    return;
  }
  if (const std::uint16_t error = check(request, own_port)) {
    ++counters_.nacks;
    const std::uint8_t answering = state_ == State::alive ? request.receiver : id_;
    const auto expected = static_cast<std::uint16_t>(state_ == State::alive ? request.sequence + 1
                                                                            : last_sequence_ + 1);
    transport.send_to(
        {buffer_.data(), dcp::encode_nack(buffer_, request.sequence, answering, expected, error)},
        sender);
    return;
  }
  last_sequence_ = request.sequence;
  if (request.type == PduType::stc_register) {
    id_ = request.receiver;
    master_ = sender;
    register_sequence_ = request.sequence;
    transport.send_to({buffer_.data(), dcp::encode_ack(buffer_, request.sequence, id_)}, sender);
    enter(State::configuration);
    return;
  }
  if (request.type == PduType::inf_state) {
    transport.send_to(
        {buffer_.data(), dcp::encode_state_ack(buffer_, request.sequence, id_, state_)}, sender);
    return;
  }
  if (request.type == PduType::inf_error) {
    transport.send_to(
        {buffer_.data(), dcp::encode_error_ack(buffer_, request.sequence, id_, error_code_)},
        sender);
    return;
  }
  transport.send_to({buffer_.data(), dcp::encode_ack(buffer_, request.sequence, id_)}, sender);
  if (static_cast<std::uint8_t>(request.type) >= 0x20) {
    configure(request);
  } else {
    carry_out(request);
  }
  if (state_ == State::alive) master_ = {};
}

void serve_dcp(DcpServer& server, drivers::Transport& transport, std::uint16_t own_port, bool once,
               const std::atomic<bool>& stop) {
  std::array<std::uint8_t, protocol::dcp::kMaxPduBytes> datagram{};
  while (!stop.load()) {
    const std::size_t size =
        transport.receive(datagram, drivers::SteadyClock::now() + std::chrono::milliseconds(100));
    if (size == 0) continue;
    server.handle({datagram.data(), size}, transport.last_sender(), transport, own_port);
    if (once && server.counters().sessions > 0) return;
  }
}

}  // namespace couplet::targets
