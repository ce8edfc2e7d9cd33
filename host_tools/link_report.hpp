#pragma once
// The link counters of a run for summary.json (docs/cli.md, docs/links.md):
// "links": {slave: {requests, retransmissions, duplicates, drops, foreign,
// late_results, missed_results, link}} for every slave behind a link.
#include <nlohmann/json.hpp>

#include "runtime/system.hpp"

namespace couplet::tools {

/// Adds summary["links"] when some slave is remote; otherwise leaves `summary` alone.
void add_link_counters(const System& system, nlohmann::json& summary);

}  // namespace couplet::tools
