#pragma once
// The time-stepper of F3ORNITS (F3ORNITS paper §3.2.1, eqs. 29–39;
// docs/references.md).
//
// After a step of a slave, each of its outputs compares the value it reached with
// the estimate it had sent (eqs. 33–35 numerator) and normalizes the difference:
//   Magnitude         tol_abs + tol_rel · |y⁽ⁿ⁺¹⁾|                          (eq. 33)
//   Amplitude         tol_abs + tol_rel · (max − min of all y⁽ᵐ⁾ so far)   (eq. 34)
//   Damped amplitude  tol_abs + tol_rel · (ᵈᵃᵐᵖmax − ᵈᵃᵐᵖmin)             (eqs. 35–36)
// The error of an estimate of degree p is of order p + 1 in the step (eq. 31), so
// the dilatation candidate is ρ_j = (1/err)^{1/(p+1)} (eq. 32; err = 0 gives
// ρ_max); the slave takes the safest, ρ = min_j ρ_j (eq. 37), within
// [ρ_min, ρ_max] (Remark 1), and proposes t⁽ⁿ⁺¹⁾ + ρ δt (eq. 38), within
// [min_step, max_step]. Slaves without outputs propose t_end (eq. 39).
//
// Ours: when the scheduler ended the last step earlier than proposed (to meet a
// neighbour, docs/f3ornits.md), the [ρ_min, ρ_max] bounds apply to the step the
// time-stepper had proposed, not to the shortened one; ρ itself still scales the
// step actually taken, which is the one the error was measured on. Without it a
// single short rendez-vous step would shrink every later step for long, since
// ρ_max = 1.05 lets a step grow by only 5 % at a time. Without clipping this is
// exactly eq. 38.
//
// Pure arithmetic: no clocks, no allocation.
#include <cstdint>
#include <limits>

namespace couplet {

enum class Normalization : std::uint8_t { magnitude, amplitude, damped_amplitude };

struct TimeStepperSettings {
  Normalization normalization = Normalization::damped_amplitude;
  double damping = 0.05;    ///< ν ≥ 0 in eq. 36, per second (0: the plain amplitude)
  double tol_rel = 1e-3;    ///< tol_rel > 0
  double tol_abs = 1e-6;    ///< tol_abs ≥ 0 (> 0 for the magnitude normalization)
  double rho_min = 0.1;     ///< 0 < ρ_min ≤ 1 (Remark 1)
  double rho_max = 1.05;    ///< ρ_max ≥ 1
  double min_step = 0.0;    ///< seconds; 0: one tick
  double max_step = std::numeric_limits<double>::infinity();  ///< seconds
};

/// Throws ConfigurationError naming the key ("algorithm.tol_rel: ...") of the first
/// setting out of range.
void check_time_stepper_settings(const TimeStepperSettings& settings);

/// The extreme values of one output that the amplitude normalizations divide by:
/// the plain running max/min (eq. 34) and the damped ones (eq. 36).
class OutputRange {
 public:
  /// y⁽⁰⁾: every bound starts there, α⁽⁰⁾ = 0.
  void start(double value);
  /// y⁽ᵐ⁾ after a step of δt⁽ᵐ⁻¹⁾ seconds (eq. 36):
  ///   ᵈᵃᵐᵖmax⁽ᵐ⁾ = max(y⁽ᵐ⁾, ᵈᵃᵐᵖmax⁽ᵐ⁻¹⁾ − ν δt⁽ᵐ⁻¹⁾/2 · α⁽ᵐ⁻¹⁾)
  ///   ᵈᵃᵐᵖmin⁽ᵐ⁾ = min(y⁽ᵐ⁾, ᵈᵃᵐᵖmin⁽ᵐ⁻¹⁾ + ν δt⁽ᵐ⁻¹⁾/2 · α⁽ᵐ⁻¹⁾)
  /// with α⁽ᵐ⁻¹⁾ = ᵈᵃᵐᵖmax⁽ᵐ⁻¹⁾ − ᵈᵃᵐᵖmin⁽ᵐ⁻¹⁾. The factor ν δt/2 is capped at 1/2
  /// so that a step longer than 1/ν makes the bounds meet rather than cross.
  void add(double value, double previous_step, double damping);

  double amplitude() const { return max_ - min_; }
  double damped_max() const { return damped_max_; }
  double damped_min() const { return damped_min_; }
  double damped_amplitude() const { return damped_max_ - damped_min_; }

 private:
  double max_ = 0.0;
  double min_ = 0.0;
  double damped_max_ = 0.0;
  double damped_min_ = 0.0;
};

/// One output's contribution to the time-stepper, for the run log.
struct OutputError {
  double error = 0.0;       ///< |y⁽ⁿ⁺¹⁾ − ŷ⁽ⁿ⁾(t⁽ⁿ⁺¹⁾)|
  double scale = 0.0;       ///< the denominator of eq. 33, 34 or 35
  double normalized = 0.0;  ///< error / scale
  double ratio = 0.0;       ///< ρ_j (eq. 32), before the bounds
};

/// Eqs. 32–35 for the newest value `value` of an output whose estimate of degree
/// `degree` predicted `estimate`; `range` must already include `value`.
OutputError measure_output(double value, double estimate, int degree, const OutputRange& range,
                           const TimeStepperSettings& settings);

struct StepProposal {
  double step = 0.0;   ///< δt̃⁽ⁿ⁺¹⁾ in seconds (eq. 38), after every bound
  double ratio = 0.0;  ///< step / the step actually taken
  bool limited = false;  ///< ρ_min, ρ_max, min_step or max_step changed ρ · δt
};

/// Eqs. 37–38 with Remark 1: `ratio` is min_j ρ_j, `actual_step` the step just
/// taken (> 0), `proposed_step` the step the time-stepper had proposed for it
/// (the bounds [ρ_min, ρ_max] apply to the larger of the two, see above).
StepProposal propose_step(double ratio, double actual_step, double proposed_step,
                          const TimeStepperSettings& settings);

}  // namespace couplet
