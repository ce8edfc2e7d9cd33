// Real-time path over a link (docs/architecture.md, docs/links.md): after start-up and the
// first macro step, neither the master (executor, algorithm, remote slave proxy,
// transport) nor the target (server, model slave, transport) allocates on the
// heap. Both sides run in this process — the target on a thread — so one
// counting hook on the global allocation functions sees them both.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/executor.hpp"
#include "support/allocation_counter.hpp"
#include "targets/serve.hpp"

namespace couplet::testing {
namespace {

struct TransportPair {
  std::unique_ptr<drivers::Transport> master;
  std::unique_ptr<drivers::Transport> target;
};

TransportPair in_process() {
  drivers::InProcessLink link = drivers::make_in_process_link();
  return {std::move(link.master), std::move(link.target)};
}

/// `busy_poll`: both ends ask their socket again for this long before sleeping.
TransportPair udp_loopback(std::chrono::nanoseconds busy_poll = {}) {
  auto target = drivers::UdpTransport::bind("127.0.0.1:0");
  auto master = drivers::UdpTransport::connect(target->local_endpoint());
  target->set_busy_poll(busy_poll);
  master->set_busy_poll(busy_poll);
  return {std::move(master), std::move(target)};
}

/// The target side: a server on its own thread.
class ServedTarget {
 public:
  ServedTarget(const std::string& model, std::unique_ptr<drivers::Transport> transport)
      : server_(models::ModelCatalog::builtin(), options(model)), transport_(std::move(transport)) {
    thread_ = std::thread([this] { targets::serve(server_, *transport_, {}, stop_); });
  }
  ~ServedTarget() {
    stop_ = true;
    thread_.join();
  }
  const targets::TargetCounters& counters() const { return server_.counters(); }

 private:
  static targets::TargetOptions options(const std::string& model) {
    targets::TargetOptions target_options;
    target_options.model = model;
    return target_options;
  }
  targets::TargetServer server_;
  std::unique_ptr<drivers::Transport> transport_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// two_mass_switch with `remote_name` behind a link served on a thread.
long allocations_after_first_step(TransportPair transports, const std::string& remote_name,
                                  const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  const tools::Scenario scenario =
      tools::load_scenario(scenario_path("two_mass_switch.yaml"), overrides);
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();

  std::unique_ptr<ServedTarget> target;
  System system;
  for (const tools::SlaveSpec& spec : scenario.slaves) {
    if (spec.name != remote_name) {
      system.add_slave(
          spec.name, models::make_ode_slave(spec.name, catalog.create(spec.model, spec.parameters),
                                            spec.solver, spec.capabilities));
      continue;
    }
    target = std::make_unique<ServedTarget>(spec.model, std::move(transports.target));
    couplet_wire_Configure configure;
    targets::to_wire(
        {spec.name, spec.model, spec.parameters, {}, spec.solver, spec.capabilities, std::nullopt},
        configure);
    system.add_slave(spec.name,
                     std::make_unique<drivers::RemoteSlave>(spec.name, std::move(transports.master),
                                                            &configure, drivers::LinkPolicy{}));
  }
  for (const tools::ConnectionSpec& connection : scenario.connections)
    system.connect(connection.from, connection.to);

  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  executor.initialize();
  while (executor.counters().macro_steps < 2) EXPECT_TRUE(executor.advance());
  const long before = allocations();
  while (executor.advance()) {
  }
  const long after = allocations();
  EXPECT_GT(executor.counters().macro_steps, 100U);
  EXPECT_GT(target->counters().steps, 100U);
  return after - before;
}

TEST(LinkAllocation, CountingHookSeesAllocationsOnAnotherThread) {
  const long before = allocations();
  std::thread([] { delete new std::vector<double>(16); }).join();
  EXPECT_GE(allocations() - before, 2);
}

TEST(LinkAllocation, InProcessLinkWithCvodeOnBothSidesAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(
      allocations_after_first_step(in_process(), "right", {"time.end=20", "algorithm.step=0.05"}),
      0);
}

TEST(LinkAllocation, UdpLoopbackAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                udp_loopback(), "right",
                {"time.end=20", "algorithm.step=0.05", "algorithm.input_order=1"}),
            0);
}

TEST(LinkAllocation, BusyPollingUdpLoopbackAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(udp_loopback(std::chrono::microseconds(200)), "right",
                                         {"time.end=20", "algorithm.step=0.05"}),
            0);
}

TEST(LinkAllocation, RemoteSourceSlaveWithEulerAllocatesNothingAfterTheFirstStep) {
  EXPECT_EQ(allocations_after_first_step(
                udp_loopback(), "left",
                {"time.end=20", "algorithm.step=0.05", "slaves.left.solver.type=euler",
                 "slaves.left.solver.substeps=10"}),
            0);
}

}  // namespace
}  // namespace couplet::testing
