#include "host_tools/cli/log_commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/report/report.hpp"
#include "host_tools/report/report_parts.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/log_export_mat.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/logged_scenario.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/run_log_stream.hpp"
#include "host_tools/runlog/signals_table.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/simulation/run_directory.hpp"
#include "protocol/run_log_frame.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

namespace {

/// A damaged tail is a warning: what came before it is used.
void warn_of_damage(const std::string& path, const std::string& tail_problem) {
  if (!tail_problem.empty())
    std::cerr << "couplet: warning: " << path << ": " << tail_problem << "; read up to there\n";
}

/// A damaged frame inside the log (a cut tail is not an error).
bool corrupted(protocol::LogReadStatus tail) {
  return tail == protocol::LogReadStatus::corrupted || tail == protocol::LogReadStatus::malformed;
}

std::string read_text_if_present(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) return "";
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The start of every complaint about a run directory: both files, by name.
[[noreturn]] void disagree(const std::string& file, const std::string& log_path,
                           const std::string& why) {
  throw RunLogError("'" + file + "' and '" + log_path + "' are not of the same run: " + why +
                    " (the directory mixes two runs: run again into an empty one)");
}

/// Times as the summary and signals.csv write them (to_seconds, exact_text):
/// equal up to the last bit; a nanosecond of slack for other writers.
bool same_seconds(double a, double b) {
  return std::fabs(a - b) <= std::max(1e-9, 1e-15 * std::fabs(b));
}

std::string seconds_of(double seconds) {
  return exact_text(seconds) + " s";
}

/// The summary's counters against the log's end record.
void check_summary_counters(const nlohmann::json& summary, const RunLog& log,
                            const RunFiles& files) {
  if (!log.end_record) return;
  const std::pair<const char*, std::uint64_t> counters[] = {
      {"macro_steps", log.end_record->macro_steps},
      {"slave_steps", log.end_record->slave_steps},
      {"rollbacks", log.end_record->rollbacks}};
  for (const auto& [key, logged] : counters) {
    const auto value = summary.find(key);
    if (value == summary.end() || !value->is_number_unsigned()) continue;
    if (value->get<std::uint64_t>() != logged) {
      disagree(files.summary_path, files.log_path,
               std::string(key) + " is " + std::to_string(value->get<std::uint64_t>()) +
                   " in the summary, " + std::to_string(logged) + " in the log's end record");
    }
  }
}

/// The summary's end time: the log's end time for a completed run, else the
/// time reached (at least the last plan's frontier: a failed plan may have
/// advanced it before its record was written).
void check_summary_end_time(const nlohmann::json& summary, const RunLog& log, Time reached,
                            const RunFiles& files) {
  const auto value = summary.find("end_time");
  if (value == summary.end() || !value->is_number()) return;
  const double end_time = value->get<double>();
  const bool completed = log.end_record && log.end_record->completed();
  const bool agrees =
      completed ? same_seconds(end_time, to_seconds(log.end))
                : end_time >= to_seconds(reached) - 1e-9 && end_time <= to_seconds(log.end) + 1e-9;
  if (!agrees) {
    disagree(files.summary_path, files.log_path,
             "the summary ends at t = " + seconds_of(end_time) + ", the log " +
                 (completed ? "completed at t = " + seconds_of(to_seconds(log.end))
                            : "reached t = " + seconds_of(to_seconds(reached))));
  }
}

void check_summary(const RunLog& log, Time reached, const RunFiles& files) {
  if (files.summary_json.empty()) return;
  const nlohmann::json summary = nlohmann::json::parse(files.summary_json, nullptr, false);
  if (!summary.is_object()) return;  // the report says it could not be parsed
  if (const auto algorithm = summary.find("algorithm");
      algorithm != summary.end() && algorithm->is_string() &&
      algorithm->get<std::string>() != log.algorithm) {
    disagree(files.summary_path, files.log_path,
             "the algorithm is '" + algorithm->get<std::string>() + "' in the summary, '" +
                 log.algorithm + "' in the log");
  }
  if (const auto hash = summary.find("decision_hash"); hash != summary.end() && hash->is_string()) {
    if (!log.end_record) {
      disagree(files.summary_path, files.log_path,
               "the summary gives decision hash " + hash->get<std::string>() +
                   ", the log has no end record");
    }
    if (hash->get<std::string>() != hash_text(log.end_record->decision_hash)) {
      disagree(files.summary_path, files.log_path,
               "the decision hash is " + hash->get<std::string>() + " in the summary, " +
                   hash_text(log.end_record->decision_hash) + " in the log");
    }
  }
  check_summary_end_time(summary, log, reached, files);
  check_summary_counters(summary, log, files);
  if (const auto run_log = summary.find("run_log");
      run_log != summary.end() && run_log->is_object()) {
    const auto bytes = run_log->find("bytes");
    if (bytes != run_log->end() && bytes->is_number_unsigned() &&
        bytes->get<std::uint64_t>() != files.log_bytes) {
      disagree(files.summary_path, files.log_path,
               "the summary's run log has " + std::to_string(bytes->get<std::uint64_t>()) +
                   " bytes, the log " + std::to_string(files.log_bytes));
    }
  }
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream text(line);
  for (std::string field; std::getline(text, field, ',');) fields.push_back(field);
  return fields;
}

/// signals.csv's columns: "time", then outputs of the logged slaves (Real ones
/// possibly with ":reference", then the Integer and Boolean ones).
void check_signal_columns(const std::string& header, const RunLog& log, const RunFiles& files) {
  std::set<std::string> outputs;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (std::size_t j = 0; j < log.slaves[s].description.outputs.size(); ++j)
      outputs.insert(log.output_name(s, j));
    for (std::size_t j = 0; j < log.slaves[s].description.discrete_outputs.size(); ++j)
      outputs.insert(log.discrete_output_name(s, j));
  }
  const std::vector<std::string> columns = split_fields(header);
  constexpr std::string_view kReference = ":reference";
  for (std::size_t c = 1; c < columns.size(); ++c) {
    std::string signal = columns[c];
    if (signal.ends_with(kReference)) signal.resize(signal.size() - kReference.size());
    if (!outputs.contains(signal)) {
      disagree(files.signals_path, files.log_path,
               "column '" + columns[c] + "' is no output of the logged slaves");
    }
  }
}

