#pragma once
// What the in-tree clients of couplet::Simulation (include/couplet/simulation.hpp)
// need beyond the installed API: a simulation of a scenario already loaded,
// with the command line's options (signals, progress line, MPI), and the run's
// summary and signals as the command line writes them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "couplet/simulation.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// A simulation of `scenario` run as `couplet run` runs it with `options`
/// (options.output_directory empty: no files). Throws what from_scenario throws.
Simulation make_simulation(const Scenario& scenario, const RunOptions& options);

/// summary.json's content: after the end, the summary the run wrote (or, on an
/// MPI rank other than 0, would have written); before it, the run so far.
nlohmann::json summary_of(const Simulation& simulation);

/// signals.csv as columns, up to the grid rows reached: the time (s) and each
/// named column (the scenario's signals, then their references).
struct SignalColumns {
  std::vector<double> time;
  std::vector<std::pair<std::string, std::vector<double>>> columns;
  /// The Integer and Boolean signals, after the Real ones.
  struct DiscreteColumn {
    std::string name;
    bool boolean = false;  ///< else Integer
    std::vector<std::int64_t> values;
  };
  std::vector<DiscreteColumn> discrete_columns;
};
SignalColumns signal_columns(const Simulation& simulation);

/// The lateness (ns) of the latest macro step's cycle (0 without a wall clock):
/// what the run log records for it. Allocation-free, for observers.
std::int64_t latest_lateness_ns(const Simulation& simulation);
/// Whether the run is paced by a wall clock (scenario `clock: {type: wall}`).
bool paced_by_wall_clock(const Simulation& simulation);
/// The wall clock's tolerance (s): a cycle later than it is an overrun.
double lateness_tolerance_s(const Simulation& simulation);
/// The scenario's evaluation signals ("slave.port"; every output when it names none).
std::vector<std::string> evaluation_signal_names(const Simulation& simulation);

}  // namespace couplet::tools
