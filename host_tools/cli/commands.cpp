#include "host_tools/cli/commands.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "drivers/linked_slave.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/connection_conversions.hpp"
#include "host_tools/assembly/dcp_description_reader.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/checks/check_setup.hpp"
#include "host_tools/live/live_view.hpp"
#include "host_tools/scenario/scenario_limits.hpp"
#include "host_tools/simulation/link_report.hpp"
#include "host_tools/simulation/run_directory.hpp"
#include "host_tools/simulation/run_files.hpp"
#include "host_tools/simulation/run_pacer.hpp"
#include "host_tools/simulation/simulation_setup.hpp"
#include "runtime/decision_hash.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"
#include "runtime/thread_pool_dispatcher.hpp"

namespace couplet::tools {

namespace {

using Clock = std::chrono::steady_clock;

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
  header.segment_bytes = scenario.limits.run_log_segment_bytes;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* remote = dynamic_cast<const drivers::LinkedSlave*>(&system.slave(s));
    header.slave_links.push_back(remote != nullptr ? remote->link_name() : "");
  }
  return header;
}

nlohmann::json run_scenario(const Scenario& scenario, const RunOptions& options) {
  // The run loop, the run's files and its summary are couplet::Simulation's
  // (host_tools/simulation/simulation.cpp); the command line is one of its clients.
  Simulation simulation = make_simulation(scenario, options);
  if (options.live != nullptr) return run_with_live_view(simulation, *options.live, options);
  simulation.run();
  return summary_of(simulation);
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
    if (!slave.dcp.empty()) {
      throw ConfigurationError(slave.where + ": the DCP slave '" + slave.name +
                               "' has no equations couplet could solve, so there is no monolithic "
                               "reference");
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
std::vector<std::string> validate_scenario(const Scenario& scenario) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  System system = build_system(scenario, catalog);
  const std::unique_ptr<Algorithm> algorithm = make_algorithm(scenario.algorithm);
  check_run_log_projection(scenario, system, *algorithm, evaluation_grid(scenario).size());
  resolve_signals(scenario, system);
  make_check_evaluator(scenario, system);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    evaluation_grid(scenario));
  const RunPacer pacer(scenario.clock, system, to_ticks(scenario.start), to_ticks(scenario.end));
  executor.initialize();
  // A reference the scenario asks for must be possible (not with co-simulation FMUs).
  if (scenario.monolithic_reference && scenario.groups.empty()) {
    for (const SlaveSpec& spec : scenario.slaves)
      open_source(spec, catalog)->make_model(slave_settings(scenario, spec));
  }
  std::vector<std::string> notes = scenario.package_unit_conversions;
  for (const UnitConversionNeed& need : unit_conversions(scenario, system))
    notes.push_back(describe(scenario, need));
  return notes;
}

std::string describe_models(const models::ModelCatalog& catalog) {
  std::string text;
  for (const models::ModelEntry& entry : catalog.entries()) {
    text += models::catalog_source(catalog, entry.description.name)->describe();
  }
  // Not in the catalog: its outputs come from the file a scenario names.
  text += std::string(models::kTableStimulusName) +
          " — outputs played from a CSV file (slave keys 'file' and 'interpolation: hold | "
          "linear'; docs/models.md, Stimuli)\n  inputs: none\n  outputs: the file's columns "
          "besides 'time'\n  parameters: none\n";
  return text;
}

std::string describe_slave_file(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".dcpx")
    return describe(read_dcp_description(path));
  return models::fmu_source(path, models::FmuKind::automatic)->describe();
}

std::string summary_table(const nlohmann::json& summary) {
  std::ostringstream text;
  // The label column is as wide as its longest label ("  slave.output", "link name").
  std::size_t label_width = 22;
  for (const char* section : {"errors", "links"}) {
    if (!summary.contains(section)) continue;
    for (const auto& entry : summary[section].items())
      label_width = std::max(label_width, entry.key().size() + 7);
  }
  const auto row = [&](const std::string& label, const std::string& value) {
    text << "  " << std::left << std::setw(static_cast<int>(label_width)) << label << value << "\n";
  };
  row("scenario", summary.value("scenario", ""));
  row("algorithm", summary.value("algorithm", ""));
  if (const std::string status = summary.value("status", "completed"); status != "completed")
    row("status",
        status +
            (summary.contains("interrupted_by")
                 ? " by " + summary["interrupted_by"].get<std::string>()
                 : "") +
            (summary.contains("stopped_by") ? " by " + summary["stopped_by"].get<std::string>()
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
    const auto segments = summary["run_log"].value("segments", 1U);
    const std::string in_segments =
        segments > 1 ? " in " + std::to_string(segments) + " segments" : "";
    row("run log", summary["run_log"]["path"].get<std::string>() + " (" +
                       std::to_string((bytes + 512) / 1024) + " KiB" + in_segments +
                       "; couplet replay/report)");
  }
  if (summary.contains("realtime")) {
    const nlohmann::json& realtime = summary["realtime"];
    char line[160];
    std::snprintf(
        line, sizeof line, "%llu cycles, %llu overruns, lateness p99 %.1f µs, max %.1f µs",
        static_cast<unsigned long long>(realtime.value("cycles", std::uint64_t{0})),
        static_cast<unsigned long long>(realtime.value("overruns", std::uint64_t{0})),
        realtime["lateness_us"].value("p99", 0.0), realtime["lateness_us"].value("max", 0.0));
    row("real time", line);
    if (realtime.contains("slaves")) {
      for (const auto& [name, slave] : realtime["slaves"].items()) {
        std::snprintf(
            line, sizeof line, "%llu missed results, %llu late results",
            static_cast<unsigned long long>(slave.value("missed_results", std::uint64_t{0})),
            static_cast<unsigned long long>(slave.value("late_results", std::uint64_t{0})));
        row("  " + name, line);
      }
    }
  }
  if (summary.contains("links")) {
    for (const auto& [name, link] : summary["links"].items()) {
      std::string line = std::to_string(link.value("requests", std::uint64_t{0})) + " requests, " +
                         std::to_string(link.value("retransmissions", std::uint64_t{0})) +
                         " retransmissions";
      if (const auto stalls = link.value("host_stalls", std::uint64_t{0}); stalls > 0) {
        char longest[32];
        std::snprintf(longest, sizeof longest, "%.3f", link.value("host_stall_longest_s", 0.0));
        line += "; this machine stalled " + std::to_string(stalls) + " times (longest " + longest +
                " s)";
      }
      row("link " + name, line);
    }
  }
  if (summary.contains("errors")) {
    text << "  error against the monolithic reference:\n";
    for (const auto& [name, error] : summary["errors"].items()) {
      // Not finite (a reference that is zero throughout): summary.json holds null,
      // which means "not available", not infinity.
      const auto finite_or_na = [](const nlohmann::json& value, const char* format) {
        if (!value.is_number() || !std::isfinite(value.get<double>())) return std::string("n/a");
        char number[32];
        std::snprintf(number, sizeof number, format, value.get<double>());
        return std::string(number);
      };
      row("  " + name, "NRMSE " + finite_or_na(error["nrmse_pct"], "%8.4f %%") + "   RMSE " +
                           finite_or_na(error["rmse"], "%.3e"));
    }
  }
  text << checks_table(summary);
  return text.str();
}

}  // namespace couplet::tools
