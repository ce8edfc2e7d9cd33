#include "host_tools/runlog/log_inspect.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

#include "runtime/decision_hash.hpp"

namespace couplet::tools {

namespace {

std::string capabilities_text(const SlaveCapabilities& capabilities) {
  std::ostringstream text;
  text << "input degree ≤ " << capabilities.max_input_degree << ", output derivatives "
       << capabilities.output_derivative_order;
  if (capabilities.can_rollback) text << ", rollback";
  if (capabilities.imposed_step > 0)
    text << ", imposed step " << seconds_text(capabilities.imposed_step) << " s";
  if (capabilities.intermediate_samples) text << ", intermediate samples";
  if (capabilities.can_linearize) {
    text << ", linearizes (" << capabilities.state_count
         << (capabilities.state_count == 1 ? " state)" : " states)");
  }
  return text.str();
}

std::string ports_text(const SlaveDescription& description) {
  std::ostringstream text;
  text << "inputs:";
  for (const InputDescription& input : description.inputs) text << ' ' << input.name;
  if (description.inputs.empty()) text << " none";
  text << "; outputs:";
  for (const OutputDescription& output : description.outputs) {
    text << ' ' << output.name << (output.direct_feedthrough ? " (feedthrough)" : "");
  }
  const auto discrete = [&](const char* what, const std::vector<DiscretePortDescription>& ports) {
    if (ports.empty()) return;
    text << "; " << what << ":";
    for (const DiscretePortDescription& port : ports)
      text << ' ' << port.name << " (" << to_string(port.type) << ')';
  };
  discrete("discrete inputs", description.discrete_inputs);
  discrete("discrete outputs", description.discrete_outputs);
  return text.str();
}

std::string status_text(const RunLog& log) {
  std::string text;
  if (!log.end_record) {
    text = "cut: no end record (the run was killed or crashed)";
  } else if (log.end_record->completed()) {
    text = "completed";
  } else {
    text = log.end_record->status + ": " + log.end_record->message;
  }
  if (log.damaged()) text += "; reading stopped at " + log.tail_problem;
  return text;
}

/// What the summary counts of the calls and plans, taken one at a time: the
/// memory it holds grows with the slaves and with the distinct round-trip
/// times of linked slaves, not with the log's length.
class InspectTally {
 public:
  explicit InspectTally(const RunLog& log)
      : start_(log.start), previous_frontier_(log.start), slaves_(log.slaves.size()) {}

  void add(const LoggedCall& call) {
    ++by_kind_[static_cast<std::size_t>(call.kind)];
    SlaveTally& slave = slaves_[call.slave];
    if (call.kind == CallKind::linearize) ++slave.linearizations;
    if (call.kind != CallKind::step) return;
    ++slave.round_trips[call.ended_ns - call.began_ns];
    ++slave.steps;
    slave.retransmissions += call.retransmissions;
    slave.missed += call.missed ? 1 : 0;
    slave.worst_lateness = std::max(slave.worst_lateness, call.input_lateness_ns);
  }

  /// Counts the plan, and its macro step when it advanced the frontier
  /// (smallest, mean and largest step).
  void add(const LoggedPlan& plan) {
    ++plans_;
    macro_steps_ = plan.macro_steps;
    reached_ = plan.frontier;
    if (plan.frontier <= previous_frontier_) return;
    const Time step = plan.frontier - previous_frontier_;
    smallest_step_ = advancing_plans_ == 0 ? step : std::min(smallest_step_, step);
    largest_step_ = std::max(largest_step_, step);
    previous_frontier_ = plan.frontier;
    ++advancing_plans_;
  }

  void progress(std::ostream& text) const {
    text << "progress     " << plans_ << " plans, " << macro_steps_
         << " macro steps up to t = " << seconds_text(plans_ == 0 ? start_ : reached_) << " s\n";
    text << "step size    min / mean / max ";
    if (advancing_plans_ == 0) {
      text << "no macro step\n";
      return;
    }
    text << seconds_text(smallest_step_) << " / "
         << seconds_text((previous_frontier_ - start_) / static_cast<Time>(advancing_plans_))
         << " / " << seconds_text(largest_step_) << " s\n";
  }

  void call_counts(const RunLog& log, std::ostream& text) const {
    text << "slave calls  " << count_of(CallKind::step) << " steps, "
         << count_of(CallKind::evaluate_outputs) << " output evaluations, "
         << count_of(CallKind::save_state) << " saves, " << count_of(CallKind::restore_state)
         << " restores, " << count_of(CallKind::linearize) << " linearizations\n";
    if (count_of(CallKind::linearize) == 0) return;
    // Per slave, so that a reader sees which slaves a linearizing algorithm asked.
    text << "linearized   ";
    const char* separator = "";
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      if (!log.slaves[s].description.capabilities.can_linearize) continue;
      text << separator << log.slaves[s].name << ' ' << slaves_[s].linearizations << " times";
      separator = ", ";
    }
    text << "\n";
  }

  void link_timing(const RunLog& log, std::size_t s, std::ostream& text) const {
    const SlaveTally& slave = slaves_[s];
    if (slave.steps == 0) return;
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %s: step round trip median %.1f µs, max %.1f µs; %llu retransmissions, %llu "
                  "missed results, "
                  "worst input lateness %.1f µs\n",
                  log.slaves[s].name.c_str(), microseconds(slave.round_trip_at(slave.steps / 2)),
                  microseconds(slave.round_trips.rbegin()->first),
                  static_cast<unsigned long long>(slave.retransmissions),
                  static_cast<unsigned long long>(slave.missed),
                  static_cast<double>(slave.worst_lateness) * 1e-3);
    text << line;
  }

