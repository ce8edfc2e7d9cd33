#pragma once
// What Jacobi and Gauss–Seidel share (DESIGN §4.1): a fixed communication step H,
// the last step clipped to end exactly at the end time, inputs that are Taylor
// polynomials of order m of the sources' reported outputs (m = 0: ZOH), and
// outputs made consistent at every communication time: after a round of steps,
// slaves with direct-feedthrough outputs re-evaluate them from the fresh outputs
// of their sources, as an FMI master does by setting inputs before reading
// outputs. Without it, a feedthrough output would be reported with the input
// extrapolated from the previous communication time.
#include "runtime/algorithm.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

struct FixedStepSettings {
  Time step = 0;         ///< H, in ticks
  int input_order = 0;   ///< m: 0 = ZOH, k = Taylor polynomial of order k
};

class FixedStepAlgorithm : public Algorithm {
 public:
  explicit FixedStepAlgorithm(const FixedStepSettings& settings);
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;

 protected:
  /// End of the macro step that starts at `time`.
  Time step_end(Time time) const { return std::min(time + settings_.step, end_); }
  void prepare_step(std::size_t slave, std::span<StepSlot> slots, Time from, Time to) const;

  /// Plans one pass of feedthrough re-evaluation if one is pending.
  bool plan_output_refresh(std::span<StepSlot> slots, Plan& plan);
  /// After a round of steps: one pass per feedthrough slave settles any chain.
  void request_output_refresh() { refresh_passes_left_ = feedthrough_slaves_.size(); }
  static bool is_refresh(const Plan& plan) {
    return !plan.empty() && plan.actions().front().action == SlaveAction::evaluate_outputs;
  }

  FixedStepSettings settings_;
  InputSources sources_;
  Time time_ = 0;  ///< the communication time all slaves have reached
  Time end_ = 0;
  std::vector<std::size_t> feedthrough_slaves_;  ///< slaves with inputs and a feedthrough output
  std::size_t refresh_passes_left_ = 0;
};

}  // namespace couplet
