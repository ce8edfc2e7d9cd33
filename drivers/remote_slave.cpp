#include "drivers/remote_slave.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>

#include "protocol/wire_conversions.hpp"
#include "couplet/errors.hpp"

namespace couplet::drivers {

namespace {

// Stop is a courtesy: the run is over either way, so do not wait for long.
constexpr auto kStopPatience = std::chrono::microseconds(300'000);

// The announced inputs of an evaluation and the ones it is carried out with are
// copies of the same polynomials: equal bit for bit (NaN included).
bool same_bits(const Polynomial& a, const Polynomial& b) {
  const auto bits = [](double value) { return std::bit_cast<std::uint64_t>(value); };
  const auto same = [&](double x, double y) { return bits(x) == bits(y); };
  return a.degree() == b.degree() && same(a.origin(), b.origin()) && same(a.scale(), b.scale()) &&
         std::equal(a.coefficients().begin(), a.coefficients().end(), b.coefficients().begin(), same);
}

// ---- checks of the target's answers (docs/links.md "What each side validates") ----
// They allocate only to describe a failure: the stepping path stays allocation-free.

constexpr std::size_t kAllFinite = static_cast<std::size_t>(-1);

std::size_t first_non_finite(std::span<const double> values) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!std::isfinite(values[k])) return k;
  }
  return kAllFinite;
}

/// The end outputs of an answer (`message` Outputs or StepResult, its values in
/// `values_field`): the described derivative order, (order + 1) rows of the
/// outputs. "" or why not, naming the field.
std::string end_outputs_problem(const SlaveDescription& description, const char* message, const char* values_field,
                                std::uint32_t derivative_order, std::size_t count) {
  const int order = description.capabilities.output_derivative_order;
  if (derivative_order != static_cast<std::uint32_t>(order)) {
    return std::string(message) + ".derivative_order = " + std::to_string(derivative_order) +
           ", but the target described output_derivative_order " + std::to_string(order);
  }
  const std::size_t expected = static_cast<std::size_t>(order + 1) * description.outputs.size();
  if (count != expected) {
    return std::string(message) + "." + values_field + " has " + std::to_string(count) + " values, expected " +
           std::to_string(expected) + " (" + std::to_string(order + 1) + " row(s) of " +
           std::to_string(description.outputs.size()) + " output(s))";
  }
  return {};
}

/// A non-finite value in an answer: the model behind the target failed to give
/// a number. A SlaveError naming the slave, the output and the time.
[[noreturn]] void non_finite_value(const std::string& slave, const std::string& link,
                                   const SlaveDescription& description, const char* field, std::size_t index,
                                   double value, Time time, bool sample) {
  const std::size_t outputs = std::max<std::size_t>(description.outputs.size(), 1);
  const std::size_t row = index / outputs;
  const std::string& output = description.outputs[index % outputs].name;
  std::string what = "output '" + output + "'";
  if (!sample && row > 0) what = "derivative " + std::to_string(row) + " of " + what;
  throw SlaveError("slave '" + slave + "' (" + link + "): the target returned a non-finite value for " + what +
                   " at t = " + seconds_text(time) + " s (" + field + "[" + std::to_string(index) +
                   "] = " + wire::number_text(value) + ")");
}

/// The entry of a linearization at `index`, for messages: x[i], dx/dt[i], or
/// an element (row, column) of A, B, C or D, counted from 0.
std::string linearization_entry(const LinearizationLayout& layout, std::size_t index) {
  const auto element = [&](const char* matrix, std::size_t offset, std::size_t rows) {
    const std::size_t k = index - offset;  // column-major
    return std::string(matrix) + "(" + std::to_string(k % rows) + "," + std::to_string(k / rows) + ")";
  };
  if (index < layout.derivative_offset()) return "x[" + std::to_string(index) + "]";
  if (index < layout.a_offset()) return "dx/dt[" + std::to_string(index - layout.derivative_offset()) + "]";
  if (index < layout.b_offset()) return element("A", layout.a_offset(), layout.states);
  if (index < layout.c_offset()) return element("B", layout.b_offset(), layout.states);
  if (index < layout.d_offset()) return element("C", layout.c_offset(), layout.outputs);
  return element("D", layout.d_offset(), layout.outputs);
}

