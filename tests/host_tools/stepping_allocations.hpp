#pragma once
// Heap allocations in a run's stepping loop after its warm-up (docs/architecture.md,
// "Real-time boundary"), counted by the hook of support/allocation_counter.hpp —
// which replaces the global allocation functions: include this header in one
// source file per test program.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"
#include "support/allocation_counter.hpp"
#include "test_support.hpp"

namespace couplet::testing {

struct SteppingAllocations {
  long allocations = 0;  ///< after the warm-up (the first macro step and its refresh)
  RunCounters counters;
  std::uint64_t records_waited = 0;  ///< the recorder's, when recorded
};

/// Runs `scenario`; with `record`, the run log's recorder sees every call, as
/// in `couplet run`, through at most `queue_records` record slots.
inline SteppingAllocations allocations_after_warm_up(
    const tools::Scenario& scenario, bool record = false,
    std::size_t queue_records = Recorder::kDefaultQueueRecords) {
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  // The scenario's executor (`executor:`), its threads started before the count.
  const std::unique_ptr<ActionDispatcher> dispatcher = tools::make_dispatcher(scenario.executor);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  executor.set_dispatcher(dispatcher.get());
  std::optional<Recorder> recorder;
  if (record) {
    recorder.emplace((fresh_directory("allocation-log").string() + ".log"), queue_records);
    recorder->begin(tools::log_header(scenario, system, *algorithm), system);
    executor.set_observer(&*recorder);
  }
  executor.initialize();
  if (recorder) recorder->algorithm_started(*algorithm);
  const auto advance = [&] {
    const bool more = executor.advance();
    if (more && recorder) recorder->plan_finished(executor, *algorithm);
    return more;
  };
  // Warm-up: the whole first macro step, including the re-evaluation of
  // feedthrough outputs at its end (the plans until the second macro step has
  // been stepped).
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(advance());
  const long before = allocations();
  while (advance()) {
  }
  const long after = allocations();
  std::uint64_t records_waited = 0;
  if (recorder) {
    recorder->finish({true, "", executor.decision_hash(), executor.counters(), {}});
    EXPECT_GT(recorder->bytes_written(), 100U * 200U) << "every step was logged";
    records_waited = recorder->records_waited();
  }
  EXPECT_GT(executor.counters().macro_steps, 100U);
  return {after - before, executor.counters(), records_waited};
}

/// The same for `scenario_name` of scenarios/ with `assignments`.
inline SteppingAllocations allocations_after_warm_up(
    const std::string& scenario_name, const std::vector<std::string>& assignments,
    bool record = false, std::size_t queue_records = Recorder::kDefaultQueueRecords) {
  return allocations_after_warm_up(load(scenario_name, assignments), record, queue_records);
}

}  // namespace couplet::testing
