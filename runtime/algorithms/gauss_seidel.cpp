#include "runtime/algorithms/gauss_seidel.hpp"

namespace couplet {

bool GaussSeidel::plan_next(std::span<StepSlot> slots, Plan& plan) {
  if (plan_output_refresh(slots, plan)) return true;
  if (time_ >= end_) return false;
  prepare_step(next_slave_, slots, time_, step_end(time_));
  plan.add(next_slave_);
  return true;
}

void GaussSeidel::accept(std::span<const StepSlot> slots, const Plan& plan) {
  record_history(slots, plan);
  if (is_refresh(plan)) return;
  if (++next_slave_ == slots.size()) {
    next_slave_ = 0;
    time_ = step_end(time_);
    request_output_refresh();
  }
}

}  // namespace couplet
