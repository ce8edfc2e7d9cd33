#include "runtime/recorder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "couplet/errors.hpp"
#include "protocol/limits.hpp"
#include "protocol/wire_conversions.hpp"

namespace couplet {

namespace {

std::uint64_t monotonic_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

std::uint64_t realtime_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

/// Copies `values` into a fixed wire array; false when they do not fit.
template <typename Count, std::size_t Size>
bool copy_values(double (&field)[Size], Count& count, std::span<const double> values) {
  if (values.size() > Size) return false;
  std::copy(values.begin(), values.end(), field);
  count = static_cast<Count>(values.size());
  return true;
}

}  // namespace

Recorder::Recorder(const std::string& path, std::size_t queue_records)
    : path_(path),
      slots_(std::max<std::size_t>(queue_records, 2)),
      writer_buffer_(4 * protocol::kMaxLogFrameBytes),
      free_slots_(slots_.size()),
      filled_slots_(slots_.size()) {
  file_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file_ < 0)
    throw ConfigurationError("cannot create the run log '" + path + "': " + std::strerror(errno));
  for (std::size_t slot = 0; slot < slots_.size(); ++slot)
    free_slots_.push(static_cast<std::uint32_t>(slot));
  write_bytes(
      {reinterpret_cast<const std::uint8_t*>(protocol::kLogMagic), protocol::kLogMagicBytes});
  writer_ = std::thread([this] { drain(); });
}

Recorder::~Recorder() {
  stop_writer();
  if (file_ >= 0) ::close(file_);
}

void Recorder::begin(const RunLogHeader& header, const System& system) {
  protocol::LogRecord& header_record = next_record();
  header_record = protocol::LogRecord{};
  header_record.which_body = couplet_wire_LogRecord_header_tag;
  couplet_wire_LogHeader& head = header_record.body.header;
  head.version = couplet_wire_Version_VERSION_CURRENT;
  wire::copy_name(head.scenario_source, header.scenario_source, "run log: scenario file name");
  if (header.scenario_text.size() >= sizeof head.scenario_text) {
    throw ConfigurationError(
        "run log: scenario '" + header.scenario_source + "' is " +
        std::to_string(header.scenario_text.size()) + " bytes as run; a run log holds " +
        std::to_string(sizeof head.scenario_text - 1) + " (run with --no-log)");
  }
  wire::copy_name(head.scenario_text, header.scenario_text, "run log: scenario text");
  head.start_ns = header.start;
  head.end_ns = header.end;
  wire::copy_name(head.algorithm, header.algorithm, "run log: algorithm name");
  head.wall_clock_start_ns = realtime_ns();
  publish();
  max_bytes_ = header.max_bytes;

  output_counts_.clear();
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    protocol::LogRecord& record = next_record();
    record = protocol::LogRecord{};
    record.which_body = couplet_wire_LogRecord_slave_tag;
    couplet_wire_LogSlave& slave = record.body.slave;
    slave.index = static_cast<std::uint32_t>(s);
    wire::copy_name(slave.name, system.slave_name(s), "run log: slave name");
    slave.has_description = true;
    wire::to_wire(system.description(s), system.slave_name(s), slave.description);
    if (s < header.slave_links.size())
      wire::copy_name(slave.link, header.slave_links[s], "run log: link of slave");
    const std::size_t linearization_values = LinearizationLayout::of(system.description(s)).size();
    if (system.description(s).capabilities.can_linearize &&
        linearization_values > protocol::kMaxLinearizationValues) {
      throw ConfigurationError("run log: slave '" + system.slave_name(s) + "' linearizes into " +
                               std::to_string(linearization_values) + " values, a log record holds " +
                               std::to_string(protocol::kMaxLinearizationValues));
    }
    publish();
    output_counts_.push_back(system.description(s).outputs.size());
  }

  protocol::LogRecord& record = next_record();
  record = protocol::LogRecord{};
  record.which_body = couplet_wire_LogRecord_connections_tag;
  couplet_wire_LogConnections& connections = record.body.connections;
  constexpr std::size_t kMaxConnections =
      sizeof connections.connections / sizeof connections.connections[0];
  if (system.connections().size() > kMaxConnections) {
    throw ConfigurationError("run log: " + std::to_string(system.connections().size()) +
                             " connections, a log record holds " + std::to_string(kMaxConnections));
  }
  connections.connections_count = static_cast<pb_size_t>(system.connections().size());
  for (std::size_t c = 0; c < system.connections().size(); ++c) {
    const Connection& connection = system.connections()[c];
    connections.connections[c] = {static_cast<std::uint32_t>(connection.source.slave),
                                  static_cast<std::uint32_t>(connection.source.port),
                                  static_cast<std::uint32_t>(connection.target.slave),
                                  static_cast<std::uint32_t>(connection.target.port)};
  }
  publish();

  step_began_ns_.assign(system.slave_count(), 0);
  plan_ = 0;
}

