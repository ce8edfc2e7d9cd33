// The in-process link and its seeded fault injection (kernel netem is not
// available where couplet is tested, so fault injection is ours): every impairment
// happens, at about its rate, identically
// for the same seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "drivers/fault_injector.hpp"
#include "drivers/in_process_transport.hpp"
#include "couplet/errors.hpp"

namespace couplet::drivers {
namespace {

using namespace std::chrono_literals;

TEST(FaultInjector, SameSeedSameFaults) {
  FaultSettings settings{0.2, 0.05, 0.05, 0.05, 0us, 2000us, 42};
  FaultInjector first(settings);
  FaultInjector second(settings);
  FaultInjector::Copies a;
  FaultInjector::Copies b;
  for (int k = 0; k < 10'000; ++k) {
    const std::size_t count = first.decide(100, a);
    ASSERT_EQ(count, second.decide(100, b));
    for (std::size_t c = 0; c < count; ++c) {
      ASSERT_EQ(a[c].delay, b[c].delay);
      ASSERT_EQ(a[c].corrupt, b[c].corrupt);
      ASSERT_EQ(a[c].bit, b[c].bit);
    }
  }
  const FaultCounters& counters = first.counters();
  EXPECT_EQ(counters.messages, 10'000U);
  EXPECT_NEAR(static_cast<double>(counters.lost), 2000, 200);
  EXPECT_NEAR(static_cast<double>(counters.duplicated), 400, 100);
  EXPECT_GT(counters.reordered, 300U);
  EXPECT_GT(counters.corrupted, 300U);
}

TEST(FaultInjector, RejectsProbabilitiesOutsideTheUnitInterval) {
  EXPECT_THROW(FaultInjector(FaultSettings{1.5}), ConfigurationError);
  EXPECT_THROW(FaultInjector(FaultSettings{0, -0.1}), ConfigurationError);
}

std::vector<std::uint8_t> frame_with(std::uint8_t tag) { return std::vector<std::uint8_t>(32, tag); }

TEST(InProcessLink, DeliversInOrderWithoutFaults) {
  InProcessLink link = make_in_process_link();
  std::vector<std::uint8_t> buffer(64);
  for (std::uint8_t k = 1; k <= 5; ++k) link.master->send(frame_with(k));
  for (std::uint8_t k = 1; k <= 5; ++k) {
    ASSERT_EQ(link.target->receive(buffer, SteadyClock::now() + 100ms), 32U);
    EXPECT_EQ(buffer[0], k);
  }
  EXPECT_EQ(link.target->receive(buffer, SteadyClock::now() + 5ms), 0U);
  link.target->send(frame_with(9));
  ASSERT_EQ(link.master->receive(buffer, SteadyClock::now() + 100ms), 32U);
  EXPECT_EQ(buffer[0], 9);
}

TEST(InProcessLink, DelayHoldsFramesBack) {
  FaultSettings slow;
  slow.delay = 20ms;
  InProcessLink link = make_in_process_link(slow);
  std::vector<std::uint8_t> buffer(64);
  const auto sent = SteadyClock::now();
  link.master->send(frame_with(1));
  EXPECT_EQ(link.target->receive(buffer, sent + 5ms), 0U);
  EXPECT_EQ(link.target->receive(buffer, sent + 1s), 32U);
  EXPECT_GE(SteadyClock::now() - sent, 20ms);
}

TEST(InProcessLink, ReorderedFramesAreOvertaken) {
  FaultSettings reorder_half;
  reorder_half.reorder = 0.5;
  reorder_half.reorder_gap = 10ms;
  reorder_half.seed = 3;
  InProcessLink link = make_in_process_link(reorder_half, {}, 32);
  std::vector<std::uint8_t> buffer(64);
  for (std::uint8_t k = 0; k < 20; ++k) link.master->send(frame_with(k));
  std::vector<std::uint8_t> order;
  while (link.target->receive(buffer, SteadyClock::now() + 50ms) > 0) order.push_back(buffer[0]);
  ASSERT_EQ(order.size(), 20U) << "reordering loses nothing";
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end())) << "later frames overtook held ones";
  const FaultCounters counters = fault_counters(*link.master);
  EXPECT_GT(counters.reordered, 0U);
  EXPECT_LT(counters.reordered, 20U);
}

TEST(InProcessLink, CountsEveryKindOfFault) {
  FaultSettings faults{0.3, 0.3, 0.0, 0.3, 0us, 0us, 5};
  InProcessLink link = make_in_process_link(faults, {}, 64);
  std::vector<std::uint8_t> buffer(64);
  int delivered = 0;
  int corrupted = 0;
  for (int k = 0; k < 400; ++k) {
    link.master->send(frame_with(0));
    while (const std::size_t size = link.target->receive(buffer, SteadyClock::now())) {
      ASSERT_EQ(size, 32U);
      ++delivered;
      for (std::size_t b = 0; b < size; ++b) corrupted += buffer[b] != 0 ? 1 : 0;
    }
  }
  const FaultCounters counters = fault_counters(*link.master);
  EXPECT_EQ(counters.messages, 400U);
  EXPECT_EQ(static_cast<std::uint64_t>(delivered), counters.messages - counters.lost + counters.duplicated);
  EXPECT_EQ(static_cast<std::uint64_t>(corrupted), counters.corrupted);
  EXPECT_GT(counters.lost, 80U);
  EXPECT_GT(counters.duplicated, 50U);
}

}  // namespace
}  // namespace couplet::drivers
