#include "drivers/dcp_slave.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <limits>
#include <numeric>

#include "couplet/errors.hpp"
#include "drivers/dcp_values.hpp"
#include "drivers/endpoint.hpp"
#include "drivers/udp_transport.hpp"

namespace couplet::drivers {

namespace dcp = protocol::dcp;

namespace {

// couplet's data ids: one for the inputs it sends, one for the outputs it receives.
constexpr std::uint16_t kInputDataId = 1;
constexpr std::uint16_t kOutputDataId = 2;
// The id couplet gives the slave (STC_register's receiver). Each DCP slave has
// a socket of its own, so one id serves all.
constexpr std::uint8_t kSlaveId = 1;

bool is_real(dcp::DataType type) {
  return type == dcp::DataType::float32 || type == dcp::DataType::float64;
}

/// `host` (an IPv4 address or a name) as DCP's network information writes it.
std::uint32_t ipv4_of(const std::string& host, const std::string& what) {
  boost::asio::io_context io;
  const boost::asio::ip::address address = resolve_udp_endpoint(io, host + ":0", what).address();
  if (!address.is_v4())
    throw ConfigurationError(what + ": '" + host + "' is not IPv4 (DCP over UDP_IPv4)");
  return address.to_v4().to_uint();
}

bool contains(const std::optional<std::vector<std::string>>& names, const std::string& name) {
  return !names || std::find(names->begin(), names->end(), name) != names->end();
}

class DcpSlave final : public LinkedSlave {
 public:
  explicit DcpSlave(const DcpSlaveSettings& settings);
  ~DcpSlave() override;
  DcpSlave(const DcpSlave&) = delete;
  DcpSlave& operator=(const DcpSlave&) = delete;

  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override;
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) override;
  void step(const StepRequest& request, const OutputBuffers& result) override;
  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override;
  LinkStepReport last_link_report() const override { return link_report_; }
  std::string link_name() const override { return "dcp udp " + control_; }
  const LinkCounters& counters() const override { return counters_; }
  void bind_wall_clock(const WallClock& clock, const WallClockPolicy& policy,
                       LatenessStatistics* input_lateness) override;
  bool runs_in_real_time() const override { return soft_real_time_; }
  void send_start(double realtime_factor) override;
  void await_start() override;
  /// INF_state asks after a silent slave already; DCP has no other sign of life.
  void heartbeat() override {}

 private:
  struct Outstanding {
    std::uint16_t sequence = 0;
    dcp::PduType type = dcp::PduType::inf_state;
    std::size_t size = 0;
    Deadline sent_at{};
    bool retransmitted = false;
  };

  void describe_ports(const DcpSlaveSettings& settings);
  void configure_slave();
  dcp::RequestHeader next_header() { return {++sequence_, kSlaveId}; }
  /// Sends the request in request_buffer_ and waits for its answer.
  void request(std::size_t size);
  void send_outstanding(std::size_t size);
  void stc(dcp::PduType type, dcp::State expected);
  void await_state(dcp::State target, const char* activity);
  void await_outputs(const char* activity);
  /// What `pump` awaited, for messages: `activity`, or for nullptr the
  /// answer to the outstanding request (formatted only when it fails, so that
  /// stepping allocates nothing).
  std::string awaited(const char* activity) const;
  /// Receives and handles datagrams until `done()`, retransmitting the
  /// outstanding request, asking after the slave's state while it is silent,
  /// and failing when it stays silent for the peer timeout. Returns true once
  /// `done()`; at `limit`, fails with `over_limit`, or returns false when that
  /// is null.
  template <typename Done>
  bool pump(Done done, const char* activity, Deadline limit = Deadline::max(),
            const char* over_limit = nullptr);
  void handle(std::span<const std::uint8_t> datagram);
  void take_outputs(const dcp::Answer& answer);
  void send_inputs(const StepRequest& request);
  void run_to(dcp::State expected);
  void step_on_own_clock(const StepRequest& request, const OutputBuffers& result);
  void copy_held(const OutputBuffers& result) const;
  [[noreturn]] void fail(const std::string& why) const;
  std::string nack_text(const dcp::Answer& answer) const;
  void shut_down() noexcept;