/// Input polynomials into a request's repeated field (no allocation).
void inputs_to_wire(std::span<const Polynomial> inputs, pb_size_t& count, couplet_wire_Polynomial* wire) {
  count = static_cast<pb_size_t>(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) wire::to_wire(inputs[i], wire[i]);
}

}  // namespace

RemoteSlave::RemoteSlave(std::string name, std::unique_ptr<Transport> transport,
                         const couplet_wire_Configure* configure, const LinkPolicy& policy,
                         std::shared_ptr<PeerProcess> process)
    : name_(std::move(name)),
      client_(name_, std::move(transport), policy),
      process_(std::move(process)) {
  client_.watch_process(process_.get());
  open_session(configure);
}

RemoteSlave::~RemoteSlave() {
  if (client_.peer_declared_dead()) return;  // nobody to say goodbye to
  try {
    client_.request().which_body = couplet_wire_Envelope_stop_tag;
    client_.exchange_within(kStopPatience);
  } catch (...) {
    // Never throw from a destructor; the target ends an abandoned session itself.
  }
}

void RemoteSlave::open_session(const couplet_wire_Configure* configure) {
  protocol::Envelope& hello = client_.request();
  hello.which_body = couplet_wire_Envelope_hello_tag;
  hello.body.hello.version = couplet_wire_Version_VERSION_CURRENT;
  const protocol::Envelope* answer = &client_.open("hello");
  if (configure != nullptr) {
    protocol::Envelope& request = client_.request();
    request.which_body = couplet_wire_Envelope_configure_tag;
    request.body.configure = *configure;
    answer = &client_.exchange("configure", 0.0);
  }
  if (answer->which_body != couplet_wire_Envelope_describe_tag) inconsistent("expected a description of the slave");
  // Every field is checked there (version, names, counts, derivative order,
  // imposed step, sample capacity): a SlaveError naming the slave and the field.
  description_ = wire::from_wire(answer->body.describe, name_);
  description_.capabilities.can_rollback = false;  // no save/restore over the wire
  realtime_target_ = answer->body.describe.capabilities.realtime;
  // The target's capacity, clamped to what one step request and its answer carry.
  const std::size_t outputs = std::max<std::size_t>(description_.outputs.size(), 1);
  max_sample_times_ = std::min<std::size_t>(answer->body.describe.capabilities.max_sample_times,
                                            std::min(protocol::kMaxSampleTimes, protocol::kMaxSampleValues / outputs));
  if (description_.outputs.size() > protocol::kMaxPorts) inconsistent("more outputs than the protocol carries");
  linearization_layout_ = LinearizationLayout::of(description_);  // fits a Linearization: checked
  missed_.prepare(description_.outputs.size());
}

void RemoteSlave::bind_wall_clock(const WallClock& clock, const WallClockPolicy& policy,
                                  LatenessStatistics* input_lateness) {
  clock_ = &clock;
  missed_.set_policy(policy);
  input_lateness_ = input_lateness;
}

void RemoteSlave::send_start(double realtime_factor) {
  protocol::Envelope& request = client_.request();
  request.which_body = couplet_wire_Envelope_start_tag;
  request.body.start.realtime_factor = realtime_factor;
  client_.send();
}

void RemoteSlave::await_start() {
  const protocol::Envelope& answer = client_.await_answer("start", to_seconds(current_time_));
  if (answer.which_body != couplet_wire_Envelope_ack_tag) inconsistent("expected an acknowledgement of start");
}

