#include "host_tools/testbench/test_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "couplet/errors.hpp"
#include "host_tools/live/live_server.hpp"
#include "host_tools/scenario/test_discovery.hpp"
#include "host_tools/testbench/junit_report.hpp"

extern char** environ;

namespace couplet::tools {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// The run's stdout and stderr, kept in its directory.
constexpr const char* kOutputFile = "output.txt";

struct PlannedRun {
  std::size_t suite = 0;
  std::size_t run = 0;
  std::vector<std::string> argv;
};

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& word : argv) text += (text.empty() ? "" : " ") + word;
  return text;
}

/// `couplet run --live` for run `index` of the suite: at PORT + index, or at
/// any free port (its address then only in the run's output file); no linger,
/// so that the suite does not wait for it.
void add_live_view(std::vector<std::string>& argv, CaseRun& run, std::size_t index,
                   const LiveServerOptions& endpoint, const std::string& text) {
  const unsigned long port = endpoint.port == 0 ? 0 : endpoint.port + index;
  if (port > 65535) {
    throw ConfigurationError("--live " + text + ": run " + std::to_string(index + 1) +
                             " would need port " + std::to_string(port) + " (above 65535)");
  }
  const std::string host = live_host(endpoint.address);
  argv.insert(argv.end(), {"--live", host + ":" + std::to_string(port), "--live-linger", "0"});
  run.live_view = port == 0 ? "the address in " + (fs::path(run.directory) / kOutputFile).string()
                            : "http://" + host + ":" + std::to_string(port) + "/";
}

/// One `couplet run` per case (one for a scenario without cases), its
/// directory emptied so that nothing of an earlier run is read as its result.
std::vector<PlannedRun> plan_runs(const std::vector<TestScenario>& scenarios,
                                  const TestOptions& options, const std::string& program,
                                  std::vector<SuiteResult>& suites) {
  std::vector<PlannedRun> runs;
  const std::optional<LiveServerOptions> live =
      options.live_endpoint.empty() ? std::nullopt
                                    : std::optional(parse_live_endpoint(options.live_endpoint));
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const TestScenario& scenario = scenarios[s];
    suites.push_back({scenario.name, scenario.path, {}});
    const fs::path base = fs::path(options.output_directory) / scenario.name;
    fs::remove_all(base);
    const std::size_t count = std::max<std::size_t>(1, scenario.cases.size());
    for (std::size_t c = 0; c < count; ++c) {
      const TestCase* test_case = scenario.cases.empty() ? nullptr : &scenario.cases[c];
      CaseRun run;
      run.case_name = test_case ? test_case->name : "";
      run.directory = (test_case ? base / test_case->name : base).string();
      fs::create_directories(run.directory);
      std::vector<std::string> argv{program, "run", scenario.path, "-o", run.directory, "--quiet"};
      if (test_case) {
        for (const auto& override : test_case->overrides) {
          argv.emplace_back("--set");
          argv.push_back(set_argument(override));
        }
      }
      if (live) add_live_view(argv, run, runs.size(), *live, options.live_endpoint);
      run.command = command_text(argv);
      suites.back().runs.push_back(run);
      runs.push_back({s, suites.back().runs.size() - 1, std::move(argv)});
    }
  }
  return runs;
}

/// Starts `argv` with its stdout and stderr in `output_path`; -1 (and `error`
/// set) when it cannot be started.
pid_t start(const std::vector<std::string>& argv, const std::string& output_path,
            std::string& error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> words;
  for (const std::string& word : argv) words.push_back(const_cast<char*>(word.c_str()));
  words.push_back(nullptr);
  pid_t pid = -1;
  const int status = posix_spawn(&pid, words[0], &actions, nullptr, words.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (status != 0) {
    error = "couplet run could not be started: " + std::string(std::strerror(status));
    return -1;
  }
  return pid;
}

/// Where a run started with --live is watched (stderr: the table is stdout's).
void announce_live_view(const CaseRun& run) {
  if (!run.live_view.empty())
    std::cerr << "couplet test: live view of " << run.directory << ": " << run.live_view << "\n";
}

struct Running {
  std::size_t index = 0;  ///< into the planned runs
  Clock::time_point began;
};

/// Runs the planned runs, at most `jobs` at a time, and records how each ended.
void run_all(const std::vector<PlannedRun>& runs, std::size_t jobs,
             std::vector<SuiteResult>& suites) {
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  const auto record = [&](std::size_t index, int exit_code, int signal, std::string error,
                          double seconds) {
    CaseRun& run = suites[runs[index].suite].runs[runs[index].run];
    run.exit_code = exit_code;
    run.signal = signal;
    run.seconds = seconds;
    const std::string output = (fs::path(run.directory) / kOutputFile).string();
    run = error.empty() ? outcome_of_run(run, output) : run;
    if (!error.empty()) run.error = std::move(error);
  };
  while (next < runs.size() || !running.empty()) {
    while (next < runs.size() && running.size() < jobs) {
      const PlannedRun& planned = runs[next];
      const CaseRun& run = suites[planned.suite].runs[planned.run];
      std::string error;
      const pid_t pid =
          start(planned.argv, (fs::path(run.directory) / kOutputFile).string(), error);
      if (pid < 0) {
        record(next, -1, 0, error, 0.0);
      } else {
        running[pid] = {next, Clock::now()};
        announce_live_view(run);
      }
      ++next;
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("couplet test: waitpid: " + std::string(std::strerror(errno)));
    }
    const auto found = running.find(pid);
    if (found == running.end()) continue;  // not one of ours
    const double seconds =
        std::chrono::duration<double>(Clock::now() - found->second.began).count();
    const bool exited = WIFEXITED(status);
    record(found->second.index, exited ? WEXITSTATUS(status) : -1, exited ? 0 : WTERMSIG(status),
           "", seconds);
    running.erase(found);
  }
}

std::string verdict_text(const CaseVerdict& verdict) {
  switch (verdict.kind) {
    case CaseVerdict::Kind::passed:
      return "passed";
    case CaseVerdict::Kind::failed:
      return "FAILED: " + verdict.message;
    case CaseVerdict::Kind::error:
      return "ERROR: " + verdict.message;
  }
  return {};
}

}  // namespace

