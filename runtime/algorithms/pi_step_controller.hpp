#pragma once
// The PI step-size controller of Glumac & Kovačić 2023, eq. 39 (after Gustafsson,
// Lundh & Söderlind), on the logarithm of the controlled defect ε (eq. 38):
//
//   e_k = ln tol − ln max(ε_k, 10⁻¹⁶)
//   I_k = I_{k−1} + K_I e_k,        H̄ = exp(I_k + K_P e_k)
//   H_{k+1} = min(H̄, θ_max H_k), then within [H_min, H_max]
//   I_k ← I_k + ln H_{k+1} − ln H̄   (anti-windup)
//   I_0 = ln H₁.
//
// No step is ever rejected: a hardware slave cannot roll back (docs/defect-control.md), so the
// controller only chooses the next step. Pure arithmetic on its inputs: no clocks,
// no allocation.
#include <limits>

namespace couplet {

struct PiStepControllerSettings {
  double tolerance = 0.0;                   ///< tol, the defect to hold
  double initial_step = 0.0;                ///< H₁ in seconds; I₀ = ln H₁
  double proportional_gain = 0.13;          ///< K_P
  double integral_gain = 1.0 / 15.0;        ///< K_I
  double max_growth = 2.0;                  ///< θ_max: H_{k+1} ≤ θ_max H_k
  double min_step = 0.0;                    ///< H_min in seconds (0: no bound)
  double max_step = std::numeric_limits<double>::infinity();  ///< H_max in seconds
};

/// One evaluation of eq. 39: what the run log records as controller state.
struct PiStepDecision {
  double error_log = 0.0;       ///< e_k
  double unlimited_step = 0.0;  ///< H̄ = exp(I_k + K_P e_k), before θ_max and the bounds
  double step = 0.0;            ///< H_{k+1}, after them
  double integral = 0.0;        ///< I_k after anti-windup
  bool limited = false;         ///< θ_max, H_min or H_max changed H̄
};

class PiStepController {
 public:
  /// Defects below this floor count as the floor, so that a step with no defect at
  /// all (ε = 0) gives a finite e_k.
  static constexpr double kDefectFloor = 1e-16;
  static constexpr double kDefectCeiling = 1e300;

  /// Throws ConfigurationError naming the algorithm key (algorithm.tol, ...) of a bad setting.
  explicit PiStepController(const PiStepControllerSettings& settings);

  /// The next step size after a step of `previous_step` seconds (> 0) with defect
  /// ε = `defect`. Without H_min the proposal may be as small as a double allows;
  /// the caller rounds it to its time resolution.
  PiStepDecision next(double defect, double previous_step);

  double integral() const { return integral_; }
  const PiStepControllerSettings& settings() const { return settings_; }

 private:
  PiStepControllerSettings settings_;
  double log_tolerance_;
  double integral_;  ///< I, in ln(seconds)
};

}  // namespace couplet
