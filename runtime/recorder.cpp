#include "runtime/recorder.hpp"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <type_traits>

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

/// Copies up to one record's worth of `from` into a fixed log array; returns
/// what is left for the next record.
template <typename AnyConnection, std::size_t Size, typename Count>
std::span<const AnyConnection> copy_connections(std::span<const AnyConnection> from,
                                                couplet_wire_LogConnection (&field)[Size],
                                                Count& count) {
  const std::size_t copied = std::min(from.size(), Size);
  for (std::size_t c = 0; c < copied; ++c) {
    field[c] = {static_cast<std::uint32_t>(from[c].source.slave),
                static_cast<std::uint32_t>(from[c].source.port),
                static_cast<std::uint32_t>(from[c].target.slave),
                static_cast<std::uint32_t>(from[c].target.port),
                couplet_wire_Rounding_ROUNDING_NONE};
    if constexpr (std::is_same_v<AnyConnection, RoundedConnection>)  // one numbering
      field[c].rounding = static_cast<couplet_wire_Rounding>(from[c].rounding);
  }
  count = static_cast<Count>(copied);
  return from.subspan(copied);
}

static_assert(static_cast<int>(Rounding::nearest) == couplet_wire_Rounding_ROUNDING_NEAREST &&
              static_cast<int>(Rounding::floor) == couplet_wire_Rounding_ROUNDING_FLOOR &&
              static_cast<int>(Rounding::ceil) == couplet_wire_Rounding_ROUNDING_CEIL &&
              static_cast<int>(Rounding::truncate) == couplet_wire_Rounding_ROUNDING_TRUNCATE);

bool connections_left(std::span<const Connection> real, std::span<const Connection> discrete,
                      std::span<const RoundedConnection> rounded,
                      std::span<const Connection> integer_to_real) {
  return !real.empty() || !discrete.empty() || !rounded.empty() || !integer_to_real.empty();
}

/// The length of the first part of `text` that fits `capacity` bytes and ends
/// at a UTF-8 character boundary (a string field must hold whole characters).
std::size_t utf8_prefix(std::string_view text, std::size_t capacity) {
  if (text.size() <= capacity) return text.size();
  std::size_t length = capacity;
  while (length > 0 && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
  return length > 0 ? length : capacity;  // not UTF-8 at all: cut where it fits
}

/// Copies discrete values into a fixed wire array (at most kMaxPorts: the
/// description's limit, checked by begin()).
template <typename Count, std::size_t Size>
void copy_discrete(std::span<const std::int64_t> values, std::int64_t (&field)[Size],
                   Count& count) {
  const std::size_t copied = std::min(values.size(), Size);
  std::copy_n(values.begin(), copied, field);
  count = static_cast<Count>(copied);
}

/// How long the writer looks for more records after the queue ran empty before
/// it writes what it has and blocks. Short: a longer yield loop (50 µs was
/// measured) spends the writer's fair share of a loaded machine's cores, so that
/// the scheduler runs it late once records pile up (docs/results.md).
constexpr std::chrono::microseconds kWriterIdleSpin{5};

/// The longest the writer sleeps with records waiting: how late a record of a
/// slow run reaches the file (and how often an idle writer looks).
constexpr std::chrono::milliseconds kWriterFlushInterval{1};

/// The writer writes once its buffer holds this much, even while records keep coming.
constexpr std::size_t kWriteBatchBytes = std::size_t{64} << 10;

/// A compressed log's smallest block (but its last): zstd needs some kilobytes
/// of these records to find their repetitions (docs/run-log.md "Compressed logs").
constexpr std::size_t kMinBlockBytes = std::size_t{16} << 10;

/// Zeroes [first, first + count) of `bytes`: the kernel maps the pages now, not
/// on the stepping thread.
void prefault(std::byte* bytes, std::size_t first, std::size_t count) {
  std::memset(bytes + first, 0, count);
}

constexpr std::size_t kPageBytes = 4096;

/// The first projection of the log's size comes at 1/64 of the horizon: early
/// enough to spare most of a run that cannot fit, late enough to see its rate.
constexpr Time kFirstProjection = 64;

constexpr const char* kSizeAdvice =
    "Take longer steps, raise limits.run_log_bytes in the scenario, compress the log "
    "(--compress-log), or run with --no-log";

/// Removes run.2.log, run.3.log, ... beside `first` up to the first missing
/// one (where the reader stops too): left by an earlier run into the same
/// directory, they would follow this run's log when it is read (the reader
/// refuses them by their identity, but as damage).
void remove_earlier_segments(const std::string& first) {
  for (std::uint32_t number = 2;; ++number) {
    const std::string segment = protocol::log_segment_path(first, number);
    std::error_code error;
    if (!std::filesystem::remove(segment, error)) return;
  }
}

}  // namespace

