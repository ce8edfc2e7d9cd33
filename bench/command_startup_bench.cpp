// Start-up of the couplet command: fork/exec to exit of `couplet --version`
// (loading and relocating the program and its shared libraries, nothing else)
// and of `couplet validate` on the built-in default scenario (start-up plus
// parsing and building the system). One iteration is one program run; the
// median over the runs is reported as median_ms.
//
//   build/bench/command_startup_bench [--runs=N] [--baseline=COUPLET] [Google Benchmark flags]
// N: the program runs per case (default 200). --baseline: the same cases for
// another couplet binary too (…/baseline), in the same run: an
// older build, or this one linked with libraries it loads only on demand.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/iteration_flag.hpp"

extern char** environ;

namespace couplet {
namespace {

using Clock = std::chrono::steady_clock;

/// Runs `arguments` (the program first) to its end, output discarded.
void run_to_exit(const std::vector<std::string>& arguments) {
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + arguments.front());
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(arguments.front() + " failed");
}

void time_runs(benchmark::State& state, const std::vector<std::string>& arguments) {
  std::vector<double> milliseconds;
  for (auto _ : state) {
    const auto began = Clock::now();
    try {
      run_to_exit(arguments);
    } catch (const std::exception& error) {
      state.SkipWithError(error.what());
      return;
    }
    milliseconds.push_back(std::chrono::duration<double, std::milli>(Clock::now() - began).count());
  }
  std::sort(milliseconds.begin(), milliseconds.end());
  state.counters["median_ms"] = milliseconds[milliseconds.size() / 2];
  state.counters["fastest_ms"] = milliseconds.front();
}

void register_benchmarks(benchmark::IterationCount runs, const std::string& baseline) {
  const std::string scenario = std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml";
  std::vector<std::pair<std::string, std::string>> binaries = {{"", COUPLET_BINARY}};
  if (!baseline.empty()) binaries.emplace_back("/baseline", baseline);
  for (const auto& [suffix, binary] : binaries) {
    benchmark::RegisterBenchmark(("BM_CoupletVersion" + suffix).c_str(),
                                 [binary](benchmark::State& state) {
                                   time_runs(state, {binary, "--version"});
                                 })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(runs);
    benchmark::RegisterBenchmark(("BM_CoupletValidateDefaultScenario" + suffix).c_str(),
                                 [binary, scenario](benchmark::State& state) {
                                   time_runs(state, {binary, "validate", scenario});
                                 })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(runs);
  }
}

}  // namespace
}  // namespace couplet

int main(int argc, char** argv) {
  const auto runs = couplet::bench::take_iteration_flag(argc, argv, "runs", 200);
  couplet::register_benchmarks(runs, couplet::bench::take_flag(argc, argv, "baseline").value_or(""));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
