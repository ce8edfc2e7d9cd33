// The F3ORNITS scheduler (ours, docs/f3ornits.md): rendez-vous, imposed grids,
// variable-step slaves bounded by their neighbours, synchronous mode, eq. 39.
#include "runtime/algorithms/f3ornits_scheduler.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

constexpr Time ms = 1'000'000;

struct Schedule {
  F3ornitsScheduler scheduler;
  std::vector<Time> times, proposals, ends;
  std::vector<StepLimit> limits;

  Schedule(std::vector<SchedulerSlave> slaves, Time end, bool synchronous = false)
      : scheduler(slaves, std::vector<std::string>(slaves.size(), "s"), 0, end, synchronous),
        times(slaves.size(), 0),
        proposals(slaves.size(), end),
        ends(slaves.size(), 0),
        limits(slaves.size(), StepLimit::proposal) {}

  void schedule() { scheduler.schedule(scheduler.next_rendezvous(times), times, proposals, ends, limits); }
};

SchedulerSlave variable(std::vector<std::size_t> sources, bool feeds_variable = true,
                        std::vector<std::size_t> imposed_targets = {}) {
  return SchedulerSlave{0, feeds_variable || !imposed_targets.empty(), feeds_variable, std::move(sources),
                        std::move(imposed_targets)};
}

SchedulerSlave imposed(Time period, std::vector<std::size_t> sources, bool feeds_inputs = true) {
  return SchedulerSlave{period, feeds_inputs, feeds_inputs, std::move(sources), {}};
}

TEST(F3ornitsScheduler, ConnectedVariableSlavesMeetAtTheSmallerProposal) {
  Schedule run({variable({1}), variable({0})}, 1000 * ms);
  run.proposals = {50 * ms, 30 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[0], 30 * ms);
  EXPECT_EQ(run.ends[1], 30 * ms);
  EXPECT_EQ(run.limits[0], StepLimit::source_data);
  EXPECT_EQ(run.limits[1], StepLimit::proposal);
}

// A slow source feeding a fast target: the target steps on its own, the source
// keeps its long step, and the target then stops where the source has new data.
TEST(F3ornitsScheduler, SlowSourceFastTargetRunAsynchronously) {
  Schedule run({variable({}), variable({0}, false)}, 1000 * ms);
  run.proposals = {100 * ms, 1000 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[0], 100 * ms);
  EXPECT_EQ(run.ends[1], 100 * ms);  // its source communicates at 100 ms
  run.proposals = {100 * ms, 30 * ms};
  run.scheduler = F3ornitsScheduler({variable({}), variable({0})}, {"a", "b"}, 0, 1000 * ms, false);
  run.schedule();
  EXPECT_EQ(run.ends[1], 30 * ms);
  run.times = {100 * ms, 30 * ms};  // the source is ahead
  run.proposals = {200 * ms, 130 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[1], 100 * ms);
  EXPECT_EQ(run.limits[1], StepLimit::source_data);
  EXPECT_EQ(run.ends[0], 100 * ms);  // not ready: untouched
}

TEST(F3ornitsScheduler, ImposedSlavesStepOnTheirGridsAndFeedAVariableOne) {
  // 0: imposed 30 ms, 1: imposed 50 ms, 2: variable fed by both and feeding both.
  Schedule run({imposed(30 * ms, {2}), imposed(50 * ms, {2}), variable({0, 1}, false, {0, 1})}, 300 * ms);
  // The devices' time-steppers propose less than a period: one period at a time.
  run.proposals = {10 * ms, 10 * ms, 300 * ms};
  std::vector<Time> reached;
  for (int k = 0; k < 40 && run.scheduler.next_rendezvous(run.times) < 300 * ms; ++k) {
    const Time rendezvous = run.scheduler.next_rendezvous(run.times);
    run.schedule();
    for (std::size_t s = 0; s < 3; ++s) {
      if (run.times[s] != rendezvous) continue;
      if (s == 0) {
        EXPECT_EQ(run.ends[s], rendezvous + 30 * ms);
      } else if (s == 1) {
        EXPECT_EQ(run.ends[s], rendezvous + 50 * ms);
      } else {
        reached.push_back(run.ends[s]);
      }
      run.times[s] = run.ends[s];
      run.proposals[s] = s == 2 ? 300 * ms : run.ends[s] + 10 * ms;
    }
  }
  // The variable slave meets every grid point of both devices, and nothing else.
  const std::vector<Time> expected{30 * ms,  50 * ms,  60 * ms,  90 * ms,  100 * ms, 120 * ms, 150 * ms,
                                   180 * ms, 200 * ms, 210 * ms, 240 * ms, 250 * ms, 270 * ms, 300 * ms};
  EXPECT_EQ(reached, expected);
}