/// The evaluation grid of the logged scenario; none (count 0) when its text no
/// longer loads (the report still shows the log).
GridSpacing logged_grid(const RunLog& log) {
  try {
    return evaluation_grid_spacing(logged_scenario(log));
  } catch (const std::exception&) {
    return {};
  }
}

/// signals.csv's times: the logged scenario's evaluation grid, all of it when
/// the run completed. Row by row, each time against the grid's at its row.
void check_signal_times(std::istream& rows, const RunLog& log, const RunFiles& files) {
  const GridSpacing grid = logged_grid(log);
  if (grid.count == 0) return;
  std::size_t row = 0;
  for (std::string line; std::getline(rows, line);) {
    if (line.empty() || line == "\r") continue;
    const std::string time = line.substr(0, line.find(','));
    char* end = nullptr;
    const double seconds = std::strtod(time.c_str(), &end);
    if (row >= grid.count || end == time.c_str() ||
        !same_seconds(seconds, to_seconds(grid.at(row)))) {
      disagree(files.signals_path, files.log_path,
               "row " + std::to_string(row + 2) + " is at t = " + time + " s, " +
                   (row >= grid.count ? "after the logged scenario's last evaluation time"
                                      : "the logged scenario's evaluation grid at " +
                                            seconds_of(to_seconds(grid.at(row)))));
    }
    ++row;
  }
  if (log.end_record && log.end_record->completed() && row != grid.count) {
    disagree(files.signals_path, files.log_path,
             "it has " + std::to_string(row) + " rows, the logged run completed " +
                 std::to_string(grid.count) + " evaluation times");
  }
}

