// couplet::Simulation (include/couplet/simulation.hpp): the master's run loop,
// the run's files and its summary. `couplet run` (host_tools/cli/commands.cpp) and
// the Python module are its clients.
#include "couplet/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/checks/check_setup.hpp"
#include "host_tools/cli/progress.hpp"
#include "host_tools/mpi/mpi_dispatcher.hpp"
#include "host_tools/mpi/mpi_session.hpp"
#include "host_tools/process/exit_watch.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/scenario/clock_spec.hpp"
#include "host_tools/scenario/scenario_limits.hpp"
#include "host_tools/simulation/failed_start.hpp"
#include "host_tools/simulation/link_report.hpp"
#include "host_tools/simulation/run_directory.hpp"
#include "host_tools/simulation/run_files.hpp"
#include "host_tools/simulation/run_pacer.hpp"
#include "host_tools/simulation/simulation_setup.hpp"
#include "runtime/decision_hash.hpp"
#include "runtime/executor.hpp"
#include "runtime/metrics.hpp"
#include "runtime/observer_fan_out.hpp"
#include "runtime/recorder.hpp"

namespace couplet {

namespace {

using Clock = std::chrono::steady_clock;
using namespace tools;

/// How a run ended, for summary.json `status` and the run log's end record.
struct RunEnd {
  const char* status = "running";  ///< "running", "completed", "interrupted", "stopped" or "failed"
  int signal = 0;                  ///< the signal that interrupted it
  std::string error;               ///< why it failed
  Time reached = 0;                ///< every slave's outputs are known up to here
  /// What stopped it early: "check 'envelope'" (stop_on_failure) or "slave
  /// 'counter' at t = 9 s" (its request to end the simulation).
  std::string stopped_by;
  std::string stop_message;  ///< the run log's end record: why and when it stopped

  bool completed() const { return std::string_view(status) == "completed"; }
};

/// The time every slave has reached: signals.csv of a stopped run ends there
/// (asynchronous algorithms leave slaves at different times).
Time time_all_slaves_reached(const Executor& executor, Time start) {
  const std::span<const StepSlot> slots = executor.slots();
  if (slots.empty()) return executor.frontier();
  Time reached = slots.front().end;
  for (const StepSlot& slot : slots) reached = std::min(reached, slot.end);
  return std::max(reached, start);
}

/// summary.json `executor` of an MPI run: who owned which slaves, and what
/// rank 0's exchanges cost (docs/mpi.md).
nlohmann::json mpi_report(const MpiDispatcher& exchange, const System& system) {
  nlohmann::json owners = nlohmann::json::array();
  for (int rank = 0; rank < exchange.ranks(); ++rank) {
    nlohmann::json slaves = nlohmann::json::array();
    for (std::size_t s = 0; s < system.slave_count(); ++s) {
      if (exchange.owner(s) == rank) slaves.push_back(system.slave_name(s));
    }
    owners.push_back(slaves);
  }
  const MpiDispatcher::Counters& counters = exchange.counters();
  return {{"type", "mpi"},
          {"ranks", exchange.ranks()},
          {"slaves_by_rank", owners},
          {"exchanges", counters.exchanges},
          {"broadcasts", counters.broadcasts},
          {"actions", counters.actions},
          {"bytes_received", counters.bytes_received},
          {"exchange_wall_s", counters.exchange_seconds}};
}

/// What a distributed run cannot do, refused before anything is built: a
/// slave behind a link is one process's connection, a group's composite slave
/// runs a co-simulation of its own (its counters would stay on its rank), and
/// wall-clock pacing would pace each rank on its own.
void check_distributable(const Scenario& scenario) {
  for (const SlaveSpec& slave : scenario.slaves) {
    if (slave.link || !slave.device.empty()) {
      throw ConfigurationError(slave.where + ": slave '" + slave.name +
                               "' is behind a link; under mpirun every slave must be local "
                               "(run linked slaves without mpirun)");
    }
  }
  if (!scenario.groups.empty()) {
    throw ConfigurationError(scenario.source +
                             ": groups: composite slaves cannot run under mpirun "
                             "(run the scenario without mpirun)");
  }
  if (scenario.clock.wall) {
    throw ConfigurationError(scenario.source +
                             ": clock: under mpirun the run is in virtual time "
                             "(remove the wall clock or run without mpirun)");
  }
}

std::string interruption_text(int signal, Time frontier) {
  return std::string("interrupted by ") + signal_name(signal) +
         " at t = " + seconds_text(frontier) + " s";
}

/// Everything a run leaves once its stepping ended, however it ended:
/// summary.json and signals.csv (up to `end.reached`).
class RunResults {
 public:
  RunResults(const Scenario& scenario, System& system, Algorithm& algorithm,
             const Executor& executor, const std::vector<PortReference>& signals,
             const std::vector<PortReference>& discrete_signals, const std::vector<Time>& grid,
             const models::MonolithicSolution* reference, const MpiDispatcher* dispatcher,
             const CheckEvaluator& checks)
      : scenario_(scenario),
        system_(system),
        algorithm_(algorithm),
        executor_(executor),
        signals_(signals),
        discrete_signals_(discrete_signals),
        grid_(grid),
        reference_(reference),
        dispatcher_(dispatcher),
        checks_(checks) {}

