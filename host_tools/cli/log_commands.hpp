#pragma once
// The run-log commands of the command line (docs/cli.md, docs/run-log.md). Each
// prints its result and returns the exit code: 0 success; 1 a replay that does
// not reproduce the run, or a log damaged beyond a cut tail. A log that cannot
// be read, or holds a malformed record, throws RunLogError naming the file (and
// the frame's byte offset); so does a run directory that mixes runs (report).
#include <cstdint>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

/// `couplet replay RUN.log [--verify]`.
int replay_log_command(const std::string& log_path, bool verify);
/// What `couplet export` writes.
struct ExportOptions {
  std::string csv_path;  ///< empty: CSV on standard output unless mat_path is given
  std::string mat_path;  ///< empty: no MAT-file
  bool grid = false;     ///< rows at the evaluation grid's times, not the communication times
};

/// `couplet export RUN.log [--csv FILE] [--mat FILE] [--grid]`. With --grid, a
/// log whose scenario text no longer gives an evaluation grid is an error
/// naming the log.
int export_log_command(const std::string& log_path, const ExportOptions& options);
/// `couplet inspect RUN.log`.
int inspect_log_command(const std::string& log_path);
/// `couplet report RUN.log|DIR [-o FILE]`: DIR means DIR/run.log, and
/// signals.csv and summary.json beside the log are used when present, after
/// check_run_files_agree(). An empty `report_path` writes report.html beside the log.
int report_log_command(const std::string& log_or_directory, const std::string& report_path);
/// `couplet report A B [C ...] -o report.html`: one page overlaying the runs
/// (render_overlay_report); each run is read and checked as report_log_command
/// does. A run that does not exist is a ConfigurationError naming it.
int report_overlay_command(const std::vector<std::string>& logs_or_directories,
                           const std::string& report_path);

/// The files of one run directory, summary.json as read (empty text: absent);
/// signals.csv is read from its path, line by line, when it is there.
struct RunFiles {
  std::string log_path;
  std::uint64_t log_bytes = 0;
  std::string summary_path;
  std::string summary_json;
  std::string signals_path;
};

/// Throws RunLogError naming the files that disagree when summary.json or
/// signals.csv is not of the run the log recorded: the summary's algorithm,
/// decision hash, end time, counters and log size must be the log's; the
/// signals' columns must be outputs of the logged slaves and their times the
/// logged scenario's evaluation grid (all of it for a completed run, a prefix
/// otherwise). What a file does not hold is not compared. `log` is the log's
/// structure and end record; `reached` its last plan's frontier (its start
/// without plans).
void check_run_files_agree(const RunLog& log, Time reached, const RunFiles& files);

}  // namespace couplet::tools