/// signals.csv read line by line, never whole: it grows with the run.
void check_signals(const RunLog& log, const RunFiles& files) {
  std::ifstream rows(files.signals_path);
  std::string header;
  if (!rows || !std::getline(rows, header)) return;  // absent or empty: nothing to compare
  if (!header.empty() && header.back() == '\r') header.pop_back();
  check_signal_columns(header, log, files);
  check_signal_times(rows, log, files);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write '" + path + "': the file cannot be created");
  file << text;
  file.close();
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

/// What --grid exports: the logged scenario's evaluation grid, and the columns
/// of its signals.csv (SignalColumns).
struct GridExport {
  std::vector<Time> grid;
  std::vector<std::string> signals;
};

GridExport grid_export(const RunLog& log) {
  const Scenario scenario = logged_scenario(log);
  GridExport exported{logged_evaluation_grid(log, scenario), {}};
  for (const std::string& written : scenario.evaluation_signals)
    exported.signals.push_back(outer_name(scenario, written));
  return exported;
}

/// Streams the rows `options` ask for into `sink`: the log is read once, and
/// only what the rows to come need of it is held.
StreamedExport stream_export(const std::string& log_path, const ExportOptions& options,
                             TableSink& sink) {
  RunLogReading reading(log_path);
  if (!options.grid) return stream_communication_rows(reading, sink);
  reading.read_structure();
  const GridExport exported = grid_export(reading.log());
  // A signal the log lacks is refused before the log is read on.
  try {
    TableCollector columns_only;
    SignalColumns(columns_only, exported.signals).header(grid_table(reading.log(), {}));
  } catch (const RunLogError& error) {
    throw RunLogError("run log '" + log_path + "': --grid: " + error.what());
  }
  SignalColumns columns(sink, exported.signals);
  return stream_grid_rows(reading, exported.grid, columns);
}

}  // namespace

// Streams the log: a log of any length replays in the same memory.
int replay_log_command(const std::string& log_path, bool verify) {
  RunLogStream stream(log_path);
  const ReplayOutcome outcome = replay_run_log(stream);
  const RunLog& log = stream.log();
  if (log.damaged())
    std::cerr << "couplet: warning: " << log_path << ": " << log.tail_problem
              << "; read up to there\n";
  std::cout << "  replayed               " << outcome.plans << " plans, " << outcome.macro_steps
            << " macro steps, " << outcome.calls << " slave calls\n";
  std::cout << "  decision hash          " << hash_text(outcome.replayed_hash);
  if (outcome.hash_compared)
    std::cout << " (recorded " << hash_text(log.end_record->decision_hash) << ")";
  std::cout << "\n";
  if (!outcome.note.empty()) std::cout << "  note                   " << outcome.note << "\n";
  if (!outcome.identical) {
    std::cout << "  DIVERGED               " << outcome.divergence << "\n";
    return verify ? 1 : 0;
  }
  if (verify && corrupted(log.tail)) {
    std::cout << "  NOT VERIFIED           the log is damaged: " << log.tail_problem << "\n";
    return 1;
  }
  std::cout << "  verdict                every recorded decision reproduced bit for bit\n";
  return 0;
}

namespace {

/// The table `options` ask for as CSV, written as the log is read (any length).
/// A file is written atomically, so that a log refused half-way leaves no
/// partial table under the name asked for.
StreamedExport export_csv_file(const std::string& log_path, const ExportOptions& options) {
  StreamedExport exported;
  const auto write = [&](std::ostream& csv) {
    CsvSink sink(csv);
    exported = stream_export(log_path, options, sink);
  };
  if (options.csv_path.empty()) {
    write(std::cout);
  } else {
    write_file_atomically(options.csv_path, write);
  }
  return exported;
}

}  // namespace

int export_log_command(const std::string& log_path, const ExportOptions& options) {
  const char* rows = options.grid ? "evaluation-grid times" : "communication times";
  const auto written = [&](std::size_t count, const std::string& path) {
    std::cerr << "couplet: " << count << " rows (" << rows << ") written to " << path << "\n";
  };
  StreamedExport exported;
  if (options.mat_path.empty()) {
    exported = export_csv_file(log_path, options);
    if (!options.csv_path.empty()) written(exported.rows, options.csv_path);
  } else {
    // A MAT-file holds each column whole: the table is collected (the log is
    // still streamed, and only the table held).
    TableCollector collected;
    exported = stream_export(log_path, options, collected);
    if (!options.csv_path.empty()) {
      write_file_atomically(options.csv_path,
                            [&](std::ostream& csv) { csv << csv_text(collected.table); });
      written(collected.table.rows.size(), options.csv_path);
    }
    write_mat_file(collected.table, options.mat_path);
    written(collected.table.rows.size(), options.mat_path);
  }
  warn_of_damage(log_path, exported.tail_problem);
  return corrupted(exported.tail) ? 1 : 0;
}

