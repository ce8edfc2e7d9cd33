#pragma once
// A run log read into memory, for replay, export, inspect and report
// (docs/run-log.md). Reading stops at the first frame that is cut or corrupted;
// everything before it is kept and `tail` says what happened there.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/run_log_frame.hpp"
#include "couplet/polynomial.hpp"
#include "couplet/slave.hpp"
#include "runtime/system.hpp"
#include "couplet/time.hpp"

namespace couplet::tools {

struct LoggedSlave {
  std::string name;
  SlaveDescription description;
  std::string link;  ///< empty: a local slave
};

enum class CallKind : std::uint8_t { setup, evaluate_outputs, step, save_state, restore_state };

const char* call_kind_name(CallKind kind);

/// One executor call on a slave (protocol SlaveCall).
struct LoggedCall {
  std::uint64_t plan = 0;  ///< 0: initialization
  std::size_t slave = 0;
  CallKind kind = CallKind::step;
  Time start = 0;  ///< setup: the start time
  Time end = 0;
  std::vector<Polynomial> inputs;  ///< step, evaluate_outputs
  std::vector<Time> sample_times;  ///< step
  int derivative_order = 0;
  std::vector<double> end_outputs;  ///< (derivative_order + 1) rows of the outputs
  std::vector<double> samples;      ///< one row of the outputs per sample time
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
  bool completed = false;
  std::string message;  ///< why it failed
  std::uint64_t decision_hash = 0;
  std::uint64_t plans = 0;
  std::uint64_t macro_steps = 0;
  std::uint64_t slave_steps = 0;
  std::uint64_t rollbacks = 0;
  std::uint64_t records_waited = 0;
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
  std::vector<LoggedCall> calls;  ///< in the order the executor made them
  std::vector<LoggedPlan> plans;
  std::optional<LoggedEnd> end_record;  ///< absent: the run was cut (crash, kill)

  std::uint64_t frames = 0;
  protocol::LogReadStatus tail = protocol::LogReadStatus::end;
  std::string tail_problem;  ///< why reading stopped early (tail != end)

  /// No end record: the run was killed or crashed (the last frame may be cut).
  bool cut() const { return !end_record.has_value(); }
  /// Reading stopped at a damaged frame (cut inside, corrupted, malformed).
  bool damaged() const { return tail != protocol::LogReadStatus::end; }
  /// "slave.output" of output `port` of slave `slave`.
  std::string output_name(std::size_t slave, std::size_t port) const;
  std::string input_name(std::size_t slave, std::size_t port) const;
};

/// Reads `path`. Throws std::runtime_error naming the file when it cannot be
/// opened or does not start with a complete header, slaves and connections;
/// later damage only shortens the log (RunLog::tail).
RunLog read_run_log(const std::string& path);

}  // namespace couplet::tools
