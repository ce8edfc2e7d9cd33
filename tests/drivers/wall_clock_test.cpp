// Wall-clock pacing (docs/links.md): absolute deadlines on CLOCK_MONOTONIC, a
// real-time factor, and lateness statistics.
#include <gtest/gtest.h>

#include <thread>

#include "drivers/wall_clock.hpp"
#include "couplet/errors.hpp"

namespace couplet::drivers {
namespace {

using namespace std::chrono_literals;

TEST(WallClock, DeadlinesFollowTheRealtimeFactor) {
  WallClock clock(5'000'000'000, 2.0);  // model runs twice as fast as the wall
  clock.start_at(1'000'000);
  EXPECT_EQ(clock.deadline_ns(5'000'000'000), 1'000'000);
  EXPECT_EQ(clock.deadline_ns(5'010'000'000), 1'000'000 + 5'000'000);
  EXPECT_THROW(WallClock(0, 0.0), ConfigurationError);
  EXPECT_THROW(WallClock(0, -1.0), ConfigurationError);
}

// A cycle that overruns does not shift the later deadlines: 30 cycles of 2 ms
// end 60 ms after the start, whatever the work in between.
TEST(WallClock, AbsoluteDeadlinesDoNotDrift) {
  WallClock clock(0, 1.0);
  clock.start();
  const std::int64_t began = clock.anchor_ns();
  const Time period = 2'000'000;
  for (int k = 1; k <= 30; ++k) {
    if (k == 10) std::this_thread::sleep_for(5ms);  // one long cycle
    const std::int64_t lateness = clock.sleep_until(k * period);
    EXPECT_GE(lateness, 0);
  }
  const std::int64_t elapsed = monotonic_now_ns() - began;
  EXPECT_GE(elapsed, 60'000'000);
  EXPECT_LT(elapsed, 60'000'000 + 20'000'000);
}

TEST(WallClock, ALateDeadlineReturnsItsLatenessWithoutSleeping) {
  WallClock clock(0, 1.0);
  clock.start_at(monotonic_now_ns() - 50'000'000);
  const std::int64_t before = monotonic_now_ns();
  const std::int64_t lateness = clock.sleep_until(10'000'000);
  EXPECT_GE(lateness, 40'000'000);
  EXPECT_LT(monotonic_now_ns() - before, 5'000'000);
}

TEST(LatenessStatistics, QuantilesCountsAndHistogram) {
  LatenessStatistics statistics(1000);
  for (int k = 1; k <= 100; ++k) statistics.add(k * 1000, k > 95);  // 1..100 us
  statistics.add(-500, false);
  EXPECT_EQ(statistics.cycles(), 101U);
  EXPECT_EQ(statistics.overruns(), 5U);
  EXPECT_EQ(statistics.min_ns(), -500);
  EXPECT_EQ(statistics.max_ns(), 100'000);
  EXPECT_EQ(statistics.quantile_ns(0.5), 50'000);
  EXPECT_EQ(statistics.quantile_ns(0.99), 99'000);
  const auto counts = statistics.histogram(10);
  EXPECT_EQ(counts[0], 1U);  // negative
  EXPECT_EQ(counts[1], 0U);  // [0, 1) us
  EXPECT_EQ(counts[2], 1U);  // [1, 2) us
  EXPECT_EQ(counts[3], 2U);  // [2, 4)
  EXPECT_EQ(counts[8], 37U);  // [64, 128): 64..100
  EXPECT_EQ(counts[9], 0U);
  EXPECT_EQ(statistics.histogram(8)[7], 69U) << "the last bucket, from 32 us, takes the rest";
  EXPECT_DOUBLE_EQ(LatenessStatistics::bucket_lower_us(3), 2.0);
}

TEST(LatenessStatistics, BeyondCapacityMinMaxAndCountsStayExact) {
  LatenessStatistics statistics(4);
  for (int k = 0; k < 10; ++k) statistics.add(k, false);
  EXPECT_EQ(statistics.cycles(), 10U);
  EXPECT_EQ(statistics.max_ns(), 9);
  EXPECT_EQ(statistics.quantile_ns(1.0), 3) << "percentiles over the kept samples";
}

}  // namespace
}  // namespace couplet::drivers
