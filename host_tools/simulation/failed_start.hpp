#pragma once
// A run that fails while its slaves are being set up — a target that never
// answers Hello, a device program that dies before describing itself — has
// not begun stepping, yet it is a failed run, not a refused scenario: like every
// failed run it leaves summary.json with "status": "failed" and the error
// (docs/cli.md, "Interrupting a run"), and exits 1.
#include <string>

#include "host_tools/scenario/scenario.hpp"
#include "models/catalog.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// build_system(); on a SlaveError, clears `output_directory` of an earlier run's
/// files, writes its summary.json (status failed, the error, end_time the start)
/// when `writes` (rank 0 under mpirun), and rethrows.
System build_system_or_record_failure(const Scenario& scenario, const models::ModelCatalog& catalog,
                                      const std::string& output_directory, bool writes);

}  // namespace couplet::tools