  /// The grid rows every slave reached by `end`. A run refused before its
  /// slaves were set up (by the run log's header, say) has no rows at all, not
  /// even the start time's.
  std::size_t rows(const RunEnd& end) const {
    if (executor_.slots().empty()) return 0;
    const auto reached = static_cast<std::size_t>(
        std::upper_bound(grid_.begin(), grid_.end(), end.reached) - grid_.begin());
    // A model's stop request ends the reference too, possibly a row earlier
    // (at an event time the row belongs to after the event).
    return reference_ != nullptr ? std::min(reached, reference_->times.size()) : reached;
  }

  /// summary.json's content (with the errors against the reference over the
  /// rows reached).
  nlohmann::json summary(const RunEnd& end, const RunPacer& pacer, const Recorder* recorder,
                         double wall_time) const {
    nlohmann::json summary = summarize(end, pacer, recorder, wall_time);
    add_reference_errors(summary, rows(end));
    // The checks' verdicts, also of a failed or stopped run (what was seen so far).
    if (!checks_.empty())
      summary["checks"] = verdicts_json(checks_.verdicts(run_facts(summary, end.reached)));
    return summary;
  }

  /// signals.csv, then summary.json: a directory with a summary is whole.
  void write(const std::filesystem::path& directory, const RunEnd& end,
             const nlohmann::json& summary) const {
    write_signals_csv(directory / "signals.csv", grid_, columns(), rows(end));
    write_summary(directory, summary);
  }

  /// A failed run's files, the summary first (it says why; the disk may hold
  /// no more than that), each written if it can be. Returns what could not.
  std::string write_what_fits(const std::filesystem::path& directory, const RunEnd& end,
                              const nlohmann::json& summary) const {
    std::string problems;
    const auto attempt = [&](auto&& write_one) {
      try {
        write_one();
      } catch (const std::exception& error) {
        problems += (problems.empty() ? "" : "; ") + std::string(error.what());
      }
    };
    attempt([&] { write_summary(directory, summary); });
    attempt([&] { write_signals_csv(directory / "signals.csv", grid_, columns(), rows(end)); });
    return problems;
  }

  /// The most bytes summary.json and signals.csv take, with room for the end
  /// of the run log: what the run log leaves free on its file system.
  std::uint64_t bytes_at_most() const {
    constexpr std::uint64_t kSummaryAndLogEnd = std::uint64_t{1} << 20;
    return kSummaryAndLogEnd + signals_csv_bytes_at_most(grid_.size(), columns().size());
  }

  std::vector<Column> columns() const {
    std::vector<Column> columns;
    const GridTrace& trace = executor_.trace();
    for (const PortReference& signal : signals_) {
      columns.push_back({system_.output_name(signal), trace.values[signal.slave],
                         system_.description(signal.slave).outputs.size(), signal.port});
    }
    for (const PortReference& signal : discrete_signals_) {
      columns.push_back({system_.discrete_output_name(signal),
                         {},
                         system_.description(signal.slave).discrete_outputs.size(),
                         signal.port,
                         trace.discrete_values[signal.slave]});
    }
    if (reference_ != nullptr) {
      for (const PortReference& signal : signals_) {
        columns.push_back({system_.output_name(signal) + ":reference",
                           reference_->outputs[signal.slave],
                           system_.description(signal.slave).outputs.size(), signal.port});
      }
    }
    return columns;
  }

