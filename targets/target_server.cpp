#include "targets/target_server.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "couplet/errors.hpp"
#include "protocol/wire_conversions.hpp"

namespace couplet::targets {

namespace {

std::uint64_t monotonic_ns(drivers::Deadline time) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count());
}

std::string version_text(std::uint32_t version) {
  return "hello: Hello.version = " + std::to_string(version) + ", this target speaks version " +
         std::to_string(couplet_wire_Version_VERSION_CURRENT);
}

std::string time_text(Time ns) { return std::to_string(ns) + " ns"; }

/// ns rounded to int64, saturated at ±2^62: with times within ±2^61 and a
/// monotonic clock far below 2^62, sums stay inside int64 whatever the
/// real-time factor.
std::int64_t saturated_ns(double ns) {
  constexpr double kLimit = 4.611686018427387904e18;  // 2^62
  if (!(ns < kLimit)) return std::int64_t{1} << 62;
  if (!(ns > -kLimit)) return -(std::int64_t{1} << 62);
  return static_cast<std::int64_t>(std::llround(ns));
}

}  // namespace

TargetServer::TargetServer(const models::ModelCatalog& catalog, TargetOptions options)
    : TargetServer(models::catalog_source(catalog, options.model), options) {}

TargetServer::TargetServer(std::shared_ptr<const models::SlaveSource> source, TargetOptions options)
    : source_(std::move(source)),
      options_(std::move(options)),
      codec_(options_.key ? protocol::FrameCodec(*options_.key) : protocol::FrameCodec()),
      request_(std::make_unique<protocol::Envelope>()),
      reply_(std::make_unique<protocol::Envelope>()),
      cache_(protocol::kMaxFrameBytes) {
  if (options_.session_timeout <= std::chrono::milliseconds::zero()) {
    throw ConfigurationError("the session timeout must be more than 0 (it is " +
                             std::to_string(options_.session_timeout.count()) + " ms)");
  }
  options_.model = source_->identity();
  SlaveConfiguration initial;
  initial.slave_name = options_.model;
  initial.model = options_.model;
  rebuild(initial);
}

void TargetServer::rebuild(const SlaveConfiguration& configuration) {
  ParameterOverrides parameters = options_.parameters;
  for (const auto& [name, value] : configuration.parameters) parameters[name] = value;
  std::unique_ptr<Slave> slave =
      source_->make_slave({.slave_name = configuration.slave_name,
                           .parameters = parameters,
                           .solver = configuration.solver,
                           .limits = configuration.limits,
                           .coupled_inputs = configuration.coupled_inputs,
                           .text_parameters = configuration.text_parameters});
  const SlaveDescription& description = slave->description();
  const std::size_t rows =
      static_cast<std::size_t>(description.capabilities.output_derivative_order) + 1;
  if (description.inputs.size() > protocol::kMaxPorts ||
      description.outputs.size() > protocol::kMaxPorts ||
      description.discrete_inputs.size() > protocol::kMaxPorts ||
      description.discrete_outputs.size() > protocol::kMaxPorts ||
      rows * description.outputs.size() > protocol::kMaxEndOutputs) {
    throw ConfigurationError("model '" + options_.model +
                             "' has more ports or derivatives than the wire protocol carries");
  }
  slave_ = std::move(slave);
  activations_ =
      options_.realtime ? dynamic_cast<models::ScheduledActivations*>(slave_.get()) : nullptr;
  if (activations_ != nullptr) activations_->latch_output_clocks();
  slave_name_ = configuration.slave_name;
  initialized_ = false;
}

bool TargetServer::may_open_session(drivers::Deadline now) const {
  return session_ == 0 || stopped_ || !confirmed_ || now - last_heard_ > options_.session_timeout;
}

bool TargetServer::has_ended(std::uint64_t session) const {
  return std::find(ended_sessions_.begin(), ended_sessions_.end(), session) != ended_sessions_.end();
}

void TargetServer::remember_ended(std::uint64_t session) {
  if (session == 0 || has_ended(session)) return;
  ended_sessions_[next_ended_] = session;
  next_ended_ = (next_ended_ + 1) % ended_sessions_.size();
}

