#include "host_tools/commands.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/group_builder.hpp"
#include "host_tools/link_report.hpp"
#include "host_tools/run_pacer.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/decision_hash.hpp"
#include "couplet/errors.hpp"
#include "runtime/exact_text.hpp"
#include "runtime/metrics.hpp"
#include "runtime/recorder.hpp"
#include "runtime/sequential_executor.hpp"

namespace couplet::tools {

namespace {

using Clock = std::chrono::steady_clock;

std::filesystem::path prepare_directory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    throw ConfigurationError("cannot create output directory '" + directory +
                             "': " + error.message());
  return directory;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) throw std::runtime_error("cannot write '" + path.string() + "'");
}

struct Column {
  std::string name;
  std::span<const double> values;  ///< [grid][stride]
  std::size_t stride = 1;
  std::size_t offset = 0;
};

void write_signals_csv(const std::filesystem::path& path, const std::vector<Time>& grid,
                       const std::vector<Column>& columns) {
  std::ofstream file(path);
  file << "time";
  for (const Column& column : columns) file << ',' << column.name;
  file << '\n';
  for (std::size_t k = 0; k < grid.size(); ++k) {
    file << exact_text(to_seconds(grid[k]));
    for (const Column& column : columns)
      file << ',' << exact_text(column.values[k * column.stride + column.offset]);
    file << '\n';
  }
  if (!file) throw std::runtime_error("cannot write '" + path.string() + "'");
}

std::vector<double> column_of(std::span<const double> values, std::size_t stride,
                              std::size_t offset, std::size_t count) {
  std::vector<double> column(count);
  for (std::size_t k = 0; k < count; ++k) column[k] = values[k * stride + offset];
  return column;
}

class ProgressLine {
 public:
  ProgressLine(bool enabled, double start, double end)
      : enabled_(enabled), start_(start), end_(end), began_(Clock::now()), last_(began_) {}
  void update(double time) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (now - began_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(250))
      return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\r[couplet] t = %.3f / %.3f s (%3.0f%%)", time, end_,
                 100.0 * (time - start_) / (end_ - start_));
    std::fflush(stderr);
  }
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
  }

 private:
  bool enabled_;
  double start_, end_;
  Clock::time_point began_, last_;
  bool shown_ = false;
};

}  // namespace

RunLogHeader log_header(const Scenario& scenario, const System& system,
                        const Algorithm& algorithm) {
  RunLogHeader header{scenario.source,
                      scenario.text,
                      to_ticks(scenario.start),
                      to_ticks(scenario.end),
                      std::string(algorithm.name()),
                      {}};
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::RemoteSlave*>(&system.slave(s));
    header.slave_links.push_back(remote != nullptr ? remote->link_name() : "");
  }
  return header;
}