void RemoteSlave::setup(Time start) {
  protocol::Envelope& request = client_.request();
  request.which_body = couplet_wire_Envelope_initialize_tag;
  request.body.initialize.start_ns = start;
  const protocol::Envelope& answer = client_.exchange("initialize", to_seconds(start));
  if (answer.which_body != couplet_wire_Envelope_ack_tag) inconsistent("expected an acknowledgement of initialize");
  take_discrete_outputs("Ack",
                        {answer.body.ack.discrete_outputs, answer.body.ack.discrete_outputs_count});
  current_time_ = start;
  set_up_ = true;
  missed_.reset();
}

void RemoteSlave::evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) {
  if (!set_up_)
    throw ProtocolViolation("slave '" + name_ + "': evaluate_discrete_outputs before setup");
  hold_discrete_outputs(discrete_outputs);
}

void RemoteSlave::take_discrete_outputs(const char* message, std::span<const std::int64_t> values) {
  const auto& ports = description_.discrete_outputs;
  if (values.size() != ports.size()) {
    inconsistent(std::string(message) + ".discrete_outputs has " + std::to_string(values.size()) +
                 " value(s), expected " + std::to_string(ports.size()) +
                 " (the described Integer and Boolean outputs)");
  }
  for (std::size_t j = 0; j < ports.size(); ++j) {
    if (ports[j].type == DiscreteType::boolean && values[j] != 0 && values[j] != 1) {
      inconsistent(std::string(message) + ".discrete_outputs[" + std::to_string(j) +
                   "] = " + std::to_string(values[j]) + " for Boolean output '" + ports[j].name +
                   "' (0 or 1)");
    }
  }
  std::copy(values.begin(), values.end(), discrete_outputs_.begin());
}

void RemoteSlave::check_evaluation(const char* call, std::span<const Polynomial> inputs) const {
  if (!set_up_) throw ProtocolViolation("slave '" + name_ + "': " + call + " before setup");
  if (inputs.size() != description_.inputs.size()) {
    throw ProtocolViolation("slave '" + name_ + "': " + call + " with the wrong number of input polynomials");
  }
}

const protocol::Envelope& RemoteSlave::await_answer_now(pb_size_t tag, const char* activity, const char* expected) {
  const protocol::Envelope& answer = client_.await_answer(activity, to_seconds(current_time_));
  if (answer.which_body != tag) inconsistent(expected);
  return answer;
}

void RemoteSlave::expect_current_time(const char* field, const char* what, Time answered) const {
  if (answered == current_time_) return;
  inconsistent(std::string(field) + " = " + std::to_string(answered) + ", expected " + what +
               " at the current time t = " + seconds_text(current_time_) + " s (" + std::to_string(current_time_) +
               " ns)");
}

void RemoteSlave::evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) {
  check_evaluation("evaluate_outputs", inputs);
  if (outputs_announced_) {
    const std::span<const Polynomial> announced(announced_inputs_.data(), announced_input_count_);
    if (!std::equal(inputs.begin(), inputs.end(), announced.begin(), announced.end(), same_bits)) {
      throw ProtocolViolation("slave '" + name_ + "': evaluate_outputs differs from the announced one");
    }
    outputs_announced_ = false;
  } else {
    send_evaluation(inputs);
  }
  const protocol::Envelope& answer =
      await_answer_now(couplet_wire_Envelope_outputs_tag, "evaluate_outputs", "expected outputs");
  const Time answered = answer.body.outputs.time_ns;
  // A real-time target answers with the outputs at its own current time, which
  // may be a communication time ahead or behind when one side runs late: the
  // newest there are (counted late).
  if (!realtime_target_) expect_current_time("Outputs.time_ns", "the outputs", answered);
  if (answered != current_time_) ++client_.counters().late_results;
  take_end_outputs("Outputs", "values", answer.body.outputs.derivative_order,
                   {answer.body.outputs.values, answer.body.outputs.values_count}, answered, end_outputs);
  missed_.remember(current_time_, end_outputs);
}