void TargetServer::open_session(std::uint64_t session, protocol::Sequence sequence) {
  session_ = session;
  last_sequence_ = sequence;
  stopped_ = false;
  // Without a key nothing but the session id ties frames to the session.
  session_nonce_ = 0;
  confirmed_ = !codec_.sealed();
  last_heartbeat_ns_ = 0;
  if (codec_.sealed()) {
    std::random_device device;
    while (session_nonce_ == 0)
      session_nonce_ = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }
  SlaveConfiguration initial;
  initial.slave_name = options_.model;
  initial.model = options_.model;
  rebuild(initial);  // a new session starts from the command line's configuration
}

std::size_t TargetServer::handle(std::span<const std::uint8_t> frame,
                                 std::span<std::uint8_t> answer, drivers::Deadline now,
                                 bool from_session_peer) {
  ++counters_.frames;
  protocol::Envelope& request = *request_;
  std::uint64_t nonce = 0;
  if (const protocol::DecodeResult decoded = codec_.decode(frame, request, nonce); !decoded) {
    if (decoded.error == protocol::FrameError::unsealed) return refuse_plain(frame, answer);
    ++(decoded.error == protocol::FrameError::unauthenticated ? counters_.unauthenticated
                                                              : counters_.rejected);
    return 0;
  }
  reply_->session = request.session;
  reply_->sequence = request.sequence;

  if (request.session == 0 || (request.session == session_ && !from_session_peer)) {
    // 0 is never a session, not even on a fresh target (whose session_ is 0);
    // the session's frames count only from the address that opened it.
    ++counters_.foreign;
    return 0;
  }
  if (request.session != session_) {
    // Only a Hello opens a session, and never one of a session that has ended
    // (a straggler of an earlier run): that session's master is gone.
    if (request.which_body != couplet_wire_Envelope_hello_tag || has_ended(request.session)) {
      ++counters_.foreign;
      return 0;
    }
    if (nonce != 0) {  // a Hello comes before any nonce: this one was made up or replayed
      ++counters_.replayed;
      return 0;
    }
    if (request.body.hello.version != couplet_wire_Version_VERSION_CURRENT) {
      answer_error(couplet_wire_ErrorCode_ERROR_BAD_REQUEST, version_text(request.body.hello.version));
      return encode_answer(answer);
    }
    if (!may_open_session(now)) {
      ++counters_.busy;
      answer_error(couplet_wire_ErrorCode_ERROR_BUSY, "the target serves another session");
      return encode_answer(answer);
    }
    remember_ended(session_);  // replaced: stopped, or silent for the session timeout
    open_session(request.session, request.sequence);
    last_heard_ = now;
    ++counters_.executed;
    describe();
    cache_size_ = encode_answer(answer);
    std::copy_n(answer.begin(), cache_size_, cache_.begin());
    return cache_size_;
  }

  if (!proves_session(request, nonce)) {
    ++counters_.replayed;
    return 0;
  }
  // With a key only fresh frames keep the session alive: a recorded repeat of
  // the last request must not hold the session of a master that has gone.
  const bool fresh = request.which_body == couplet_wire_Envelope_heartbeat_tag ||
                     protocol::is_newer(request.sequence, last_sequence_);
  if (!codec_.sealed() || fresh) last_heard_ = now;
  if (stopped_) {
    // After Stop only a repeat of it (its Ack was lost) is answered; nothing of
    // the stopped session runs any more.
    if (request.sequence == last_sequence_) {
      ++counters_.repeats;
      std::copy_n(cache_.begin(), cache_size_, answer.begin());
      return cache_size_;
    }
    ++counters_.stale;
    return 0;
  }
  if (request.which_body == couplet_wire_Envelope_heartbeat_tag) {
    reply_->which_body = couplet_wire_Envelope_heartbeat_tag;
    reply_->body.heartbeat.sender_time_ns = monotonic_ns(now);
    return encode_answer(answer);
  }
  if (request.sequence == last_sequence_) {
    ++counters_.repeats;
    std::copy_n(cache_.begin(), cache_size_, answer.begin());
    return cache_size_;
  }
  if (!protocol::is_newer(request.sequence, last_sequence_)) {
    ++counters_.stale;
    return 0;
  }
  last_sequence_ = request.sequence;
  ++counters_.executed;
  reply_->which_body = 0;
  execute(now);
  if (reply_->which_body == 0) {  // real-time input update: its answer is the next push
    cache_size_ = 0;
    return 0;
  }
  cache_size_ = encode_answer(answer);
  std::copy_n(answer.begin(), cache_size_, cache_.begin());
  return cache_size_;
}