nlohmann::json run_scenario(const Scenario& scenario, const RunOptions& options) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system = build_system(scenario, catalog);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(scenario);
  const std::vector<PortReference> signals = resolve_signals(scenario, system);
  const std::vector<Time> grid = evaluation_grid(scenario);
  const auto directory = prepare_directory(options.output_directory);

  // The reference first: a scenario that cannot have one (a co-simulation FMU)
  // says so before the run rather than after it.
  models::MonolithicSolution reference;
  if (scenario.monolithic_reference) reference = solve_reference(scenario, catalog, system, grid);

  SequentialExecutor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                              grid);
  RunPacer pacer(parse_clock(scenario.clock, scenario.source), system, to_ticks(scenario.start),
                 to_ticks(scenario.end));
  std::optional<Recorder> recorder;
  if (options.record_log) {
    recorder.emplace((directory / "run.log").string());
    executor.set_observer(&*recorder);
  }
  const auto began = Clock::now();
  try {
    if (recorder) recorder->begin(log_header(scenario, system, *algorithm), system);
    executor.initialize();
    if (recorder) recorder->algorithm_started(*algorithm);
    pacer.start();
    ProgressLine progress(options.show_progress, scenario.start, scenario.end);
    while (executor.advance()) {
      const std::int64_t lateness = pacer.after_advance(executor.frontier());
      if (recorder) recorder->plan_finished(executor, *algorithm, lateness);
      progress.update(to_seconds(executor.frontier()));
    }
  } catch (const std::exception& error) {
    // The log ends with the failure and stays readable (docs/run-log.md).
    if (recorder) {
      try {
        recorder->finish({false, error.what(), executor.decision_hash(), executor.counters()});
      } catch (const std::exception&) {  // the run's own error is the one to report
      }
    }
    throw;
  }
  if (recorder) recorder->finish({true, "", executor.decision_hash(), executor.counters()});
  const double wall_time = std::chrono::duration<double>(Clock::now() - began).count();

  nlohmann::json summary;
  summary["scenario"] = scenario.name;
  summary["algorithm"] = std::string(algorithm->name());
  summary["macro_steps"] = executor.counters().macro_steps;
  summary["slave_steps"] = executor.counters().slave_steps;
  summary["rollbacks"] = executor.counters().rollbacks;
  summary["end_time"] = to_seconds(executor.frontier());
  summary["wall_time_s"] = wall_time;
  summary["decision_hash"] = hash_text(executor.decision_hash());
  if (recorder) {
    summary["run_log"] = {{"path", recorder->path()},
                          {"bytes", recorder->bytes_written()},
                          {"records_waited", recorder->records_waited()}};
  }
  summary["evaluation"]["grid_s"] = scenario.evaluation_grid;
  nlohmann::json interpolated = nlohmann::json::array();
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    if (executor.trace().interpolated(s)) interpolated.push_back(system.slave_name(s));
  }
  summary["evaluation"]["interpolated_slaves"] = interpolated;
  add_link_counters(system, summary);
  if (pacer.enabled()) summary["realtime"] = pacer.report();

  AlgorithmReport report;
  algorithm->report(report);
  for (const auto& [name, value] : report.counters) summary["counters"][name] = value;
  add_group_counters(system, summary);  // composite slaves' inner runs (docs/iterative.md)
  if (!report.connection_defect_rms.empty() || !report.output_defect_rms.empty()) {
    summary["defects"]["connection"] = report.connection_defect_rms;
    summary["defects"]["output"] = report.output_defect_rms;
  }

  std::vector<Column> columns;
  const GridTrace& trace = executor.trace();
  for (const PortReference& signal : signals) {
    columns.push_back({system.output_name(signal), trace.values[signal.slave],
                       system.description(signal.slave).outputs.size(), signal.port});
  }
  if (scenario.monolithic_reference) {
    for (const PortReference& signal : signals) {
      const std::size_t stride = system.description(signal.slave).outputs.size();
      const std::vector<double> cosimulation =
          column_of(trace.values[signal.slave], stride, signal.port, grid.size());
      const std::vector<double> exact =
          column_of(reference.outputs[signal.slave], stride, signal.port, grid.size());
      const SignalError error = compare_to_reference(cosimulation, exact);
      summary["errors"][system.output_name(signal)] = {{"nrmse_pct", error.nrmse_pct},
                                                       {"rmse", error.rmse}};
    }
    for (const PortReference& signal : signals) {
      columns.push_back({system.output_name(signal) + ":reference", reference.outputs[signal.slave],
                         system.description(signal.slave).outputs.size(), signal.port});
    }
  }
  write_signals_csv(directory / "signals.csv", grid, columns);
  write_text(directory / "summary.json", summary.dump(2) + "\n");
  return summary;
}

nlohmann::json reference_scenario(const Scenario& scenario, const std::string& output_directory) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const System system = build_system(scenario, catalog);
  system.validate({"monolithic reference", true, 0, 0});
  const std::vector<PortReference> signals = resolve_signals(scenario, system);
  const std::vector<Time> grid = evaluation_grid(scenario);
  const auto directory = prepare_directory(output_directory);
  const auto began = Clock::now();
  const models::MonolithicSolution reference = solve_reference(scenario, catalog, system, grid);
  std::vector<Column> columns;
  for (const PortReference& signal : signals) {
    columns.push_back({system.output_name(signal), reference.outputs[signal.slave],
                       system.description(signal.slave).outputs.size(), signal.port});
  }
  write_signals_csv(directory / "signals.csv", grid, columns);
  nlohmann::json summary;
  summary["scenario"] = scenario.name;
  summary["algorithm"] = "monolithic";
  summary["end_time"] = scenario.end;
  summary["wall_time_s"] = std::chrono::duration<double>(Clock::now() - began).count();
  write_text(directory / "summary.json", summary.dump(2) + "\n");
  return summary;
}

// Everything a run does before its first step: slaves set up, initial outputs,
// the algorithm started (which checks e.g. imposed steps against its own).
void validate_scenario(const Scenario& scenario) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system = build_system(scenario, catalog);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(scenario);
  resolve_signals(scenario, system);
  SequentialExecutor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
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
