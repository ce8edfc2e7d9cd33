#pragma once
// The run-log commands of the command line (docs/cli.md, docs/run-log.md). Each
// prints its result and returns the exit code: 0 success; 1 a replay that does
// not reproduce the run, or a log damaged beyond a cut tail. A log that cannot
// be read at all throws std::runtime_error naming the file.
#include <string>

namespace couplet::tools {

/// `couplet replay RUN.log [--verify]`.
int replay_log_command(const std::string& log_path, bool verify);
/// `couplet export RUN.log [--csv FILE]` (standard output without FILE).
int export_log_command(const std::string& log_path, const std::string& csv_path);
/// `couplet inspect RUN.log`.
int inspect_log_command(const std::string& log_path);
/// `couplet report RUN.log|DIR -o report.html`: DIR means DIR/run.log, and
/// signals.csv and summary.json beside the log are used when present.
int report_log_command(const std::string& log_or_directory, const std::string& report_path);

}  // namespace couplet::tools