bool TargetServer::proves_session(const protocol::Envelope& request, std::uint64_t nonce) {
  if (!codec_.sealed()) return true;
  if (nonce != session_nonce_) {
    // The Hello again (its Describe was lost) carries no nonce yet.
    return !confirmed_ && nonce == 0 && request.which_body == couplet_wire_Envelope_hello_tag;
  }
  confirmed_ = true;
  if (request.which_body != couplet_wire_Envelope_heartbeat_tag) return true;
  // A heartbeat is unsequenced: its time orders it, so that a recorded one
  // cannot keep alive the session of a master that has gone.
  if (request.body.heartbeat.sender_time_ns <= last_heartbeat_ns_) return false;
  last_heartbeat_ns_ = request.body.heartbeat.sender_time_ns;
  return true;
}

std::size_t TargetServer::refuse_plain(std::span<const std::uint8_t> frame,
                                       std::span<std::uint8_t> answer) {
  ++counters_.unauthenticated;
  if (!protocol::decode_frame(frame, *request_) ||
      request_->which_body != couplet_wire_Envelope_hello_tag) {
    return 0;
  }
  reply_->session = request_->session;
  reply_->sequence = request_->sequence;
  answer_error(
      couplet_wire_ErrorCode_ERROR_BAD_REQUEST,
      "this target requires authenticated frames: give the link the target's key (key_file)");
  return protocol::encode_frame(*reply_, answer).size;
}

std::size_t TargetServer::encode_answer(std::span<std::uint8_t> answer) {
  // Answers to a Hello that opened no session (busy, another version) carry no nonce.
  const std::uint64_t nonce = reply_->session == session_ ? session_nonce_ : 0;
  const protocol::EncodeResult encoded = codec_.encode(*reply_, nonce, answer);
  if (encoded) return encoded.size;
  // Cannot happen with answers built within the limits; say so rather than be silent.
  answer_error(couplet_wire_ErrorCode_ERROR_UNSPECIFIED,
               std::string("answer does not encode: ") + encoded.reason);
  return codec_.encode(*reply_, nonce, answer).size;
}

void TargetServer::execute(drivers::Deadline now) {
  const protocol::Envelope& request = *request_;
  try {
    switch (request.which_body) {
      case couplet_wire_Envelope_hello_tag:
        if (request.body.hello.version != couplet_wire_Version_VERSION_CURRENT) {
          throw ProtocolViolation(version_text(request.body.hello.version));
        }
        describe();
        return;
      case couplet_wire_Envelope_configure_tag:
        configure(request.body.configure);
        return;
      case couplet_wire_Envelope_initialize_tag:
        initialize(request.body.initialize);
        return;
      case couplet_wire_Envelope_evaluate_outputs_tag:
        evaluate(request.body.evaluate_outputs);
        return;
      case couplet_wire_Envelope_linearize_tag:
        linearize(request.body.linearize);
        return;
      case couplet_wire_Envelope_step_request_tag:
        if (options_.realtime) {
          accept_input(request.body.step_request, now);
        } else {
          step(request.body.step_request, now);
        }
        return;
      case couplet_wire_Envelope_start_tag:
        start(request.body.start, now);
        return;
      case couplet_wire_Envelope_stop_tag:
        stopped_ = true;
        running_ = false;
        remember_ended(session_);
        acknowledge();
        return;
      default:
        answer_error(couplet_wire_ErrorCode_ERROR_BAD_REQUEST, "unexpected message for a target");
        return;
    }
  } catch (const StopRequest& stop) {
    answer_stop(stop);
  } catch (const ConfigurationError& error) {
    answer_error(couplet_wire_ErrorCode_ERROR_REFUSED, error.what());
  } catch (const ProtocolViolation& error) {
    answer_error(couplet_wire_ErrorCode_ERROR_BAD_REQUEST, error.what());
  } catch (const std::invalid_argument& error) {
    answer_error(couplet_wire_ErrorCode_ERROR_BAD_REQUEST, error.what());
  } catch (const std::exception& error) {
    answer_error(couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, error.what());
  }
}