std::size_t Recorder::queue_records_for(std::size_t slave_count, std::size_t queue_records) {
  constexpr std::size_t kPlans = 32;
  constexpr std::size_t kCallsPerSlave = 4;
  constexpr std::size_t kMinimum = 128;
  const std::size_t wanted = std::max(kMinimum, kPlans * (1 + kCallsPerSlave * slave_count));
  return std::max<std::size_t>(2, std::min(wanted, queue_records));
}

Recorder::Recorder(const std::string& path, std::size_t queue_records, LogCompression compression)
    : path_(path),
      queue_capacity_(std::max<std::size_t>(queue_records, 2)),
      writer_buffer_(4 * protocol::kMaxLogFrameBytes),
      free_slots_(queue_capacity_),
      filled_slots_(queue_capacity_) {
  file_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file_ < 0)
    throw ConfigurationError("cannot create the run log '" + path + "': " + std::strerror(errno));
  remove_earlier_segments(path);
  if (compression == LogCompression::zstd)
    compressor_ = std::make_unique<protocol::LogBlockCompressor>(writer_buffer_.size());
  const char* magic = compressor_ ? protocol::kCompressedLogMagic : protocol::kLogMagic;
  write_bytes({reinterpret_cast<const std::uint8_t*>(magic), protocol::kLogMagicBytes});
  writer_ = std::thread([this] { drain(); });
}

Recorder::~Recorder() {
  stop_writer();
  if (file_ >= 0) ::close(file_);
}

// Takes `count` slots and touches, in each, the parts of a record that this
// system fills: everything of a call record but the sample values beyond their
// first page and, when no slave linearizes, the linearization (both at the end
// of the record's layout), so that the stepping thread never takes a page fault
// on them. Header and slave records zero whole slots: they are few, and written here.
void Recorder::allocate_slots(std::size_t count, bool linearizes) {
  slots_.reset(new protocol::LogRecord[count]);  // default-initialized: untouched
  slot_count_ = count;
  wake_threshold_ = std::max<std::size_t>(1, count / 2);
  const std::size_t call = offsetof(protocol::LogRecord, body.call);
  const std::size_t samples = call + offsetof(couplet_wire_SlaveCall, samples);
  const std::size_t after_samples = samples + sizeof(couplet_wire_SlaveCall::samples);
  const std::size_t linearization = call + offsetof(couplet_wire_SlaveCall, linearization);
  const std::size_t end = linearizes ? call + sizeof(couplet_wire_SlaveCall) : linearization;
  const std::size_t first_samples = std::min(kPageBytes, after_samples - samples);
  touched_slot_bytes_ = samples + first_samples + (end - after_samples);
  static_assert(offsetof(couplet_wire_SlaveCall, samples) <
                offsetof(couplet_wire_SlaveCall, linearization));
  static_assert(sizeof(couplet_wire_LogPlan) < offsetof(couplet_wire_SlaveCall, samples));
  for (std::size_t slot = 0; slot < count; ++slot) {
    auto* const bytes = reinterpret_cast<std::byte*>(&slots_[slot]);
    prefault(bytes, 0, samples + first_samples);
    prefault(bytes, after_samples, end - after_samples);
    free_slots_.push(static_cast<std::uint32_t>(slot));
  }
}

