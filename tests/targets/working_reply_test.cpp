// A target that computes a step for longer than the master's peer timeout is
// not dead: it answers the master's repeats with Working (targets/busy_responder.hpp),
// and the master waits for the result (docs/links.md "Liveness"). A target that
// falls silent in the middle of a step is still reported dead within the timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "couplet/errors.hpp"
#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "models/catalog.hpp"
#include "support/served_target.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;

/// translational.mass whose steps take `duration` of wall time.
class SlowSlave : public Slave {
 public:
  SlowSlave(std::unique_ptr<Slave> inner, std::chrono::milliseconds duration)
      : inner_(std::move(inner)), duration_(duration) {}
  const SlaveDescription& description() const override { return inner_->description(); }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) override {
    inner_->evaluate_outputs(inputs, end_outputs);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    std::this_thread::sleep_for(duration_);
    inner_->step(request, result);
  }

 private:
  std::unique_ptr<Slave> inner_;
  std::chrono::milliseconds duration_;
};

class SlowSource : public models::SlaveSource {
 public:
  explicit SlowSource(std::chrono::milliseconds duration)
      : inner_(models::catalog_source(models::ModelCatalog::builtin(), "translational.mass")), duration_(duration) {}
  std::string name() const override { return inner_->name(); }
  std::string identity() const override { return inner_->identity(); }
  std::unique_ptr<Slave> make_slave(const models::SlaveSettings& settings) const override {
    return std::make_unique<SlowSlave>(inner_->make_slave(settings), duration_);
  }
  std::unique_ptr<models::Model> make_model(const models::SlaveSettings& settings) const override {
    return inner_->make_model(settings);
  }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::shared_ptr<const models::SlaveSource> inner_;
  std::chrono::milliseconds duration_;
};

drivers::LinkPolicy short_timeout() {
  drivers::LinkPolicy policy;
  policy.retransmit_interval = 10ms;
  policy.peer_timeout = 100ms;
  return policy;
}

void step_once(drivers::RemoteSlave& remote, Time from, Time to) {
  std::vector<Polynomial> inputs(remote.description().inputs.size(), Polynomial::constant(to_seconds(from), 1.0));
  std::vector<double> end_outputs(remote.description().outputs.size() *
                                  static_cast<std::size_t>(remote.description().capabilities.output_derivative_order + 1));
  remote.step({from, to, inputs, {}}, {end_outputs, {}});
}

TEST(WorkingReply, AStepThreeTimesLongerThanTheTimeoutCompletes) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::make_shared<SlowSource>(300ms), std::move(link.target));
  drivers::RemoteSlave remote("slow", std::move(link.master), nullptr, short_timeout());
  remote.setup(0);
  const auto started = std::chrono::steady_clock::now();
  step_once(remote, 0, to_ticks(0.01));
  step_once(remote, to_ticks(0.01), to_ticks(0.02));
  EXPECT_GE(std::chrono::steady_clock::now() - started, 600ms);
  EXPECT_EQ(target.counters().steps, 2U) << "each step carried out once";
  EXPECT_GT(remote.counters().working, 10U) << "repeats answered with Working meanwhile";
}

TEST(WorkingReply, ATargetThatStopsServingIsStillReportedDead) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::make_shared<SlowSource>(300ms), std::move(link.target));
  drivers::RemoteSlave remote("slow", std::move(link.master), nullptr, short_timeout());
  remote.setup(0);
  target.halt();
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(step_once(remote, 0, to_ticks(0.01)), SlaveError);
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_GE(waited, 100ms);
  EXPECT_LT(waited, 120ms + 50ms) << "within the timeout + 20 % (and some scheduling)";
}

}  // namespace
}  // namespace couplet::testing