void TargetServer::describe() {
  reply_->which_body = couplet_wire_Envelope_describe_tag;
  wire::to_wire(slave_->description(), options_.model, reply_->body.describe);
  reply_->body.describe.capabilities.can_rollback = false;  // no save/restore over the wire
  reply_->body.describe.accepts_configure = options_.accepts_configure;
  if (options_.realtime) {
    // Outputs at communication times only: the model runs ahead of no one.
    reply_->body.describe.capabilities.realtime = true;
    reply_->body.describe.capabilities.intermediate_samples = false;
    reply_->body.describe.capabilities.can_linearize = false;  // no current point the master knows
    reply_->body.describe.capabilities.state_count = 0;
  }
}

void TargetServer::configure(const couplet_wire_Configure& request) {
  if (!options_.accepts_configure)
    throw ConfigurationError("this target does not accept configuration");
  const SlaveConfiguration configuration = from_wire(request);
  if (!configuration.model.empty() && configuration.model != options_.model) {
    throw ConfigurationError("this target serves model '" + options_.model + "', not '" +
                             configuration.model + "'");
  }
  rebuild(configuration);
  describe();
}

void TargetServer::check_inputs(const couplet_wire_Polynomial* inputs, std::size_t count, int max_degree,
                                const char* field) const {
  if (count != input_count()) {
    throw ProtocolViolation(std::string(field) + " has " + std::to_string(count) + " polynomial(s); the slave has " +
                            std::to_string(input_count()) + " input(s)");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (const std::string problem = wire::polynomial_problem(inputs[i], max_degree); !problem.empty()) {
      throw ProtocolViolation(std::string(field) + "[" + std::to_string(i) + "]" + problem);
    }
  }
}

void TargetServer::initialize(const couplet_wire_Initialize& request) {
  if (!wire::time_in_range(request.start_ns)) {
    throw ProtocolViolation("initialize: Initialize.start_ns = " + time_text(request.start_ns) +
                            " is beyond ±2^61 ns");
  }
  slave_->setup(request.start_ns);
  current_time_ = request.start_ns;
  initialized_ = true;
  running_ = false;
  requested_end_ = current_time_;
  period_ = 0;
  has_fresh_input_ = false;
  for (std::size_t i = 0; i < input_count(); ++i)
    inputs_[i] = Polynomial::constant(to_seconds(current_time_), 0.0);
  const auto& discrete_inputs = slave_->description().discrete_inputs;
  for (std::size_t i = 0; i < discrete_inputs.size(); ++i)
    discrete_inputs_[i] = discrete_inputs[i].start;
  if (discrete_output_count() > 0) {
    slave_->evaluate_discrete_outputs(
        std::span<std::int64_t>(discrete_outputs_.data(), discrete_output_count()));
  }
  acknowledge();
  copy_discrete_outputs(reply_->body.ack.discrete_outputs_count, reply_->body.ack.discrete_outputs);
}

void TargetServer::acknowledge() {
  reply_->which_body = couplet_wire_Envelope_ack_tag;
  reply_->body.ack = couplet_wire_Ack{};
}

void TargetServer::copy_discrete_outputs(pb_size_t& count, std::int64_t* values) const {
  count = static_cast<pb_size_t>(discrete_output_count());
  std::copy_n(discrete_outputs_.begin(), count, values);
}

void TargetServer::check_discrete_inputs(const std::int64_t* values, std::size_t count,
                                         const char* field) const {
  const auto& ports = slave_->description().discrete_inputs;
  if (count != ports.size()) {
    throw ProtocolViolation(std::string(field) + " has " + std::to_string(count) +
                            " value(s); the slave has " + std::to_string(ports.size()) +
                            " Integer or Boolean input(s)");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (ports[i].type == DiscreteType::boolean && values[i] != 0 && values[i] != 1) {
      throw ProtocolViolation(std::string(field) + "[" + std::to_string(i) +
                              "] = " + std::to_string(values[i]) + " for Boolean input '" +
                              ports[i].name + "' (0 or 1)");
    }
  }
}

std::size_t TargetServer::end_output_count() const {
  return static_cast<std::size_t>(slave_->description().capabilities.output_derivative_order + 1) *
         output_count();
}