void Recorder::algorithm_started(const Algorithm& algorithm) {
  const std::vector<std::string> names = algorithm.internal_quantities();
  protocol::LogRecord& record = next_record();
  record = protocol::LogRecord{};
  record.which_body = couplet_wire_LogRecord_quantities_tag;
  couplet_wire_LogQuantities& quantities = record.body.quantities;
  constexpr std::size_t kMaxQuantities = sizeof quantities.names / sizeof quantities.names[0];
  if (names.size() > kMaxQuantities) {
    throw ConfigurationError("run log: algorithm '" + std::string(algorithm.name()) + "' reports " +
                             std::to_string(names.size()) +
                             " internal quantities, a log record holds " +
                             std::to_string(kMaxQuantities));
  }
  quantities.names_count = static_cast<pb_size_t>(names.size());
  for (std::size_t q = 0; q < names.size(); ++q)
    wire::copy_name(quantities.names[q], names[q], "run log: internal quantity");
  publish();
  internals_.assign(names.size(), 0.0);
}

// Sets every field of a call record, without zeroing the 60 KB of arrays (only
// `count` elements are ever encoded): slots are reused for every kind of record.
couplet_wire_SlaveCall& Recorder::begin_call(std::size_t slave, couplet_wire_SlaveCallKind kind) {
  protocol::LogRecord& record = next_record();
  record.which_body = couplet_wire_LogRecord_call_tag;
  couplet_wire_SlaveCall& call = record.body.call;
  call.plan = plan_;
  call.slave = static_cast<std::uint32_t>(slave);
  call.kind = kind;
  call.start_ns = call.end_ns = 0;
  call.inputs_count = 0;
  call.sample_times_ns_count = 0;
  call.derivative_order = 0;
  call.end_outputs_count = 0;
  call.samples_count = 0;
  call.status = couplet_wire_Status_STATUS_OK;
  call.began_ns = call.ended_ns = 0;
  call.retransmissions = 0;
  call.input_lateness_ns = 0;
  call.linearization_count = 0;
  return call;
}

void Recorder::slave_set_up(std::size_t slave, Time start) {
  couplet_wire_SlaveCall& call = begin_call(slave, couplet_wire_SlaveCallKind_CALL_SETUP);
  call.start_ns = start;
  publish();
}

void Recorder::step_began(std::size_t slave) {
  step_began_ns_[slave] = monotonic_ns();
}

void Recorder::copy_inputs(std::span<const Polynomial> inputs, couplet_wire_SlaveCall& call) {
  call.inputs_count = static_cast<pb_size_t>(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) wire::to_wire(inputs[i], call.inputs[i]);
}

void Recorder::copy_end_outputs(std::size_t slave, std::span<const double> outputs,
                                couplet_wire_SlaveCall& call) {
  call.derivative_order =
      output_counts_[slave] == 0
          ? 0
          : static_cast<std::uint32_t>(outputs.size() / output_counts_[slave] - 1);
  copy_values(call.end_outputs, call.end_outputs_count, outputs);
}

// As many sample rows (one sample time and a value per output) as both arrays
// of a record hold.
std::size_t Recorder::sample_rows_per_record(std::size_t slave) const {
  constexpr std::size_t kTimes = protocol::kMaxSampleTimes;
  constexpr std::size_t kValues = protocol::kMaxSampleValues;
  const std::size_t outputs = output_counts_[slave];
  return outputs == 0 ? kTimes : std::min(kTimes, kValues / outputs);
}