std::vector<SuiteResult> run_test_suites(const TestOptions& options) {
  const std::vector<TestScenario> scenarios = discover_test_scenarios(options.paths);
  const std::string program = fs::read_symlink("/proc/self/exe").string();
  std::vector<SuiteResult> suites;
  const std::vector<PlannedRun> runs = plan_runs(scenarios, options, program, suites);
  const std::size_t jobs = options.jobs > 0
                               ? options.jobs
                               : std::max<std::size_t>(1, std::thread::hardware_concurrency());
  run_all(runs, jobs, suites);
  return suites;
}

std::string test_table(const std::vector<SuiteResult>& suites) {
  struct Row {
    std::string scenario, test_case, check, verdict;
  };
  std::vector<Row> rows{{"scenario", "case", "check", "verdict"}};
  std::size_t passed = 0, failed = 0, errors = 0;
  for (const SuiteResult& suite : suites) {
    for (const CaseRun& run : suite.runs) {
      for (const CaseVerdict& verdict : verdicts_of(suite, run)) {
        rows.push_back({suite.name, run.case_name.empty() ? "-" : run.case_name, verdict.name,
                        verdict_text(verdict)});
        passed += verdict.kind == CaseVerdict::Kind::passed ? 1 : 0;
        failed += verdict.kind == CaseVerdict::Kind::failed ? 1 : 0;
        errors += verdict.kind == CaseVerdict::Kind::error ? 1 : 0;
      }
    }
  }
  std::size_t widths[3] = {0, 0, 0};
  for (const Row& row : rows) {
    widths[0] = std::max(widths[0], row.scenario.size());
    widths[1] = std::max(widths[1], row.test_case.size());
    widths[2] = std::max(widths[2], row.check.size());
  }
  const auto padded = [](const std::string& text, std::size_t width) {
    return text + std::string(width - text.size() + 2, ' ');
  };
  std::string table;
  for (const Row& row : rows) {
    table += "  " + padded(row.scenario, widths[0]) + padded(row.test_case, widths[1]) +
             padded(row.check, widths[2]) + row.verdict + "\n";
  }
  table += "  " + std::to_string(passed + failed + errors) + " tests: " + std::to_string(passed) +
           " passed, " + std::to_string(failed) + " failed, " + std::to_string(errors) +
           " errors\n";
  return table;
}

int test_exit_code(const std::vector<SuiteResult>& suites) {
  bool check_failed = false;
  for (const SuiteResult& suite : suites) {
    for (const CaseRun& run : suite.runs) {
      if (run.failed_to_run()) return 1;
      check_failed =
          check_failed || std::any_of(run.checks.begin(), run.checks.end(),
                                      [](const CheckOutcome& check) { return !check.passed; });
    }
  }
  return check_failed ? kExitTestFailed : 0;
}

int test_command(const TestOptions& options) {
  // A JUnit file that cannot be written is a usage error, found before the runs.
  if (!options.junit_path.empty() && !std::ofstream(options.junit_path))
    throw ConfigurationError("--junit '" + options.junit_path + "': cannot be written");
  const std::vector<SuiteResult> suites = run_test_suites(options);
  std::cout << test_table(suites);
  if (!options.junit_path.empty()) {
    write_junit(suites, options.junit_path);
    std::cout << "  JUnit XML written to " << options.junit_path << "\n";
  }
  return test_exit_code(suites);
}

}  // namespace couplet::tools