void RemoteSlave::send_evaluation(std::span<const Polynomial> inputs) {
  settle_missed_step();
  protocol::Envelope& request = client_.request();
  request.which_body = couplet_wire_Envelope_evaluate_outputs_tag;
  couplet_wire_EvaluateOutputs& body = request.body.evaluate_outputs;
  inputs_to_wire(inputs, body.inputs_count, body.inputs);
  client_.send();
}

// Linearize is a request at the current time like EvaluateOutputs (no time
// passes on the target), and is awaited the same way.
void RemoteSlave::linearize(std::span<const Polynomial> inputs, std::span<double> linearization) {
  check_evaluation("linearize", inputs);
  if (!description_.capabilities.can_linearize) {
    throw ProtocolViolation("slave '" + name_ + "' (" + client_.link_name() +
                            "): linearize, but the target did not describe can_linearize");
  }
  if (linearization.size() != linearization_layout_.size()) {
    throw ProtocolViolation("slave '" + name_ + "': linearize into " + std::to_string(linearization.size()) +
                            " values; its linearization has " + std::to_string(linearization_layout_.size()));
  }
  if (outputs_announced_ || announced_) {
    throw ProtocolViolation("slave '" + name_ + "': linearize while a request is already on its way");
  }
  settle_missed_step();
  protocol::Envelope& request = client_.request();
  request.which_body = couplet_wire_Envelope_linearize_tag;
  inputs_to_wire(inputs, request.body.linearize.inputs_count, request.body.linearize.inputs);
  client_.send();
  const protocol::Envelope& answer =
      await_answer_now(couplet_wire_Envelope_linearization_tag, "linearize", "expected a linearization");
  take_linearization(answer.body.linearization, linearization);
}

// A linearization is the state and Jacobians at the slave's current point:
// only one at the current time, of the described layout, all finite.
void RemoteSlave::take_linearization(const couplet_wire_Linearization& body, std::span<double> linearization) const {
  expect_current_time("Linearization.time_ns", "the linearization", body.time_ns);
  const LinearizationLayout& layout = linearization_layout_;
  if (body.values_count != layout.size()) {
    inconsistent("Linearization.values has " + std::to_string(body.values_count) + " values, expected " +
                 std::to_string(layout.size()) + " (x, dx/dt, A, B, C, D of " + std::to_string(layout.states) +
                 " state(s), " + std::to_string(layout.inputs) + " input(s), " + std::to_string(layout.outputs) +
                 " output(s))");
  }
  const std::span<const double> values(body.values, body.values_count);
  if (const std::size_t bad = first_non_finite(values); bad != kAllFinite) {
    throw SlaveError("slave '" + name_ + "' (" + client_.link_name() +
                     "): the target returned a non-finite linearization at t = " + seconds_text(current_time_) +
                     " s (Linearization.values[" + std::to_string(bad) + "] = " + wire::number_text(values[bad]) +
                     ", " + linearization_entry(layout, bad) + ")");
  }
  std::copy(values.begin(), values.end(), linearization.begin());
}

// Split phase (Slave::announce_outputs): the request leaves now, and
// evaluate_outputs() collects the answer, so that the targets of one level of a
// feedthrough refresh evaluate at the same time.
void RemoteSlave::announce_outputs(std::span<const Polynomial> inputs) {
  check_evaluation("evaluate_outputs", inputs);
  if (outputs_announced_ || announced_) {
    throw ProtocolViolation("slave '" + name_ + "': a request is already on its way");
  }
  send_evaluation(inputs);
  std::copy(inputs.begin(), inputs.end(), announced_inputs_.begin());
  announced_input_count_ = inputs.size();
  outputs_announced_ = true;
}

