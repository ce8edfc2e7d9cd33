#pragma once
// A run log read into memory, for export, inspect and report, or record by
// record (RunLogReading; replay streams it, host_tools/runlog/run_log_stream.hpp)
// (docs/run-log.md). Reading stops at the first frame that is cut or corrupted;
// everything before it is kept and `tail` says what happened there. A frame
// whose checksum holds but whose record breaks the format is an error: every
// record is checked once, here, so that the consumers can trust what they get.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "couplet/polynomial.hpp"
#include "couplet/slave.hpp"
#include "couplet/time.hpp"
#include "drivers/link_policy.hpp"
#include "protocol/run_log_frame.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// A run log that cannot be read: the message names the file and, for a
/// record, its frame and byte offset ("run log 'out/run.log': frame 12 at byte
/// offset 3456: ...").
class RunLogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LoggedSlave {
  std::string name;
  SlaveDescription description;
  std::string link;  ///< empty: a local slave
  /// Its link's counters over the run (summary.json links.NAME), from the
  /// records before the end record; absent for a local slave and in a cut log.
  std::optional<drivers::LinkCounters> link_totals;
};

enum class CallKind : std::uint8_t {
  setup,
  evaluate_outputs,
  step,
  save_state,
  restore_state,
  linearize,
  discrete_outputs  ///< after setup: the discrete outputs' start values
};
inline constexpr std::size_t kCallKinds = 7;  ///< CallKind values, for counts by kind
static_assert(static_cast<std::size_t>(CallKind::discrete_outputs) + 1 == kCallKinds);

const char* call_kind_name(CallKind kind);

/// One executor call on a slave (protocol SlaveCall).
struct LoggedCall {
  std::uint64_t plan = 0;  ///< 0: initialization
  std::size_t slave = 0;
  CallKind kind = CallKind::step;
  Time start = 0;  ///< setup: the start time
  Time end = 0;
  std::vector<Polynomial> inputs;  ///< step, evaluate_outputs, linearize
  std::vector<Time> sample_times;  ///< step
  int derivative_order = 0;
  std::vector<double> end_outputs;  ///< (derivative_order + 1) rows of the outputs
  std::vector<double> samples;      ///< one row of the outputs per sample time
  /// linearize: x, ẋ, A, B, C, D as the slave returned them
  /// (LinearizationLayout::of(description), matrices column-major).
  std::vector<double> linearization;
  std::vector<std::int64_t> discrete_inputs;   ///< step: held over it
  std::vector<std::int64_t> discrete_outputs;  ///< step: at its end; discrete_outputs: at the start
  bool missed = false;  ///< wall clock: no result in time, replaced under the late policy
  // Timing (host CLOCK_MONOTONIC ns); zeros when not measured.
  std::uint64_t began_ns = 0;
  std::uint64_t ended_ns = 0;
  std::uint32_t retransmissions = 0;
  std::int64_t input_lateness_ns = 0;
};

/// After one executor plan (protocol LogPlan).
struct LoggedPlan {
  std::uint64_t plan = 0;
  std::uint64_t macro_steps = 0;
  Time frontier = 0;
  std::vector<double> internals;  ///< RunLog::internal_quantities order
  std::int64_t pacer_lateness_ns = 0;
  std::uint64_t wall_ns = 0;
};

struct LoggedEnd {
  /// "completed", "failed", "interrupted" or "stopped", as summary.json's status.
  std::string status = "completed";
  std::string message;  ///< why it failed, was interrupted or stopped
  std::uint64_t decision_hash = 0;
  std::uint64_t plans = 0;
  std::uint64_t macro_steps = 0;
  std::uint64_t slave_steps = 0;
  std::uint64_t rollbacks = 0;
  std::uint64_t records_waited = 0;

  bool completed() const { return status == "completed"; }
};

struct RunLog {
  std::string path;
  std::string scenario_source;
  std::string scenario_text;  ///< YAML as run (overrides applied)
  Time start = 0;
  Time end = 0;
  std::string algorithm;
  std::vector<std::string> internal_quantities;
  std::uint64_t wall_clock_start_ns = 0;
  std::vector<LoggedSlave> slaves;
  std::vector<Connection> connections;
  std::vector<Connection> discrete_connections;  ///< ports index the discrete ones
  /// Real outputs to Integer inputs (the target indexes the discrete inputs).
  std::vector<RoundedConnection> rounded_connections;
  /// Integer outputs to Real inputs (the source indexes the discrete outputs).
  std::vector<Connection> integer_to_real_connections;
  std::vector<LoggedCall> calls;  ///< in the order the executor made them
  std::vector<LoggedPlan> plans;
  std::optional<LoggedEnd> end_record;  ///< absent: the run was cut (crash, kill)

  std::uint64_t frames = 0;
  /// end, cut or corrupted: a malformed record is an error, never a tail.
  protocol::LogReadStatus tail = protocol::LogReadStatus::end;
  std::string tail_problem;  ///< why reading stopped early (tail != end)

