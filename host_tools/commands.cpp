#include "host_tools/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string_view>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/exit_watch.hpp"
#include "host_tools/group_builder.hpp"
#include "host_tools/interrupt.hpp"
#include "host_tools/link_report.hpp"
#include "host_tools/mpi_executor.hpp"
#include "host_tools/mpi_session.hpp"
#include "host_tools/progress.hpp"
#include "host_tools/run_directory.hpp"
#include "host_tools/run_pacer.hpp"
#include "host_tools/scenario_limits.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/decision_hash.hpp"
#include "couplet/errors.hpp"
#include "runtime/exact_text.hpp"
#include "runtime/metrics.hpp"
#include "runtime/recorder.hpp"
#include "runtime/executor.hpp"
#include "runtime/thread_pool_dispatcher.hpp"

namespace couplet::tools {

namespace {

using Clock = std::chrono::steady_clock;

struct Column {
  std::string name;
  std::span<const double> values;  ///< [grid][stride]
  std::size_t stride = 1;
  std::size_t offset = 0;
};

/// signals.csv: the first `rows` grid times (a stopped run's rows end where
/// every slave had arrived).
void write_signals_csv(const std::filesystem::path& path, const std::vector<Time>& grid,
                       const std::vector<Column>& columns, std::size_t rows) {
  write_file_atomically(path, [&](std::ostream& file) {
    file << "time";
    for (const Column& column : columns) file << ',' << column.name;
    file << '\n';
    for (std::size_t k = 0; k < rows; ++k) {
      file << exact_text(to_seconds(grid[k]));
      for (const Column& column : columns)
        file << ',' << exact_text(column.values[k * column.stride + column.offset]);
      file << '\n';
    }
  });
}

void write_summary(const std::filesystem::path& directory, const nlohmann::json& summary) {
  write_file_atomically(directory / "summary.json",
                        [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
}

std::vector<double> column_of(std::span<const double> values, std::size_t stride,
                              std::size_t offset, std::size_t count) {
  std::vector<double> column(count);
  for (std::size_t k = 0; k < count; ++k) column[k] = values[k * stride + offset];
  return column;
}

}  // namespace

std::unique_ptr<ActionDispatcher> make_dispatcher(const ExecutorSettings& settings) {
  switch (settings.type) {
    case ExecutorSettings::Type::sequential:
      return nullptr;
    case ExecutorSettings::Type::threads:
      return std::make_unique<ThreadPoolDispatcher>(settings.threads);
  }
  return nullptr;
}

RunLogHeader log_header(const Scenario& scenario, const System& system,
                        const Algorithm& algorithm) {
  RunLogHeader header{scenario.source,
                      scenario.text,
                      to_ticks(scenario.start),
                      to_ticks(scenario.end),
                      std::string(algorithm.name()),
                      {}};
  header.max_bytes = scenario.limits.run_log_bytes;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::RemoteSlave*>(&system.slave(s));
    header.slave_links.push_back(remote != nullptr ? remote->link_name() : "");
  }
  return header;
}

namespace {

/// How a run ended, for summary.json `status` and the run log's end record.
struct RunEnd {
  const char* status = "completed";  ///< "completed", "interrupted" or "failed"
  int signal = 0;                    ///< the signal that interrupted it
  std::string error;                 ///< why it failed
  Time reached = 0;                  ///< every slave's outputs are known up to here

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
    throw ConfigurationError(scenario.source + ": groups: composite slaves cannot run under mpirun "
                             "(run the scenario without mpirun)");
  }
  if (parse_clock(scenario.clock, scenario.source).wall) {
    throw ConfigurationError(scenario.source + ": clock: under mpirun the run is in virtual time "
                             "(remove the wall clock or run without mpirun)");
  }
}

std::string interruption_text(int signal, Time frontier) {
  return std::string("interrupted by ") + signal_name(signal) + " at t = " + seconds_text(frontier) +
         " s";
}

/// Everything a run leaves in its directory once its stepping ended, however it
/// ended: summary.json and signals.csv (up to `end.reached`).
class RunResults {
 public:
  RunResults(const Scenario& scenario, System& system, Algorithm& algorithm,
             const Executor& executor, const std::vector<PortReference>& signals,
             const std::vector<Time>& grid, const models::MonolithicSolution* reference,
             const MpiDispatcher* dispatcher = nullptr)
      : scenario_(scenario),
        system_(system),
        algorithm_(algorithm),
        executor_(executor),
        signals_(signals),
        grid_(grid),
        reference_(reference),
        dispatcher_(dispatcher) {}

