#include "host_tools/runlog/log_inspect.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iomanip>
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

/// Smallest, mean and largest macro step of the plans that advanced the frontier.
std::string step_sizes_text(const RunLog& log) {
  Time previous = log.start;
  Time smallest = 0;
  Time largest = 0;
  std::uint64_t steps = 0;
  for (const LoggedPlan& plan : log.plans) {
    if (plan.frontier <= previous) continue;
    const Time step = plan.frontier - previous;
    smallest = steps == 0 ? step : std::min(smallest, step);
    largest = std::max(largest, step);
    previous = plan.frontier;
    ++steps;
  }
  if (steps == 0) return "no macro step";
  return seconds_text(smallest) + " / " +
         seconds_text((previous - log.start) / static_cast<Time>(steps)) + " / " +
         seconds_text(largest) + " s";
}

void link_timing(const RunLog& log, std::size_t slave, std::ostream& text) {
  std::vector<double> round_trips;
  std::uint64_t retransmissions = 0;
  std::uint64_t missed = 0;
  std::int64_t worst_lateness = 0;
  for (const LoggedCall& call : log.calls) {
    if (call.slave != slave || call.kind != CallKind::step) continue;
    round_trips.push_back(static_cast<double>(call.ended_ns - call.began_ns) * 1e-3);
    retransmissions += call.retransmissions;
    missed += call.missed ? 1 : 0;
    worst_lateness = std::max(worst_lateness, call.input_lateness_ns);
  }
  if (round_trips.empty()) return;
  std::sort(round_trips.begin(), round_trips.end());
  char line[256];
  std::snprintf(line, sizeof line,
                "  %s: step round trip median %.1f µs, max %.1f µs; %llu retransmissions, %llu "
                "missed results, "
                "worst input lateness %.1f µs\n",
                log.slaves[slave].name.c_str(), round_trips[round_trips.size() / 2],
                round_trips.back(), static_cast<unsigned long long>(retransmissions),
                static_cast<unsigned long long>(missed),
                static_cast<double>(worst_lateness) * 1e-3);
  text << line;
}

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

std::uint64_t count_of(const std::array<std::uint64_t, kCallKinds>& by_kind, CallKind kind) {
  return by_kind[static_cast<std::size_t>(kind)];
}

void call_counts(const RunLog& log, std::ostream& text) {
  std::array<std::uint64_t, kCallKinds> by_kind{};
  std::vector<std::uint64_t> linearizations(log.slaves.size());
  for (const LoggedCall& call : log.calls) {
    ++by_kind[static_cast<std::size_t>(call.kind)];
    if (call.kind == CallKind::linearize) ++linearizations[call.slave];
  }
  text << "slave calls  " << count_of(by_kind, CallKind::step) << " steps, "
       << count_of(by_kind, CallKind::evaluate_outputs) << " output evaluations, "
       << count_of(by_kind, CallKind::save_state) << " saves, "
       << count_of(by_kind, CallKind::restore_state) << " restores, "
       << count_of(by_kind, CallKind::linearize) << " linearizations\n";
  if (count_of(by_kind, CallKind::linearize) == 0) return;
  // Per slave, so that a reader sees which slaves a linearizing algorithm asked.
  text << "linearized   ";
  const char* separator = "";
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (!log.slaves[s].description.capabilities.can_linearize) continue;
    text << separator << log.slaves[s].name << ' ' << linearizations[s] << " times";
    separator = ", ";
  }
  text << "\n";
}

}  // namespace

std::string inspect_text(const RunLog& log) {
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
  const Time reached = log.plans.empty() ? log.start : log.plans.back().frontier;
  const std::uint64_t macro_steps = log.plans.empty() ? 0 : log.plans.back().macro_steps;
  text << "progress     " << log.plans.size() << " plans, " << macro_steps
       << " macro steps up to t = " << seconds_text(reached) << " s\n";
  text << "step size    min / mean / max " << step_sizes_text(log) << "\n";
  call_counts(log, text);
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
    link_timing(log, s, text);
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

}  // namespace couplet::tools
