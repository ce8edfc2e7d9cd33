// Cost of FMUs as slaves (issue: FMI 2.0): the two-mass switch with both halves
// built-in, as model-exchange FMUs (couplet's CVODE integrates them, like the
// built-in models: the difference is the FMI calls) and as co-simulation FMUs
// (the FMUs' own fixed-step RK4 inside fmi2DoStep), and as co-simulation FMUs
// each isolated in a couplet-target child process (`isolate: true`: a UDP round
// trip on the loopback interface per step and evaluation), per macro step.
// And one model, y' = k u fed a ramp, as an FMI 2.0 FMU (integrator2) and as
// its FMI 3.0 twin (integrator3) with the same arithmetic: what couplet's FMI
// 3.0 slave costs against its FMI 2.0 one, per macro step.
// Compare the times of one run (docs/results.md), not absolute values.
//   build/bench/fmu_step_bench
#include <benchmark/benchmark.h>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/executor.hpp"
#include "test_fmus.hpp"

namespace couplet {
namespace {

enum class Halves { builtin, model_exchange, co_simulation, co_simulation_isolated };

tools::Scenario scenario_of(Halves halves) {
  const std::string directory = COUPLET_TEST_FMU_DIR;
  std::vector<std::pair<std::string, std::string>> overrides = {
      {"time.end", "20"}, {"algorithm.step", "0.01"}, {"algorithm.input_order", "1"}};
  if (halves == Halves::builtin) {
    return tools::load_scenario(std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml",
                                overrides);
  }
  const std::string kind = halves == Halves::model_exchange ? "me" : "cs";
  if (halves == Halves::co_simulation_isolated)
    overrides.insert(overrides.end(),
                     {{"slaves.left.isolate", "true"}, {"slaves.right.isolate", "true"}});
  overrides.insert(overrides.end(),
                   {{"slaves.left.fmu", directory + "/switch_left.fmu"},
                    {"slaves.right.fmu", directory + "/switch_right.fmu"},
                    {"slaves.left.fmu_kind", kind},
                    {"slaves.right.fmu_kind", kind},
                    {"slaves.left.solver", "{type: cvode, rtol: 1.0e-9, atol: 1.0e-11}"}});
  return tools::load_scenario(
      std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch_fmu.yaml", overrides);
}

/// Runs `scenario` once per iteration, timing only the stepping loop.
void time_macro_steps(benchmark::State& state, const tools::Scenario& scenario) {
  std::uint64_t macro_steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    Executor executor(system, *algorithm, to_ticks(scenario.start),
                                to_ticks(scenario.end), tools::evaluation_grid(scenario));
    executor.initialize();
    state.ResumeTiming();
    while (executor.advance()) {
    }
    macro_steps += executor.counters().macro_steps;
  }
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(macro_steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TwoMassSwitch(benchmark::State& state) {
  time_macro_steps(state, scenario_of(static_cast<Halves>(state.range(0))));
}

BENCHMARK(BM_TwoMassSwitch)
    ->ArgName("halves_builtin0_me1_cs2_isolated3")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(3)
    ->UseRealTime()  // the isolated halves compute in their own processes
    ->Unit(benchmark::kMillisecond);

/// The ramp into integrator2 (FMI 2.0) or integrator3 (FMI 3.0), Jacobi, 20 s at H = 1 ms.
tools::Scenario integrator_scenario(int fmi_version) {
  const std::string fmu =
      std::string(COUPLET_TEST_FMU_DIR) + "/integrator" + std::to_string(fmi_version) + ".fmu";
  return tools::parse_scenario(
      "name: integrator\ntime: {start: 0, end: 20}\nalgorithm: {type: jacobi, step: 0.001}\n"
      "reference: none\nslaves:\n  ramp: {model: stimulus.ramp, parameters: {stop: 20, "
      "final: 20}}\n  int: {fmu: " +
          fmu + ", parameters: {k: 2}}\nconnections:\n  - {from: ramp.y, to: int.u}\n",
      "integrator" + std::to_string(fmi_version), {});
}

void BM_IntegratorFmu(benchmark::State& state) {
  time_macro_steps(state, integrator_scenario(static_cast<int>(state.range(0))));
}

BENCHMARK(BM_IntegratorFmu)->ArgName("fmi_version")->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
