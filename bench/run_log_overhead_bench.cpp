// Run-log overhead (issue 32): the cost of the run log's recorder per macro
// step, log on against log off in one run, for a cheap slave pair (the two-mass
// switch as two co-simulation FMUs of tests/fmus: a few hundred nanoseconds a
// macro step, so the recorder's share shows) and for the two-mass switch as the
// scenario has it (built-in models under CVODE), 200 s at H = 0.01 s (20 000
// macro steps, five records each). The time is that of the macro steps, up to
// the last plan: where the writer thread cannot keep up, the stepping thread
// waits for free slots then, and it counts. finish() — the writer drains the
// queue and the log is synced to disk, once per run — is not. Log 2 is
// the compressed log (zstd blocks on the writer thread, --compress-log), with its
// bytes per macro step. Compare the times of one case in one run
// (docs/results.md), not absolute values.
//   build/bench/run_log_overhead_bench
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
#include "test_fmus.hpp"

namespace couplet {
namespace {

enum class Case { cheap_fmus, two_mass_switch };

tools::Scenario scenario_of(Case which) {
  if (which == Case::two_mass_switch) {
    return tools::load_scenario(std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml",
                                {{"time.end", "200"}, {"algorithm.step", "0.01"}});
  }
  const std::string directory = COUPLET_TEST_FMU_DIR;
  return tools::load_scenario(
      std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch_fmu.yaml",
      {{"time.end", "200"},
       {"algorithm.step", "0.01"},
       {"slaves.left.fmu", directory + "/switch_left.fmu"},
       {"slaves.right.fmu", directory + "/switch_right.fmu"},
       {"slaves.left.fmu_kind", "cs"},
       {"slaves.right.fmu_kind", "cs"}});
}

std::string log_path() {
  return (std::filesystem::temp_directory_path() /
          ("couplet-run-log-overhead-bench-" + std::to_string(::getpid()) + ".log"))
      .string();
}

// range(0): the case (0 cheap FMUs, 1 two-mass switch); range(1): 1 = record
// the log, 2 = record it compressed.
void BM_RunLogOverhead(benchmark::State& state) {
  const tools::Scenario scenario = scenario_of(static_cast<Case>(state.range(0)));
  const bool record = state.range(1) >= 1;
  const LogCompression compression =
      state.range(1) == 2 ? LogCompression::zstd : LogCompression::none;
  std::uint64_t log_bytes = 0;
  std::uint64_t macro_steps = 0;
  std::uint64_t records_waited = 0;
  std::uint64_t writer_wakeups = 0;
  for (auto _ : state) {
    state.PauseTiming();
    System system = tools::build_system(scenario, models::ModelCatalog::builtin());
    const auto algorithm = tools::make_algorithm(scenario.algorithm);
    Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                      tools::evaluation_grid(scenario));
    std::optional<Recorder> recorder;
    if (record) {
      recorder.emplace(log_path(), Recorder::kDefaultQueueRecords, compression);
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
    if (recorder) {
      recorder->finish({.completed = true,
                        .decision_hash = executor.decision_hash(),
                        .counters = executor.counters()});
    }
    macro_steps += executor.counters().macro_steps;
    if (recorder) {
      records_waited += recorder->records_waited();
      writer_wakeups += recorder->writer_wakeups();
      log_bytes += recorder->bytes_written();
    }
    recorder.reset();
    state.ResumeTiming();
  }
  std::filesystem::remove(log_path());
  const double steps = static_cast<double>(std::max<std::uint64_t>(macro_steps, 1));
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(macro_steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  // The stepping thread found every record slot in flight (it waited for the writer).
  state.counters["records_waited_per_macro_step"] = static_cast<double>(records_waited) / steps;
  // The stepping thread woke the sleeping writer (a system call).
  state.counters["writer_wakeups_per_macro_step"] = static_cast<double>(writer_wakeups) / steps;
  state.counters["log_bytes_per_macro_step"] = static_cast<double>(log_bytes) / steps;
}

BENCHMARK(BM_RunLogOverhead)
    ->ArgNames({"switch", "log"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({0, 2})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
