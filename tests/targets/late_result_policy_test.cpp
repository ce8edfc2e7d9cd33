// Wall-clock mode of the remote slave (docs/links.md): a result that misses its
// deadline is recorded and replaced under the declared policy (hold,
// extrapolate), and the run aborts after more consecutive misses than allowed
// (at the first with policy abort), naming the slave.
#include <gtest/gtest.h>

#include <thread>

#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "models/catalog.hpp"
#include "couplet/errors.hpp"
#include "support/served_target.hpp"
#include "targets/serve.hpp"

namespace couplet::targets {
namespace {

using namespace std::chrono_literals;

using testing::ServedTarget;

constexpr Time kPeriod = 10'000'000;  // 10 ms

struct Rig {
  explicit Rig(const drivers::FaultSettings& to_master = {})
      : link(drivers::make_in_process_link({}, to_master)), target(std::move(link.target)), clock(0, 1.0) {
    couplet_wire_Configure configure{};
    SlaveConfiguration configuration;
    configuration.slave_name = "device";
    configuration.model = "translational.mass";
    configuration.parameters = {{"x0", 1.0}, {"v0", 0.5}};
    to_wire(configuration, configure);
    drivers::LinkPolicy policy;
    policy.peer_timeout = 1s;
    remote = std::make_unique<drivers::RemoteSlave>("device", std::move(link.master), &configure, policy);
  }

  void bind(drivers::LatePolicy on_late, int max_misses) {
    remote->bind_wall_clock(clock, {on_late, max_misses, std::chrono::nanoseconds(5'000'000)});
    remote->setup(0);
    clock.start();
  }

  /// One paced step from k·period to (k+1)·period; returns x and v at its end.
  std::array<double, 2> step(int k) {
    clock.sleep_until(k * kPeriod);
    const std::vector<Polynomial> inputs(1);
    std::vector<double> end(2 * static_cast<std::size_t>(remote->description().capabilities.output_derivative_order + 1));
    remote->step({k * kPeriod, (k + 1) * kPeriod, inputs, {}}, {end, {}});
    return {end[0], end[1]};
  }

  drivers::InProcessLink link;
  ServedTarget target;
  drivers::WallClock clock;
  std::unique_ptr<drivers::RemoteSlave> remote;
};

TEST(LateResultPolicy, HoldKeepsTheLastValues) {
  Rig rig;
  rig.bind(drivers::LatePolicy::hold, 3);
  rig.step(0);
  const auto last = rig.step(1);
  rig.target.halt();
  const auto held = rig.step(2);
  EXPECT_EQ(held, last);
  EXPECT_EQ(rig.remote->counters().missed_results, 1U);
}

TEST(LateResultPolicy, ExtrapolateContinuesTheLastTwoValuesLinearly) {
  Rig rig;
  rig.bind(drivers::LatePolicy::extrapolate, 3);
  const auto first = rig.step(0);
  const auto second = rig.step(1);
  rig.target.halt();
  const auto extrapolated = rig.step(2);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_DOUBLE_EQ(extrapolated[j], 2.0 * second[j] - first[j]) << "output " << j;
    EXPECT_NE(extrapolated[j], second[j]);
  }
}

TEST(LateResultPolicy, AbortStopsAtTheFirstMissNamingTheSlave) {
  Rig rig;
  rig.bind(drivers::LatePolicy::abort, 3);
  rig.step(0);
  rig.target.halt();
  try {
    rig.step(1);
    FAIL() << "a missed result under policy abort must end the run";
  } catch (const SlaveError& error) {
    EXPECT_NE(std::string(error.what()).find("slave 'device'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("within its deadline"), std::string::npos) << error.what();
  }
}

// Every answer comes 30 ms late (a slow link), the period is 10 ms and the
// tolerance 5 ms: each result misses; late answers are collected before the
// next request (the target executes in order) and counted late; the third
// consecutive miss exceeds max_misses = 2.
TEST(LateResultPolicy, AbortsAfterTooManyConsecutiveMisses) {
  drivers::FaultSettings slow;
  slow.delay = 30ms;
  Rig rig(slow);
  rig.bind(drivers::LatePolicy::hold, 2);
  rig.step(0);
  rig.step(1);
  EXPECT_EQ(rig.remote->counters().missed_results, 2U);
  EXPECT_THROW(rig.step(2), SlaveError);
  EXPECT_EQ(rig.remote->counters().late_results, 2U);
}

}  // namespace
}  // namespace couplet::targets