  std::string name_;
  DcpDescription dcp_;
  std::string control_;
  LinkPolicy policy_;
  LinkCounters counters_;
  std::unique_ptr<UdpTransport> transport_;
  std::uint32_t own_address_ = 0;
  std::uint16_t own_port_ = 0;
  std::uint32_t slave_data_address_ = 0;
  std::uint16_t slave_data_port_ = 0;
  std::uint32_t resolution_numerator_ = 1;
  std::uint32_t resolution_denominator_ = 1000;
  Time resolution_ticks_ = 0;

  SlaveDescription description_;
  std::vector<DcpSlot> inputs_;       ///< input data id's positions
  std::vector<DcpSlot> outputs_;      ///< output data id's positions
  std::vector<double> input_values_;  ///< the Real inputs at the step start
  std::vector<std::pair<const DcpVariable*, double>> parameters_;
  std::size_t input_payload_bytes_ = 0;
  std::size_t output_payload_bytes_ = 0;

  std::uint16_t sequence_ = 0;
  std::optional<Outstanding> outstanding_;
  std::optional<dcp::State> state_;  ///< as the slave last said; unknown after an STC request
  Deadline silent_since_{};
  std::uint16_t input_sequence_ = 0;
  std::optional<std::uint16_t> output_sequence_;  ///< of the DAT PDU last taken
  bool outputs_fresh_ = false;
  const char* last_drop_ = nullptr;
  bool registered_ = false;
  // SoftRealTime (a wall-clock run): the slave sends its outputs every macro
  // step on its own clock; the k-th after the initial ones belongs to
  // start + k·macro_step.
  bool soft_real_time_ = false;
  Time macro_step_ = 0;
  Time start_ = 0;
  std::uint16_t origin_sequence_ = 0;             ///< of the initial outputs
  std::optional<std::uint16_t> wanted_sequence_;  ///< of the outputs the step awaits
  const WallClock* clock_ = nullptr;
  MissedResults missed_;
  LinkStepReport link_report_;
  bool set_up_ = false;
  Time time_ = 0;

