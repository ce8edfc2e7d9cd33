#pragma once
// The link counters of a run (docs/cli.md, docs/links.md, docs/run-log.md):
// for summary.json, "links": {slave: {link, requests, retransmissions,
// duplicates, working, drops, foreign, late_results, missed_results,
// stale_inputs, host_stalls, host_stall_longest_s}} for every slave behind a
// link; for the run log, the same counters as LogLinkTotals records.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "drivers/link_policy.hpp"
#include "protocol/couplet.pb.h"
#include "runtime/system.hpp"

namespace couplet::tools {

/// The counters as summary.json writes them (without the link's name).
nlohmann::json link_counters_json(const drivers::LinkCounters& counters);

/// Adds summary["links"] when some slave is remote; otherwise leaves `summary` alone.
void add_link_counters(const System& system, nlohmann::json& summary);

/// One run-log record per slave behind a link, in slave order.
std::vector<couplet_wire_LogLinkTotals> link_totals(const System& system);

}  // namespace couplet::tools
