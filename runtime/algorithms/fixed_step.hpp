#pragma once
// What Jacobi and Gauss–Seidel share (DESIGN §4.1): a fixed communication step H,
// the last step clipped to end exactly at the end time, and inputs that are Taylor
// polynomials of order m of the sources' reported outputs (m = 0: ZOH).
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

  FixedStepSettings settings_;
  InputSources sources_;
  Time time_ = 0;  ///< the communication time all slaves have reached
  Time end_ = 0;
};

}  // namespace couplet