  std::vector<double> held_outputs_;
  std::vector<std::int64_t> held_discrete_;
  std::array<std::uint8_t, dcp::kMaxPduBytes> request_buffer_{};
  std::array<std::uint8_t, dcp::kMaxPduBytes> data_buffer_{};
  std::array<std::uint8_t, dcp::kMaxPduBytes> receive_buffer_{};
};

DcpSlave::DcpSlave(const DcpSlaveSettings& settings)
    : name_(settings.slave_name), dcp_(settings.description), policy_(settings.policy) {
  const std::string what = "DCP slave '" + name_ + "' (" + dcp_.file + ")";
  if (!dcp_.non_real_time && !dcp_.soft_real_time) {
    throw ConfigurationError(what +
                             ": it offers neither NonRealTime nor SoftRealTime, the modes "
                             "couplet drives (HardRealTime only)");
  }
  soft_real_time_ = !dcp_.non_real_time;  // and under a wall clock, see bind_wall_clock
  macro_step_ = settings.macro_step;
  if (!settings.control.empty()) {
    control_ = settings.control;
  } else {
    if (dcp_.control_host.empty() || dcp_.control_port == 0) {
      throw ConfigurationError(what +
                               ": its description names no control endpoint "
                               "(<Control host port>): give link: {udp: \"HOST:PORT\"}");
    }
    control_ = dcp_.control_host + ":" + std::to_string(dcp_.control_port);
  }
  const HostPort control = parse_host_port(control_, what + ": control endpoint");
  std::tie(resolution_numerator_, resolution_denominator_) =
      choose_time_resolution(dcp_, settings.macro_step);
  resolution_ticks_ = static_cast<Time>(std::uint64_t{resolution_numerator_} * kTicksPerSecond /
                                        resolution_denominator_);
  describe_ports(settings);
  for (const auto& [name, value] : settings.parameters) {
    const std::string& parameter = name;  // clang 14 lets no lambda capture a structured binding
    const auto variable = std::find_if(dcp_.variables.begin(), dcp_.variables.end(),
                                       [&](const DcpVariable& v) { return v.name == parameter; });
    if (variable == dcp_.variables.end() ||
        (variable->causality != DcpVariable::Causality::parameter &&
         variable->causality != DcpVariable::Causality::structural_parameter) ||
        !dcp::is_numeric(variable->type)) {
      throw ConfigurationError(what + ": parameters." + parameter +
                               ": no numeric Parameter of that name in the description");
    }
    parameters_.emplace_back(&*variable, value);
  }
  // The slave's data port: its control port when the description allows it
  // (one socket on the slave), else the first it offers.
  slave_data_port_ = control.port;
  if (!dcp_.data_ports.empty() &&
      std::none_of(dcp_.data_ports.begin(), dcp_.data_ports.end(), [&](const DcpPortRange& r) {
        return r.from <= control.port && control.port <= r.to;
      })) {
    slave_data_port_ = dcp_.data_ports.front().from;
  }
  transport_ = UdpTransport::connect(control_);
  const HostPort local = parse_host_port(transport_->local_endpoint(), "local endpoint");
  own_address_ = ipv4_of(local.host, what + ": couplet's own address");
  own_port_ = local.port;
  const std::string data_host = dcp_.data_host.empty() ? control.host : dcp_.data_host;
  slave_data_address_ = ipv4_of(data_host, what + ": the slave's data host");
}

DcpSlave::~DcpSlave() {
  shut_down();
}

void DcpSlave::describe_ports(const DcpSlaveSettings& settings) {
  for (const DcpVariable& variable : dcp_.variables) {
    if (!dcp::is_numeric(variable.type)) continue;
    if (variable.causality == DcpVariable::Causality::input) {
      if (!contains(settings.coupled_inputs, variable.name)) continue;
      DcpSlot binding{variable.value_reference, variable.type, !is_real(variable.type), 0};
      if (binding.discrete) {
        binding.port = description_.discrete_inputs.size();
        description_.discrete_inputs.push_back(
            {variable.name, DiscreteType::integer, variable.unit,
             static_cast<std::int64_t>(variable.start.value_or(0.0))});
      } else {
        binding.port = description_.inputs.size();
        description_.inputs.push_back({variable.name, variable.unit, std::nullopt});
      }
      inputs_.push_back(binding);
    } else if (variable.causality == DcpVariable::Causality::output) {
      DcpSlot binding{variable.value_reference, variable.type, !is_real(variable.type), 0};
      if (binding.discrete) {
        binding.port = description_.discrete_outputs.size();
        description_.discrete_outputs.push_back(
            {variable.name, DiscreteType::integer, variable.unit, 0});
        held_discrete_.push_back(static_cast<std::int64_t>(variable.start.value_or(0.0)));
      } else {
        binding.port = description_.outputs.size();
        description_.outputs.push_back({variable.name, false, variable.unit, std::nullopt});
        held_outputs_.push_back(variable.start.value_or(0.0));
      }
      outputs_.push_back(binding);
    }
  }
  input_values_.resize(description_.inputs.size());
  input_payload_bytes_ = payload_bytes(inputs_);
  output_payload_bytes_ = payload_bytes(outputs_);
  if (dcp::kDataHeaderBytes + std::max(input_payload_bytes_, output_payload_bytes_) >
      std::min<std::size_t>(dcp_.max_pdu_size, dcp::kMaxPduBytes)) {
    throw ConfigurationError("DCP slave '" + name_ + "' (" + dcp_.file +
                             "): its exchanged values do not fit one PDU of maxPduSize " +
                             std::to_string(dcp_.max_pdu_size) + " bytes");
  }
  SlaveCapabilities& capabilities = description_.capabilities;
  capabilities.max_input_degree = 0;
  capabilities.can_rollback = false;
  capabilities.intermediate_samples = false;
  if (const auto& nrt = dcp_.non_real_time) {
    capabilities.variable_step = !nrt->fixed_steps && dcp_.can_handle_variable_steps;
    capabilities.imposed_step =
        resolution_ticks_ * (capabilities.variable_step ? 1 : Time{nrt->default_steps});
  } else {  // SoftRealTime only: see bind_wall_clock
    capabilities.variable_step = false;
    capabilities.imposed_step = resolution_ticks_;
  }
}

}  // namespace

