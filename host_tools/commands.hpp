#pragma once
// The `couplet` subcommands as functions, so tests can call them directly.
#include <nlohmann/json.hpp>
#include <string>

#include "host_tools/scenario.hpp"
#include "models/catalog.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/recorder.hpp"

namespace couplet::tools {

struct RunOptions {
  std::string output_directory = "out";
  bool show_progress = false;  ///< a progress line on stderr for runs longer than a second
  bool record_log = true;      ///< write run.log (docs/run-log.md)
};

/// The run log's header for a run of `scenario`: the scenario as run and where
/// each slave's link goes.
RunLogHeader log_header(const Scenario& scenario, const System& system, const Algorithm& algorithm);

/// `couplet run`: co-simulates, writes summary.json, signals.csv and run.log,
/// returns the summary. When the run fails, run.log ends with the failure.
nlohmann::json run_scenario(const Scenario& scenario, const RunOptions& options);

/// `couplet reference`: the monolithic solution alone, written as signals.csv.
nlohmann::json reference_scenario(const Scenario& scenario, const std::string& output_directory);

/// `couplet validate`: builds the system and the algorithm and goes through
/// everything a run does before its first step.
void validate_scenario(const Scenario& scenario);

/// `couplet models`: the built-in models, their ports and parameters.
std::string describe_models(const models::ModelCatalog& catalog);

/// `couplet models FILE.fmu`: the FMU's variables, capabilities and interfaces.
std::string describe_fmu(const std::string& fmu_path);

/// A short human-readable table of a summary.
std::string summary_table(const nlohmann::json& summary);

}  // namespace couplet::tools
