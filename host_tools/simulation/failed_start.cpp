#include "host_tools/simulation/failed_start.hpp"

#include <nlohmann/json.hpp>

#include "couplet/errors.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/simulation/run_directory.hpp"

namespace couplet::tools {

namespace {

void write_failed_summary(const Scenario& scenario, const std::string& output_directory,
                          const std::string& error) {
  const RunDirectory directory(output_directory);  // locked while it is written
  nlohmann::json summary;
  summary["scenario"] = scenario.name;
  summary["status"] = "failed";
  summary["error"] = error;
  summary["macro_steps"] = 0;
  summary["slave_steps"] = 0;
  summary["rollbacks"] = 0;
  summary["end_time"] = scenario.start;
  write_file_atomically(directory.path() / "summary.json",
                        [&](std::ostream& out) { out << summary.dump(2) << "\n"; });
}

}  // namespace

System build_system_or_record_failure(const Scenario& scenario, const models::ModelCatalog& catalog,
                                      const std::string& output_directory, bool writes) {
  try {
    return build_system(scenario, catalog);
  } catch (const SlaveError& error) {
    if (writes) {
      try {
        write_failed_summary(scenario, output_directory, error.what());
      } catch (const std::exception&) {
        // The slave's error is the one to report, whatever else fails on the way out.
      }
    }
    throw;
  }
}

}  // namespace couplet::tools