 private:
  struct SlaveTally {
    std::uint64_t linearizations = 0;
    std::uint64_t steps = 0;
    /// Step round trips, ns → how many: the median without keeping every step.
    std::map<std::int64_t, std::uint64_t> round_trips;
    std::uint64_t retransmissions = 0;
    std::uint64_t missed = 0;
    std::int64_t worst_lateness = 0;

    /// The round trip at `rank` (from 0) in increasing order.
    std::int64_t round_trip_at(std::uint64_t rank) const {
      for (const auto& [nanoseconds, count] : round_trips) {
        if (rank < count) return nanoseconds;
        rank -= count;
      }
      return round_trips.rbegin()->first;
    }
  };

  static double microseconds(std::int64_t nanoseconds) {
    return static_cast<double>(nanoseconds) * 1e-3;
  }
  std::uint64_t count_of(CallKind kind) const { return by_kind_[static_cast<std::size_t>(kind)]; }

  Time start_;
  std::uint64_t plans_ = 0;
  std::uint64_t macro_steps_ = 0;
  Time reached_ = 0;
  Time previous_frontier_;
  Time smallest_step_ = 0;
  Time largest_step_ = 0;
  std::uint64_t advancing_plans_ = 0;
  std::array<std::uint64_t, kCallKinds> by_kind_{};
  std::vector<SlaveTally> slaves_;
};

/// The whole run's counters (steps, evaluations, set-up and stop alike).
void link_totals(const LoggedSlave& slave, std::ostream& text) {
  if (!slave.link_totals) return;
  const drivers::LinkCounters& totals = *slave.link_totals;
  char line[320];
  std::snprintf(
      line, sizeof line,
      "  %s: whole run %llu requests, %llu retransmissions, %llu duplicates, %llu dropped, "
      "%llu late, %llu missed, %llu host stalls (longest %.3f s)\n",
      slave.name.c_str(), static_cast<unsigned long long>(totals.requests),
      static_cast<unsigned long long>(totals.retransmissions),
      static_cast<unsigned long long>(totals.duplicates),
      static_cast<unsigned long long>(totals.drops),
      static_cast<unsigned long long>(totals.late_results),
      static_cast<unsigned long long>(totals.missed_results),
      static_cast<unsigned long long>(totals.host_stalls),
      static_cast<double>(totals.host_stall_longest_ns) * 1e-9);
  text << line;
}

std::string summary_text(const RunLog& log, const InspectTally& tally) {
  std::ostringstream text;
  text << "run log      " << log.path << " (" << log.frames << " frames)\n";
  text << "scenario     " << log.scenario_source << "\n";
  text << "algorithm    " << log.algorithm << ", t = " << seconds_text(log.start) << " → "
       << seconds_text(log.end) << " s\n";
  text << "status       " << status_text(log) << "\n";
  text << "slaves\n";
  for (const LoggedSlave& slave : log.slaves) {
    text << "  " << std::left << std::setw(12) << slave.name << ' '
         << (slave.link.empty() ? "local" : slave.link) << "\n    " << ports_text(slave.description)
         << "\n    " << capabilities_text(slave.description.capabilities) << "\n";
  }
  text << "connections\n";
  for (const Connection& connection : log.connections) {
    text << "  " << log.output_name(connection.source.slave, connection.source.port) << " → "
         << log.input_name(connection.target.slave, connection.target.port) << "\n";
  }
  for (const Connection& connection : log.discrete_connections) {
    text << "  " << log.discrete_output_name(connection.source.slave, connection.source.port)
         << " → " << log.discrete_input_name(connection.target.slave, connection.target.port)
         << "\n";
  }
  for (const Connection& connection : log.integer_to_real_connections) {
    text << "  " << log.discrete_output_name(connection.source.slave, connection.source.port)
         << " → " << log.input_name(connection.target.slave, connection.target.port)
         << " (Integer to Real, held)\n";
  }
  for (const RoundedConnection& connection : log.rounded_connections) {
    text << "  " << log.output_name(connection.source.slave, connection.source.port) << " → "
         << log.discrete_input_name(connection.target.slave, connection.target.port)
         << " (rounding: " << to_string(connection.rounding) << ")\n";
  }
  tally.progress(text);
  tally.call_counts(log, text);
  if (!log.internal_quantities.empty()) {
    text << "internals    ";
    for (std::size_t q = 0; q < log.internal_quantities.size(); ++q) {
      text << (q ? ", " : "") << log.internal_quantities[q];
    }
    text << "\n";
  }
  bool any_link = false;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (log.slaves[s].link.empty()) continue;
    if (!any_link) text << "links\n";
    any_link = true;
    tally.link_timing(log, s, text);
    link_totals(log.slaves[s], text);
  }
  if (log.end_record) {
    text << "decision     hash " << hash_text(log.end_record->decision_hash) << ", "
         << log.end_record->slave_steps << " slave steps, " << log.end_record->rollbacks
         << " rollbacks\n";
    if (log.end_record->records_waited > 0) {
      text << "recorder     the stepping thread waited for queue room "
           << log.end_record->records_waited << " times\n";
    }
  }
  return text.str();
}

}  // namespace

std::string inspect_text(const RunLog& log) {
  InspectTally tally(log);
  for (const LoggedCall& call : log.calls) tally.add(call);
  for (const LoggedPlan& plan : log.plans) tally.add(plan);
  return summary_text(log, tally);
}

LogInspection inspect_log(const std::string& path) {
  RunLogReading reading(path);
  reading.read_structure();
  RunLog& log = reading.log();
  InspectTally tally(log);
  consume_records(reading, tally);
  return {summary_text(log, tally), log.damaged() ? log.tail_problem : "", log.tail};
}

}  // namespace couplet::tools
