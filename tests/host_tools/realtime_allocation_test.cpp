// Real-time path (DESIGN §3 "Executor"): after start-up and the first step, the
// stepping loop performs no heap allocation. Proven with a counting hook on the
// global allocation functions of this test program.
#include <gtest/gtest.h>

#include <optional>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/commands.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/recorder.hpp"
#include "runtime/sequential_executor.hpp"
#include "support/allocation_counter.hpp"
#include "test_support.hpp"

namespace couplet::testing {
namespace {

// With `record`, the run log's recorder sees every call, as in `couplet run`:
// its records go to the writer thread without allocating either.
long allocations_after_first_step(const std::vector<std::string>& assignments, bool record = false) {
  const tools::Scenario scenario = load("two_mass_switch.yaml", assignments);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario);
  SequentialExecutor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                              tools::evaluation_grid(scenario));
  std::optional<Recorder> recorder;
  if (record) {
    recorder.emplace((fresh_directory("allocation-log").string() + ".log"));
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
  // Warm-up: the whole first macro step, including the re-evaluation of feedthrough
  // outputs at its end (the plans until the second macro step has been stepped).
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(advance());
  const long before = allocations();
  while (advance()) {
  }
  const long after = allocations();
  if (recorder) {
    recorder->finish({true, "", executor.decision_hash(), executor.counters()});
    EXPECT_GT(recorder->bytes_written(), 100U * 200U) << "every step was logged";
  }
  EXPECT_GT(executor.counters().macro_steps, 100U);
  return after - before;
}

TEST(RealtimeAllocation, CountingHookSeesAllocations) {
  const long before = allocations();
  auto* probe = new std::vector<double>(16);
  delete probe;
  EXPECT_GE(allocations() - before, 2);
}

TEST(RealtimeAllocation, JacobiWithCvodeSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}), 0);
}

TEST(RealtimeAllocation, JacobiWithEulerSlavesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "slaves.left.solver.type=euler",
                                          "slaves.right.solver.type=euler", "slaves.left.solver.substeps=10",
                                          "slaves.right.solver.substeps=10"}),
            0);
}

TEST(RealtimeAllocation, RecordingTheRunLogAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}, true), 0);
}

TEST(RealtimeAllocation, GaussSeidelAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step({"time.end=20", "algorithm.type=gauss_seidel", "algorithm.step=0.05"}), 0);
}

}  // namespace
}  // namespace couplet::testing
