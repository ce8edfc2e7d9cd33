// Cost of checks per macro step (issue 28): scenarios/two_mass_switch.yaml
// (Jacobi, 0.01 s, two CVODE slaves, evaluation grid 0.01 s) stepped with 20
// checks of every signal kind attached (docs/scenarios.md#checks) against the
// same run without them, both measured in one program. The checks see every
// step end, every grid sample and every output evaluation. Heap allocations
// in the stepping loop are counted as in master_overhead_bench (target: 0).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/checks/check_setup.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"

namespace couplet {
namespace {

/// 20 checks over left.x, left.v and right.f: bounds, windowed
/// bounds, settles, at, reaches and matches (against a CSV trace).
std::string twenty_checks() {
  const std::filesystem::path trace =
      std::filesystem::temp_directory_path() / "couplet-check-bench-trace.csv";
  std::ofstream(trace) << "time,x\n0,0\n200,0\n";
  const std::string kinds[] = {
      "signal: left.x, max: 10",
      "signal: left.v, min: -10, from: 1, to: 15",
      "signal: left.v, settles: {value: 0, tolerance: 10, by: 5}",
      "signal: left.x, at: {time: 3.3, value: 0, tolerance: 5}",
      "signal: right.f, reaches: {above: 100, before: 10}",
      "signal: left.x, matches: {file: " + trace.string() + ", column: x, tolerance: 5}"};
  std::string checks = "checks=[";
  for (int k = 0; k < 20; ++k) {
    checks += (k == 0 ? "{name: c" : ", {name: c") + std::to_string(k) + ", " + kinds[k % 6] + "}";
  }
  return checks + "]";
}

void BM_TwoMassSwitchMacroStep(benchmark::State& state) {
  const bool with_checks = state.range(0) != 0;
  std::vector<std::pair<std::string, std::string>> overrides = {{"reference", "none"},
                                                                {"time.end", "20"}};
  if (with_checks) overrides.push_back(tools::parse_override(twenty_checks()));
  const tools::Scenario scenario = tools::load_scenario(
      std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  long allocations = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                      tools::evaluation_grid(scenario));
    tools::CheckEvaluator checks = tools::make_check_evaluator(scenario, system);
    if (with_checks) executor.set_observer(&checks);
    executor.initialize();
    while (executor.counters().macro_steps < 2) executor.advance();  // buffers sized
    const std::uint64_t first = executor.counters().macro_steps;
    const long before = testing::allocations();
    state.ResumeTiming();
    while (executor.advance() && checks.stopping_check() == nullptr) {
    }
    state.PauseTiming();
    allocations += testing::allocations() - before;
    steps += static_cast<std::int64_t>(executor.counters().macro_steps - first);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocations_in_loop"] = static_cast<double>(allocations);
}
BENCHMARK(BM_TwoMassSwitchMacroStep)
    ->ArgName("checks")
    ->Arg(0)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond);

// The checks' own share, measured apart from the stepping (whose timing noise
// on a shared machine exceeds it): the 20 checks fed what they see per macro
// step of the same run — each slave's step end and its one grid sample.
void BM_TwentyChecksPerMacroStep(benchmark::State& state) {
  std::vector<std::pair<std::string, std::string>> overrides = {{"reference", "none"},
                                                                {"time.end", "20"}};
  overrides.push_back(tools::parse_override(twenty_checks()));
  const tools::Scenario scenario = tools::load_scenario(
      std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  const System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  constexpr Time kStep = 10'000'000;  // 0.01 s, as the scenario's
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    tools::CheckEvaluator checks = tools::make_check_evaluator(scenario, system);
    std::vector<std::vector<double>> outputs;
    for (std::size_t s = 0; s < system.slave_count(); ++s) {
      checks.slave_set_up(s, 0);
      outputs.emplace_back(system.description(s).outputs.size() * 2, 0.0);
    }
    state.ResumeTiming();
    for (Time t = kStep; t <= to_ticks(20.0); t += kStep) {
      const double x = 0.5 * to_seconds(t) / 20.0;  // inside every bound: nothing stops
      for (std::size_t s = 0; s < outputs.size(); ++s) {
        std::vector<double>& values = outputs[s];
        for (double& value : values) value = x;
        const Time sample[] = {t};
        const std::size_t width = values.size() / 2;
        checks.slave_stepped(s, StepRequest{t - kStep, t, {}, sample},
                             OutputBuffers{std::span<double>(values.data(), width),
                                           std::span<double>(values.data() + width, width)},
                             {});
      }
      benchmark::DoNotOptimize(checks.stopping_check());
      ++steps;
    }
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TwentyChecksPerMacroStep)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
