#include "host_tools/simulation/link_report.hpp"

#include "drivers/linked_slave.hpp"

namespace couplet::tools {

nlohmann::json link_counters_json(const drivers::LinkCounters& counters) {
  return {
      {"requests", counters.requests},
      {"retransmissions", counters.retransmissions},
      {"duplicates", counters.duplicates},
      {"working", counters.working},
      {"drops", counters.drops},
      {"foreign", counters.foreign},
      {"unauthenticated", counters.unauthenticated},
      {"replayed", counters.replayed},
      {"late_results", counters.late_results},
      {"missed_results", counters.missed_results},
      {"stale_inputs", counters.stale_inputs},
      {"host_stalls", counters.host_stalls},
      {"host_stall_longest_s", static_cast<double>(counters.host_stall_longest_ns) * 1e-9},
  };
}

void add_link_counters(const System& system, nlohmann::json& summary) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::LinkedSlave*>(&system.slave(s));
    if (remote == nullptr) continue;
    nlohmann::json counters = link_counters_json(remote->counters());
    counters["link"] = remote->link_name();
    summary["links"][system.slave_name(s)] = std::move(counters);
  }
}

std::vector<couplet_wire_LogLinkTotals> link_totals(const System& system) {
  std::vector<couplet_wire_LogLinkTotals> records;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::LinkedSlave*>(&system.slave(s));
    if (remote == nullptr) continue;
    const drivers::LinkCounters& counters = remote->counters();
    couplet_wire_LogLinkTotals record = couplet_wire_LogLinkTotals_init_zero;
    record.slave = static_cast<std::uint32_t>(s);
    record.requests = counters.requests;
    record.retransmissions = counters.retransmissions;
    record.duplicates = counters.duplicates;
    record.working = counters.working;
    record.drops = counters.drops;
    record.foreign = counters.foreign;
    record.unauthenticated = counters.unauthenticated;
    record.replayed = counters.replayed;
    record.late_results = counters.late_results;
    record.missed_results = counters.missed_results;
    record.stale_inputs = counters.stale_inputs;
    record.host_stalls = counters.host_stalls;
    record.host_stall_longest_ns = counters.host_stall_longest_ns;
    records.push_back(record);
  }
  return records;
}

}  // namespace couplet::tools
