#include "host_tools/link_report.hpp"

#include "drivers/remote_slave.hpp"

namespace couplet::tools {

void add_link_counters(const System& system, nlohmann::json& summary) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::RemoteSlave*>(&system.slave(s));
    if (remote == nullptr) continue;
    const drivers::LinkCounters& counters = remote->counters();
    summary["links"][system.slave_name(s)] = {
        {"link", remote->link_name()},
        {"requests", counters.requests},
        {"retransmissions", counters.retransmissions},
        {"duplicates", counters.duplicates},
        {"working", counters.working},
        {"drops", counters.drops},
        {"foreign", counters.foreign},
        {"late_results", counters.late_results},
        {"missed_results", counters.missed_results},
        {"stale_inputs", counters.stale_inputs},
        {"host_stalls", counters.host_stalls},
        {"host_stall_longest_s", static_cast<double>(counters.host_stall_longest_ns) * 1e-9},
    };
  }
}

}  // namespace couplet::tools