 private:
  nlohmann::json summarize(const RunEnd& end, const RunPacer& pacer, const Recorder* recorder,
                           double wall_time) const {
    nlohmann::json summary;
    summary["scenario"] = scenario_.name;
    summary["status"] = end.status;
    if (end.signal != 0) summary["interrupted_by"] = signal_name(end.signal);
    if (!end.error.empty()) summary["error"] = end.error;
    if (!end.stopped_by.empty()) summary["stopped_by"] = end.stopped_by;
    summary["algorithm"] = std::string(algorithm_.name());
    summary["executor"] = {
        {"type",
         scenario_.executor.type == ExecutorSettings::Type::threads ? "threads" : "sequential"},
        {"threads", scenario_.executor.threads}};
    summary["macro_steps"] = executor_.counters().macro_steps;
    summary["slave_steps"] = executor_.counters().slave_steps;
    summary["rollbacks"] = executor_.counters().rollbacks;
    // A stopped run ended where every slave had arrived (a failed step may
    // have gone further); a completed one at its frontier, the scenario's end.
    summary["end_time"] = to_seconds(end.completed() ? executor_.frontier() : end.reached);
    summary["wall_time_s"] = wall_time;
    summary["decision_hash"] = hash_text(executor_.decision_hash());
    if (dispatcher_ != nullptr) summary["executor"] = mpi_report(*dispatcher_, system_);
    if (recorder != nullptr) {
      summary["run_log"] = {{"path", recorder->path()},
                            {"bytes", recorder->bytes_written()},
                            {"segments", recorder->segments()},
                            {"records_waited", recorder->records_waited()}};
    }
    summary["evaluation"]["grid_s"] = scenario_.evaluation_grid;
    nlohmann::json interpolated = nlohmann::json::array();
    for (std::size_t s = 0; s < system_.slave_count(); ++s) {
      if (executor_.trace().interpolated(s)) interpolated.push_back(system_.slave_name(s));
    }
    summary["evaluation"]["interpolated_slaves"] = interpolated;
    add_link_counters(system_, summary);
    if (pacer.enabled()) summary["realtime"] = pacer.report();

    AlgorithmReport report;
    algorithm_.report(report);
    for (const auto& [name, value] : report.counters) summary["counters"][name] = value;
    add_group_counters(system_, summary);  // composite slaves' inner runs (docs/iterative.md)
    if (!report.connection_defect_rms.empty() || !report.output_defect_rms.empty()) {
      summary["defects"]["connection"] = report.connection_defect_rms;
      summary["defects"]["output"] = report.output_defect_rms;
    }
    return summary;
  }

  // Over the rows the run reached: a stopped run is compared as far as it went.
  void add_reference_errors(nlohmann::json& summary, std::size_t rows) const {
    if (reference_ == nullptr || rows < 2) return;  // one row has no spread to normalize by
    const GridTrace& trace = executor_.trace();
    for (const PortReference& signal : signals_) {
      const std::size_t stride = system_.description(signal.slave).outputs.size();
      const std::vector<double> cosimulation =
          column_of(trace.values[signal.slave], stride, signal.port, rows);
      const std::vector<double> exact =
          column_of(reference_->outputs[signal.slave], stride, signal.port, rows);
      const SignalError error = compare_to_reference(cosimulation, exact);
      summary["errors"][system_.output_name(signal)] = {{"nrmse_pct", error.nrmse_pct},
                                                        {"rmse", error.rmse}};
    }
  }

  const Scenario& scenario_;
  System& system_;
  Algorithm& algorithm_;
  const Executor& executor_;
  const std::vector<PortReference>& signals_;
  const std::vector<PortReference>& discrete_signals_;
  const std::vector<Time>& grid_;
  const models::MonolithicSolution* reference_;
  const MpiDispatcher* dispatcher_;
  const CheckEvaluator& checks_;
};

}  // namespace

/// The run: everything `couplet run` prepares, in its order, then one loop.
class Simulation::Impl {
 public:
  Impl(Scenario scenario, const RunOptions& options)
      : scenario_(std::move(scenario)),
        options_(options),
        catalog_(models::ModelCatalog::builtin()),
        writes_(options.mpi == nullptr || options.mpi->rank() == 0) {
    // Under mpirun (docs/mpi.md) every rank builds and runs the same master; the
    // preparation below is replicated except where `writes_` says rank 0 alone.
    if (options_.mpi != nullptr) check_distributable(scenario_);
    // A target that never answers Hello fails the run before it began: its
    // summary.json is written all the same (docs/cli.md).
    system_ = options_.output_directory.empty()
                  ? build_system(scenario_, catalog_)
                  : build_system_or_record_failure(scenario_, catalog_, options_.output_directory,
                                                   writes_);
    algorithm_ = make_algorithm(scenario_.algorithm);
    signals_ = resolve_signals(scenario_, system_);
    discrete_signals_ = resolve_discrete_signals(scenario_, system_);
    grid_ = evaluation_grid(scenario_);
    if (options_.mpi != nullptr) mpi_dispatcher_.emplace(*options_.mpi, system_);
    // The reference first: a scenario that cannot have one (a co-simulation
    // FMU) says so before the run rather than after it.
    if (scenario_.monolithic_reference)
      prepare_here([&] { reference_ = solve_reference(scenario_, catalog_, system_, grid_); });
    // Under mpirun the MPI dispatcher makes the calls and `executor:` is not
    // used (docs/mpi.md).
    if (!mpi_dispatcher_) local_dispatcher_ = make_dispatcher(scenario_.executor);
    executor_.emplace(system_, *algorithm_, to_ticks(scenario_.start), to_ticks(scenario_.end),
                      grid_);
    if (mpi_dispatcher_) {
      executor_->set_dispatcher(&*mpi_dispatcher_);
    } else {
      executor_->set_dispatcher(local_dispatcher_.get());
    }
    pacer_.emplace(scenario_.clock, system_, to_ticks(scenario_.start), to_ticks(scenario_.end));
    if (options_.record_log && !options_.compress_log)
      check_run_log_projection(scenario_, system_, *algorithm_, grid_.size());
    system_.validate(algorithm_->requirements());
    checks_.emplace(make_check_evaluator(scenario_, system_));  // docs/scenarios.md#checks
    if (!checks_->empty()) extra_executor_observers_.push_back(&*checks_);
    prepare_files();
    results_.emplace(scenario_, system_, *algorithm_, *executor_, signals_, discrete_signals_,
                     grid_, scenario_.monolithic_reference && writes_ ? &reference_ : nullptr,
                     mpi_dispatcher_ ? &*mpi_dispatcher_ : nullptr, *checks_);
    end_.reached = to_ticks(scenario_.start);
    index_outputs();
  }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void add_observer(SimulationObserver& observer) {
    require_not_initialized("add_observer()");
    observers_.push_back(&observer);
  }