void TargetServer::evaluate(const couplet_wire_EvaluateOutputs& request) {
  if (!initialized_) throw ProtocolViolation("evaluate_outputs before initialize");
  // Any degree a polynomial can have: a local slave evaluates those too (its
  // capabilities bound the inputs of steps only).
  check_inputs(request.inputs, request.inputs_count, Polynomial::kMaxDegree, "evaluate_outputs: EvaluateOutputs.inputs");
  for (std::size_t i = 0; i < request.inputs_count; ++i)
    inputs_[i] = wire::from_wire(request.inputs[i]);
  // Real-time mode: the master's inputs at a communication time are also the
  // best input to hold until its next step request arrives.
  reply_->which_body = couplet_wire_Envelope_outputs_tag;
  couplet_wire_Outputs& outputs = reply_->body.outputs;
  // A scheduled slave stepped from instant to instant stands just past its
  // latest activation: its outputs are those of the communication time last
  // reached, with what the activations since made of them.
  outputs.time_ns = activations_ != nullptr && running_ ? period_start_ : current_time_;
  outputs.derivative_order =
      static_cast<std::uint32_t>(slave_->description().capabilities.output_derivative_order);
  outputs.values_count = static_cast<pb_size_t>(end_output_count());
  slave_->evaluate_outputs(std::span<const Polynomial>(inputs_.data(), input_count()),
                           std::span<double>(outputs.values, outputs.values_count));
}

void TargetServer::linearize(const couplet_wire_Linearize& request) {
  const SlaveDescription& description = slave_->description();
  const LinearizationLayout layout = LinearizationLayout::of(description);
  if (!description.capabilities.can_linearize) {
    throw ProtocolViolation("linearize: slave '" + slave_name_ + "' cannot linearize");
  }
  if (options_.realtime) {
    throw ProtocolViolation(
        "linearize: a real-time target cannot linearize: its model advances on its own clock");
  }
  if (!initialized_) throw ProtocolViolation("linearize before initialize");
  if (!wire::linearization_fits(layout.states, layout.inputs, layout.outputs)) {
    throw ProtocolViolation("linearize: slave '" + slave_name_ +
                            "' cannot linearize over the link: " + std::to_string(layout.size()) +
                            " values, more than one Linearization carries (" +
                            std::to_string(protocol::kMaxLinearizationValues) + ")");
  }
  check_inputs(request.inputs, request.inputs_count, Polynomial::kMaxDegree,
               "linearize: Linearize.inputs");
  for (std::size_t i = 0; i < request.inputs_count; ++i)
    inputs_[i] = wire::from_wire(request.inputs[i]);
  reply_->which_body = couplet_wire_Envelope_linearization_tag;
  couplet_wire_Linearization& linearization = reply_->body.linearization;
  linearization.time_ns = current_time_;
  linearization.values_count = static_cast<pb_size_t>(layout.size());
  slave_->linearize(std::span<const Polynomial>(inputs_.data(), input_count()),
                    std::span<double>(linearization.values, linearization.values_count));
}

