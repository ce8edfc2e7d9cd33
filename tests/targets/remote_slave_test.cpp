// The remote slave proxy against a target served on a thread, over the
// in-process link with seeded faults (docs/links.md): results are bit-identical to
// the same slave run locally whatever the link does; a dead target is reported
// within the timeout, naming the slave.
#include <gtest/gtest.h>

#include <cstring>
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

SlaveConfiguration mass_configuration() {
  SlaveConfiguration configuration;
  configuration.slave_name = "left";
  configuration.model = "translational.mass";
  configuration.parameters = {{"m", 10.0}, {"x0", 1.0}};
  configuration.solver.relative_tolerance = 1e-9;
  configuration.solver.absolute_tolerance = 1e-11;
  return configuration;
}

using testing::ServedTarget;

std::unique_ptr<Slave> local_slave(const SlaveConfiguration& configuration) {
  return models::make_ode_slave(configuration.slave_name,
                                models::ModelCatalog::builtin().create(configuration.model, configuration.parameters),
                                configuration.solver, configuration.limits);
}

/// Steps both slaves through the same requests and compares every double.
void expect_same_behaviour(Slave& local, Slave& remote, int steps) {
  ASSERT_EQ(remote.description().outputs.size(), local.description().outputs.size());
  ASSERT_EQ(remote.description().capabilities.output_derivative_order,
            local.description().capabilities.output_derivative_order);
  EXPECT_FALSE(remote.description().capabilities.can_rollback);
  const std::size_t rows = static_cast<std::size_t>(local.description().capabilities.output_derivative_order + 1);
  const std::size_t outputs = local.description().outputs.size();
  std::vector<double> local_end(rows * outputs);
  std::vector<double> remote_end(rows * outputs);
  std::vector<double> local_samples(2 * outputs);
  std::vector<double> remote_samples(2 * outputs);
  local.setup(0);
  remote.setup(0);
  std::vector<Polynomial> inputs(1);
  inputs[0] = Polynomial::constant(0.0, 0.5);
  local.evaluate_outputs(inputs, local_end);
  remote.evaluate_outputs(inputs, remote_end);
  ASSERT_EQ(std::memcmp(local_end.data(), remote_end.data(), local_end.size() * sizeof(double)), 0);
  const Time step = 50'000'000;
  for (int k = 0; k < steps; ++k) {
    const Time start = k * step;
    const double coefficients[3] = {std::sin(k * 0.1), 0.3, -0.05};
    inputs[0] = Polynomial::from_coefficients(to_seconds(start), 0.05, coefficients);
    const Time samples[2] = {start + step / 3, start + step};
    const StepRequest request{start, start + step, inputs, samples};
    local.step(request, {local_end, local_samples});
    remote.step(request, {remote_end, remote_samples});
    ASSERT_EQ(std::memcmp(local_end.data(), remote_end.data(), local_end.size() * sizeof(double)), 0) << "step " << k;
    ASSERT_EQ(std::memcmp(local_samples.data(), remote_samples.data(), local_samples.size() * sizeof(double)), 0);
  }
}

drivers::LinkPolicy fast_policy() {
  drivers::LinkPolicy policy;
  policy.retransmit_interval = 1ms;
  policy.peer_timeout = 2s;
  return policy;
}

TEST(RemoteSlave, BitIdenticalToTheLocalSlaveOverAPerfectLink) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::move(link.target));
  couplet_wire_Configure configure;
  to_wire(mass_configuration(), configure);
  drivers::RemoteSlave remote("left", std::move(link.master), &configure, drivers::LinkPolicy{});
  const auto local = local_slave(mass_configuration());
  expect_same_behaviour(*local, remote, 100);
  EXPECT_EQ(remote.counters().retransmissions, 0U);
  EXPECT_EQ(target.counters().steps, 100U);
}

TEST(RemoteSlave, BitIdenticalThroughLossDuplicationReorderingAndCorruption) {
  drivers::FaultSettings faults{0.25, 0.1, 0.1, 0.1, 0us, 3000us, 1};
  drivers::FaultSettings back = faults;
  back.seed = 2;
  drivers::InProcessLink link = drivers::make_in_process_link(faults, back, 16);
  ServedTarget target(std::move(link.target));
  couplet_wire_Configure configure;
  to_wire(mass_configuration(), configure);
  drivers::RemoteSlave remote("left", std::move(link.master), &configure, fast_policy());
  const auto local = local_slave(mass_configuration());
  expect_same_behaviour(*local, remote, 300);
  EXPECT_EQ(target.counters().steps, 300U) << "each step executed exactly once";
  EXPECT_GT(target.counters().repeats, 10U);
  EXPECT_GT(target.counters().rejected, 5U) << "corrupted frames";
  EXPECT_GT(remote.counters().retransmissions, 50U);
  EXPECT_GT(remote.counters().duplicates, 5U);
  EXPECT_GT(remote.counters().drops, 5U);
}

TEST(RemoteSlave, ADeadTargetIsReportedWithinTheTimeoutNamingTheSlave) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::move(link.target));
  couplet_wire_Configure configure;
  to_wire(mass_configuration(), configure);
  drivers::LinkPolicy policy = fast_policy();
  policy.peer_timeout = 200ms;
  drivers::RemoteSlave remote("left", std::move(link.master), &configure, policy);
  remote.setup(0);
  target.halt();
  std::vector<double> end(2);
  const std::vector<Polynomial> inputs(1);
  const auto began = std::chrono::steady_clock::now();
  try {
    remote.step({0, 1'000'000, inputs, {}}, {end, {}});
    FAIL() << "no error from a dead target";
  } catch (const SlaveError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("slave 'left'"), std::string::npos) << message;
    EXPECT_NE(message.find("nothing heard"), std::string::npos) << message;
  }
  const auto waited = std::chrono::steady_clock::now() - began;
  EXPECT_GE(waited, 200ms);
  EXPECT_LT(waited, 600ms);
}

TEST(RemoteSlave, RejectsRequestsOutsideTheCapabilitiesBeforeSending) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::move(link.target));
  SlaveConfiguration configuration = mass_configuration();
  configuration.limits.max_input_degree = 0;  // a device that takes ZOH only
  couplet_wire_Configure configure;
  to_wire(configuration, configure);
  drivers::RemoteSlave remote("left", std::move(link.master), &configure, fast_policy());
  EXPECT_EQ(remote.description().capabilities.max_input_degree, 0);
  remote.setup(0);
  const double ramp[2] = {0.0, 1.0};
  const std::vector<Polynomial> inputs = {Polynomial::from_coefficients(0.0, 1.0, ramp)};
  std::vector<double> end(2);
  EXPECT_THROW(remote.step({0, 1'000'000, inputs, {}}, {end, {}}), ProtocolViolation);
  EXPECT_THROW(remote.save_state(), ProtocolViolation);
  EXPECT_EQ(target.counters().steps, 0U);
}

}  // namespace
}  // namespace couplet::targets
