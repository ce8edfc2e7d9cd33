// Logging overhead (issue 6): the two-mass switch scenario, stepped with and
// without the run log's recorder, per macro step, and the log size per macro
// step. Compare the two times of one run (docs/results.md), not absolute values.
//   build/bench/run_log_bench
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"

namespace couplet {
namespace {

std::string log_path() {
  return (std::filesystem::temp_directory_path() /
          ("couplet-run-log-bench-" + std::to_string(::getpid()) + ".log"))
      .string();
}

// range(0): 1 = record the log; range(1): 1 = explicit Euler slaves (cheap
// slaves make the recorder's share visible), 0 = the scenario's CVODE.
void BM_TwoMassSwitch(benchmark::State& state) {
  const bool record = state.range(0) == 1;
  std::vector<std::pair<std::string, std::string>> overrides = {{"time.end", "20"},
                                                                {"algorithm.step", "0.01"}};
  if (state.range(1) == 1) {
    overrides.push_back({"slaves.left.solver.type", "euler"});
    overrides.push_back({"slaves.right.solver.type", "euler"});
  }
  const tools::Scenario scenario = tools::load_scenario(
      std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  std::uint64_t macro_steps = 0;
  std::uint64_t bytes = 0;
  std::uint64_t waits = 0;
  for (auto _ : state) {
    state.PauseTiming();
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    Executor executor(system, *algorithm, to_ticks(scenario.start),
                                to_ticks(scenario.end), tools::evaluation_grid(scenario));
    std::optional<Recorder> recorder;
    if (record) {
      recorder.emplace(log_path());
      recorder->begin(tools::log_header(scenario, system, *algorithm), system);
      executor.set_observer(&*recorder);
    }
    executor.initialize();
    if (recorder) recorder->algorithm_started(*algorithm);
    state.ResumeTiming();
    while (executor.advance()) {
      if (recorder) recorder->plan_finished(executor, *algorithm);
    }
    state.PauseTiming();
    macro_steps += executor.counters().macro_steps;
    if (recorder) {
      recorder->finish({true, "", executor.decision_hash(), executor.counters()});
      bytes += recorder->bytes_written();
      waits += recorder->records_waited();
    }
    state.ResumeTiming();
  }
  std::filesystem::remove(log_path());
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(macro_steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  // How often the stepping thread found every record slot in flight: when the
  // slaves are cheaper than encoding, the writer thread sets the pace.
  state.counters["records_waited_per_macro_step"] =
      static_cast<double>(waits) / static_cast<double>(std::max<std::uint64_t>(macro_steps, 1));
  state.counters["log_bytes_per_macro_step"] =
      static_cast<double>(bytes) / static_cast<double>(std::max<std::uint64_t>(macro_steps, 1));
}

BENCHMARK(BM_TwoMassSwitch)
    ->ArgNames({"log", "euler"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