// Communications that change nothing are skipped: a device whose outputs nobody
// reads takes as many periods as its source's data allows.
TEST(F3ornitsScheduler, ImposedSlaveTakesSeveralPeriodsWhenNothingChanges) {
  Schedule run({variable({}), imposed(30 * ms, {0}, false)}, 900 * ms);
  run.proposals = {200 * ms, 900 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[1], 180 * ms);
  EXPECT_EQ(run.limits[1], StepLimit::imposed_grid);
  // Its source proposes less than one period: still one period.
  run.proposals = {10 * ms, 900 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[1], 30 * ms);
}

// Eq. 39 and its scheduling counterpart: nobody reads it, nothing feeds it.
TEST(F3ornitsScheduler, SlaveWithoutReadersOrSourcesGoesToTheEnd) {
  Schedule run({variable({}, false), imposed(40 * ms, {}, false)}, 2000 * ms);
  run.proposals = {10 * ms, 10 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[0], 2000 * ms);
  EXPECT_EQ(run.ends[1], 2000 * ms);
  EXPECT_EQ(run.limits[0], StepLimit::end_time);
}

// A variable-step slave read only by a device needs to communicate only when the
// device reads: its own proposal does not matter.
TEST(F3ornitsScheduler, VariableSlaveReadOnlyByADeviceMeetsItsReadingTimes) {
  Schedule run({variable({}, false, {1}), imposed(70 * ms, {0}, false)}, 700 * ms);
  run.proposals = {10 * ms, 700 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[1], 70 * ms);
  EXPECT_EQ(run.ends[0], 70 * ms);
  EXPECT_EQ(run.limits[0], StepLimit::imposed_target);
}

TEST(F3ornitsScheduler, SynchronousModeSharesTheMinimum) {
  const std::vector<SchedulerSlave> unconnected{variable({}), variable({})};
  Schedule asynchronous(unconnected, 1000 * ms, false);
  asynchronous.proposals = {100 * ms, 200 * ms};
  asynchronous.schedule();
  EXPECT_EQ(asynchronous.ends[1], 200 * ms);
  Schedule synchronous(unconnected, 1000 * ms, true);
  synchronous.proposals = {100 * ms, 200 * ms};
  synchronous.schedule();
  EXPECT_EQ(synchronous.ends[0], 100 * ms);
  EXPECT_EQ(synchronous.ends[1], 100 * ms);
  EXPECT_EQ(synchronous.limits[1], StepLimit::synchronous);
}

TEST(F3ornitsScheduler, NeverPastTheEnd) {
  Schedule run({variable({1}), variable({0})}, 1000 * ms);
  run.times = {990 * ms, 990 * ms};
  run.proposals = {1000 * ms, 1000 * ms};
  run.schedule();
  EXPECT_EQ(run.ends[0], 1000 * ms);
  run.times = {1000 * ms, 1000 * ms};
  EXPECT_EQ(run.scheduler.next_rendezvous(run.times), 1000 * ms);
}

TEST(F3ornitsScheduler, TimeSpanMustBeAMultipleOfEveryImposedStep) {
  try {
    F3ornitsScheduler({imposed(30 * ms, {})}, {"device"}, 0, 1000 * ms, false);
    FAIL() << "accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("'device'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace couplet