std::pair<std::uint32_t, std::uint32_t> choose_time_resolution(const DcpDescription& description,
                                                               Time macro_step) {
  const std::string what = "DCP slave '" + description.slave_name + "' (" + description.file + ")";
  const auto whole_nanoseconds = [](std::uint64_t numerator, std::uint64_t denominator) {
    return numerator * kTicksPerSecond % denominator == 0;
  };
  // A fixed resolution is the slave's to choose: the recommended one, else the first.
  std::optional<DcpResolution> fixed;
  for (const DcpResolution& resolution : description.resolutions) {
    if (resolution.fixed && (!fixed || (resolution.recommended && !fixed->recommended)))
      fixed = resolution;
  }
  if (fixed) {
    if (!whole_nanoseconds(fixed->numerator, fixed->denominator)) {
      throw ConfigurationError(what + ": its fixed time resolution " +
                               std::to_string(fixed->numerator) + "/" +
                               std::to_string(fixed->denominator) +
                               " s is no whole number of nanoseconds, couplet's time unit");
    }
    return {fixed->numerator, fixed->denominator};
  }
  if (macro_step <= 0) {
    throw ConfigurationError(
        what +
        ": the slave fixes no time resolution and the algorithm no macro step: give "
        "the slave capabilities: {imposed_step: SECONDS}, its time resolution");
  }
  // The macro step itself, as a reduced fraction of seconds.
  const std::uint64_t divisor =
      std::gcd(static_cast<std::uint64_t>(macro_step), static_cast<std::uint64_t>(kTicksPerSecond));
  const std::uint64_t numerator = static_cast<std::uint64_t>(macro_step) / divisor;
  const std::uint64_t denominator = kTicksPerSecond / divisor;
  if (numerator > std::numeric_limits<std::uint32_t>::max())
    throw ConfigurationError(what + ": the macro step is too long for a DCP time resolution");
  const bool offered =
      (description.resolutions.empty() && description.resolution_ranges.empty()) ||
      std::any_of(description.resolutions.begin(), description.resolutions.end(),
                  [&](const DcpResolution& r) {
                    return std::uint64_t{r.numerator} * denominator ==
                           numerator * std::uint64_t{r.denominator};
                  }) ||
      std::any_of(description.resolution_ranges.begin(), description.resolution_ranges.end(),
                  [&](const DcpResolutionRange& r) {
                    // numerator/denominator = n/r.denominator for a whole n in range
                    const std::uint64_t scaled = numerator * r.denominator;
                    return scaled % denominator == 0 && scaled / denominator >= r.numerator_from &&
                           scaled / denominator <= r.numerator_to;
                  });
  if (!offered) {
    throw ConfigurationError(what + ": it offers no time resolution of the macro step (" +
                             std::to_string(numerator) + "/" + std::to_string(denominator) +
                             " s); `couplet models " + description.file +
                             "` lists those it offers");
  }
  return {static_cast<std::uint32_t>(numerator), static_cast<std::uint32_t>(denominator)};
}

