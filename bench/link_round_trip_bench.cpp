// Round trip per macro step over UDP loopback (issue 5, DESIGN §8): the
// two-mass switch (Jacobi, H = 10 ms, CVODE) with both slaves on spawned
// couplet-target processes, against the same run with local slaves. One
// benchmark iteration is one macro step: the feedthrough refresh of the right
// slave (one round trip), then both steps announced together (split phase) and
// collected. Counters: median and p99 of the macro-step time, macro steps per
// second, and the master's decision time (Algorithm::plan_next + accept) as a
// fraction of the macro-step time. No evaluation grid: link and solver cost only.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/sequential_executor.hpp"

namespace couplet {
namespace {

using Clock = std::chrono::steady_clock;

/// Forwards to an algorithm and accumulates the time spent deciding.
class TimedAlgorithm final : public Algorithm {
 public:
  explicit TimedAlgorithm(std::unique_ptr<Algorithm> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  AlgorithmRequirements requirements() const override { return inner_->requirements(); }
  void start(const RunSetup& setup, std::span<StepSlot> slots) override { inner_->start(setup, slots); }
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override {
    const auto began = Clock::now();
    const bool more = inner_->plan_next(slots, plan);
    deciding_ += Clock::now() - began;
    return more;
  }
  void accept(std::span<const StepSlot> slots, const Plan& plan) override {
    const auto began = Clock::now();
    inner_->accept(slots, plan);
    deciding_ += Clock::now() - began;
  }
  Clock::duration deciding() const { return deciding_; }
  void reset() { deciding_ = {}; }

 private:
  std::unique_ptr<Algorithm> inner_;
  Clock::duration deciding_{};
};

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  return values[index];
}

void run_macro_steps(benchmark::State& state, const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides = {{"time.end", "100000"}, {"algorithm.step", "0.01"}};
  for (const std::string& assignment : assignments) overrides.push_back(tools::parse_override(assignment));
  const tools::Scenario scenario =
      tools::load_scenario(std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  TimedAlgorithm algorithm(tools::make_algorithm(scenario));
  SequentialExecutor executor(system, algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
  executor.initialize();
  for (int warm_up = 0; warm_up < 200; ++warm_up) executor.advance();
  algorithm.reset();

  std::vector<double> microseconds;
  microseconds.reserve(1 << 20);
  const auto began = Clock::now();
  for (auto _ : state) {
    const Time frontier = executor.frontier();
    const auto step_began = Clock::now();
    while (executor.frontier() == frontier) executor.advance();
    microseconds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - step_began).count());
  }
  const double total = std::chrono::duration<double>(Clock::now() - began).count();
  state.counters["median_us"] = percentile(microseconds, 0.5);
  state.counters["p99_us"] = percentile(microseconds, 0.99);
  state.counters["macro_steps_per_s"] = static_cast<double>(microseconds.size()) / total;
  state.counters["decision_fraction"] = std::chrono::duration<double>(algorithm.deciding()).count() / total;
}

const std::string kRemoteLeft = "slaves.left.link={spawn: true, udp: \"127.0.0.1:0\"}";
const std::string kRemoteRight = "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}";

void BM_LocalSlaves(benchmark::State& state) { run_macro_steps(state, {}); }
void BM_TwoRemoteSlavesUdp(benchmark::State& state) { run_macro_steps(state, {kRemoteLeft, kRemoteRight}); }
void BM_TwoRemoteSlavesUdpTaylor(benchmark::State& state) {
  run_macro_steps(state, {kRemoteLeft, kRemoteRight, "algorithm.input_order=1"});
}
void BM_TwoRemoteSlavesUdpDefectControl(benchmark::State& state) {
  run_macro_steps(state, {kRemoteLeft, kRemoteRight,
                          "algorithm={type: defect_control, step: 0.01, input_order: 1}"});
}

BENCHMARK(BM_LocalSlaves)->Iterations(20000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoRemoteSlavesUdp)->Iterations(20000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoRemoteSlavesUdpTaylor)->Iterations(20000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoRemoteSlavesUdpDefectControl)->Iterations(20000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
