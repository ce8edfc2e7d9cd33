#include "host_tools/log_commands.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "host_tools/log_export.hpp"
#include "host_tools/log_inspect.hpp"
#include "host_tools/replay.hpp"
#include "host_tools/report.hpp"
#include "host_tools/run_log.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

namespace {

/// Reads the log; a damaged tail is a warning: what came before it is used.
RunLog read_with_warning(const std::string& path) {
  RunLog log = read_run_log(path);
  if (log.damaged())
    std::cerr << "couplet: warning: " << path << ": " << log.tail_problem << "; read up to there\n";
  return log;
}

bool corrupted(const RunLog& log) {
  return log.tail == protocol::LogReadStatus::corrupted ||
         log.tail == protocol::LogReadStatus::malformed;
}

std::string read_text_if_present(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) return "";
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace

int replay_log_command(const std::string& log_path, bool verify) {
  const RunLog log = read_with_warning(log_path);
  const ReplayOutcome outcome = replay_run_log(log);
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
  if (verify && corrupted(log)) {
    std::cout << "  NOT VERIFIED           the log is damaged: " << log.tail_problem << "\n";
    return 1;
  }
  std::cout << "  verdict                every recorded decision reproduced bit for bit\n";
  return 0;
}

int export_log_command(const std::string& log_path, const std::string& csv_path) {
  const RunLog log = read_with_warning(log_path);
  const std::string csv = export_csv(log);
  if (csv_path.empty()) {
    std::cout << csv;
  } else {
    write_text(csv_path, csv);
    std::cerr << "couplet: " << log.plans.size() << " plans written to " << csv_path << "\n";
  }
  return corrupted(log) ? 1 : 0;
}

int inspect_log_command(const std::string& log_path) {
  const RunLog log = read_with_warning(log_path);
  std::cout << inspect_text(log);
  return corrupted(log) ? 1 : 0;
}

int report_log_command(const std::string& log_or_directory, const std::string& report_path) {
  std::filesystem::path log_path = log_or_directory;
  if (std::filesystem::is_directory(log_path)) log_path /= "run.log";
  const RunLog log = read_with_warning(log_path.string());
  const std::filesystem::path directory =
      log_path.parent_path().empty() ? "." : log_path.parent_path();
  const ReportInputs inputs{read_text_if_present(directory / "signals.csv"),
                            read_text_if_present(directory / "summary.json")};
  write_text(report_path, render_report(log, inputs));
  std::cerr << "couplet: report written to " << report_path << "\n";
  return corrupted(log) ? 1 : 0;
}

}  // namespace couplet::tools
