// Parallel efficiency of the thread-pool executor (docs/executors.md) on the
// oscillator chain of J. Kraft and B. Schweizer, "Reduction of Computation Time
// by Parallelization and Incorporating Co-Simulation Techniques": n_K bodies in
// n equal chain.segment slaves (CVODE) coupled by chain.coupling slaves, Jacobi
// at a fixed macro step. Times the stepping loop only (after initialize()),
// sequential and with 1..N pool threads, interleaved and repeated, and prints a
// markdown table for docs/results.md with the efficiency T(1) / (N · T(N)), T
// the fastest repeat. Every run must reach the sequential run's decision hash.
//
// Then what the waves allow: the sequential run with every call timed gives
// the stepping thread's serial share and each wave's longest call, hence the
// fastest any dispatcher could be on N threads (serial + Σ_waves max(longest,
// calls / N)), against which the pool's time is compared.
//
// Then the machine's own ceiling, without the executor: N copies of one
// segment's work (a 2-segment chain of 2·BODIES/SUBSYSTEMS bodies, sequential
// executor) run at once on N threads, against one copy alone. Where N copies
// take longer than one (shared caches, memory bandwidth, a lower all-core
// clock), no dispatcher reaches T(1) / (N·T(N)) = 100 %: ceiling = T_alone /
// T_N, the slowest copy's time.
//   build/bench/thread_pool_harness [BODIES [SUBSYSTEMS [END [RTOL [REPEATS [MAX_THREADS]]]]]]
// defaults: 1000 bodies, 8 segments, END = 0.002 s (200 macro steps of 10 µs),
// RTOL = ATOL = 1e-8, 5 repeats, up to 2 threads (1, 2, 4, ... and MAX_THREADS).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/generators/chain_generator.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/executor.hpp"

namespace {

using namespace couplet;

struct Timing {
  double seconds = 0.0;
  std::uint64_t decision_hash = 0;
  std::uint64_t slave_steps = 0;
};

/// One run of `scenario` through `dispatcher`; `initialized` is called before
/// the stepping loop, which alone is timed.
Timing run_with(const tools::Scenario& scenario, ActionDispatcher* dispatcher,
                const std::function<void()>& initialized = {}) {
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  executor.set_dispatcher(dispatcher);
  executor.initialize();
  if (initialized) initialized();
  const auto began = std::chrono::steady_clock::now();
  while (executor.advance()) {
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return {seconds, executor.decision_hash(), executor.counters().slave_steps};
}

/// One run of `scenario` with `threads` pool threads (0: the sequential executor).
Timing run_once(const tools::Scenario& scenario, std::size_t threads) {
  tools::ExecutorSettings settings;
  if (threads > 0) settings = {tools::ExecutorSettings::Type::threads, threads};
  const std::unique_ptr<ActionDispatcher> dispatcher = tools::make_dispatcher(settings);
  return run_with(scenario, dispatcher.get());
}

struct TimedWave {
  double total = 0.0;    ///< its calls together
  double longest = 0.0;  ///< its longest call
};

/// Makes a wave's calls one after the other on the stepping thread, as the
/// sequential executor does, and times each: what the waves themselves allow.
class WaveTimer final : public ActionDispatcher {
 public:
  std::string_view name() const override { return "timed"; }
  void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) override {
    double total = 0.0;
    double longest = 0.0;
    for (const PlannedAction& action : wave) {
      const auto began = std::chrono::steady_clock::now();
      calls.call(action);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      total += seconds;
      longest = std::max(longest, seconds);
    }
    waves.push_back({total, longest});
  }
  std::vector<TimedWave> waves;
};

/// The fastest any dispatcher of these waves could be on N threads, each call
/// on one thread and the stepping thread's own work between the waves serial:
/// serial + Σ over waves of max(longest call, calls / N).
struct WaveBound {
  double stepping = 0.0;  ///< the sequential run's stepping loop
  double serial = 0.0;    ///< of it, outside the waves' calls
  std::vector<TimedWave> waves;

  double seconds(std::size_t threads) const {
    double bound = serial;
    for (const TimedWave& wave : waves)
      bound += std::max(wave.longest, wave.total / static_cast<double>(threads));
    return bound;
  }
};

WaveBound bound_of_waves(const tools::Scenario& scenario) {
  WaveTimer timer;
  const Timing timing = run_with(scenario, &timer, [&] {
    timer.waves.clear();  // the initial outputs are not in the stepping loop
    timer.waves.reserve(1 << 16);
  });
  WaveBound bound;
  bound.stepping = timing.seconds;
  bound.serial = bound.stepping;
  for (const TimedWave& wave : timer.waves) bound.serial -= wave.total;
  bound.waves = std::move(timer.waves);
  return bound;
}

/// The slowest of `copies` sequential runs of `scenario` started together on
/// threads of their own (no executor between them: the machine's scaling).
double slowest_of_concurrent_copies(const tools::Scenario& scenario, std::size_t copies) {
  std::vector<double> seconds(copies, 0.0);
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < copies; ++c)
    threads.emplace_back([&, c] { seconds[c] = run_once(scenario, 0).seconds; });
  for (std::thread& thread : threads) thread.join();
  return *std::max_element(seconds.begin(), seconds.end());
}

std::string load_average() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  file >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace

