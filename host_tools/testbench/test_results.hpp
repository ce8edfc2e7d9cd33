#pragma once
// What `couplet test` learns from each run (docs/testing.md): the checks of
// its summary.json, its exit status, its wall time; and the verdicts drawn
// from them, shared by the stdout table and the JUnit XML (junit_report.hpp).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace couplet::tools {

/// One entry of summary.json `checks`.
struct CheckOutcome {
  std::string name;
  std::string kind;
  std::string signal;  ///< empty for a run-level check
  bool passed = false;
  std::optional<double> first_violation_time;  ///< seconds
  std::optional<double> worst_value;
  std::string message;
};

/// One run of a scenario: a test case (or the scenario alone).
struct CaseRun {
  std::string case_name;  ///< empty: the scenario has no cases
  std::string directory;  ///< the run directory
  std::string command;    ///< the command line that ran it
  std::string live_view;  ///< where its live page is served (--live); empty: none
  int exit_code = 0;      ///< the run's exit status when it exited
  int signal = 0;         ///< the signal that killed it (a crash); 0 when it exited
  double seconds = 0.0;   ///< wall time
  std::vector<CheckOutcome> checks;
  std::string error;  ///< why the run failed or crashed; empty when it ran to its end

  bool failed_to_run() const { return !error.empty(); }
};

struct SuiteResult {
  std::string name;  ///< the scenario's name
  std::string path;  ///< the scenario file
  std::vector<CaseRun> runs;
};

/// One JUnit test case: a check of a run, or the run itself when it failed or
/// has no checks.
struct CaseVerdict {
  std::string class_name;  ///< scenario[.case]
  std::string name;        ///< the check's name, or "run"
  enum class Kind { passed, failed, error } kind = Kind::passed;
  std::string message;  ///< failed: the first violation; error: why the run failed
  double seconds = 0.0;
};

/// The checks of a summary.json (`checks`, absent: none). Throws
/// std::runtime_error naming `source` when an entry lacks a field.
std::vector<CheckOutcome> checks_of_summary(const nlohmann::json& summary,
                                            const std::string& source);

/// The run's outcome from its exit status and what its directory holds
/// (summary.json; the last line of its output for a scenario refused before
/// running). `output_path` is the file holding the run's stdout and stderr.
CaseRun outcome_of_run(CaseRun run, const std::string& output_path);

/// The JUnit test cases of a run: one per check, and one named "run" when the
/// run failed or crashed (an error) or declares no check (passed).
std::vector<CaseVerdict> verdicts_of(const SuiteResult& suite, const CaseRun& run);

/// "violated first at t = 1.25 s (worst value 0.731): MESSAGE".
std::string failure_message(const CheckOutcome& check);

}  // namespace couplet::tools
