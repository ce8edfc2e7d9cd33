#pragma once
// The master as a library (docs/library.md): a co-simulation loaded from a
// scenario, stepped by its caller, its outputs read between steps. `couplet
// run` and the Python module are clients of this class; a run through it makes
// the same decisions (the same decision hash) and writes the same files.
//
// Linked as couplet::master (libcouplet-master.so) from the CMake package
// find_package(couplet). The implementation lives behind a pointer: this header
// needs nothing but the standard library and couplet/time.hpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/time.hpp"

namespace couplet {

class ExecutorObserver;  // runtime/executor.hpp: for in-tree clients only
class Simulation;

/// What to keep of a run on disk. Without an output directory nothing is
/// written; with one, the directory is cleared of a previous run's files when
/// the simulation is made (as `couplet run -o DIR` does) and receives:
struct SimulationOptions {
  /// Empty: no files at all (the results stay in memory: output(), trace(),
  /// summary()).
  std::string output_directory;
  /// run.log, recorded while the run goes (docs/run-log.md).
  bool record_log = false;
  /// run.log compressed with zstd, in blocks that each decode on their own
  /// (docs/run-log.md "Compressed logs"); every reader reads both kinds.
  bool compress_log = false;
  /// signals.csv (the evaluation grid) and summary.json, written once the run
  /// ended: completed, failed or interrupted (not when the simulation is
  /// destroyed before its end).
  bool write_results = true;
};

/// Called on the stepping thread at each communication point the master
/// reaches (Simulation::time()): after each plan that advanced the time, once
/// the run log took it. Real-time rules, as for the rest
/// of the stepping loop (docs/library.md): no heap allocation, no lock, no
/// blocking, no I/O — read values with Simulation::output(std::size_t) and
/// copy them into storage prepared beforehand. Must not call step_until() or
/// run(). An exception thrown here fails the run like a slave error.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  virtual void communication_point(const Simulation& simulation) = 0;
};

/// A co-simulation run under the non-iterative master.
///
/// Call order:
///   1. from_scenario()            — loads, builds and checks everything
///   2. add_observer(), add_executor_observer() — optional, before initialize()
///   3. initialize()               — optional: the first step_until()/run() does it
///   4. step_until(t)… and/or run() — until finished()
///   5. output(), trace(), summary(), decision_hash() — at any point after 3
///
/// Errors: a scenario or set-up error throws ConfigurationError naming the
/// file, line and key (or the output name); a slave failing during the run
/// throws SlaveError (or the error the slave threw). A run that failed is over:
/// its files are written (status "failed"), and a later step_until()/run()
/// throws ConfigurationError saying so. A call out of order (add_observer()
/// after initialize()) throws ConfigurationError.
///
/// Not thread-safe: one thread calls a Simulation at a time. Nothing here reads
/// the wall clock for a decision: the same scenario gives the same decisions
/// whatever the steps asked for with step_until().
class Simulation {
 public:
  /// `key.path=value` overrides, as `couplet run --set` gives them.
  using Overrides = std::vector<std::pair<std::string, std::string>>;

  /// Loads a scenario file (YAML, or an SSP package .ssp beside its
  /// PACKAGE.couplet.yaml) with the loader and `--set` semantics of `couplet
  /// run`, builds the system and the algorithm, checks the system against the
  /// algorithm and prepares the output directory. Throws ConfigurationError
  /// naming the scenario element (file:line: key) or the file.
  static Simulation from_scenario(const std::string& path, const Overrides& overrides = {},
                                  const SimulationOptions& options = {});

  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  /// `observer` is called at each communication point (SimulationObserver's rules); it
  /// must outlive the simulation's stepping. Before initialize() only.
  void add_observer(SimulationObserver& observer);
  /// An observer of every slave call (runtime/executor.hpp, for in-tree
  /// clients: the class is not part of the installed API), beside the run
  /// log's recorder. Before initialize() only.
  void add_executor_observer(ExecutorObserver& observer);