void Recorder::begin(const RunLogHeader& header, const System& system) {
  bool linearizes = false;
  for (std::size_t s = 0; s < system.slave_count(); ++s)
    linearizes = linearizes || system.description(s).capabilities.can_linearize;
  allocate_slots(queue_records_for(system.slave_count(), queue_capacity_), linearizes);
  segment_bytes_.store(header.segment_bytes);
  protocol::LogRecord& header_record = next_record();
  header_record = protocol::LogRecord{};
  header_record.which_body = couplet_wire_LogRecord_header_tag;
  couplet_wire_LogHeader& head = header_record.body.header;
  head.version = couplet_wire_Version_VERSION_CURRENT;
  wire::copy_name(head.scenario_source, header.scenario_source, "run log: scenario file name");
  // The scenario text: what the header holds, the rest in parts after it.
  std::vector<std::string_view> parts;
  for (std::string_view rest = header.scenario_text; !rest.empty() || parts.empty();) {
    const std::size_t length = utf8_prefix(rest, sizeof head.scenario_text - 1);
    parts.push_back(rest.substr(0, length));
    rest.remove_prefix(length);
  }
  wire::copy_name(head.scenario_text, std::string(parts.front()), "run log: scenario text");
  head.scenario_text_parts = static_cast<std::uint32_t>(parts.size() - 1);
  head.start_ns = header.start;
  head.end_ns = header.end;
  wire::copy_name(head.algorithm, header.algorithm, "run log: algorithm name");
  head.wall_clock_start_ns = realtime_ns();
  publish();
  for (std::size_t p = 1; p < parts.size(); ++p) {
    protocol::LogRecord& part = next_record();
    part = protocol::LogRecord{};
    part.which_body = couplet_wire_LogRecord_scenario_text_tag;
    wire::copy_name(part.body.scenario_text.text, std::string(parts[p]), "run log: scenario text");
    publish();
  }
  max_bytes_ = header.max_bytes;
  keep_free_bytes_.store(header.keep_free_bytes);
  start_ = header.start;
  end_ = header.end;
  next_projection_ = start_ + std::max<Time>((end_ - start_) / kFirstProjection, 1);

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
    publish();
    output_counts_.push_back(system.description(s).outputs.size());
  }

  // As many connections records as the connections need, the last one not
  // `continued`.
  std::span<const Connection> real = system.connections();
  std::span<const Connection> discrete = system.discrete_connections();
  std::span<const RoundedConnection> rounded = system.rounded_connections();
  std::span<const Connection> integer_to_real = system.integer_to_real_connections();
  do {
    protocol::LogRecord& record = next_record();
    record = protocol::LogRecord{};
    record.which_body = couplet_wire_LogRecord_connections_tag;
    couplet_wire_LogConnections& connections = record.body.connections;
    real = copy_connections(real, connections.connections, connections.connections_count);
    discrete = copy_connections(discrete, connections.discrete_connections,
                                connections.discrete_connections_count);
    rounded = copy_connections(rounded, connections.rounded_connections,
                               connections.rounded_connections_count);
    integer_to_real = copy_connections(integer_to_real, connections.integer_to_real_connections,
                                       connections.integer_to_real_connections_count);
    connections.continued = connections_left(real, discrete, rounded, integer_to_real);
    publish();
  } while (connections_left(real, discrete, rounded, integer_to_real));

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
  call.discrete_inputs_count = 0;
  call.discrete_outputs_count = 0;
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

