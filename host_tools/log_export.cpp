#include "host_tools/log_export.hpp"

#include <cstdio>
#include <sstream>

#include "runtime/exact_text.hpp"

namespace couplet::tools {

namespace {

/// The latest output values and link timing of every slave, as the calls of
/// successive plans update them.
class LatestValues {
 public:
  explicit LatestValues(const RunLog& log)
      : values_(log.slaves.size()), steps_(log.slaves.size()) {
    for (std::size_t s = 0; s < log.slaves.size(); ++s)
      values_[s].assign(log.slaves[s].description.outputs.size(), 0.0);
  }

  void take(const LoggedCall& call) {
    if (call.kind == CallKind::step) steps_[call.slave] = &call;
    // Only these return outputs (a linearization holds x, not y: no row changes).
    if (call.kind != CallKind::step && call.kind != CallKind::evaluate_outputs) return;
    std::vector<double>& values = values_[call.slave];
    for (std::size_t j = 0; j < values.size() && j < call.end_outputs.size(); ++j)
      values[j] = call.end_outputs[j];
  }

  const std::vector<double>& values(std::size_t slave) const { return values_[slave]; }
  const LoggedCall* latest_step(std::size_t slave) const { return steps_[slave]; }

 private:
  std::vector<std::vector<double>> values_;
  std::vector<const LoggedCall*> steps_;
};

bool linked(const LoggedSlave& slave) {
  return !slave.link.empty();
}

}  // namespace

std::string export_csv(const RunLog& log) {
  std::ostringstream csv;
  csv << "time_s,plan,macro_step,step_s";
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (std::size_t j = 0; j < log.slaves[s].description.outputs.size(); ++j)
      csv << ',' << log.output_name(s, j);
  }
  for (const std::string& quantity : log.internal_quantities) csv << ',' << quantity;
  for (const LoggedSlave& slave : log.slaves) {
    if (!linked(slave)) continue;
    csv << ',' << slave.name << ":round_trip_us," << slave.name << ":retransmissions," << slave.name
        << ":input_lateness_us," << slave.name << ":missed";
  }
  csv << ",pacer_lateness_us\n";

  LatestValues latest(log);
  std::size_t next_call = 0;
  Time previous_frontier = log.start;
  Time step = 0;
  for (const LoggedPlan& plan : log.plans) {
    // A call's plan index counts the plans completed before it: plan p's calls
    // carry p - 1 (the initialization's, 0 as well).
    while (next_call < log.calls.size() && log.calls[next_call].plan < plan.plan)
      latest.take(log.calls[next_call++]);
    if (plan.frontier > previous_frontier) {
      step = plan.frontier - previous_frontier;
      previous_frontier = plan.frontier;
    }
    csv << exact_text(to_seconds(plan.frontier)) << ',' << plan.plan << ',' << plan.macro_steps << ','
        << exact_text(to_seconds(step));
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      for (const double value : latest.values(s)) csv << ',' << exact_text(value);
    }
    for (const double value : plan.internals) csv << ',' << exact_text(value);
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      if (!linked(log.slaves[s])) continue;
      const LoggedCall* call = latest.latest_step(s);
      if (call == nullptr) {
        csv << ",,,,";
        continue;
      }
      csv << ',' << exact_text(static_cast<double>(call->ended_ns - call->began_ns) * 1e-3) << ','
          << call->retransmissions << ','
          << exact_text(static_cast<double>(call->input_lateness_ns) * 1e-3) << ','
          << (call->missed ? 1 : 0);
    }
    csv << ',' << exact_text(static_cast<double>(plan.pacer_lateness_ns) * 1e-3) << '\n';
  }
  return csv.str();
}

}  // namespace couplet::tools
