// Master overhead per macro step (issue 2): Jacobi with N trivial slaves, against
// the same slave calls made directly without a master. The ratio of the two,
// measured in one run, is the cost of the master's decisions and bookkeeping.
// Heap allocations inside the stepping loop are counted with a hook on the
// global allocation functions and reported as a counter (target: 0).
// BM_JacobiMacroStepDiscrete: the same ring with an Integer connection beside
// each Real one (docs/algorithms.md, "Discrete signals"): what discrete ports
// add per macro step.
// BM_ScenarioMacroStep: the same scenario stepped by the bare executor and by
// couplet::Simulation (include/couplet/simulation.hpp), which `couplet run`
// uses: the difference is the library's run loop (interrupt flag, pacer,
// observers, progress), per macro step.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "couplet/simulation.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"

namespace couplet {
namespace {

/// y = state, ẏ = input: the least work a slave can do, so the master's cost
/// shows. With discrete ports: the Integer output n = the Integer input k + 1.
class TrivialSlave final : public Slave {
 public:
  explicit TrivialSlave(bool discrete = false) {
    description_.inputs = {{"u"}};
    description_.outputs = {{"y", false}};
    description_.capabilities.max_input_degree = 1;
    description_.capabilities.output_derivative_order = 1;
    if (discrete) {
      description_.discrete_inputs = {{"k", DiscreteType::integer, "", 0}};
      description_.discrete_outputs = {{"n", DiscreteType::integer, "", 0}};
    }
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override { state_ = 1.0; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> outputs) override {
    outputs[0] = state_;
    outputs[1] = 0.0;
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    const double input = request.inputs[0].value(to_seconds(request.end));
    state_ = 0.5 * state_ + 0.5 * input;
    result.end_outputs[0] = state_;
    result.end_outputs[1] = input;
    if (!request.discrete_inputs.empty()) result.discrete_outputs[0] = request.discrete_inputs[0] + 1;
  }

 private:
  SlaveDescription description_;
  double state_ = 0.0;
};

std::string slave_name(int index) {
  std::string name = "s";  // (+= rather than +: GCC 12 warns falsely, -Wrestrict)
  name += std::to_string(index);
  return name;
}

System ring_of_trivial_slaves(int count, bool discrete = false) {
  System system;
  for (int s = 0; s < count; ++s)
    system.add_slave(slave_name(s), std::make_unique<TrivialSlave>(discrete));
  for (int s = 0; s < count; ++s) {
    const std::string from = slave_name(s);
    const std::string to = slave_name((s + 1) % count);
    system.connect(from + ".y", to + ".u");
    if (discrete) system.connect(from + ".n", to + ".k");
  }
  return system;
}

constexpr Time kStep = 1'000'000;  // 1 ms

void jacobi_macro_steps(benchmark::State& state, bool discrete) {
  const int slave_count = static_cast<int>(state.range(0));
  const int order = static_cast<int>(state.range(1));
  long allocations = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    System system = ring_of_trivial_slaves(slave_count, discrete);
    Jacobi jacobi({kStep, order});
    Executor executor(system, jacobi, 0, 10'000 * kStep, {});
    executor.initialize();
    executor.advance();  // the first step may size buffers
    const long before = testing::allocations();
    state.ResumeTiming();
    while (executor.advance()) {
    }
    state.PauseTiming();
    allocations += testing::allocations() - before;
    steps += static_cast<std::int64_t>(executor.counters().macro_steps) - 1;
    state.ResumeTiming();
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocations_in_loop"] = static_cast<double>(allocations);
}

void BM_JacobiMacroStep(benchmark::State& state) {
  jacobi_macro_steps(state, false);
}
BENCHMARK(BM_JacobiMacroStep)->Args({2, 0})->Args({2, 1})->Args({8, 0})->Args({32, 0})->Unit(benchmark::kMillisecond);

void BM_JacobiMacroStepDiscrete(benchmark::State& state) {
  jacobi_macro_steps(state, true);
}
BENCHMARK(BM_JacobiMacroStepDiscrete)->Args({2, 0})->Args({8, 0})->Args({32, 0})->Unit(benchmark::kMillisecond);

// The same slave calls with no master: inputs built by hand from the outputs.
void BM_DirectSlaveCalls(benchmark::State& state) {
  const int slave_count = static_cast<int>(state.range(0));
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<TrivialSlave> slaves(static_cast<std::size_t>(slave_count));
    std::vector<double> outputs(2 * slaves.size(), 0.0);
    std::vector<Polynomial> inputs(slaves.size());
    for (TrivialSlave& slave : slaves) slave.setup(0);
    state.ResumeTiming();
    for (Time t = 0; t < 10'000 * kStep; t += kStep) {
      for (std::size_t s = 0; s < slaves.size(); ++s) {
        inputs[s] = Polynomial::constant(to_seconds(t), outputs[2 * ((s + slaves.size() - 1) % slaves.size())]);
      }
      for (std::size_t s = 0; s < slaves.size(); ++s) {
        const StepRequest request{t, t + kStep, std::span<const Polynomial>(&inputs[s], 1), {}};
        slaves[s].step(request, {std::span<double>(&outputs[2 * s], 2), {}});
      }
      ++steps;
    }
    benchmark::DoNotOptimize(outputs.data());
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DirectSlaveCalls)->Arg(2)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);

// two_mass_switch with Euler slaves (one substep) and no reference: cheap
// slaves, so that the loop around the executor shows.
const Simulation::Overrides kCheapScenario = {
    {"time.end", "100"},
    {"reference", "none"},
    {"slaves.left.solver", "{type: euler, substeps: 1}"},
    {"slaves.right.solver", "{type: euler, substeps: 1}"}};

std::string two_mass_switch() {
  return std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml";
}

/// range(0) = 0: the executor alone, advance() in a bare loop; 1: the same
/// scenario through couplet::Simulation::run().
void BM_ScenarioMacroStep(benchmark::State& state) {
  const bool through_simulation = state.range(0) == 1;
  const tools::Scenario scenario = tools::load_scenario(two_mass_switch(), kCheapScenario);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  long allocations = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (through_simulation) {
      Simulation simulation = Simulation::from_scenario(two_mass_switch(), kCheapScenario);
      simulation.step_until(1);  // initialize and the first step, which may size buffers
      const long before = testing::allocations();
      state.ResumeTiming();
      // Up to the last step, which reaches the end: the end of the run (the
      // summary, the files) is outside the stepping loop, as the executor's
      // own teardown is in the other case.
      simulation.step_until(simulation.end_time() - 1);
      state.PauseTiming();
      allocations += testing::allocations() - before;
      steps += nlohmann::json::parse(simulation.summary())["macro_steps"].get<std::int64_t>() - 1;
      simulation.run();
    } else {
      System system = tools::build_system(scenario, catalog);
      const std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
      Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                        tools::evaluation_grid(scenario));
      executor.initialize();
      executor.advance();
      const long before = testing::allocations();
      state.ResumeTiming();
      while (executor.advance()) {
      }
      state.PauseTiming();
      allocations += testing::allocations() - before;
      steps += static_cast<std::int64_t>(executor.counters().macro_steps) - 1;
    }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocations_in_loop"] = static_cast<double>(allocations);
}
BENCHMARK(BM_ScenarioMacroStep)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