  nlohmann::json write(const std::filesystem::path& directory, const RunEnd& end,
                       const RunPacer& pacer, const Recorder* recorder, double wall_time) const {
    // A run refused before its slaves were set up (by the run log's header, say)
    // has no rows at all, not even the start time's.
    const bool set_up = !executor_.slots().empty();
    const auto rows = set_up ? static_cast<std::size_t>(std::upper_bound(grid_.begin(), grid_.end(),
                                                                         end.reached) -
                                                        grid_.begin())
                             : std::size_t{0};
    nlohmann::json summary = summarize(end, pacer, recorder, wall_time);
    add_reference_errors(summary, rows);
    write_signals_csv(directory / "signals.csv", grid_, columns(), rows);
    write_summary(directory, summary);
    return summary;
  }

  /// The summary without files: what an MPI rank other than 0 returns.
  nlohmann::json summary_only(const RunEnd& end, const RunPacer& pacer, double wall_time) const {
    return summarize(end, pacer, nullptr, wall_time);
  }

 private:
  nlohmann::json summarize(const RunEnd& end, const RunPacer& pacer, const Recorder* recorder,
                           double wall_time) const {
    nlohmann::json summary;
    summary["scenario"] = scenario_.name;
    summary["status"] = end.status;
    if (end.signal != 0) summary["interrupted_by"] = signal_name(end.signal);
    if (!end.error.empty()) summary["error"] = end.error;
    summary["algorithm"] = std::string(algorithm_.name());
    summary["executor"] = {{"type", scenario_.executor.type == ExecutorSettings::Type::threads ? "threads" : "sequential"},
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

  std::vector<Column> columns() const {
    std::vector<Column> columns;
    const GridTrace& trace = executor_.trace();
    for (const PortReference& signal : signals_) {
      columns.push_back({system_.output_name(signal), trace.values[signal.slave],
                         system_.description(signal.slave).outputs.size(), signal.port});
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

  const Scenario& scenario_;
  System& system_;
  Algorithm& algorithm_;
  const Executor& executor_;
  const std::vector<PortReference>& signals_;
  const std::vector<Time>& grid_;
  const models::MonolithicSolution* reference_;
  const MpiDispatcher* dispatcher_;
};

}  // namespace

nlohmann::json run_scenario(const Scenario& scenario, const RunOptions& options) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  // Under mpirun (docs/mpi.md) every rank builds and runs the same master; the
  // preparation below is replicated except where `writes` says rank 0 alone.
  const MpiSession* const mpi = options.mpi;
  const bool writes = mpi == nullptr || mpi->rank() == 0;
  if (mpi != nullptr) check_distributable(scenario);
  System system = build_system(scenario, catalog);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(scenario);
  const std::vector<PortReference> signals = resolve_signals(scenario, system);
  const std::vector<Time> grid = evaluation_grid(scenario);
  std::optional<MpiDispatcher> mpi_dispatcher;
  if (mpi != nullptr) mpi_dispatcher.emplace(*mpi, system);

  // Under MPI a failure of rank 0's own preparation (the reference, the output
  // directory, the log) is kept until every rank has prepared and then thrown
  // on every rank (MpiDispatcher::settle), so that none waits for it.
  std::string rank_error;
  const auto prepare_here = [&](auto&& prepare) {
    if (!writes || !rank_error.empty()) return;
    if (mpi == nullptr) return prepare();
    try {
      prepare();
    } catch (const std::exception& error) {
      rank_error = error.what();
    }
  };

  // The reference first: a scenario that cannot have one (a co-simulation FMU)
  // says so before the run rather than after it.
  models::MonolithicSolution reference;
  if (scenario.monolithic_reference)
    prepare_here([&] { reference = solve_reference(scenario, catalog, system, grid); });

  // Declared before the executor, which calls it until its last advance().
  // Under mpirun the MPI dispatcher makes the calls and `executor:` is not used
  // (docs/mpi.md).
  const std::unique_ptr<ActionDispatcher> local_dispatcher =
      mpi_dispatcher ? nullptr : make_dispatcher(scenario.executor);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end), grid);
  if (mpi_dispatcher) {
    executor.set_dispatcher(&*mpi_dispatcher);
  } else {
    executor.set_dispatcher(local_dispatcher.get());
  }
  RunPacer pacer(parse_clock(scenario.clock, scenario.source), system, to_ticks(scenario.start),
                 to_ticks(scenario.end));
  if (options.record_log) check_run_log_projection(scenario);
  system.validate(algorithm->requirements());
  // A scenario refused up to here leaves the directory as it was; from here on
  // it holds this run's files only.
  std::optional<RunDirectory> run_directory;  // locked until the run returns
  std::filesystem::path directory;
  prepare_here([&] { directory = run_directory.emplace(options.output_directory).path(); });
  std::optional<Recorder> recorder;
  if (options.record_log) {
    prepare_here([&] {
      recorder.emplace((directory / "run.log").string());
      executor.set_observer(&*recorder);
    });
  }
  const bool has_directory = !directory.empty();
  // An exit() during the run (an FMU's) fails it rather than ending it with 0.
  std::optional<ExitWatch> exit_watch;
  if (has_directory) exit_watch.emplace(directory, scenario.name, std::string(algorithm->name()));
  const RunResults results(scenario, system, *algorithm, executor, signals, grid,
                           scenario.monolithic_reference && writes ? &reference : nullptr,
                           mpi_dispatcher ? &*mpi_dispatcher : nullptr);
  const auto began = Clock::now();
  const auto wall_time = [&] { return std::chrono::duration<double>(Clock::now() - began).count(); };
  RunEnd end;
  end.reached = to_ticks(scenario.start);
  bool log_ended = false;
  bool failed_here_alone = false;  // under MPI: rank 0's log failed while the others step on
  try {
    if (recorder) {
      prepare_here([&] { recorder->begin(log_header(scenario, system, *algorithm), system); });
    }
    if (mpi_dispatcher) mpi_dispatcher->settle(rank_error);
    if (!rank_error.empty()) throw ConfigurationError(rank_error);  // not reached: settle threw
    executor.initialize();
    if (recorder) recorder->algorithm_started(*algorithm);
    pacer.start();
    ProgressReporter progress({options.show_progress && writes, options.progress_on_terminal,
                               options.progress_interval},
                              scenario.start, scenario.end);
    // Once per macro step: the signal flag, one advance, the pacing, the log and
    // an atomic store for the progress line; nothing here allocates or blocks.
    for (;;) {
      end.signal = options.interrupt != nullptr ? options.interrupt->received() : 0;
      if (end.signal != 0 || !executor.advance()) break;
      const std::int64_t lateness = pacer.after_advance(executor.frontier());
      if (recorder) {
        failed_here_alone = mpi != nullptr;
        recorder->plan_finished(executor, *algorithm, lateness);
        failed_here_alone = false;
      }
      progress.reached(executor.frontier());
      end.reached = time_all_slaves_reached(executor, to_ticks(scenario.start));
    }
    if (end.signal != 0) end.status = "interrupted";
    log_ended = true;
    if (recorder) {
      const bool completed = end.signal == 0;
      recorder->finish({completed, completed ? "" : interruption_text(end.signal, executor.frontier()),
                        executor.decision_hash(), executor.counters(), link_totals(system)});
    }
  } catch (const std::exception& error) {
    // The log ends with the failure and stays readable (docs/run-log.md); the
    // summary says the run failed and why. The run's own error is the one to
    // report, whatever else fails on the way out.
    if (recorder && !log_ended) {
      try {
        recorder->finish({false, error.what(), executor.decision_hash(), executor.counters(),
                          link_totals(system)});
      } catch (const std::exception&) {
      }
    }
    if (has_directory) {
      try {
        results.write(directory, {"failed", 0, error.what(), end.reached}, pacer,
                      recorder ? &*recorder : nullptr, wall_time());
      } catch (const std::exception&) {
      }
    }
    // The other ranks wait in the next exchange for a rank that will not come:
    // end the job, now that the log and the summary are written.
    if (failed_here_alone) {
      std::fprintf(stderr, "couplet: run failed on MPI rank 0 alone: %s; ending the job\n",
                   error.what());
      mpi->abort(1);
    }
    throw;
  }
  if (end.signal == 0) end.reached = to_ticks(scenario.end);
  if (!writes) return results.summary_only(end, pacer, wall_time());
  return results.write(directory, end, pacer, recorder ? &*recorder : nullptr, wall_time());
}

namespace {

/// The scenario's models solved locally: the reference of a hardware-in-the-loop
/// scenario is that of the same models, with no link and no declared device
/// limits (a target's missing rollback is no limit of the equations).
Scenario without_links(Scenario scenario) {
  for (SlaveSpec& slave : scenario.slaves) {
    if (!slave.device.empty()) {
      throw ConfigurationError(slave.where + ": the device program '" + slave.device +
                               "' has no equations couplet could solve, so there is no monolithic "
                               "reference (give the slave a model: or fmu: to have one)");
    }
    slave.link.reset();
    slave.capabilities = {};
  }
  return scenario;
}

}  // namespace

nlohmann::json reference_scenario(const Scenario& linked_scenario,
                                  const std::string& output_directory) {
  const Scenario scenario = without_links(linked_scenario);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const System system = build_system(scenario, catalog);
  system.validate({"monolithic reference", true, 0, 0});
  const std::vector<PortReference> signals = resolve_signals(scenario, system);
  const std::vector<Time> grid = evaluation_grid(scenario);
  const auto began = Clock::now();
  const models::MonolithicSolution reference = solve_reference(scenario, catalog, system, grid);
  std::vector<Column> columns;
  for (const PortReference& signal : signals) {
    columns.push_back({system.output_name(signal), reference.outputs[signal.slave],
                       system.description(signal.slave).outputs.size(), signal.port});
  }
  nlohmann::json summary;
  summary["scenario"] = scenario.name;
  summary["status"] = "completed";
  summary["algorithm"] = "monolithic";
  summary["end_time"] = scenario.end;
  summary["wall_time_s"] = std::chrono::duration<double>(Clock::now() - began).count();
  const RunDirectory directory(output_directory);
  write_signals_csv(directory.path() / "signals.csv", grid, columns, grid.size());
  write_summary(directory.path(), summary);
  return summary;
}

// Everything a run does before its first step: slaves set up, initial outputs,
// the algorithm started (which checks e.g. imposed steps against its own).
void validate_scenario(const Scenario& scenario) {
  check_run_log_projection(scenario);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system = build_system(scenario, catalog);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(scenario);
  resolve_signals(scenario, system);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                              evaluation_grid(scenario));
  const RunPacer pacer(parse_clock(scenario.clock, scenario.source), system,
                       to_ticks(scenario.start), to_ticks(scenario.end));
  executor.initialize();
  // A reference the scenario asks for must be possible (not with co-simulation FMUs).
  if (scenario.monolithic_reference && scenario.groups.empty()) {
    for (const SlaveSpec& spec : scenario.slaves)
      open_source(spec, catalog)->make_model(slave_settings(scenario, spec));
  }
}

std::string describe_models(const models::ModelCatalog& catalog) {
  std::string text;
  for (const models::ModelEntry& entry : catalog.entries()) {
    text += models::catalog_source(catalog, entry.description.name)->describe();
  }
  return text;
}

std::string describe_fmu(const std::string& fmu_path) {
  return models::fmu_source(fmu_path, models::FmuKind::automatic)->describe();
}

std::string summary_table(const nlohmann::json& summary) {
  std::ostringstream text;
  const auto row = [&](const std::string& label, const std::string& value) {
    text << "  " << std::left << std::setw(22) << label << value << "\n";
  };
  row("scenario", summary.value("scenario", ""));
  row("algorithm", summary.value("algorithm", ""));
  if (const std::string status = summary.value("status", "completed"); status != "completed")
    row("status", status + (summary.contains("interrupted_by")
                                ? " by " + summary["interrupted_by"].get<std::string>()
                                : ""));
  if (summary.contains("macro_steps"))
    row("macro steps", std::to_string(summary["macro_steps"].get<std::uint64_t>()));
  if (summary.contains("slave_steps"))
    row("slave steps", std::to_string(summary["slave_steps"].get<std::uint64_t>()));
  row("end time [s]", exact_text(summary.value("end_time", 0.0)));
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.3f", summary.value("wall_time_s", 0.0));
  row("wall time [s]", wall);
  if (summary.contains("decision_hash"))
    row("decision hash", summary["decision_hash"].get<std::string>());
  if (summary.contains("run_log")) {
    const auto bytes = summary["run_log"]["bytes"].get<std::uint64_t>();
    row("run log", summary["run_log"]["path"].get<std::string>() + " (" +
                       std::to_string((bytes + 512) / 1024) + " KiB; couplet replay/report)");
  }
  if (summary.contains("realtime")) {
    const nlohmann::json& realtime = summary["realtime"];
    char line[160];
    std::snprintf(line, sizeof line, "%llu cycles, %llu overruns, lateness p99 %.1f µs, max %.1f µs",
                  static_cast<unsigned long long>(realtime.value("cycles", std::uint64_t{0})),
                  static_cast<unsigned long long>(realtime.value("overruns", std::uint64_t{0})),
                  realtime["lateness_us"].value("p99", 0.0), realtime["lateness_us"].value("max", 0.0));
    row("real time", line);
    if (realtime.contains("slaves")) {
      for (const auto& [name, slave] : realtime["slaves"].items()) {
        std::snprintf(line, sizeof line, "%llu missed results, %llu late results",
                      static_cast<unsigned long long>(slave.value("missed_results", std::uint64_t{0})),
                      static_cast<unsigned long long>(slave.value("late_results", std::uint64_t{0})));
        row("  " + name, line);
      }
    }
  }
  if (summary.contains("links")) {
    for (const auto& [name, link] : summary["links"].items()) {
      std::string line = std::to_string(link.value("requests", std::uint64_t{0})) + " requests, " +
                         std::to_string(link.value("retransmissions", std::uint64_t{0})) + " retransmissions";
      if (const auto stalls = link.value("host_stalls", std::uint64_t{0}); stalls > 0) {
        char longest[32];
        std::snprintf(longest, sizeof longest, "%.3f", link.value("host_stall_longest_s", 0.0));
        line += "; this machine stalled " + std::to_string(stalls) + " times (longest " + longest + " s)";
      }
      row("link " + name, line);
    }
  }
  if (summary.contains("errors")) {
    text << "  error against the monolithic reference:\n";
    for (const auto& [name, error] : summary["errors"].items()) {
      char line[96];
      std::snprintf(line, sizeof line, "NRMSE %8.4f %%   RMSE %.3e",
                    error["nrmse_pct"].get<double>(), error["rmse"].get<double>());
      row("  " + name, line);
    }
  }
  return text.str();
}

}  // namespace couplet::tools
