#pragma once
// The `couplet` subcommands as functions, so tests can call them directly.
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/scenario/scenario.hpp"
#include "models/catalog.hpp"
#include "runtime/action_dispatcher.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/recorder.hpp"

namespace couplet::tools {

class InterruptGuard;
class MpiSession;

/// `couplet run --live` (docs/live.md).
struct LiveViewOptions {
  std::string endpoint;  ///< "PORT" or "ADDRESS:PORT"
  bool control = false;  ///< --live-control: POST /stop ends the run like SIGINT
  double linger_s = 5;   ///< --live-linger: serving the final state after the end
};

struct RunOptions {
  /// Empty: no files (couplet::Simulation without a directory).
  std::string output_directory = "out";
  bool show_progress = false;  ///< progress on stderr (host_tools/cli/progress.hpp)
  bool record_log = true;      ///< write run.log (docs/run-log.md)
  /// Set: SIGINT and SIGTERM end the run at the next macro step (status
  /// "interrupted"); null: signals keep their default action.
  const InterruptGuard* interrupt = nullptr;
  bool progress_on_terminal = false;                  ///< one line rewritten in place
  std::chrono::milliseconds progress_interval{5000};  ///< between lines off a terminal
  /// Set (under mpirun): the slaves run distributed over the ranks
  /// (host_tools/mpi/mpi_dispatcher.hpp, docs/mpi.md); rank 0 alone writes the output
  /// directory, the others return the same summary without writing anything.
  const MpiSession* mpi = nullptr;
  bool write_results = true;  ///< write signals.csv and summary.json at the end
  /// Set: the run is served live on the web (host_tools/live/live_view.hpp); null:
  /// no server, no thread.
  const LiveViewOptions* live = nullptr;
  bool compress_log = false;  ///< run.log in zstd blocks (docs/run-log.md "Compressed logs")
};

/// The run log's header for a run of `scenario`: the scenario as run and where
/// each slave's link goes.
RunLogHeader log_header(const Scenario& scenario, const System& system, const Algorithm& algorithm);

/// Who makes the slave calls of a run of `settings` (scenario `executor:`,
/// docs/executors.md): null for the executor's own sequential dispatcher, a
/// ThreadPoolDispatcher (its threads started) for `threads`.
std::unique_ptr<ActionDispatcher> make_dispatcher(const ExecutorSettings& settings);

/// `couplet run`: co-simulates, writes summary.json, signals.csv and run.log
/// into a directory cleared of a previous run's files (run_directory.hpp), and
/// returns the summary. Its `status` is "completed", or "interrupted" (by the
/// signal `interrupted_by`; the files end where the run stopped). When the run
/// fails, run.log ends with the failure, summary.json has status "failed" and
/// the `error`, and the error is thrown on.
nlohmann::json run_scenario(const Scenario& scenario, const RunOptions& options);

/// `couplet reference`: the monolithic solution alone, written as signals.csv.
/// Links are ignored: the scenario's models are solved locally.
nlohmann::json reference_scenario(const Scenario& scenario, const std::string& output_directory);

/// `couplet validate`: builds the system and the algorithm and goes through
/// everything a run does before its first step. Returns what it found worth
/// saying: one line per connection whose units it converts.
std::vector<std::string> validate_scenario(const Scenario& scenario);

/// `couplet models`: the built-in models, their ports and parameters.
std::string describe_models(const models::ModelCatalog& catalog);

/// `couplet models FILE.fmu`: the FMU's variables, capabilities and interfaces;
/// `couplet models FILE.dcpx`: the DCP slave's modes, resolutions, endpoints
/// and variables.
std::string describe_slave_file(const std::string& path);

/// A short human-readable table of a summary.
std::string summary_table(const nlohmann::json& summary);

}  // namespace couplet::tools