void TargetServer::step(const couplet_wire_StepRequest& request, drivers::Deadline received) {
  if (!initialized_) throw ProtocolViolation("step before initialize");
  const SlaveCapabilities& capabilities = slave_->description().capabilities;
  if (!wire::time_in_range(request.start_ns) || !wire::time_in_range(request.end_ns)) {
    throw ProtocolViolation("step: StepRequest.start_ns = " + time_text(request.start_ns) + ", end_ns = " +
                            time_text(request.end_ns) + ": beyond ±2^61 ns");
  }
  if (request.start_ns != current_time_) {
    throw ProtocolViolation("step: StepRequest.start_ns = " + time_text(request.start_ns) +
                            " is not the slave's time " + time_text(current_time_));
  }
  if (request.end_ns <= request.start_ns) {
    throw ProtocolViolation("step: StepRequest.end_ns = " + time_text(request.end_ns) +
                            ": the step is empty or goes back in time");
  }
  if (capabilities.imposed_step > 0 && (request.end_ns - request.start_ns) % capabilities.imposed_step != 0) {
    throw ProtocolViolation("step: StepRequest.end_ns - start_ns = " + time_text(request.end_ns - request.start_ns) +
                            " is not a multiple of the imposed step " + time_text(capabilities.imposed_step));
  }
  check_inputs(request.inputs, request.inputs_count, capabilities.max_input_degree, "step: StepRequest.inputs");
  check_discrete_inputs(request.discrete_inputs, request.discrete_inputs_count,
                        "step: StepRequest.discrete_inputs");
  const std::size_t sample_times = request.sample_times_ns_count;
  const std::size_t sample_values = sample_times * output_count();
  if (sample_times > protocol::kMaxSampleTimes || sample_values > protocol::kMaxSampleValues) {
    throw ProtocolViolation("step: StepRequest.sample_times_ns has " + std::to_string(sample_times) +
                            " times: more output samples than one answer carries");
  }
  if (sample_times > 0 && !capabilities.intermediate_samples) {
    throw ProtocolViolation("step: StepRequest.sample_times_ns given, but the slave reports no intermediate samples");
  }
  Time previous = request.start_ns;
  for (std::size_t k = 0; k < sample_times; ++k) {
    const Time sample = request.sample_times_ns[k];
    if (sample <= previous || sample > request.end_ns) {
      throw ProtocolViolation("step: StepRequest.sample_times_ns[" + std::to_string(k) + "] = " + time_text(sample) +
                              ": sample times must increase inside (start_ns, end_ns]");
    }
    previous = sample;
  }
  for (std::size_t i = 0; i < request.inputs_count; ++i)
    inputs_[i] = wire::from_wire(request.inputs[i]);
  std::copy_n(request.discrete_inputs, request.discrete_inputs_count, discrete_inputs_.begin());
  reply_->which_body = couplet_wire_Envelope_step_result_tag;
  couplet_wire_StepResult& result = reply_->body.step_result;
  result.status = couplet_wire_Status_STATUS_OK;
  result.time_ns = request.end_ns;
  result.derivative_order =
      static_cast<std::uint32_t>(slave_->description().capabilities.output_derivative_order);
  result.end_outputs_count = static_cast<pb_size_t>(end_output_count());
  result.samples_count = static_cast<pb_size_t>(sample_values);
  const StepRequest step_request{
      request.start_ns, request.end_ns, std::span<const Polynomial>(inputs_.data(), input_count()),
      std::span<const Time>(request.sample_times_ns, request.sample_times_ns_count),
      std::span<const std::int64_t>(discrete_inputs_.data(), discrete_input_count())};
  slave_->step(
      step_request,
      OutputBuffers{std::span<double>(result.end_outputs, result.end_outputs_count),
                    std::span<double>(result.samples, result.samples_count),
                    std::span<std::int64_t>(discrete_outputs_.data(), discrete_output_count())});
  copy_discrete_outputs(result.discrete_outputs_count, result.discrete_outputs);
  current_time_ = request.end_ns;
  ++counters_.steps;
  result.has_timing = true;
  result.timing.received_ns = monotonic_ns(received);
  result.timing.finished_ns = monotonic_ns(drivers::SteadyClock::now());
  result.timing.input_lateness_ns = 0;
}

// ---- real-time mode (docs/links.md): the model advances on the wall clock ----

std::int64_t TargetServer::wall_ns(Time model_time) const {
  return anchor_ns_ + saturated_ns(static_cast<double>(model_time - start_time_) / realtime_factor_);
}

Time TargetServer::model_time_at(drivers::Deadline wall) const {
  const auto since =
      std::chrono::duration_cast<std::chrono::nanoseconds>(wall.time_since_epoch()).count() -
      anchor_ns_;
  return start_time_ + saturated_ns(static_cast<double>(since) * realtime_factor_);
}

void TargetServer::start(const couplet_wire_Start& request, drivers::Deadline received) {
  if (!options_.realtime)
    throw ProtocolViolation("start: this target runs in virtual time (no --realtime)");
  if (!initialized_) throw ProtocolViolation("start before initialize");
  if (!std::isfinite(request.realtime_factor) || !(request.realtime_factor > 0.0)) {
    throw ProtocolViolation("start: Start.realtime_factor = " + wire::number_text(request.realtime_factor) +
                            " must be finite and > 0");
  }
  realtime_factor_ = request.realtime_factor;
  start_time_ = current_time_;
  period_start_ = current_time_;
  anchor_ns_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(received.time_since_epoch()).count();
  period_had_fresh_input_ = false;
  running_ = true;
  acknowledge();
}

