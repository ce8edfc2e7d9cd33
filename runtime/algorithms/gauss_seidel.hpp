#pragma once
// Gauss–Seidel at fixed step (docs/algorithms.md): slaves step one after the other in
// the scenario's order; a slave whose source has already stepped uses the source's
// new outputs at t+H (as a Taylor polynomial around t+H), the others the outputs
// at t. One plan per slave, since each depends on the previous one.
#include "runtime/algorithms/fixed_step.hpp"

namespace couplet {

class GaussSeidel final : public FixedStepAlgorithm {
 public:
  using FixedStepAlgorithm::FixedStepAlgorithm;
  std::string_view name() const override { return "gauss_seidel"; }
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;

 private:
  std::size_t next_slave_ = 0;
};

}  // namespace couplet