void RemoteSlave::fill_step_request(const StepRequest& request) {
  check_step_request(name_, description_, current_time_, request);
  if (request.sample_times.size() > max_sample_times_) {
    throw ProtocolViolation("slave '" + name_ + "': a step of " + seconds_text(request.end - request.start) +
                            " s asks for " + std::to_string(request.sample_times.size()) +
                            " output samples; the link carries at most " + std::to_string(max_sample_times_) +
                            " per step (use a coarser evaluation.grid or smaller steps)");
  }
  protocol::Envelope& envelope = client_.request();
  envelope.which_body = couplet_wire_Envelope_step_request_tag;
  couplet_wire_StepRequest& body = envelope.body.step_request;
  body.start_ns = request.start;
  body.end_ns = request.end;
  inputs_to_wire(request.inputs, body.inputs_count, body.inputs);
  body.sample_times_ns_count = static_cast<pb_size_t>(request.sample_times.size());
  std::copy(request.sample_times.begin(), request.sample_times.end(), body.sample_times_ns);
  body.discrete_inputs_count = static_cast<pb_size_t>(request.discrete_inputs.size());
  std::copy(request.discrete_inputs.begin(), request.discrete_inputs.end(), body.discrete_inputs);
}

void RemoteSlave::send_step(const StepRequest& request) {
  settle_missed_step();
  fill_step_request(request);
  retransmissions_at_send_ = client_.counters().retransmissions;
  client_.send();
}

void RemoteSlave::announce_step(const StepRequest& request) {
  if (!set_up_) throw ProtocolViolation("slave '" + name_ + "': step before setup");
  if (announced_) throw ProtocolViolation("slave '" + name_ + "': a step is already on its way");
  send_step(request);
  announced_ = true;
  announced_end_ = request.end;
}

Deadline RemoteSlave::result_deadline(Time time) const {
  const std::int64_t deadline = clock_->deadline_ns(time) + missed_.policy().tolerance.count();
  return Deadline(std::chrono::nanoseconds(deadline));
}

void RemoteSlave::step(const StepRequest& request, const OutputBuffers& result) {
  if (!set_up_) throw ProtocolViolation("slave '" + name_ + "': step before setup");
  if (realtime_target_ && clock_ == nullptr) {
    throw ConfigurationError("slave '" + name_ + "' runs in real time on its target: the scenario needs clock: {type: wall}");
  }
  if (announced_) {
    if (request.end != announced_end_ || request.start != current_time_) {
      throw ProtocolViolation("slave '" + name_ + "': step differs from the announced one");
    }
    announced_ = false;
  } else {
    send_step(request);
  }
  link_report_ = LinkStepReport{};
  if (clock_ == nullptr) {
    const protocol::Envelope& answer = client_.await_answer("step", to_seconds(request.end));
    if (answer.which_body != couplet_wire_Envelope_step_result_tag) inconsistent("expected a step result");
    accept_result(answer.body.step_result, request, result);
  } else {
    const Deadline deadline = result_deadline(request.end);
    const protocol::Envelope* answer =
        realtime_target_ ? client_.await_push(request.end, deadline)
                         : client_.await_answer_until(deadline, "step", to_seconds(request.end));
    if (answer != nullptr) {
      if (answer->which_body != couplet_wire_Envelope_step_result_tag) inconsistent("expected a step result");
      accept_result(answer->body.step_result, request, result);
      missed_.result_came();
    } else {
      if (realtime_target_) client_.check_alive("step", to_seconds(request.end));
      missed_step_pending_ = !realtime_target_;
      link_report_.missed = true;
      ++client_.counters().missed_results;
      if (!missed_.substitute(request, result))
        throw SlaveError(missed_.ending(request.end, name_, client_.link_name()));
      hold_discrete_outputs(result.discrete_outputs);  // never extrapolated
    }
  }
  link_report_.retransmissions =
      static_cast<std::uint32_t>(client_.counters().retransmissions - retransmissions_at_send_);
  current_time_ = request.end;
}