void Recorder::discrete_outputs_evaluated(std::size_t slave, std::span<const std::int64_t> values) {
  couplet_wire_SlaveCall& call =
      begin_call(slave, couplet_wire_SlaveCallKind_CALL_DISCRETE_OUTPUTS);
  copy_discrete(values, call.discrete_outputs, call.discrete_outputs_count);
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

void Recorder::copy_samples(std::size_t slave, const StepRequest& request,
                            const OutputBuffers& result, std::size_t first, std::size_t count,
                            couplet_wire_SlaveCall& call) const {
  const std::size_t outputs = output_counts_[slave];
  std::copy_n(request.sample_times.begin() + static_cast<std::ptrdiff_t>(first), count,
              call.sample_times_ns);
  call.sample_times_ns_count = static_cast<pb_size_t>(count);
  copy_values(call.samples, call.samples_count,
              result.samples.subspan(first * outputs, count * outputs));
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
  copy_discrete(request.discrete_inputs, call.discrete_inputs, call.discrete_inputs_count);
  copy_discrete(result.discrete_outputs, call.discrete_outputs, call.discrete_outputs_count);
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
  // Checked here, not at begin(): a slave that can linearize but is never asked
  // to (a large chain segment under the explicit scheme) is logged like any other.
  if (linearization.size() > protocol::kMaxLinearizationValues) {
    throw ConfigurationError("run log: slave " + std::to_string(slave) + " linearizes into " +
                             std::to_string(linearization.size()) + " values, a log record holds " +
                             std::to_string(protocol::kMaxLinearizationValues) +
                             " (run with --no-log)");
  }
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
  // Checked after the plan's record, so that the log ends on a whole plan; one
  // load each in steady state.
  if (plan_ == 1) bytes_at_first_plan_ = bytes_written_.load();
  if (executor.frontier() >= next_projection_) check_projection(executor);
  if (bytes_written_.load() > max_bytes_) {
    stop_run(executor,
             "run log '" + path_ + "' passed " + std::to_string(max_bytes_ >> 20) +
                 " MiB (limits.run_log_bytes, all its segments)",
             kSizeAdvice);
  }
  constexpr const char* kFreeSpace = "Free space there, or write the run elsewhere (-o DIR)";
  if (const std::uint64_t left = free_bytes_low_.load(std::memory_order_relaxed); left != 0) {
    stop_run(executor,
             "the file system of run log '" + path_ + "' has " + std::to_string(left >> 10) +
                 " KiB free, less than the " + std::to_string(keep_free_bytes_.load() >> 10) +
                 " KiB kept for the end of the log and the run's results",
             kFreeSpace);
  }
  if (write_failed_.load())
    stop_run(executor, "cannot write the run log '" + path_ + "': " + write_error_, kFreeSpace);
}

// The bytes written since the first plan, scaled from the part of the horizon
// done to all of it. After half the horizon the cap itself decides.
void Recorder::check_projection(const Executor& executor) {
  const Time done = executor.frontier() - start_;
  const Time horizon = end_ - start_;
  next_projection_ = done >= horizon / 2 ? std::numeric_limits<Time>::max()
                                         : start_ + std::min(2 * done, horizon / 2);
  const std::uint64_t written = bytes_written_.load();
  const double grown = static_cast<double>(written - std::min(written, bytes_at_first_plan_));
  const double done_ns = static_cast<double>(std::max<Time>(done, 1));
  const double projected =
      static_cast<double>(bytes_at_first_plan_) + grown * static_cast<double>(horizon) / done_ns;
  if (projected <= static_cast<double>(max_bytes_)) return;
  const double rate = grown / (done_ns * 1e-9);
  stop_run(executor,
           "run log '" + path_ + "' grows by " + std::to_string(static_cast<std::uint64_t>(rate)) +
               " bytes per simulated second: it would take " +
               std::to_string(static_cast<std::uint64_t>(projected) >> 20) +
               " MiB by t = " + seconds_text(end_) + " s, more than limits.run_log_bytes (" +
               std::to_string(max_bytes_ >> 20) + " MiB),",
           kSizeAdvice);
}

void Recorder::stop_run(const Executor& executor, const std::string& why,
                        const char* advice) const {
  throw SlaveError(why + " at t = " + seconds_text(executor.frontier()) + " s after " +
                   std::to_string(executor.counters().macro_steps) +
                   " macro steps: the run is stopped. " + advice);
}

void Recorder::finish(const RunEnding& ending) {
  if (!writer_.joinable()) return;
  if (slot_count_ == 0) allocate_slots(2, false);  // begin() failed or was never called
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
  end.status = ending.completed                            ? couplet_wire_RunStatus_RUN_COMPLETED
               : ending.early_end == EarlyEnd::interrupted ? couplet_wire_RunStatus_RUN_INTERRUPTED
               : ending.early_end == EarlyEnd::stopped     ? couplet_wire_RunStatus_RUN_STOPPED
                                                           : couplet_wire_RunStatus_RUN_FAILED;
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
    wait_for_free_slot();
  }
  return slots_[current_slot_];
}

// Announces the wait, then looks again (the writer may have freed a slot in
// between), then blocks until the writer clears the flag. Both sides order
// their flag against their queue with a seq_cst fence: either the writer sees
// the flag after it freed a slot, or this thread sees the slot.
void Recorder::wait_for_free_slot() {
  for (;;) {
    producer_waiting_.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (free_slots_.pop(current_slot_)) {
      producer_waiting_.store(0, std::memory_order_relaxed);
      return;
    }
    wake_writer();
    producer_waiting_.wait(1, std::memory_order_acquire);
  }
}

void Recorder::publish() {
  filled_slots_.push(current_slot_);
  if (++published_since_look_ < wake_threshold_) return;
  published_since_look_ = 0;
  wake_writer();
}

// Stepping thread, every wake_threshold_ records and when it waits for a slot:
// a fence and a load; a futex wake only when the writer has said it sleeps.
void Recorder::wake_writer() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (writer_asleep_.load(std::memory_order_relaxed) == 0) return;
  if (writer_asleep_.exchange(0, std::memory_order_relaxed) == 0) return;
  writer_asleep_.wake();
  ++writer_wakeups_;
}

// Writer thread, after freeing slots.
void Recorder::wake_producer() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (producer_waiting_.load(std::memory_order_relaxed) == 0) return;
  if (producer_waiting_.exchange(0, std::memory_order_relaxed) == 0) return;
  producer_waiting_.notify_one();
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
    segment_written_ += static_cast<std::uint64_t>(written);
  }
  if (bytes_written_.load() >= next_space_check_) check_free_space();
}

void Recorder::write_frames(std::span<const std::uint8_t> frames) {
  if (!compressor_) {
    start_segment_if_full(frames.size());
    return write_bytes(frames);
  }
  const std::span<const std::uint8_t> block = compressor_->compress(frames);
  if (block.empty()) {
    write_error_ = compressor_->error();
    write_failed_.store(true);
    return;
  }
  start_segment_if_full(block.size());
  write_bytes(block);
}

