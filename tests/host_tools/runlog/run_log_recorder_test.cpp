// The run log's recorder under load (issue 32): its record slots are sized from
// the system, a full queue makes the stepping thread wait without losing a
// record, and the writer is woken only per half the queue's worth of records.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"

namespace couplet {
namespace {

struct RecordedRun {
  std::string path;
  std::uint64_t decision_hash = 0;
  std::uint64_t macro_steps = 0;
  std::uint64_t records_waited = 0;
  std::uint64_t writer_wakeups = 0;
  std::size_t queue_records = 0;
  std::size_t record_memory_bytes = 0;
};

// The two-mass switch with cheap (explicit Euler) slaves, recorded through a
// queue of at most `queue_records` slots; `pause` after each macro step (two
// plans: the step and the refresh of feedthrough outputs) lets the writer fall asleep.
RecordedRun record_two_mass_switch(const std::string& name, std::size_t queue_records,
                                   std::chrono::microseconds pause = {},
                                   const std::string& end = "20") {
  const tools::Scenario scenario = testing::load(
      "two_mass_switch.yaml", {"time.end=" + end, "algorithm.step=0.01",
                               "slaves.left.solver.type=euler", "slaves.right.solver.type=euler"});
  const std::filesystem::path directory = testing::fresh_directory(name);
  std::filesystem::create_directories(directory);
  RecordedRun run{(directory / "run.log").string()};
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  Recorder recorder(run.path, queue_records);
  recorder.begin(tools::log_header(scenario, system, *algorithm), system);
  executor.set_observer(&recorder);
  executor.initialize();
  recorder.algorithm_started(*algorithm);
  std::uint64_t paused_after = 0;
  while (executor.advance()) {
    recorder.plan_finished(executor, *algorithm);
    if (pause.count() > 0 && executor.counters().macro_steps > paused_after) {
      paused_after = executor.counters().macro_steps;
      std::this_thread::sleep_for(pause);
    }
  }
  recorder.finish({.completed = true,
                   .decision_hash = executor.decision_hash(),
                   .counters = executor.counters()});
  run.decision_hash = executor.decision_hash();
  run.macro_steps = executor.counters().macro_steps;
  run.records_waited = recorder.records_waited();
  run.writer_wakeups = recorder.writer_wakeups();
  run.queue_records = recorder.queue_records();
  run.record_memory_bytes = recorder.record_memory_bytes();
  return run;
}

TEST(RunLogRecorder, SizesItsRecordSlotsFromTheSystem) {
  // 32 plans of a plan record and four calls for each slave, 128 at least.
  EXPECT_EQ(Recorder::queue_records_for(1, Recorder::kDefaultQueueRecords), 160u);
  EXPECT_EQ(Recorder::queue_records_for(0, Recorder::kDefaultQueueRecords), 128u);
  EXPECT_EQ(Recorder::queue_records_for(2, Recorder::kDefaultQueueRecords), 256u);
  EXPECT_EQ(Recorder::queue_records_for(100, Recorder::kDefaultQueueRecords), 256u);
  EXPECT_EQ(Recorder::queue_records_for(2, 1024), 288u);
  EXPECT_EQ(Recorder::queue_records_for(2, 8), 8u);
  EXPECT_EQ(Recorder::queue_records_for(2, 0), 2u);

  const RecordedRun run =
      record_two_mass_switch("recorder-sizing", Recorder::kDefaultQueueRecords, {}, "1");
  EXPECT_EQ(run.queue_records, 256u);
  // Of each ≈ 60 KiB slot, the untouched sample values and linearization stay
  // out: under 20 KiB a slot, 5 MiB in all (main's 256 whole slots: 16.7 MB).
  EXPECT_LT(run.record_memory_bytes, 256u * 20480u);
  EXPECT_GT(run.record_memory_bytes, 256u * sizeof(couplet_wire_SlaveCall::sample_times_ns));
}

// Two slots for ~6000 records: the stepping thread waits for the writer over
// and over, and the log still holds every call and replays.
TEST(RunLogRecorder, AFullQueueMakesTheRunWaitAndLosesNoRecord) {
  const RecordedRun roomy =
      record_two_mass_switch("recorder-roomy", Recorder::kDefaultQueueRecords);
  const RecordedRun tight = record_two_mass_switch("recorder-tight", 2);
  EXPECT_EQ(tight.queue_records, 2u);
  EXPECT_GT(tight.records_waited, 0u);
  EXPECT_EQ(tight.decision_hash, roomy.decision_hash);

  const tools::RunLog roomy_log = tools::read_run_log(roomy.path);
  const tools::RunLog tight_log = tools::read_run_log(tight.path);
  ASSERT_FALSE(tight_log.cut());
  EXPECT_FALSE(tight_log.damaged());
  EXPECT_EQ(tight_log.frames, roomy_log.frames);
  EXPECT_EQ(tight_log.calls.size(), roomy_log.calls.size());
  EXPECT_EQ(tight_log.plans.size(), 4000u);  // a step and a refresh per macro step
  EXPECT_EQ(tight_log.end_record->records_waited, tight.records_waited);
  const tools::ReplayOutcome replayed = tools::replay_run_log(tight_log);
  EXPECT_TRUE(replayed.identical) << replayed.divergence;
  EXPECT_TRUE(replayed.hash_compared);
}

// Between macro steps 2 ms apart the writer sleeps. The stepping thread does
// not wake it for each record (a system call on the real-time thread) but once
// per half the slots' worth of records: the writer's own timer brings a slow
// run's records to the file.
TEST(RunLogRecorder, APacedRunWakesTheWriterOncePerHalfTheQueue) {
  const RecordedRun paced = record_two_mass_switch("recorder-paced", Recorder::kDefaultQueueRecords,
                                                   std::chrono::microseconds(2000), "0.3");
  ASSERT_EQ(paced.macro_steps, 30u);
  const tools::RunLog log = tools::read_run_log(paced.path);
  EXPECT_FALSE(log.cut());
  EXPECT_EQ(log.plans.size(), 60u);  // a step and a refresh per macro step
  const std::size_t records = log.calls.size() + log.plans.size();
  EXPECT_GE(records, 120u);  // two steps and two plans per macro step, at least
  // A wake per record, or per macro step, would be ≥ 30.
  EXPECT_LE(paced.writer_wakeups, records / (paced.queue_records / 2) + 1)
      << paced.writer_wakeups << " wakes, " << records << " records";
}

// A run that stands still after a few plans has them in its file without the
// stepping thread waking the writer: a crash then loses at most the last
// millisecond.
TEST(RunLogRecorder, ASlowRunsRecordsReachTheFileWithoutAWake) {
  const tools::Scenario scenario = testing::load("two_mass_switch.yaml", {"time.end=1"});
  const std::filesystem::path directory = testing::fresh_directory("recorder-slow");
  std::filesystem::create_directories(directory);
  const std::string path = (directory / "run.log").string();
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  Recorder recorder(path);
  recorder.begin(tools::log_header(scenario, system, *algorithm), system);
  executor.set_observer(&recorder);
  executor.initialize();
  recorder.algorithm_started(*algorithm);
  for (int plan = 0; plan < 6; ++plan) {
    ASSERT_TRUE(executor.advance());
    recorder.plan_finished(executor, *algorithm);
  }
  // Generous for a loaded machine; the writer looks every millisecond.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::size_t plans_on_disk = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      plans_on_disk = tools::read_run_log(path).plans.size();
    } catch (const tools::RunLogError&) {
      plans_on_disk = 0;  // not even the header yet
    }
    if (plans_on_disk == 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(plans_on_disk, 6u);
  EXPECT_EQ(recorder.writer_wakeups(), 0u);
  recorder.finish({.completed = true,
                   .decision_hash = executor.decision_hash(),
                   .counters = executor.counters()});
}

// A write that fails (a disk someone else filled: /dev/full answers every
// write with ENOSPC) stops the run at the next plan, naming the log and the
// cause, rather than letting it go on unrecorded.
TEST(RunLogRecorder, AFailedWriteStopsTheRunAtTheNextPlan) {
  const tools::Scenario scenario = testing::load("two_mass_switch.yaml", {"time.end=1"});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  Recorder recorder("/dev/full");
  recorder.begin(tools::log_header(scenario, system, *algorithm), system);
  executor.set_observer(&recorder);
  executor.initialize();
  recorder.algorithm_started(*algorithm);
  ASSERT_TRUE(executor.advance());
  try {
    recorder.plan_finished(executor, *algorithm);
    FAIL() << "the run went on with a log that cannot be written";
  } catch (const SlaveError& error) {
    EXPECT_STREQ(
        error.what(),
        "cannot write the run log '/dev/full': No space left on device at t = 0.01 s after 1 "
        "macro steps: the run is stopped. Free space there, or write the run elsewhere (-o DIR)");
  }
  EXPECT_THROW(recorder.finish({.message = "stopped",
                                .decision_hash = executor.decision_hash(),
                                .counters = executor.counters()}),
               std::runtime_error);
}

// A record reaches the file while the run goes on (a kill -9 keeps it), without
// a later record or the end of the run pushing it out.
TEST(RunLogRecorder, WritesARecordWithoutWaitingForTheNext) {
  const tools::Scenario scenario = testing::load("two_mass_switch.yaml", {"time.end=1"});
  const std::filesystem::path directory = testing::fresh_directory("recorder-prompt");
  std::filesystem::create_directories(directory);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Recorder recorder((directory / "run.log").string());
  recorder.begin(tools::log_header(scenario, system, *algorithm), system);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (recorder.bytes_written() <= protocol::kLogMagicBytes &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GT(std::filesystem::file_size(directory / "run.log"), protocol::kLogMagicBytes);
  recorder.finish({.completed = true});
}

}  // namespace
}  // namespace couplet