namespace {

void DcpSlave::fail(const std::string& why) const {
  std::string message = "DCP slave '" + name_ + "' (" + link_name() + "): " + why;
  if (counters_.drops > 0 && last_drop_ != nullptr) {
    message += " (" + std::to_string(counters_.drops) +
               " malformed datagram(s) discarded, the last: " + last_drop_ + ")";
  }
  throw SlaveError(message);
}

std::string DcpSlave::awaited(const char* activity) const {
  if (activity != nullptr) return activity;
  return "the answer to " + (outstanding_ ? dcp::to_string(outstanding_->type) : "a request");
}

std::string DcpSlave::nack_text(const dcp::Answer& answer) const {
  return "it refused " + dcp::to_string(outstanding_->type) + " (sequence " +
         std::to_string(answer.sequence) + ") with RSP_nack " + dcp::error_text(answer.error_code) +
         (state_ ? "; its state: " + dcp::to_string(*state_) : std::string());
}

void DcpSlave::send_outstanding(std::size_t size) {
  const auto type = static_cast<dcp::PduType>(request_buffer_[0]);
  outstanding_ = Outstanding{sequence_, type, size, SteadyClock::now(), false};
  silent_since_ = outstanding_->sent_at;
  ++counters_.requests;
  transport_->send({request_buffer_.data(), size});
}

void DcpSlave::request(std::size_t size) {
  send_outstanding(size);
  pump([&] { return !outstanding_; }, nullptr);
}

void DcpSlave::stc(dcp::PduType type, dcp::State expected) {
  const std::size_t size = dcp::encode_stc(request_buffer_, type, next_header(), expected);
  state_.reset();
  request(size);
}

template <typename Done>
bool DcpSlave::pump(Done done, const char* activity, Deadline limit, const char* over_limit) {
  std::optional<Deadline> interrupt_limit;
  for (;;) {
    if (done()) return true;
    if (state_ == dcp::State::error_handling || state_ == dcp::State::error_resolved)
      fail("it went to " + dcp::to_string(*state_) + " while couplet awaited " + awaited(activity));
    const Deadline now = SteadyClock::now();
    if (now - silent_since_ > policy_.peer_timeout) {
      fail("no answer for " + std::to_string(policy_.peer_timeout.count() / 1000) +
           " ms while couplet awaited " + awaited(activity) + ": the slave is dead or unreachable");
    }
    if (now > limit) {
      if (over_limit == nullptr) return false;
      fail(std::string(over_limit) + " (couplet awaited " + awaited(activity) + ")");
    }
    if (policy_.interrupted != nullptr && policy_.interrupted()) {
      if (!interrupt_limit) interrupt_limit = now + kInterruptPatience;
      if (now > *interrupt_limit) fail("interrupted while awaiting " + awaited(activity));
    }
    Deadline next = std::min(silent_since_ + policy_.peer_timeout, limit);
    if (outstanding_) {
      const Deadline resend = outstanding_->sent_at + policy_.retransmit_interval;
      if (now >= resend) {
        transport_->send({request_buffer_.data(), outstanding_->size});
        outstanding_->sent_at = now;
        outstanding_->retransmitted = true;
        ++counters_.retransmissions;
        continue;
      }
      next = std::min(next, resend);
    } else {
      // Awaiting a state or data while the slave says nothing: ask after it
      // (INF_state), which also recovers a lost state notification.
      const Deadline probe = silent_since_ + policy_.retransmit_interval;
      if (now >= probe) {
        const Deadline silent = silent_since_;
        send_outstanding(
            dcp::encode_basic(request_buffer_, dcp::PduType::inf_state, next_header()));
        silent_since_ = silent;  // a probe is no sign of life
        continue;
      }
      next = std::min(next, probe);
    }
    if (interrupt_limit) next = std::min(next, *interrupt_limit);
    const std::size_t size = transport_->receive(receive_buffer_, next);
    if (size > 0) handle({receive_buffer_.data(), size});
  }
}

void DcpSlave::handle(std::span<const std::uint8_t> datagram) {
  const char* reason = nullptr;
  const std::optional<dcp::Answer> answer = dcp::decode_answer(datagram, reason);
  if (!answer) {
    ++counters_.drops;
    last_drop_ = reason;
    return;
  }
  if (answer->kind == dcp::AnswerKind::data) {
    silent_since_ = SteadyClock::now();
    take_outputs(*answer);
    return;
  }
  if (answer->sender != kSlaveId) {
    ++counters_.foreign;
    return;
  }
  silent_since_ = SteadyClock::now();
  const bool answers_outstanding = outstanding_ && answer->sequence == outstanding_->sequence;
  switch (answer->kind) {
    case dcp::AnswerKind::ack:
    case dcp::AnswerKind::error_ack:
      if (answers_outstanding)
        outstanding_.reset();
      else
        ++counters_.duplicates;
      return;
    case dcp::AnswerKind::state_ack:
      if (answers_outstanding) {
        outstanding_.reset();
        state_ = answer->state;
      } else {
        ++counters_.duplicates;
      }
      return;
    case dcp::AnswerKind::nack:
      if (!answers_outstanding) {
        ++counters_.duplicates;
        return;
      }
      // A copy sent again after an earlier one arrived: the slave has it.
      if (answer->error_code == 0x2013 && outstanding_->retransmitted &&
          answer->expected_sequence == static_cast<std::uint16_t>(outstanding_->sequence + 1)) {
        outstanding_.reset();
        return;
      }
      fail(nack_text(*answer));
    case dcp::AnswerKind::state_changed:
      state_ = answer->state;
      return;
    case dcp::AnswerKind::log:
    case dcp::AnswerKind::data:
      return;
  }
}

void DcpSlave::take_outputs(const dcp::Answer& answer) {
  if (answer.data_id != kOutputDataId) {
    ++counters_.foreign;
    return;
  }
  if (answer.payload.size() != output_payload_bytes_) {
    ++counters_.drops;
    last_drop_ = "an output PDU whose length is not that of the configured outputs";
    return;
  }
  if (output_sequence_) {
    const auto ahead = static_cast<std::uint16_t>(answer.sequence - *output_sequence_);
    if (ahead == 0 || ahead >= 0x8000) {  // the same PDU again, or an older one
      ++counters_.duplicates;
      return;
    }
  }
  if (wanted_sequence_ &&
      static_cast<std::uint16_t>(*wanted_sequence_ - answer.sequence - 1) < 0x7FFF) {
    ++counters_.late_results;  // the outputs of an earlier communication point
  }
  output_sequence_ = answer.sequence;
  unpack_values(outputs_, answer.payload, held_outputs_, held_discrete_);
  outputs_fresh_ = true;
}

void DcpSlave::await_state(dcp::State target, const char* activity) {
  pump([&] { return !outstanding_ && state_ == target; }, activity);
}

void DcpSlave::await_outputs(const char* activity) {
  const Deadline limit = SteadyClock::now() + policy_.peer_timeout;
  pump([&] { return !outstanding_ && outputs_fresh_; }, activity, limit,
       "its output PDU did not come within the link timeout (DCP sends data once, "
       "unacknowledged)");
}

void DcpSlave::configure_slave() {
  request(dcp::encode_time_res(request_buffer_, next_header(), resolution_numerator_,
                               resolution_denominator_));
  for (const auto& [variable, value] : parameters_) {
    request(dcp::encode_parameter(request_buffer_, next_header(), variable->value_reference,
                                  variable->type, value));
  }
  if (!inputs_.empty()) {
    for (std::size_t position = 0; position < inputs_.size(); ++position) {
      request(dcp::encode_cfg_input(request_buffer_, next_header(), kInputDataId,
                                    static_cast<std::uint16_t>(position),
                                    inputs_[position].value_reference, inputs_[position].type));
    }
    request(dcp::encode_network_information(
        request_buffer_, dcp::PduType::cfg_source_network_information, next_header(), kInputDataId,
        slave_data_port_, slave_data_address_));
    request(dcp::encode_scope(request_buffer_, next_header(), kInputDataId,
                              dcp::Scope::initialization_and_run));
  }
  if (!outputs_.empty()) {
    // In SoftRealTime the outputs come once per macro step; in NonRealTime
    // with every STC_send_outputs, whatever the steps say.
    std::uint32_t steps = 1;
    for (const DcpVariable& variable : dcp_.variables) {
      if (variable.causality == DcpVariable::Causality::output)
        steps = std::max(steps, variable.default_steps);
    }
    if (soft_real_time_) steps = static_cast<std::uint32_t>(macro_step_ / resolution_ticks_);
    for (std::size_t position = 0; position < outputs_.size(); ++position) {
      request(dcp::encode_cfg_output(request_buffer_, next_header(), kOutputDataId,
                                     static_cast<std::uint16_t>(position),
                                     outputs_[position].value_reference));
    }
    request(dcp::encode_steps(request_buffer_, next_header(), kOutputDataId, steps));
    request(dcp::encode_network_information(request_buffer_,
                                            dcp::PduType::cfg_target_network_information,
                                            next_header(), kOutputDataId, own_port_, own_address_));
    request(dcp::encode_scope(request_buffer_, next_header(), kOutputDataId,
                              dcp::Scope::initialization_and_run));
  }
}

void DcpSlave::setup(Time start) {
  if (set_up_) throw ProtocolViolation("slave '" + name_ + "': setup called twice");
  time_ = start;
  sequence_ = 0;
  state_.reset();
  start_ = start;
  missed_.reset();
  request(dcp::encode_register(
      request_buffer_, {sequence_, kSlaveId}, dcp_.uuid,
      soft_real_time_ ? dcp::OpMode::soft_real_time : dcp::OpMode::non_real_time,
      dcp_.major_version, dcp_.minor_version));
  registered_ = true;
  await_state(dcp::State::configuration, "CONFIGURATION after STC_register");
  configure_slave();
  stc(dcp::PduType::stc_prepare, dcp::State::configuration);
  await_state(dcp::State::prepared, "PREPARED after STC_prepare");
  stc(dcp::PduType::stc_configure, dcp::State::prepared);
  await_state(dcp::State::configured, "CONFIGURED after STC_configure");
  stc(dcp::PduType::stc_initialize, dcp::State::configured);
  await_state(dcp::State::initialized, "INITIALIZED after STC_initialize");
  outputs_fresh_ = false;
  stc(dcp::PduType::stc_send_outputs, dcp::State::initialized);
  if (!outputs_.empty()) await_outputs("the initial outputs after STC_send_outputs");
  await_state(dcp::State::configured, "CONFIGURED after STC_send_outputs");
  origin_sequence_ = output_sequence_.value_or(0);
  set_up_ = true;
  if (soft_real_time_) return;  // started with the master's clock (send_start)
  run_to(dcp::State::configured);
  await_state(dcp::State::synchronized, "SYNCHRONIZED after STC_run");
  run_to(dcp::State::synchronized);
  await_state(dcp::State::running, "RUNNING after STC_run");
}

void DcpSlave::run_to(dcp::State expected) {
  // Start time 0: at once (DCP's start time is whole seconds of Unix time).
  const std::size_t size = dcp::encode_run(request_buffer_, next_header(), expected, 0);
  state_.reset();
  request(size);
}

void DcpSlave::bind_wall_clock(const WallClock& clock, const WallClockPolicy& policy,
                               LatenessStatistics* /*input_lateness: a DCP slave does not tell*/) {
  clock_ = &clock;
  missed_.set_policy(policy);
  missed_.prepare(description_.outputs.size());
  if (!dcp_.soft_real_time) return;  // NonRealTime, paced by the master like a local slave
  soft_real_time_ = true;
  if (macro_step_ <= 0 || macro_step_ % resolution_ticks_ != 0) {
    throw ConfigurationError("DCP slave '" + name_ + "' (" + dcp_.file +
                             "): in SoftRealTime it sends its outputs every macro step, which "
                             "must therefore be fixed (a jacobi or gauss_seidel step, or "
                             "capabilities.imposed_step) and a multiple of its time resolution");
  }
  description_.capabilities.imposed_step = macro_step_;
  description_.capabilities.variable_step = false;
}

void DcpSlave::send_start(double realtime_factor) {
  if (realtime_factor != 1.0) {
    throw ConfigurationError("DCP slave '" + name_ +
                             "' runs on its own clock in real time: clock.realtime_factor must "
                             "be 1");
  }
  run_to(dcp::State::configured);
}

void DcpSlave::await_start() {
  await_state(dcp::State::synchronized, "SYNCHRONIZED after STC_run");
  run_to(dcp::State::synchronized);
  await_state(dcp::State::running, "RUNNING after STC_run");
}

void DcpSlave::copy_held(const OutputBuffers& result) const {
  std::fill(result.end_outputs.begin(), result.end_outputs.end(), 0.0);
  std::copy(held_outputs_.begin(), held_outputs_.end(), result.end_outputs.begin());
  if (!result.discrete_outputs.empty())
    std::copy(held_discrete_.begin(), held_discrete_.end(), result.discrete_outputs.begin());
}

void DcpSlave::step_on_own_clock(const StepRequest& request, const OutputBuffers& result) {
  if (request.end - request.start != macro_step_) {
    throw ProtocolViolation("step request to slave '" + name_ +
                            "': in SoftRealTime every step is the macro step " +
                            seconds_text(macro_step_) + " s");
  }
  send_inputs(request);
  const auto point = static_cast<std::uint64_t>((request.end - start_) / macro_step_);
  const auto wanted = static_cast<std::uint16_t>(origin_sequence_ + point);
  wanted_sequence_ = wanted;
  const Deadline deadline(std::chrono::nanoseconds(clock_->deadline_ns(request.end) +
                                                   missed_.policy().tolerance.count()));
  const bool came = pump(
      [&] {
        return output_sequence_ &&
               static_cast<std::uint16_t>(*output_sequence_ - wanted) < 0x8000;  // at or after
      },
      "the outputs of a communication point", deadline);
  wanted_sequence_.reset();
  if (came) {
    missed_.result_came();
    copy_held(result);
    missed_.remember(request.end, result.end_outputs);
    return;
  }
  ++counters_.missed_results;
  link_report_.missed = true;
  if (!missed_.substitute(request, result))
    throw SlaveError(missed_.ending(request.end, name_, link_name()));
  if (!result.discrete_outputs.empty())
    std::copy(held_discrete_.begin(), held_discrete_.end(), result.discrete_outputs.begin());
}

void DcpSlave::evaluate_outputs(std::span<const Polynomial> /*inputs*/,
                                std::span<double> end_outputs) {
  check_set_up(name_, set_up_, "evaluate_outputs");
  check_end_outputs(name_, description_, end_outputs);
  std::copy(held_outputs_.begin(), held_outputs_.end(), end_outputs.begin());
}

void DcpSlave::evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) {
  check_set_up(name_, set_up_, "evaluate_discrete_outputs");
  check_discrete_outputs(name_, description_, discrete_outputs);
  std::copy(held_discrete_.begin(), held_discrete_.end(), discrete_outputs.begin());
}

