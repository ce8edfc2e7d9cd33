#include "runtime/algorithms/ifosmondi_step_control.hpp"

#include <algorithm>
#include <string>

#include "couplet/errors.hpp"

namespace couplet {

IfosmondiStepControl::IfosmondiStepControl(Time reference_step, Time min_step)
    : reference_step_(reference_step), min_step_(min_step), step_(reference_step) {
  if (reference_step <= 0) throw ConfigurationError("algorithm.step (δt_ref) must be positive");
  if (min_step <= 0 || min_step > reference_step) {
    throw ConfigurationError("algorithm.min_step must be positive and at most algorithm.step (" +
                             std::to_string(to_seconds(reference_step)) + " s)");
  }
}

void IfosmondiStepControl::converged() { step_ = std::min(step_ + (3 * step_) / 10, reference_step_); }

bool IfosmondiStepControl::halve(Time attempted) {
  const Time half = attempted / 2;
  if (half < min_step_) return false;
  step_ = half;
  return true;
}

}  // namespace couplet