void Recorder::copy_samples(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                            std::size_t first, std::size_t count, couplet_wire_SlaveCall& call) const {
  const std::size_t outputs = output_counts_[slave];
  std::copy_n(request.sample_times.begin() + static_cast<std::ptrdiff_t>(first), count, call.sample_times_ns);
  call.sample_times_ns_count = static_cast<pb_size_t>(count);
  copy_values(call.samples, call.samples_count, result.samples.subspan(first * outputs, count * outputs));
}

// The call record carries the decision, the end outputs and the first sample
// rows; CALL_STEP_SAMPLES records follow with the rest, in order, so that a long
// step on a fine grid is recorded whole (replay needs every sample).
void Recorder::slave_stepped(std::size_t slave, const StepRequest& request,
                             const OutputBuffers& result, const LinkStepReport& link) {
  const std::uint64_t ended = monotonic_ns();
  const std::size_t rows = request.sample_times.size();
  if (result.samples.size() < rows * output_counts_[slave]) {
    throw ProtocolViolation("run log: a step of slave " + std::to_string(slave) + " returned " +
                            std::to_string(result.samples.size()) + " sample values for " +
                            std::to_string(rows) + " sample times");
  }
  const std::size_t per_record = sample_rows_per_record(slave);
  std::size_t written = std::min(rows, per_record);
  couplet_wire_SlaveCall& call = begin_call(slave, couplet_wire_SlaveCallKind_CALL_STEP);
  call.start_ns = request.start;
  call.end_ns = request.end;
  copy_inputs(request.inputs, call);
  copy_samples(slave, request, result, 0, written, call);
  copy_end_outputs(slave, result.end_outputs, call);
  if (link.missed) call.status = couplet_wire_Status_STATUS_LATE;
  call.began_ns = step_began_ns_[slave];
  call.ended_ns = ended;
  call.retransmissions = link.retransmissions;
  call.input_lateness_ns = link.input_lateness_ns;
  publish();
  while (written < rows) {
    const std::size_t count = std::min(rows - written, per_record);
    couplet_wire_SlaveCall& more = begin_call(slave, kCallStepSamples);
    more.start_ns = request.start;
    more.end_ns = request.end;
    copy_samples(slave, request, result, written, count, more);
    publish();
    written += count;
  }
}

void Recorder::outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                                 std::span<const double> outputs) {
  couplet_wire_SlaveCall& call =
      begin_call(slave, couplet_wire_SlaveCallKind_CALL_EVALUATE_OUTPUTS);
  copy_inputs(inputs, call);
  copy_end_outputs(slave, outputs, call);
  publish();
}

void Recorder::slave_linearized(std::size_t slave, std::span<const Polynomial> inputs,
                                std::span<const double> linearization) {
  couplet_wire_SlaveCall& call = begin_call(slave, couplet_wire_SlaveCallKind_CALL_LINEARIZE);
  copy_inputs(inputs, call);
  copy_values(call.linearization, call.linearization_count, linearization);
  publish();
}

void Recorder::state_saved(std::size_t slave) {
  begin_call(slave, couplet_wire_SlaveCallKind_CALL_SAVE_STATE);
  publish();
}

void Recorder::state_restored(std::size_t slave) {
  begin_call(slave, couplet_wire_SlaveCallKind_CALL_RESTORE_STATE);
  publish();
}

