#pragma once
// Step size control of IFOSMONDI (IFOSMONDI-JFM paper §3.4, eq. 28;
// docs/references.md).
// The adaptation is not error based: it follows whether the iteration converged.
//   converged:  the next step is 30 % longer, never longer than δt_ref;
//   failed:     the same step is retried on its first half, never shorter than
//               min_step (below it the run ends: the caller reports the failure).
// Eq. 28 as printed says max{δt_ref, 1.3 δt}; the text ("tries to increase the size
// of 30 %, without exceeding δt_ref") mean min{…}, which we do.
//
// Sizes are integer ticks (include/couplet/time.hpp), and the arithmetic is integer, so the
// schedule is exact. Clipping a step to the end of the run (or of a composite
// slave's outer step) does not shrink the controller's step: that is not a sign of
// convergence trouble.
#include "couplet/time.hpp"

namespace couplet {

class IfosmondiStepControl {
 public:
  IfosmondiStepControl() = default;
  /// Both > 0, min_step <= reference_step; the first step is δt_ref.
  IfosmondiStepControl(Time reference_step, Time min_step);

  /// The size to try for the next step.
  Time step() const { return step_; }
  Time reference_step() const { return reference_step_; }
  Time min_step() const { return min_step_; }

  /// Convergence: δt ← min(δt + 30 %, δt_ref).
  void converged();
  /// Failure of a step of size `attempted` (possibly clipped): δt ← attempted / 2.
  /// Returns false, leaving the step unchanged, when that is below min_step.
  bool halve(Time attempted);

  /// For a composite slave's rollback: the controller as it was.
  void restore(Time step) { step_ = step; }

 private:
  Time reference_step_ = 1;
  Time min_step_ = 1;
  Time step_ = 1;
};

}  // namespace couplet