  void add_executor_observer(ExecutorObserver& observer) {
    require_not_initialized("add_executor_observer()");
    extra_executor_observers_.push_back(&observer);
  }

  void initialize(const Simulation& owner) {
    owner_ = &owner;
    if (initialized_) return;
    initialized_ = true;
    attach_executor_observers();
    began_ = Clock::now();
    const ExitWatch::Armed watching(exit_watch_ ? &*exit_watch_ : nullptr);
    guarded([&] {
      if (recorder_) {
        prepare_here([&] {
          RunLogHeader header = log_header(scenario_, system_, *algorithm_);
          header.keep_free_bytes = results_->bytes_at_most();
          recorder_->begin(header, system_);
        });
      }
      if (mpi_dispatcher_) mpi_dispatcher_->settle(rank_error_);
      if (!rank_error_.empty()) throw ConfigurationError(rank_error_);  // not reached: settle threw
      executor_->initialize();
      if (recorder_) recorder_->algorithm_started(*algorithm_);
      pacer_->start();
      progress_.emplace(ProgressSettings{options_.show_progress && writes_,
                                         options_.progress_on_terminal, options_.progress_interval},
                        scenario_.start, scenario_.end);
    });
  }

  /// Plans until the frontier reaches `limit`, the algorithm finishes or a
  /// signal arrives. Returns whether the run is over.
  bool step_until(const Simulation& owner, Time limit) {
    require_steppable();
    initialize(owner);
    if (over()) return true;
    bool algorithm_finished = false;
    bool stopped = false;  // by a check with stop_on_failure or a slave's request
    const ExitWatch::Armed watching(exit_watch_ ? &*exit_watch_ : nullptr);
    guarded([&] {
      // Once per macro step: the signal flag, one advance, the pacing, the log,
      // the observers and an atomic store for the progress line; nothing here
      // allocates or blocks.
      while (executor_->frontier() < limit) {
        end_.signal = options_.interrupt != nullptr ? options_.interrupt->received() : 0;
        if (end_.signal != 0) break;
        try {
          if (!executor_->advance()) {
            algorithm_finished = true;
            break;
          }
        } catch (const StopRequest& request) {
          // A slave ended the simulation (FMI terminate): the run ends at the
          // last communication point every slave completed (end_.reached as
          // the previous plan left it); the plan the request interrupted is
          // not used, even where other slaves' steps in it completed first and
          // moved the executor's frontier.
          end_.stopped_by = "slave '" + request.slave() +
                            "' at t = " + seconds_text(to_ticks(request.time())) + " s";
          end_.stop_message = request.what();
          stopped = true;
          break;
        }
        const std::int64_t lateness = pacer_->after_advance(executor_->frontier());
        latest_lateness_ns_ = lateness;
        if (recorder_) {
          failed_here_alone_ = options_.mpi != nullptr;
          recorder_->plan_finished(*executor_, *algorithm_, lateness);
          failed_here_alone_ = false;
        }
        notify_observers();
        progress_->reached(executor_->frontier());
        end_.reached = time_all_slaves_reached(*executor_, to_ticks(scenario_.start));
        // A safety envelope (stop_on_failure): ended here as cleanly as an interruption.
        if (const CheckSpec* failed = checks_->stopping_check()) {
          end_.stopped_by = "check '" + failed->name + "'";
          end_.stop_message = "stopped by check '" + failed->name +
                              "' at t = " + seconds_text(executor_->frontier()) + " s";
          stopped = true;
          break;
        }
      }
      if (end_.signal != 0 || algorithm_finished || stopped) end_log();
    });
    if (end_.signal != 0 || algorithm_finished || stopped) end_run();
    return over();
  }