void Recorder::plan_finished(const Executor& executor, const Algorithm& algorithm,
                             std::int64_t pacer_lateness_ns) {
  ++plan_;
  algorithm.internal_values(internals_);
  protocol::LogRecord& record = next_record();
  record.which_body = couplet_wire_LogRecord_plan_tag;
  couplet_wire_LogPlan& plan = record.body.plan;
  plan.plan = plan_;
  plan.macro_steps = executor.counters().macro_steps;
  plan.frontier_ns = executor.frontier();
  copy_values(plan.internals, plan.internals_count, internals_);
  plan.pacer_lateness_ns = pacer_lateness_ns;
  plan.wall_ns = monotonic_ns();
  publish();
  // Checked after the plan's record, so that the log ends on a whole plan.
  if (bytes_written_.load() > max_bytes_) {
    throw SlaveError("run log '" + path_ + "' passed " + std::to_string(max_bytes_ >> 20) +
                     " MiB (limits.run_log_bytes) at t = " + seconds_text(executor.frontier()) +
                     " s after " + std::to_string(executor.counters().macro_steps) +
                     " macro steps: the run is stopped. Take longer steps, raise limits.run_log_bytes "
                     "in the scenario, or run with --no-log");
  }
}

void Recorder::finish(const RunEnding& ending) {
  if (!writer_.joinable()) return;
  for (const couplet_wire_LogLinkTotals& totals : ending.link_totals) {
    protocol::LogRecord& record = next_record();
    record.which_body = couplet_wire_LogRecord_link_totals_tag;
    record.body.link_totals = totals;
    publish();
  }
  protocol::LogRecord& record = next_record();
  record.which_body = couplet_wire_LogRecord_end_tag;
  couplet_wire_LogEnd& end = record.body.end;
  end = couplet_wire_LogEnd{};
  end.status =
      ending.completed ? couplet_wire_RunStatus_RUN_COMPLETED : couplet_wire_RunStatus_RUN_FAILED;
  const std::string message = ending.message.substr(0, sizeof end.message - 1);
  std::memcpy(end.message, message.c_str(), message.size() + 1);
  end.decision_hash = ending.decision_hash;
  end.plans = plan_;
  end.macro_steps = ending.counters.macro_steps;
  end.slave_steps = ending.counters.slave_steps;
  end.rollbacks = ending.counters.rollbacks;
  end.records_waited = records_waited_;
  publish();
  stop_writer();
  if (::fdatasync(file_) != 0 && !write_failed_.load()) write_error_ = std::strerror(errno);
  if (write_failed_.load() || !write_error_.empty()) {
    throw std::runtime_error("cannot write the run log '" + path_ + "': " + write_error_);
  }
}

// Stepping thread: a free slot to fill. Waits (rarely) when the writer is
// behind by every slot.
protocol::LogRecord& Recorder::next_record() {
  if (!free_slots_.pop(current_slot_)) {
    ++records_waited_;
    while (!free_slots_.pop(current_slot_)) std::this_thread::yield();
  }
  return slots_[current_slot_];
}

void Recorder::publish() {
  filled_slots_.push(current_slot_);
}

void Recorder::write_bytes(std::span<const std::uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(file_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      write_error_ = std::strerror(errno);
      write_failed_.store(true);
      return;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(written));
    bytes_written_.fetch_add(static_cast<std::uint64_t>(written));
  }
}

// Writer thread: encodes the filled slots into its buffer and writes straight
// to the kernel (no user-space buffer to lose) whenever the queue runs empty or
// the buffer full — one system call for many records. Polls at 1 ms so that
// the stepping thread never has to signal.
void Recorder::drain() {
  const std::span<std::uint8_t> buffer = writer_buffer_;
  std::size_t used = 0;
  const auto flush = [&] {
    if (used > 0 && !write_failed_.load()) write_bytes(buffer.first(used));
    used = 0;
  };
  for (;;) {
    const bool last = stopping_.load();
    std::uint32_t slot = 0;
    while (filled_slots_.pop(slot)) {
      if (buffer.size() - used < protocol::kMaxLogFrameBytes) flush();
      const protocol::EncodeResult encoded =
          protocol::encode_log_frame(slots_[slot], buffer.subspan(used));
      if (!encoded) {
        write_error_ = std::string("a record does not encode: ") + encoded.reason +
                       " (record type " + std::to_string(slots_[slot].which_body) + ")";
        write_failed_.store(true);
      }
      free_slots_.push(slot);
      used += encoded.size;
    }
    flush();
    if (last) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void Recorder::stop_writer() {
  if (!writer_.joinable()) return;
  stopping_.store(true);
  writer_.join();
}

}  // namespace couplet