int inspect_log_command(const std::string& log_path) {
  const LogInspection inspection = inspect_log(log_path);  // streamed: any length
  warn_of_damage(log_path, inspection.tail_problem);
  std::cout << inspection.text;
  return corrupted(inspection.tail) ? 1 : 0;
}

void check_run_files_agree(const RunLog& log, Time reached, const RunFiles& files) {
  check_summary(log, reached, files);
  check_signals(log, files);
}

namespace {

/// One run as the report reads it: its log's digest (streamed), the files
/// beside it, checked to agree; signals.csv read row by row into bounded columns.
struct ReadRun {
  ReportRun run;
  std::filesystem::path directory;  ///< where the log lies
};

ReadRun read_report_run(const std::string& log_or_directory) {
  std::filesystem::path log_path = log_or_directory;
  if (std::filesystem::is_directory(log_path)) log_path /= "run.log";
  ReportDigest digest = digest_run_log(log_path.string());
  warn_of_damage(log_path.string(), digest.log.damaged() ? digest.log.tail_problem : "");
  const std::filesystem::path directory =
      log_path.parent_path().empty() ? "." : log_path.parent_path();
  const RunFiles files{log_path.string(), protocol::log_bytes_on_disk(log_path.string()),
                       (directory / "summary.json").string(),
                       read_text_if_present(directory / "summary.json"),
                       (directory / "signals.csv").string()};
  check_run_files_agree(digest.log, digest.reached, files);
  report_parts::SignalColumns signals;
  if (std::ifstream csv(files.signals_path); csv)
    signals = report_parts::signals_from_csv(csv, report_parts::run_span(digest.log));
  return {{std::move(digest), std::move(signals), files.summary_json}, directory};
}

/// The run's name in the overlay's legends: its directory's name ("runs/a/" or
/// "runs/a/run.log" give "a").
std::string run_name(const std::string& log_or_directory) {
  std::filesystem::path path = std::filesystem::path(log_or_directory).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  if (!std::filesystem::is_directory(path)) path = path.parent_path();
  const std::string name = std::filesystem::absolute(path).lexically_normal().filename().string();
  return name.empty() ? log_or_directory : name;
}

}  // namespace

int report_log_command(const std::string& log_or_directory, const std::string& report_path) {
  const ReadRun read = read_report_run(log_or_directory);
  // Without -o the report goes beside the log, into the run's directory.
  const std::string output =
      report_path.empty() ? (read.directory / "report.html").string() : report_path;
  write_text(output, render_report(read.run));
  std::cerr << "couplet: report written to " << output << "\n";
  return corrupted(read.run.digest.log.tail) ? 1 : 0;
}

int report_overlay_command(const std::vector<std::string>& logs_or_directories,
                           const std::string& report_path) {
  for (const std::string& argument : logs_or_directories) {
    if (!std::filesystem::exists(argument))
      throw ConfigurationError("couplet report: '" + argument +
                               "' does not exist (a run directory or its run.log)");
  }
  std::vector<OverlayRun> runs;
  bool any_corrupted = false;
  for (const std::string& argument : logs_or_directories) {
    ReadRun read = read_report_run(argument);
    any_corrupted = any_corrupted || corrupted(read.run.digest.log.tail);
    runs.push_back({run_name(argument), std::move(read.run)});
  }
  // Several runs have no one directory: without -o the page goes to the current one.
  const std::string output = report_path.empty() ? "report.html" : report_path;
  write_text(output, render_overlay_report(runs));
  std::cerr << "couplet: report of " << runs.size() << " runs written to " << output << "\n";
  return any_corrupted ? 1 : 0;
}

}  // namespace couplet::tools