  bool over() const { return std::string_view(end_.status) != "running"; }
  bool finished() const { return end_.completed(); }
  Time time() const { return executor_->frontier(); }
  Time start() const { return to_ticks(scenario_.start); }
  Time end() const { return to_ticks(scenario_.end); }

  const std::vector<std::string>& output_names() const { return output_names_; }

  std::size_t output_index(std::string_view name) const {
    const auto found = std::find(output_names_.begin(), output_names_.end(), name);
    if (found != output_names_.end())
      return static_cast<std::size_t>(found - output_names_.begin());
    throw ConfigurationError(unknown_output_message(name));
  }

  const std::vector<std::string>& discrete_output_names() const { return discrete_output_names_; }

  std::size_t discrete_output_index(std::string_view name) const {
    const auto found =
        std::find(discrete_output_names_.begin(), discrete_output_names_.end(), name);
    if (found != discrete_output_names_.end())
      return static_cast<std::size_t>(found - discrete_output_names_.begin());
    throw ConfigurationError(unknown_output_message(name, true));
  }

  bool discrete_output_is_boolean(std::size_t index) const {
    check_discrete_index(index);
    return discrete_output_booleans_[index];
  }

  std::int64_t discrete_output(std::size_t index) const {
    if (!initialized_) {
      throw ConfigurationError(
          "Simulation::discrete_output(): no value before initialize() (scenario " +
          scenario_.source + ")");
    }
    check_discrete_index(index);
    const PortReference port = discrete_output_ports_[index];
    return executor_->discrete_outputs(port.slave)[port.port];
  }

  void check_discrete_index(std::size_t index) const {
    if (index >= discrete_output_names_.size()) {
      throw ConfigurationError("Simulation::discrete_output(" + std::to_string(index) +
                               "): the scenario " + scenario_.source + " has " +
                               std::to_string(discrete_output_names_.size()) +
                               " Integer and Boolean outputs");
    }
  }

  double output(std::size_t index) const {
    if (!initialized_ || executor_->slots().empty()) {
      throw ConfigurationError("Simulation::output(): no value before initialize() (scenario " +
                               scenario_.source + ")");
    }
    if (index >= output_names_.size()) {
      throw ConfigurationError("Simulation::output(" + std::to_string(index) + "): the scenario " +
                               scenario_.source + " has " + std::to_string(output_names_.size()) +
                               " outputs");
    }
    const auto& [slave, port] = output_ports_[index];
    return executor_->slots()[slave].output(port);
  }

  std::vector<std::string> check_names() const {
    std::vector<std::string> names;
    for (std::size_t c = 0; c < checks_->size(); ++c) names.push_back(checks_->name(c));
    return names;
  }

  std::optional<double> check_first_violation(std::size_t index) const {
    if (index >= checks_->size()) {
      throw ConfigurationError("Simulation::check_first_violation(" + std::to_string(index) +
                               "): the scenario " + scenario_.source + " has " +
                               std::to_string(checks_->size()) + " checks");
    }
    const std::optional<Time> first = checks_->first_violation(index);
    return first ? std::optional<double>(to_seconds(*first)) : std::nullopt;
  }

  std::vector<double> grid_times() const {
    const std::size_t rows = results_->rows(end_);
    std::vector<double> times(rows);
    for (std::size_t k = 0; k < rows; ++k) times[k] = to_seconds(grid_[k]);
    return times;
  }

  std::vector<double> trace(std::string_view name) const {
    const auto& [slave, port] = output_ports_[output_index(name)];
    return column_of(executor_->trace().values[slave], system_.description(slave).outputs.size(),
                     port, results_->rows(end_));
  }

  tools::SignalColumns signal_columns() const {
    tools::SignalColumns table;
    table.time = grid_times();
    const std::size_t rows = table.time.size();
    for (const Column& column : results_->columns()) {
      if (column.discrete_values.empty()) {
        table.columns.emplace_back(column.name,
                                   column_of(column.values, column.stride, column.offset, rows));
        continue;
      }
      table.discrete_columns.push_back(
          {column.name, discrete_output_is_boolean(discrete_output_index(column.name)),
           column_of(column.discrete_values, column.stride, column.offset, rows)});
    }
    return table;
  }

  std::uint64_t decision_hash() const { return executor_->decision_hash(); }

  nlohmann::json summary() const {
    if (over()) return final_summary_;
    return results_->summary(end_, *pacer_, recorder_ ? &*recorder_ : nullptr, wall_time());
  }

  const Scenario& scenario() const { return scenario_; }
  const Algorithm& algorithm() const { return *algorithm_; }
  std::int64_t latest_lateness_ns() const { return latest_lateness_ns_; }
  bool paced_by_wall_clock() const { return pacer_->enabled(); }
  double lateness_tolerance_s() const { return pacer_->report().value("tolerance_s", 0.0); }
  std::vector<std::string> evaluation_signal_names() const {
    std::vector<std::string> names;
    for (const PortReference& signal : signals_) names.push_back(system_.output_name(signal));
    return names;
  }