  /// Sets up the slaves, computes consistent initial outputs and starts the
  /// algorithm (and the run log). Afterwards time() is the scenario's start.
  /// Idempotent. Everything that allocates happens here.
  void initialize();

  /// Carries out whole plans (macro steps) until time() >= `t` or the run
  /// finished. The master never shortens a step for `t`: when `t` falls inside
  /// a macro step, that step is carried out in full and time() ends past `t`
  /// (at the step's end), so the decisions are those of run() whatever `t`.
  /// A `t` at or before time() does nothing. Returns finished().
  bool step_until(Time t);
  /// step_until() with `t` in seconds (rounded to the nearest nanosecond).
  bool step_until_seconds(double t) { return step_until(to_ticks(t)); }

  /// Steps to the scenario's end (the command line also stops it at SIGINT
  /// or SIGTERM) and writes the results. Returns finished().
  bool run();

  /// The master's time: the latest communication time any slave reached (the
  /// scenario's start after initialize()).
  Time time() const;
  double time_seconds() const { return to_seconds(time()); }
  /// The scenario's start and end.
  Time start_time() const;
  Time end_time() const;
  /// True once the algorithm has reached the scenario's end (and the results
  /// were written). A failed or interrupted run is not finished.
  bool finished() const;

  /// Every Real output as "slave.port", in slave and port order.
  std::vector<std::string> output_names() const;
  /// The index of output "slave.port" for output(std::size_t); throws
  /// ConfigurationError naming the unknown slave or port and listing the
  /// known ones.
  std::size_t output_index(std::string_view name) const;
  /// The output's latest value: what the slave returned at its latest
  /// communication point (time() for every slave of a synchronous algorithm).
  /// After initialize() only (ConfigurationError before). Allocation-free with
  /// an index: fit for observers.
  double output(std::size_t index) const;
  double output(std::string_view name) const { return output(output_index(name)); }

  /// The Integer and Boolean outputs (docs/algorithms.md, "Discrete
  /// signals") as "slave.port", in slave and port order: indices of their own,
  /// apart from the Real outputs'.
  std::vector<std::string> discrete_output_names() const;
  /// The index of Integer or Boolean output "slave.port"; throws
  /// ConfigurationError naming it (and saying so when it is a Real output).
  std::size_t discrete_output_index(std::string_view name) const;
  /// Whether discrete output `index` is a Boolean (values 0 and 1) rather than
  /// an Integer.
  bool discrete_output_is_boolean(std::size_t index) const;
  /// Its latest value (held since the slave's latest communication point), as
  /// output() for Real ones. Allocation-free: fit for observers.
  std::int64_t discrete_output(std::size_t index) const;
  std::int64_t discrete_output(std::string_view name) const {
    return discrete_output(discrete_output_index(name));
  }

  /// The scenario's checks (docs/scenarios.md#checks) by name, in its order.
  std::vector<std::string> check_names() const;
  /// When check `index` (in check_names() order) was first violated so far
  /// (s), nothing while it holds. A check decided only at the end (`reaches`,
  /// `realtime`, `accuracy`) has its verdict in summary() once the run
  /// finished. Allocation-free: fit for observers.
  std::optional<double> check_first_violation(std::size_t index) const;

  /// The evaluation grid's times (s) reached so far (every slave's outputs are
  /// known up to there), and one output's values at them.
  std::vector<double> grid_times() const;
  std::vector<double> trace(std::string_view name) const;

  /// The decision hash so far, as summary.json writes it (16 hex digits).
  std::string decision_hash() const;
  /// summary.json's content as JSON text (status "running" before the end).
  std::string summary() const;

  /// The scenario's name and the algorithm's.
  std::string scenario_name() const;
  std::string algorithm_name() const;

  class Impl;
  /// For in-tree clients (host_tools/simulation/simulation_setup.hpp).
  explicit Simulation(std::unique_ptr<Impl> impl);
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace couplet