// The finished segment goes to the disk (fdatasync, on this thread) before the
// next begins, so that a crash loses at most the last segment's tail.
void Recorder::start_segment_if_full(std::size_t next) {
  if (segment_written_ + next <= segment_bytes_.load() ||
      segment_written_ <= protocol::kLogSegmentHeaderBytes)
    return;
  const std::uint32_t number = segment_.load(std::memory_order_relaxed) + 1;
  const std::string path = protocol::log_segment_path(path_, number);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file < 0 || ::fdatasync(file_) != 0) {
    write_error_ = "segment '" + path + "': " + std::strerror(errno);
    write_failed_.store(true);
    if (file >= 0) ::close(file);
    return;
  }
  ::close(file_);
  file_ = file;
  segment_.store(number, std::memory_order_relaxed);
  segment_written_ = 0;
  const protocol::LogSegmentHeader header =
      protocol::encode_log_segment_header(number, identity_, compressor_ != nullptr);
  write_bytes(header);
}

// The first check comes with the first write after begin() set the reserve.
void Recorder::check_free_space() {
  const std::uint64_t keep = keep_free_bytes_.load();
  if (keep == 0) return;
  next_space_check_ = bytes_written_.load() + kFreeSpaceCheckBytes;
  struct statvfs space {};
  if (::fstatvfs(file_, &space) != 0) return;
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(space.f_bavail) * space.f_frsize;
  if (free_bytes < keep) free_bytes_low_.store(std::max<std::uint64_t>(free_bytes, 1));
}

// Writer thread: encodes the filled slots into its buffer and writes straight
// to the kernel (no user-space buffer to lose) in batches — one system call for
// many records: when the buffer holds kWriteBatchBytes, or when no record came
// for kWriterIdleSpin. Then it sleeps until the stepping thread wakes it or
// kWriterFlushInterval has passed.
void Recorder::drain() {
  const std::span<std::uint8_t> buffer = writer_buffer_;
  std::size_t used = 0;
  const auto flush = [&] {
    if (used > 0 && !write_failed_.load()) write_frames(buffer.first(used));
    used = 0;
  };
  std::size_t freed = 0;
  for (;;) {
    const bool last = stopping_.load();
    std::uint32_t slot = 0;
    while (filled_slots_.pop(slot)) {
      if (buffer.size() - used < protocol::kMaxLogFrameBytes) flush();
      const protocol::EncodeResult encoded =
          protocol::encode_log_frame(slots_[slot], buffer.subspan(used));
      if (slots_[slot].which_body == couplet_wire_LogRecord_header_tag)
        identity_ = slots_[slot].body.header.wall_clock_start_ns;
      if (!encoded) {
        write_error_ = std::string("a record does not encode: ") + encoded.reason +
                       " (record type " + std::to_string(slots_[slot].which_body) + ")";
        write_failed_.store(true);
      }
      free_slots_.push(slot);
      // A waiting stepping thread is woken when a quarter of the slots are free
      // (or the queue is drained), not at every slot: one wake for many records.
      // (slot_count_ was set before the first record was published.)
      if (++freed >= std::max<std::size_t>(1, slot_count_ / 4)) {
        wake_producer();
        freed = 0;
      }
      used += encoded.size;
    }
    wake_producer();
    freed = 0;
    if (last) {
      flush();
      return;
    }
    if (used >= kWriteBatchBytes) flush();
    if (idle_until_published()) continue;
    // Idle: what it has goes to the kernel now; a compressed log waits for a
    // block's worth, since a block of one record hardly compresses.
    if (!compressor_ || used >= kMinBlockBytes) flush();
    // Announce the sleep, then look again: a stepping thread that waits for a
    // slot either finds the flag or its records are seen here. Records
    // published without a wake wait at most kWriterFlushInterval.
    writer_asleep_.set(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (filled_slots_.read_available() == 0 && !stopping_.load())
      writer_asleep_.wait_while(1, kWriterFlushInterval);
    writer_asleep_.set(0, std::memory_order_relaxed);
  }
}

// Writer thread: true when a record (or the stop) came within kWriterIdleSpin.
bool Recorder::idle_until_published() {
  const auto until = std::chrono::steady_clock::now() + kWriterIdleSpin;
  do {
    if (filled_slots_.read_available() > 0 || stopping_.load()) return true;
    std::this_thread::yield();
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

void Recorder::stop_writer() {
  if (!writer_.joinable()) return;
  stopping_.store(true);
  writer_asleep_.set(0);
  writer_asleep_.wake();
  writer_.join();
}

}  // namespace couplet