 private:
  /// Under MPI a failure of rank 0's own preparation (the reference, the output
  /// directory, the log) is kept until every rank has prepared and then thrown
  /// on every rank (MpiDispatcher::settle), so that none waits for it.
  template <typename Prepare>
  void prepare_here(Prepare&& prepare) {
    if (!writes_ || !rank_error_.empty()) return;
    if (options_.mpi == nullptr) return prepare();
    try {
      prepare();
    } catch (const std::exception& error) {
      rank_error_ = error.what();
    }
  }

  /// A scenario refused up to here leaves the directory as it was; from here
  /// on it holds this run's files only.
  void prepare_files() {
    if (options_.output_directory.empty()) {
      if (options_.record_log) {
        throw ConfigurationError(scenario_.source +
                                 ": a run log needs an output directory (give one, or record "
                                 "no log)");
      }
      return;
    }
    prepare_here([&] {
      directory_ = run_directory_.emplace(options_.output_directory).path();
      // An exit() while the run steps (an FMU's) fails it rather than ending
      // the process with 0 (docs/fmi.md, "Errors").
      exit_watch_.emplace(directory_, scenario_.name, std::string(algorithm_->name()));
    });
    if (options_.record_log) {
      prepare_here([&] {
        recorder_.emplace((directory_ / "run.log").string(), Recorder::kDefaultQueueRecords,
                          options_.compress_log ? LogCompression::zstd : LogCompression::none);
      });
    }
  }

  /// After a plan that advanced the frontier: a plan that did not (an output
  /// evaluation, an iteration) reached no new communication point.
  void notify_observers() {
    const std::uint64_t macro_steps = executor_->counters().macro_steps;
    if (macro_steps == notified_macro_steps_) return;
    notified_macro_steps_ = macro_steps;
    for (SimulationObserver* observer : observers_) observer->communication_point(*owner_);
  }

  /// The recorder alone keeps its direct call; with more observers, all of
  /// them behind one fan-out, the recorder first.
  void attach_executor_observers() {
    if (extra_executor_observers_.empty()) {
      if (recorder_) executor_->set_observer(&*recorder_);
      return;
    }
    if (recorder_) fan_out_.add(*recorder_);
    for (ExecutorObserver* observer : extra_executor_observers_) fan_out_.add(*observer);
    executor_->set_observer(&fan_out_);
  }

  /// Runs `step`; a failure ends the run: the log ends with it and stays
  /// readable (docs/run-log.md), the summary says the run failed and why. The
  /// run's own error is the one to report, whatever else fails on the way out.
  template <typename Step>
  void guarded(Step&& step) {
    try {
      step();
    } catch (const std::exception& error) {
      fail(error.what());
      throw;
    }
  }

  void fail(const std::string& error) {
    if (recorder_ && !log_ended_) {
      try {
        recorder_->finish({false, error, executor_->decision_hash(), executor_->counters(),
                           link_totals(system_)});
      } catch (const std::exception&) {
      }
    }
    progress_.reset();
    end_.status = "failed";
    end_.signal = 0;
    end_.error = error;
    final_summary_ =
        results_->summary(end_, *pacer_, recorder_ ? &*recorder_ : nullptr, wall_time());
    if (!directory_.empty() && options_.write_results) {
      const std::string problems = results_->write_what_fits(directory_, end_, final_summary_);
      // The run's own error is the one reported; this says what is missing beside it.
      if (!problems.empty() && problems != error)
        std::fprintf(stderr, "couplet: the failed run's files are incomplete: %s\n",
                     problems.c_str());
    }
    // The other ranks wait in the next exchange for a rank that will not come:
    // end the job, now that the log and the summary are written.
    if (failed_here_alone_) {
      std::fprintf(stderr, "couplet: run failed on MPI rank 0 alone: %s; ending the job\n",
                   error.c_str());
      options_.mpi->abort(1);
    }
  }

  /// The end record of a completed or interrupted run.
  void end_log() {
    if (end_.signal != 0) end_.status = "interrupted";
    if (!end_.stopped_by.empty()) end_.status = "stopped";
    log_ended_ = true;
    if (recorder_) {
      const bool completed = end_.signal == 0 && end_.stopped_by.empty();
      const std::string why = end_.signal != 0
                                  ? interruption_text(end_.signal, executor_->frontier())
                                  : end_.stop_message;
      recorder_->finish({completed, why, executor_->decision_hash(), executor_->counters(),
                         link_totals(system_),
                         end_.signal != 0 ? EarlyEnd::interrupted : EarlyEnd::stopped});
    }
    progress_.reset();
  }