void DcpSlave::send_inputs(const StepRequest& request) {
  if (inputs_.empty()) return;
  dcp::encode_data_header(data_buffer_, input_sequence_++, kInputDataId);
  const double start = to_seconds(request.start);
  for (std::size_t i = 0; i < input_values_.size(); ++i)
    input_values_[i] = request.inputs[i].value(start);
  const std::size_t bytes = pack_values(inputs_, input_values_, request.discrete_inputs,
                                        std::span(data_buffer_).subspan(dcp::kDataHeaderBytes));
  transport_->send({data_buffer_.data(), dcp::kDataHeaderBytes + bytes});
}

void DcpSlave::step(const StepRequest& request, const OutputBuffers& result) {
  check_set_up(name_, set_up_, "step");
  check_step_request(name_, description_, time_, request);
  check_end_outputs(name_, description_, result.end_outputs);
  link_report_ = {};
  const std::uint64_t retransmissions = counters_.retransmissions;
  if (soft_real_time_) {
    if (clock_ == nullptr) {
      throw ConfigurationError("slave '" + name_ +
                               "' runs in real time on its own clock (DCP SoftRealTime): the "
                               "scenario needs clock: {type: wall}");
    }
    step_on_own_clock(request, result);
    time_ = request.end;
    return;
  }
  const Time length = request.end - request.start;
  const Time steps = length / resolution_ticks_;
  const DcpNonRealTime& nrt = *dcp_.non_real_time;
  const auto refuse = [&](const char* why) {
    throw ProtocolViolation("step request to slave '" + name_ + "': " + std::to_string(steps) +
                            " steps of the time resolution " + why);
  };
  if (steps > std::numeric_limits<std::uint32_t>::max()) refuse("do not fit STC_do_step");
  if (!description_.capabilities.variable_step && steps != nrt.default_steps)
    refuse("but the slave takes its fixed number (defaultSteps) only");
  if ((nrt.min_steps && steps < *nrt.min_steps) || (nrt.max_steps && steps > *nrt.max_steps))
    refuse("lie outside the slave's minSteps..maxSteps");
  send_inputs(request);
  {
    const std::size_t size = dcp::encode_do_step(
        request_buffer_, next_header(), dcp::State::running, static_cast<std::uint32_t>(steps));
    state_.reset();
    send_outstanding(size);
    const Deadline limit = policy_.max_step_time.count() > 0
                               ? SteadyClock::now() + policy_.max_step_time
                               : Deadline::max();
    pump([&] { return !outstanding_ && state_ == dcp::State::computed; },
         "COMPUTED after STC_do_step", limit,
         "it is still computing after max_step_time: it hangs");
  }
  outputs_fresh_ = false;
  stc(dcp::PduType::stc_send_outputs, dcp::State::computed);
  if (!outputs_.empty()) await_outputs("the outputs after STC_send_outputs");
  await_state(dcp::State::running, "RUNNING after STC_send_outputs");
  time_ = request.end;
  link_report_.retransmissions =
      static_cast<std::uint32_t>(counters_.retransmissions - retransmissions);
  copy_held(result);
}