// The newest input wins and applies from its arrival; how late it came (after
// the start of its step, on the target's clock) is recorded.
void TargetServer::accept_input(const couplet_wire_StepRequest& request,
                                drivers::Deadline received) {
  if (!running_) throw ProtocolViolation("step request before start in real-time mode");
  check_inputs(request.inputs, request.inputs_count, slave_->description().capabilities.max_input_degree,
               "step: StepRequest.inputs");
  check_discrete_inputs(request.discrete_inputs, request.discrete_inputs_count,
                        "step: StepRequest.discrete_inputs");
  if (request.sample_times_ns_count != 0) {
    throw ProtocolViolation("step: StepRequest.sample_times_ns given: a real-time target reports no intermediate samples");
  }
  if (!wire::time_in_range(request.start_ns) || !wire::time_in_range(request.end_ns)) {
    throw ProtocolViolation("step: StepRequest.start_ns = " + time_text(request.start_ns) + ", end_ns = " +
                            time_text(request.end_ns) + ": beyond ±2^61 ns");
  }
  if (request.end_ns <= request.start_ns) {
    throw ProtocolViolation("step: StepRequest.end_ns = " + time_text(request.end_ns) +
                            ": the step is empty or goes back in time");
  }
  for (std::size_t i = 0; i < request.inputs_count; ++i)
    fresh_inputs_[i] = wire::from_wire(request.inputs[i]);
  std::copy_n(request.discrete_inputs, request.discrete_inputs_count,
              fresh_discrete_inputs_.begin());
  has_fresh_input_ = true;
  fresh_input_time_ = std::max(current_time_, model_time_at(received));
  const std::int64_t received_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(received.time_since_epoch()).count();
  fresh_input_lateness_ = received_ns - wall_ns(request.start_ns);
  input_lateness_.add(fresh_input_lateness_, false);
  if (request.end_ns > requested_end_) requested_end_ = request.end_ns;
  period_ = request.end_ns - request.start_ns;
}

Time TargetServer::communication_boundary() const {
  return requested_end_ > current_time_ ? requested_end_ : current_time_ + period_;
}

Time TargetServer::next_instant() const {
  const Time activation = activations_->next_activation(current_time_);
  return has_fresh_input_ ? std::min(activation, fresh_input_time_) : activation;
}

std::optional<drivers::Deadline> TargetServer::next_boundary() const {
  if (!running_ || stopped_ || period_ == 0) return std::nullopt;
  Time due = communication_boundary();
  if (activations_ != nullptr) due = std::min(due, next_instant());
  return drivers::Deadline(std::chrono::nanoseconds(wall_ns(due)));
}

void TargetServer::step_segment(Time from, Time to, std::span<double> end_outputs) {
  if (to <= from) return;
  const StepRequest request{
      from,
      to,
      std::span<const Polynomial>(inputs_.data(), input_count()),
      {},
      std::span<const std::int64_t>(discrete_inputs_.data(), discrete_input_count())};
  slave_->step(request, OutputBuffers{end_outputs,
                                      {},
                                      std::span<std::int64_t>(discrete_outputs_.data(),
                                                              discrete_output_count())});
}

// A scheduled slave is stepped in pieces that end just after each instant
// (one nanosecond: a step makes the activations of [start, end)), so that every
// activation is made when the wall clock reaches it rather than at the end of
// its period. A fresh input applies from its arrival: the piece from there
// starts with it, and a rise of a triggered clock's port activates the clock then.
void TargetServer::advance_to_instant(Time instant, drivers::Deadline now) {
  const std::span<double> outputs(piece_outputs_.data(), end_output_count());
  step_segment(current_time_, instant, outputs);  // nothing is due before the instant
  current_time_ = std::max(current_time_, instant);
  if (has_fresh_input_ && fresh_input_time_ <= current_time_) {
    std::copy_n(fresh_inputs_.begin(), input_count(), inputs_.begin());
    std::copy_n(fresh_discrete_inputs_.begin(), discrete_input_count(), discrete_inputs_.begin());
    has_fresh_input_ = false;
    period_had_fresh_input_ = true;
  }
  const bool activates = activations_->next_activation(current_time_) == current_time_;
  step_segment(current_time_, current_time_ + 1, outputs);  // and a trigger's rise now
  if (activates) {
    ++counters_.activations;
    const std::int64_t now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    activation_lateness_.add(now_ns - wall_ns(current_time_), false);
  }
  current_time_ += 1;
}