  /// summary.json and signals.csv of a completed or interrupted run.
  void end_run() {
    if (end_.signal == 0 && end_.stopped_by.empty()) {
      end_.status = "completed";
      end_.reached = to_ticks(scenario_.end);
    }
    final_summary_ =
        results_->summary(end_, *pacer_, recorder_ ? &*recorder_ : nullptr, wall_time());
    if (writes_ && !directory_.empty() && options_.write_results) {
      try {
        results_->write(directory_, end_, final_summary_);
      } catch (const std::exception& error) {
        fail(error.what());  // a full disk: the summary, which is small, says so
        throw;
      }
    }
  }

  void require_not_initialized(const char* call) const {
    if (initialized_) {
      throw ConfigurationError(std::string("Simulation::") + call +
                               ": the simulation is initialized already (observers are "
                               "attached before initialize())");
    }
  }

  void require_steppable() const {
    if (std::string_view(end_.status) == "failed") {
      throw ConfigurationError("the run of " + scenario_.source + " failed (" + end_.error +
                               "); make a new Simulation to run it again");
    }
    if (std::string_view(end_.status) == "interrupted") {
      throw ConfigurationError("the run of " + scenario_.source + " was interrupted by " +
                               signal_name(end_.signal) +
                               "; make a new Simulation to run it again");
    }
  }

  void index_outputs() {
    for (std::size_t s = 0; s < system_.slave_count(); ++s) {
      for (std::size_t j = 0; j < system_.description(s).outputs.size(); ++j) {
        output_ports_.emplace_back(s, j);
        output_names_.push_back(system_.output_name({s, j}));
      }
      const auto& discrete = system_.description(s).discrete_outputs;
      for (std::size_t j = 0; j < discrete.size(); ++j) {
        discrete_output_ports_.push_back({s, j});
        discrete_output_names_.push_back(system_.discrete_output_name({s, j}));
        discrete_output_booleans_.push_back(discrete[j].type == DiscreteType::boolean);
      }
    }
  }

  std::string unknown_output_message(std::string_view name, bool discrete = false) const {
    const std::string text(name);
    const std::size_t dot = text.find('.');
    const std::string slave_name = text.substr(0, dot);
    const std::optional<std::size_t> slave = system_.find_slave(slave_name);
    std::string known;
    if (dot == std::string::npos || !slave) {
      for (std::size_t s = 0; s < system_.slave_count(); ++s)
        known += (s == 0 ? "" : ", ") + system_.slave_name(s);
      return scenario_.source + ": no output '" + text + "': " +
             (dot == std::string::npos ? "expected slave.port" : "no slave '" + slave_name + "'") +
             " (slaves: " + known + ")";
    }
    const SlaveDescription& description = system_.description(*slave);
    const std::string port = text.substr(dot + 1);
    if (discrete) {
      for (std::size_t j = 0; j < description.outputs.size(); ++j) {
        if (description.outputs[j].name == port)
          return scenario_.source + ": '" + text + "' is a Real output: read it with output()";
      }
      for (std::size_t j = 0; j < description.discrete_outputs.size(); ++j)
        known += (j == 0 ? "" : ", ") + description.discrete_outputs[j].name;
      return scenario_.source + ": no Integer or Boolean output '" + text + "': slave '" +
             slave_name + "' has none named '" + port +
             "' (its Integer and Boolean outputs: " + (known.empty() ? "none" : known) + ")";
    }
    for (const DiscretePortDescription& output : description.discrete_outputs) {
      if (output.name == port) {
        const char* article = output.type == DiscreteType::integer ? "an " : "a ";
        return scenario_.source + ": '" + text + "' is " + article + to_string(output.type) +
               " output: read it with discrete_output()";
      }
    }
    for (std::size_t j = 0; j < description.outputs.size(); ++j)
      known += (j == 0 ? "" : ", ") + description.outputs[j].name;
    return scenario_.source + ": no output '" + text + "': slave '" + slave_name +
           "' has no output '" + port + "' (outputs: " + known + ")";
  }

  double wall_time() const {
    if (!initialized_) return 0.0;
    return std::chrono::duration<double>(Clock::now() - began_).count();
  }