void DcpSlave::shut_down() noexcept {
  if (!registered_) return;
  registered_ = false;
  // Best effort, briefly: a slave that is gone must not hold the run's end.
  policy_.peer_timeout =
      std::min<std::chrono::microseconds>(policy_.peer_timeout, std::chrono::milliseconds(500));
  policy_.interrupted = nullptr;
  try {
    if (outstanding_) pump([&] { return !outstanding_; }, "the last answer");
    if (!state_) {
      send_outstanding(dcp::encode_basic(request_buffer_, dcp::PduType::inf_state, next_header()));
      pump([&] { return !outstanding_; }, "its state");
    }
    if (!state_) return;
    if (state_ != dcp::State::configuration && state_ != dcp::State::stopped &&
        state_ != dcp::State::error_resolved && state_ != dcp::State::alive) {
      stc(dcp::PduType::stc_stop, *state_);
      await_state(dcp::State::stopped, "STOPPED after STC_stop");
    }
    if (state_ != dcp::State::alive) {
      stc(dcp::PduType::stc_deregister, *state_);
      pump([&] { return !outstanding_ && state_ == dcp::State::alive; },
           "ALIVE after STC_deregister");
    }
  } catch (const std::exception&) {
    // Nothing more to do for a slave that does not answer.
  }
}

}  // namespace

std::unique_ptr<LinkedSlave> make_dcp_slave(const DcpSlaveSettings& settings) {
  return std::make_unique<DcpSlave>(settings);
}

}  // namespace couplet::drivers