std::size_t TargetServer::push_failure(std::span<std::uint8_t> push, const std::exception& error) {
  reply_->session = session_;
  reply_->sequence = 0;  // a push
  if (const auto* stop = dynamic_cast<const StopRequest*>(&error)) {
    answer_stop(*stop);
  } else {
    answer_error(couplet_wire_ErrorCode_ERROR_SLAVE_FAILED, error.what());
  }
  running_ = false;
  return encode_answer(push);
}

std::size_t TargetServer::advance_realtime(std::span<std::uint8_t> push, drivers::Deadline now) {
  const Time boundary = communication_boundary();
  if (activations_ != nullptr) {
    try {
      const Time instant = next_instant();
      if (instant < boundary) {
        advance_to_instant(instant, now);
        return 0;
      }
    } catch (const std::exception& error) {
      return push_failure(push, error);
    }
  }
  reply_->session = session_;
  reply_->sequence = 0;  // a push
  reply_->which_body = couplet_wire_Envelope_step_result_tag;
  couplet_wire_StepResult& result = reply_->body.step_result;
  result.time_ns = boundary;
  result.derivative_order =
      static_cast<std::uint32_t>(slave_->description().capabilities.output_derivative_order);
  result.end_outputs_count = static_cast<pb_size_t>(end_output_count());
  result.samples_count = 0;
  const std::span<double> end_outputs(result.end_outputs, result.end_outputs_count);
  const bool fresh = has_fresh_input_ || period_had_fresh_input_;
  try {
    if (has_fresh_input_) {
      // Until the new input arrived the old one held (extrapolated); from then on
      // the new one. A sampling slave (imposed step) takes it at its next sample.
      Time switch_time = std::min(fresh_input_time_, boundary);
      if (const Time sample = slave_->description().capabilities.imposed_step; sample > 0) {
        const Time periods = (switch_time - current_time_ + sample - 1) / sample;
        switch_time = std::min(current_time_ + periods * sample, boundary);
      }
      step_segment(current_time_, switch_time, end_outputs);
      std::copy_n(fresh_inputs_.begin(), input_count(), inputs_.begin());
      std::copy_n(fresh_discrete_inputs_.begin(), discrete_input_count(), discrete_inputs_.begin());
      step_segment(switch_time, boundary, end_outputs);
    } else {
      step_segment(current_time_, boundary, end_outputs);
    }
  } catch (const std::exception& error) {
    return push_failure(push, error);
  }
  if (current_time_ == boundary) {  // nothing integrated: outputs at the current time
    slave_->evaluate_outputs(std::span<const Polynomial>(inputs_.data(), input_count()),
                             end_outputs);
  }
  copy_discrete_outputs(result.discrete_outputs_count, result.discrete_outputs);
  if (activations_ != nullptr) activations_->clear_output_clocks();
  current_time_ = boundary;
  period_start_ = boundary;
  has_fresh_input_ = false;
  period_had_fresh_input_ = false;
  ++counters_.periods;
  if (!fresh) ++counters_.starved_periods;
  result.status = fresh ? couplet_wire_Status_STATUS_OK : couplet_wire_Status_STATUS_LATE;
  result.has_timing = true;
  result.timing.received_ns = monotonic_ns(now);
  result.timing.finished_ns = monotonic_ns(drivers::SteadyClock::now());
  result.timing.input_lateness_ns = fresh ? fresh_input_lateness_ : 0;
  return encode_answer(push);
}

void TargetServer::answer_stop(const StopRequest& request) {
  answer_error(couplet_wire_ErrorCode_ERROR_STOP_REQUESTED, request.what());
  reply_->body.error.stop_time = request.time();
}

void TargetServer::answer_error(couplet_wire_ErrorCode code, const std::string& text) {
  reply_->which_body = couplet_wire_Envelope_error_tag;
  reply_->body.error = couplet_wire_Error{};
  reply_->body.error.code = code;
  const std::size_t capacity = sizeof reply_->body.error.text - 1;
  const std::size_t length = std::min(text.size(), capacity);
  std::memcpy(reply_->body.error.text, text.data(), length);
  reply_->body.error.text[length] = '\0';
}

}  // namespace couplet::targets
