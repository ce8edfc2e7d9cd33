#include "host_tools/testbench/test_results.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace couplet::tools {

namespace {

namespace fs = std::filesystem;

constexpr int kExitRunFailed = 1;
constexpr int kExitConfiguration = 2;
constexpr int kExitCheckFailed = 3;
constexpr int kExitNotStarted = 127;

std::optional<double> optional_number(const nlohmann::json& entry, const char* key) {
  const auto value = entry.find(key);
  if (value == entry.end() || value->is_null()) return std::nullopt;
  return value->get<double>();
}

/// The last non-empty line of the run's output: couplet's one-line error.
std::string last_line(const std::string& path) {
  std::ifstream file(path);
  std::string last;
  for (std::string line; std::getline(file, line);)
    if (!line.empty()) last = line;
  return last;
}

std::string or_no_output(const std::string& line) {
  return line.empty() ? "no output" : line;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

/// Why a run that exited with `exit_code` did not run to its end; empty when it did.
std::string exit_error(const CaseRun& run, const nlohmann::json& summary,
                       const std::string& output_path) {
  switch (run.exit_code) {
    case 0:
    case kExitCheckFailed:
      return summary.is_null() ? "exit code " + std::to_string(run.exit_code) +
                                     " but no summary.json in " + run.directory
                               : "";
    case kExitRunFailed:
      return "run failed: " + (summary.is_object() && summary.contains("error")
                                   ? summary["error"].get<std::string>()
                                   : or_no_output(last_line(output_path)));
    case kExitConfiguration:
      return "scenario refused (exit code 2): " + or_no_output(last_line(output_path));
    case kExitNotStarted:
      return "couplet run could not be started: " + or_no_output(last_line(output_path));
    default:
      return "exit code " + std::to_string(run.exit_code) + ": " +
             or_no_output(last_line(output_path));
  }
}

}  // namespace

std::vector<CheckOutcome> checks_of_summary(const nlohmann::json& summary,
                                            const std::string& source) {
  std::vector<CheckOutcome> checks;
  const auto entries = summary.find("checks");
  if (entries == summary.end()) return checks;
  try {
    for (const nlohmann::json& entry : *entries) {
      checks.push_back({entry.at("name").get<std::string>(), entry.value("kind", ""),
                        entry.value("signal", ""), entry.at("passed").get<bool>(),
                        optional_number(entry, "first_violation_time"),
                        optional_number(entry, "worst_value"), entry.value("message", "")});
    }
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("'" + source + "': checks: " + error.what());
  }
  return checks;
}

CaseRun outcome_of_run(CaseRun run, const std::string& output_path) {
  const fs::path summary_path = fs::path(run.directory) / "summary.json";
  nlohmann::json summary;
  if (fs::exists(summary_path)) {
    try {
      std::ifstream file(summary_path);
      summary = nlohmann::json::parse(file);
      run.checks = checks_of_summary(summary, summary_path.string());
    } catch (const std::exception& error) {
      run.error = std::string("unreadable summary: ") + error.what();
      return run;
    }
  }
  if (run.signal != 0) {
    const char* name = sigabbrev_np(run.signal);
    const std::string last = last_line(output_path);
    run.error = "crashed: signal " + std::to_string(run.signal) +
                (name ? std::string(" (SIG") + name + ")" : "") +
                (last.empty() ? "" : "; last output: " + last);
    return run;
  }
  run.error = exit_error(run, summary, output_path);
  return run;
}

std::string failure_message(const CheckOutcome& check) {
  std::string text = "violated";
  if (check.first_violation_time)
    text += " first at t = " + number_text(*check.first_violation_time) + " s";
  if (check.worst_value) text += " (worst value " + number_text(*check.worst_value) + ")";
  if (!check.message.empty()) text += ": " + check.message;
  return text;
}

std::vector<CaseVerdict> verdicts_of(const SuiteResult& suite, const CaseRun& run) {
  const std::string class_name =
      run.case_name.empty() ? suite.name : suite.name + "." + run.case_name;
  std::vector<CaseVerdict> verdicts;
  for (const CheckOutcome& check : run.checks) {
    verdicts.push_back({class_name, check.name,
                        check.passed ? CaseVerdict::Kind::passed : CaseVerdict::Kind::failed,
                        check.passed ? "" : failure_message(check), run.seconds});
  }
  if (run.failed_to_run()) {
    verdicts.push_back({class_name, "run", CaseVerdict::Kind::error, run.error, run.seconds});
  } else if (run.checks.empty()) {
    verdicts.push_back({class_name, "run", CaseVerdict::Kind::passed, "", run.seconds});
  }
  return verdicts;
}

}  // namespace couplet::tools