  Scenario scenario_;
  RunOptions options_;
  models::ModelCatalog catalog_;
  bool writes_;
  System system_;
  std::unique_ptr<Algorithm> algorithm_;
  std::vector<PortReference> signals_;
  std::vector<PortReference> discrete_signals_;
  std::vector<Time> grid_;
  std::optional<MpiDispatcher> mpi_dispatcher_;
  std::string rank_error_;
  models::MonolithicSolution reference_;
  // Declared before the executor, which calls it until its last advance().
  std::unique_ptr<ActionDispatcher> local_dispatcher_;
  std::optional<Executor> executor_;
  std::optional<RunPacer> pacer_;
  std::optional<RunDirectory> run_directory_;  ///< locked while the simulation lives
  std::filesystem::path directory_;
  std::optional<ExitWatch> exit_watch_;
  std::optional<Recorder> recorder_;
  std::vector<ExecutorObserver*> extra_executor_observers_;
  ObserverFanOut fan_out_;
  std::vector<SimulationObserver*> observers_;
  std::uint64_t notified_macro_steps_ = 0;  ///< the observers' last communication point
  std::int64_t latest_lateness_ns_ = 0;     ///< the latest cycle's, for the live view
  std::optional<CheckEvaluator> checks_;    ///< the scenario's checks (an executor observer)
  std::optional<RunResults> results_;
  std::vector<std::pair<std::size_t, std::size_t>> output_ports_;  ///< slave, port
  std::vector<std::string> output_names_;
  std::vector<PortReference> discrete_output_ports_;
  std::vector<std::string> discrete_output_names_;
  std::vector<bool> discrete_output_booleans_;
  const Simulation* owner_ = nullptr;  ///< for the observers (a Simulation may move)
  bool initialized_ = false;
  Clock::time_point began_;
  RunEnd end_;
  bool log_ended_ = false;
  bool failed_here_alone_ = false;  // under MPI: rank 0's log failed while the others step on
  std::optional<ProgressReporter> progress_;
  nlohmann::json final_summary_;
};

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

Simulation Simulation::from_scenario(const std::string& path, const Overrides& overrides,
                                     const SimulationOptions& options) {
  RunOptions run_options;
  run_options.output_directory = options.output_directory;
  run_options.record_log = options.record_log;
  run_options.compress_log = options.compress_log;
  run_options.write_results = options.write_results;
  return make_simulation(load_scenario(path, overrides), run_options);
}

void Simulation::add_observer(SimulationObserver& observer) {
  impl_->add_observer(observer);
}
void Simulation::add_executor_observer(ExecutorObserver& observer) {
  impl_->add_executor_observer(observer);
}
void Simulation::initialize() {
  impl_->initialize(*this);
}
bool Simulation::step_until(Time t) {
  impl_->step_until(*this, t);
  return finished();
}
bool Simulation::run() {
  impl_->step_until(*this, std::numeric_limits<Time>::max());
  return finished();
}
Time Simulation::time() const {
  return impl_->time();
}
Time Simulation::start_time() const {
  return impl_->start();
}
Time Simulation::end_time() const {
  return impl_->end();
}
bool Simulation::finished() const {
  return impl_->finished();
}
std::vector<std::string> Simulation::output_names() const {
  return impl_->output_names();
}
std::size_t Simulation::output_index(std::string_view name) const {
  return impl_->output_index(name);
}
double Simulation::output(std::size_t index) const {
  return impl_->output(index);
}
std::vector<std::string> Simulation::discrete_output_names() const {
  return impl_->discrete_output_names();
}
std::size_t Simulation::discrete_output_index(std::string_view name) const {
  return impl_->discrete_output_index(name);
}
bool Simulation::discrete_output_is_boolean(std::size_t index) const {
  return impl_->discrete_output_is_boolean(index);
}
std::int64_t Simulation::discrete_output(std::size_t index) const {
  return impl_->discrete_output(index);
}
std::vector<std::string> Simulation::check_names() const {
  return impl_->check_names();
}
std::optional<double> Simulation::check_first_violation(std::size_t index) const {
  return impl_->check_first_violation(index);
}
std::vector<double> Simulation::grid_times() const {
  return impl_->grid_times();
}
std::vector<double> Simulation::trace(std::string_view name) const {
  return impl_->trace(name);
}
std::string Simulation::decision_hash() const {
  return hash_text(impl_->decision_hash());
}
std::string Simulation::summary() const {
  return impl_->summary().dump(2);
}
std::string Simulation::scenario_name() const {
  return impl_->scenario().name;
}
std::string Simulation::algorithm_name() const {
  return std::string(impl_->algorithm().name());
}

namespace tools {

Simulation make_simulation(const Scenario& scenario, const RunOptions& options) {
  return Simulation(std::make_unique<Simulation::Impl>(scenario, options));
}

nlohmann::json summary_of(const Simulation& simulation) {
  return simulation.impl().summary();
}

SignalColumns signal_columns(const Simulation& simulation) {
  return simulation.impl().signal_columns();
}

std::int64_t latest_lateness_ns(const Simulation& simulation) {
  return simulation.impl().latest_lateness_ns();
}

bool paced_by_wall_clock(const Simulation& simulation) {
  return simulation.impl().paced_by_wall_clock();
}

double lateness_tolerance_s(const Simulation& simulation) {
  return simulation.impl().lateness_tolerance_s();
}

std::vector<std::string> evaluation_signal_names(const Simulation& simulation) {
  return simulation.impl().evaluation_signal_names();
}

}  // namespace tools

}  // namespace couplet
