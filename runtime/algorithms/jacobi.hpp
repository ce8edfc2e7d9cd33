#pragma once
// Jacobi at fixed step (docs/algorithms.md): every slave steps over [t, t+H] with inputs
// extrapolated from the outputs all slaves reported at t; the slaves of one step
// are independent, so a plan holds them all and they may run concurrently.
// "NI Jacobi" in the papers is this with ZOH inputs.
#include "runtime/algorithms/fixed_step.hpp"

namespace couplet {

class Jacobi final : public FixedStepAlgorithm {
 public:
  using FixedStepAlgorithm::FixedStepAlgorithm;
  std::string_view name() const override { return "jacobi"; }
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
};

}  // namespace couplet