  /// No end record: the run was killed or crashed (the last frame may be cut).
  bool cut() const { return !end_record.has_value(); }
  /// Reading stopped at a damaged frame (cut inside, corrupted).
  bool damaged() const { return tail != protocol::LogReadStatus::end; }
  /// "slave.output" of output `port` of slave `slave`.
  std::string output_name(std::size_t slave, std::size_t port) const;
  std::string input_name(std::size_t slave, std::size_t port) const;
  /// "slave.port" of a discrete (Integer, Boolean) output or input.
  std::string discrete_output_name(std::size_t slave, std::size_t port) const;
  std::string discrete_input_name(std::size_t slave, std::size_t port) const;
};

/// A run log read record by record, each checked as read_run_log() checks it:
/// the reading under read_run_log() and the streaming reader (RunLogStream).
/// Calls and plans accumulate in log(); a streaming consumer removes those it
/// has used.
class RunLogReading {
 public:
  /// Opens `path` (its first segment). Throws RunLogError naming it when it
  /// cannot be opened or is not a run log.
  explicit RunLogReading(const std::string& path);
  ~RunLogReading();
  RunLogReading(RunLogReading&&) noexcept;
  RunLogReading& operator=(RunLogReading&&) = delete;

  /// Reads and checks the next record into log(); false once the log has ended
  /// (log().tail and tail_problem say how). Throws RunLogError as read_run_log(),
  /// and the same again on every later call.
  bool read_record();
  /// Reads up to the last connections record (the structure replay builds on).
  void read_structure();
  /// For a log still being written (couplet watch): after read_record()
  /// returned false at the log's end or at a frame cut while it was written,
  /// and before its end record, makes read_record() read on from the last
  /// whole record when the writer has added more. False, changing nothing, once
  /// the end record was read, at damage, or when reading has not ended.
  bool resume();
  bool ended() const { return ended_; }
  /// The last record read was a slave call: CALL_STEP_SAMPLES records may
  /// still add samples to log().calls.back() (after resume(), when the reading
  /// has ended).
  bool last_was_call() const { return last_was_call_; }
  bool has_internal_quantities() const;
  RunLog& log() { return log_; }
  const RunLog& log() const { return log_; }

 private:
  bool read_next();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  RunLog log_;
  bool ended_ = false;
  bool last_was_call_ = false;
};

/// Reads the rest of the log through `reading`, handing each call and plan
/// record to `consumer.add(const LoggedCall&)` / `add(const LoggedPlan&)` in
/// batches of `batch` and dropping it from reading.log(), so that a log of any
/// length is read in bounded memory. A step's samples may go on in the records
/// after its call: the last call read is kept until the log has gone past it.
/// Within a batch the calls come before the plans.
template <typename Consumer>
void consume_records(RunLogReading& reading, Consumer& consumer, std::size_t batch = 4096) {
  RunLog& log = reading.log();
  const auto take = [&](std::size_t keep_calls) {
    const auto taken = static_cast<std::ptrdiff_t>(log.calls.size() - keep_calls);
    for (auto call = log.calls.begin(); call != log.calls.begin() + taken; ++call)
      consumer.add(*call);
    log.calls.erase(log.calls.begin(), log.calls.begin() + taken);
    for (const LoggedPlan& plan : log.plans) consumer.add(plan);
    log.plans.clear();
  };
  while (reading.read_record()) {
    if (log.calls.size() + log.plans.size() >= batch) take(reading.last_was_call() ? 1 : 0);
  }
  take(0);
}

/// Reads `path`. Throws RunLogError naming the file when it cannot be opened,
/// does not start with a complete header, slaves and connections, or holds a
/// record that breaks the format (naming the frame and its byte offset): a
/// value out of its range (enum, time, count, index, derivative order, input
/// polynomial, linearization value), a record out of order (a second header, a
/// call for a plan other than the one under way, a record after the end) or
/// one that does not fit the logged system (a slave, port or internal quantity
/// it does not have, a linearize call on a slave that cannot linearize). A
/// frame cut or corrupted (checksum, impossible length) only shortens the log
/// (RunLog::tail): what came before it is kept.
///
/// What a returned log guarantees, for its consumers: slave indices, ports and
/// connections fit the slaves; every input is driven once; times lie within
/// ±2^61 ns (no sum or difference of two overflows), start < end; a slave that
/// can linearize does so into at most protocol::kMaxLinearizationValues values;
/// calls carry exactly the arrays of their kind, sized by the slave
/// ((derivative order + 1) rows of end outputs, one row of samples per sample
/// time, sample times increasing within the step; a linearize call, only on a
/// slave that can linearize, LinearizationLayout::of(its description).size()
/// finite values); plans are numbered 1, 2, ... with the calls of each plan
/// before it; frontiers and macro-step counts never decrease; plan internals
/// match the quantity names.
RunLog read_run_log(const std::string& path);

}  // namespace couplet::tools