void RemoteSlave::accept_result(const couplet_wire_StepResult& body, const StepRequest& request,
                                const OutputBuffers& result) {
  // Every field is checked before any is used: nanopb decodes an enum as any
  // int, and counts, orders and times are whatever the target sent.
  const std::int32_t status = wire::enum_value(body.status);
  if (status != couplet_wire_Status_STATUS_OK && status != couplet_wire_Status_STATUS_LATE) {
    inconsistent("StepResult.status = " + std::to_string(status) + " is not a status (0 OK, 1 LATE)");
  }
  if (status == couplet_wire_Status_STATUS_LATE && !realtime_target_) {
    inconsistent("StepResult.status = STATUS_LATE from a target in virtual time");
  }
  if (body.time_ns != request.end) {
    inconsistent("StepResult.time_ns = " + std::to_string(body.time_ns) + ", expected the result of the step to t = " +
                 seconds_text(request.end) + " s (" + std::to_string(request.end) + " ns)");
  }
  const std::size_t outputs = description_.outputs.size();
  const std::size_t samples = request.sample_times.size() * outputs;
  if (body.samples_count != samples || result.samples.size() < samples) {
    inconsistent("StepResult.samples has " + std::to_string(body.samples_count) + " values, expected " +
                 std::to_string(samples) + " (" + std::to_string(request.sample_times.size()) + " sample time(s) × " +
                 std::to_string(outputs) + " output(s))");
  }
  take_end_outputs("StepResult", "end_outputs", body.derivative_order, {body.end_outputs, body.end_outputs_count},
                   request.end, result.end_outputs);
  const std::span<const double> sampled(body.samples, samples);
  if (const std::size_t bad = first_non_finite(sampled); bad != kAllFinite) {
    non_finite_value(name_, client_.link_name(), description_, "StepResult.samples", bad, sampled[bad],
                     request.sample_times[bad / std::max<std::size_t>(outputs, 1)], true);
  }
  std::copy_n(body.samples, samples, result.samples.begin());
  take_discrete_outputs("StepResult", {body.discrete_outputs, body.discrete_outputs_count});
  hold_discrete_outputs(result.discrete_outputs);
  missed_.remember(request.end, result.end_outputs);
  if (realtime_target_ && status == couplet_wire_Status_STATUS_LATE) {
    ++client_.counters().stale_inputs;
  } else if (realtime_target_ && body.has_timing) {
    // Any int64 is harmless here: it is only compared and converted to double.
    link_report_.input_lateness_ns = body.timing.input_lateness_ns;
    if (input_lateness_ != nullptr) input_lateness_->add(body.timing.input_lateness_ns, false);
  }
}

void RemoteSlave::hold_discrete_outputs(std::span<std::int64_t> target) const {
  std::copy_n(discrete_outputs_.begin(),
              std::min(target.size(), description_.discrete_outputs.size()), target.begin());
}

void RemoteSlave::settle_missed_step() {
  if (!missed_step_pending_) return;
  // The target executes every request exactly once and in order: the step whose
  // result came too late must be answered before the next request may follow.
  const protocol::Envelope& answer = client_.await_answer("late step", to_seconds(current_time_));
  if (answer.which_body == couplet_wire_Envelope_step_result_tag) {
    ++client_.counters().late_results;
  }
  missed_step_pending_ = false;
}

// The end outputs of an answer (`message`.`field`): the described derivative
// order and count, finite, copied into `target`.
void RemoteSlave::take_end_outputs(const char* message, const char* field, std::uint32_t derivative_order,
                                   std::span<const double> values, Time time, std::span<double> target) const {
  if (const std::string problem = end_outputs_problem(description_, message, field, derivative_order, values.size());
      !problem.empty()) {
    inconsistent(problem);
  }
  if (target.size() < values.size()) inconsistent(std::string(message) + "." + field + " does not fit the outputs");
  if (const std::size_t bad = first_non_finite(values); bad != kAllFinite) {
    non_finite_value(name_, client_.link_name(), description_, (std::string(message) + "." + field).c_str(), bad,
                     values[bad], time, false);
  }
  std::copy(values.begin(), values.end(), target.begin());
}

void RemoteSlave::inconsistent(const std::string& why) const {
  throw SlaveError("slave '" + name_ + "' (" + client_.link_name() + "): the target's answer is inconsistent: " + why);
}

}  // namespace couplet::drivers