int main(int argc, char** argv) {
  tools::ChainScenarioOptions options;
  options.bodies = argc > 1 ? std::atoi(argv[1]) : 1000;
  options.subsystems = argc > 2 ? std::atoi(argv[2]) : 8;
  options.end = argc > 3 ? std::atof(argv[3]) : 0.002;
  options.tolerance = argc > 4 ? std::atof(argv[4]) : 1e-8;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 5;
  const std::size_t max_threads = argc > 6 ? static_cast<std::size_t>(std::atoi(argv[6])) : 2;
  options.step = 1e-5;
  options.reference = false;
  const tools::Scenario scenario =
      tools::parse_scenario(tools::chain_scenario_yaml(options), "generated chain");

  std::printf(
      "chain: %d bodies in %d segments (+ %d couplings), Jacobi H = %g s over %g s, CVODE rtol = "
      "atol = %g\n",
      options.bodies, options.subsystems, options.subsystems - 1, options.step, options.end,
      options.tolerance);
  std::printf("%u hardware threads; load average before: %s; fastest of %d interleaved repeats\n\n",
              std::thread::hardware_concurrency(), load_average().c_str(), repeats);

  // configurations[0]: sequential; then 1..max_threads pool threads.
  std::vector<std::size_t> thread_counts;
  for (std::size_t threads = 1; threads < max_threads; threads *= 2)
    thread_counts.push_back(threads);
  thread_counts.push_back(max_threads);
  std::vector<std::size_t> configurations{0};
  configurations.insert(configurations.end(), thread_counts.begin(), thread_counts.end());
  std::vector<double> fastest(configurations.size(), 1e300);
  std::uint64_t expected_hash = 0;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (std::size_t c = 0; c < configurations.size(); ++c) {
      const Timing timing = run_once(scenario, configurations[c]);
      if (repeat == 0 && c == 0) expected_hash = timing.decision_hash;
      if (timing.decision_hash != expected_hash) {
        std::fprintf(stderr,
                     "decision hash %016llx with %zu threads differs from the sequential %016llx\n",
                     static_cast<unsigned long long>(timing.decision_hash), configurations[c],
                     static_cast<unsigned long long>(expected_hash));
        return 1;
      }
      fastest[c] = std::min(fastest[c], timing.seconds);
    }
  }
  std::printf("| executor | stepping [s] | speed-up vs 1 thread | efficiency T(1) / (N·T(N)) |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| sequential | %.3f | — | — |\n", fastest[0]);
  for (std::size_t c = 1; c < configurations.size(); ++c) {
    const double n = static_cast<double>(configurations[c]);
    std::printf("| threads: %zu | %.3f | %.2f | %.1f %% |\n", configurations[c], fastest[c],
                fastest[1] / fastest[c], 100.0 * fastest[1] / (n * fastest[c]));
  }
  std::printf("\nload average after: %s; decision hash %016llx in every run\n",
              load_average().c_str(), static_cast<unsigned long long>(expected_hash));

  // The waves' own bound, from one timed sequential run (fastest of the repeats).
  WaveBound waves = bound_of_waves(scenario);
  for (int repeat = 1; repeat < repeats; ++repeat) {
    WaveBound again = bound_of_waves(scenario);
    if (again.stepping < waves.stepping) waves = std::move(again);
  }
  std::printf(
      "\nWhat the waves allow: a sequential run with each call timed, %zu waves, %.3f s, of it "
      "%.3f s (%.1f %%) outside the calls (the stepping thread's own work). On N threads no "
      "dispatcher beats serial + Σ_waves max(longest call, calls / N):\n\n",
      waves.waves.size(), waves.stepping, waves.serial, 100.0 * waves.serial / waves.stepping);
  std::printf("| threads | bound [s] | bound efficiency T(1) / (N·bound) | pool / bound |\n");
  std::printf("|---|---|---|---|\n");
  for (std::size_t c = 1; c < configurations.size(); ++c) {
    const double bound = waves.seconds(configurations[c]);
    const double n = static_cast<double>(configurations[c]);
    std::printf("| %zu | %.3f | %.1f %% | %.2f |\n", configurations[c], bound,
                100.0 * waves.stepping / (n * bound), fastest[c] / bound);
  }

  tools::ChainScenarioOptions copy = options;
  copy.subsystems = 2;
  copy.bodies = 2 * (options.bodies / options.subsystems);
  const tools::Scenario one_copy =
      tools::parse_scenario(tools::chain_scenario_yaml(copy), "generated chain");
  std::vector<double> copies_fastest(thread_counts.size(), 1e300);
  for (int repeat = 0; repeat < repeats; ++repeat) {
    for (std::size_t c = 0; c < thread_counts.size(); ++c)
      copies_fastest[c] =
          std::min(copies_fastest[c], slowest_of_concurrent_copies(one_copy, thread_counts[c]));
  }
  std::printf(
      "\nThe machine's ceiling: N copies of a %d-body, 2-segment chain at once, no executor "
      "between them\n\n",
      copy.bodies);
  std::printf("| copies | slowest copy [s] | ceiling T_alone / T_N |\n|---|---|---|\n");
  for (std::size_t c = 0; c < thread_counts.size(); ++c) {
    std::printf("| %zu | %.3f | %.1f %% |\n", thread_counts[c], copies_fastest[c],
                100.0 * copies_fastest[0] / copies_fastest[c]);
  }
  return 0;
}
