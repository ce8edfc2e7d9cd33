#include "runtime/algorithms/jacobi.hpp"

namespace couplet {

bool Jacobi::plan_next(std::span<StepSlot> slots, Plan& plan) {
  if (plan_output_refresh(slots, plan)) return true;
  if (time_ >= end_) return false;
  const Time to = step_end(time_);
  // All inputs first: they must see the outputs at t, before any slave steps.
  for (std::size_t s = 0; s < slots.size(); ++s) {
    prepare_step(s, slots, time_, to);
    plan.add(s);
  }
  return true;
}

void Jacobi::accept(std::span<const StepSlot> slots, const Plan& plan) {
  record_history(slots, plan);
  if (is_refresh(plan)) return;
  time_ = step_end(time_);
  request_output_refresh();
}

}  // namespace couplet
