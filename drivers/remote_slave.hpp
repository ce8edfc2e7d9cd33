#pragma once
// The remote slave: a proxy implementing the Slave interface over a link
// (docs/architecture.md, docs/links.md). Rollback-less, as hardware is:
// save_state/restore_state stay protocol violations.
//
// Start-up (constructor): Hello, then Configure when the scenario gives one; the
// description is the target's answer. setup → Initialize, evaluate_outputs →
// EvaluateOutputs, step → StepRequest with the inputs' polynomials and the
// requested sample times (so that a target reporting intermediate samples gives
// the executor the same evaluation grid as a local slave). Step requests are
// checked against the description before they leave. announce_step() sends a
// step request at once; step() then collects its answer (split phase), so the
// executor keeps several targets busy at the same time; announce_outputs() and
// evaluate_outputs() likewise for the evaluations of a feedthrough refresh.
// linearize → Linearize, answered by a Linearization at the current time
// (only for a target that describes can_linearize), awaited as evaluations are.
// Integer and Boolean ports travel beside the Real ones: the step request
// carries the held discrete inputs, its result the discrete outputs at its
// end, and the Ack of Initialize their start values (evaluate_discrete_outputs).
//
// Virtual time (default): every answer is awaited, with retransmission, until
// the link's peer timeout; results are exactly those of a local slave.
//
// Wall-clock mode (bind_wall_clock, docs/links.md): a result is awaited until the
// deadline of its communication time plus a tolerance. A result that misses it
// is recorded as missed and replaced under the declared policy — hold the last
// values, or extrapolate them linearly (discrete outputs are always held) — and
// the run aborts after more than max_consecutive_misses misses in a row (at the
// first with policy abort). With a target in real-time mode (its model runs on
// its own wall clock), step requests are input updates sent without
// acknowledgement, and the target pushes one result per communication time.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "drivers/link_client.hpp"
#include "drivers/linked_slave.hpp"
#include "drivers/missed_results.hpp"
#include "drivers/wall_clock.hpp"
#include "protocol/limits.hpp"

namespace couplet::drivers {

class RemoteSlave final : public LinkedSlave {
 public:
  /// `configure` may be null (a device used as it is). `process` (may be null:
  /// a target this master did not start) is watched while answers are awaited,
  /// kept alive as long as the proxy, and destroyed after the session has been
  /// stopped.
  RemoteSlave(std::string name, std::unique_ptr<Transport> transport,
              const couplet_wire_Configure* configure, const LinkPolicy& policy,
              std::shared_ptr<PeerProcess> process = {});
  ~RemoteSlave() override;

  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override;
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) override;
  void announce_outputs(std::span<const Polynomial> inputs) override;
  void announce_step(const StepRequest& request) override;
  void step(const StepRequest& request, const OutputBuffers& result) override;
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override;
  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override;
  LinkStepReport last_link_report() const override { return link_report_; }

  /// Wall-clock mode: deadlines from `clock` (which must outlive the proxy).
  /// `input_lateness` (optional) collects how late the target saw each input.
  void bind_wall_clock(const WallClock& clock, const WallClockPolicy& policy,
                       LatenessStatistics* input_lateness = nullptr) override;
  /// True when the target runs its model on its own wall clock.
  bool runs_in_real_time() const override { return realtime_target_; }
  /// Real-time targets: sends Start (the target's clock origin); then await_start().
  void send_start(double realtime_factor) override;
  void await_start() override;
  /// An unacknowledged liveness message (wall-clock mode, between cycles).
  void heartbeat() override { client_.send_heartbeat(); }

  const LinkCounters& counters() const override { return client_.counters(); }
  std::string link_name() const override { return client_.link_name(); }
  /// Most sample times one step request can carry over this link.
  std::size_t max_sample_times() const { return max_sample_times_; }

 private:
  void open_session(const couplet_wire_Configure* configure);
  void send_evaluation(std::span<const Polynomial> inputs);
  /// Waits for the answer to the request just sent, as every request at the
  /// current time is (retransmission, exactly-once, the peer timeout, the
  /// target's Error); its body must be `tag`, else inconsistent(`expected`).
  const protocol::Envelope& await_answer_now(pb_size_t tag, const char* activity, const char* expected);
  /// inconsistent() unless `answered` (the answer's `field`) is the current time.
  void expect_current_time(const char* field, const char* what, Time answered) const;
  void take_linearization(const couplet_wire_Linearization& body, std::span<double> linearization) const;
  void fill_step_request(const StepRequest& request);
  void send_step(const StepRequest& request);
  /// Wall-clock mode: waits (up to the peer timeout) for the answer to a step
  /// whose result missed its deadline, before anything else is sent.
  void settle_missed_step();
  void accept_result(const couplet_wire_StepResult& body, const StepRequest& request,
                     const OutputBuffers& result);
  /// The discrete outputs the target answered last, into `target`.
  void hold_discrete_outputs(std::span<std::int64_t> target) const;
  /// Before a request at the current time (`call`): set up, one polynomial per input.
  void check_evaluation(const char* call, std::span<const Polynomial> inputs) const;
  void take_end_outputs(const char* message, const char* field, std::uint32_t derivative_order,
                        std::span<const double> values, Time time, std::span<double> target) const;
  /// `message`.discrete_outputs: one per discrete output, Boolean ones 0 or 1;
  /// kept as the values the slave holds now.
  void take_discrete_outputs(const char* message, std::span<const std::int64_t> values);
  [[noreturn]] void inconsistent(const std::string& why) const;
  Deadline result_deadline(Time time) const;

  std::string name_;
  LinkClient client_;
  SlaveDescription description_;
  LinearizationLayout linearization_layout_;
  std::size_t max_sample_times_ = 0;
  bool realtime_target_ = false;
  Time current_time_ = 0;
  bool set_up_ = false;
  bool announced_ = false;  ///< a step request is on its way
  Time announced_end_ = 0;
  bool outputs_announced_ = false;  ///< an EvaluateOutputs request is on its way
  std::size_t announced_input_count_ = 0;
  std::array<Polynomial, protocol::kMaxPorts> announced_inputs_{};  ///< its inputs, checked when collected
  /// The discrete outputs the target answered last: held over a missed result.
  std::array<std::int64_t, protocol::kMaxPorts> discrete_outputs_{};
  std::uint64_t retransmissions_at_send_ = 0;  ///< counter when the latest step request left
  LinkStepReport link_report_;

  // Wall-clock mode.
  const WallClock* clock_ = nullptr;
  LatenessStatistics* input_lateness_ = nullptr;
  bool missed_step_pending_ = false;
  MissedResults missed_;  ///< wall-clock mode: stand-ins for late results

  std::shared_ptr<PeerProcess> process_;
};

}  // namespace couplet::drivers
