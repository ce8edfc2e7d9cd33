#pragma once
// The polynomial inputs of a macro step from its end constraints (MISSILES,
// doi:10.1016/j.cam.2022.115013, eqs. 35, 54, 55), in local time τ ∈ [0, δt]:
// u(τ) = Σ_{p=0}^{3} ξ_p τᵖ with ξ_p = W(p,0) u(0) + W(p,1) u̇(0) + W(p,2) û + W(p,3) u̇̂,
// where û, u̇̂ are the input value and derivative at the step end. Every input
// uses the same weights W, so the coupled problem stays linear in (û, u̇̂).
#include <Eigen/Dense>

namespace couplet::missiles {

/// Cubic Hermite interpolation (eq. 54): value and derivative at both ends, so
/// the inputs are C¹ across communication times.
inline Eigen::Matrix4d hermite_weights(double step) {
  const double h = step, h2 = step * step, h3 = h2 * step;
  Eigen::Matrix4d w;
  //      u(0)      u̇(0)      û          u̇̂
  w << 1.0,        0.0,      0.0,       0.0,       // ξ₀
       0.0,        1.0,      0.0,       0.0,       // ξ₁
       -3.0 / h2,  -2.0 / h, 3.0 / h2,  -1.0 / h,  // ξ₂
       2.0 / h3,   1.0 / h2, -2.0 / h3, 1.0 / h2;  // ξ₃
  return w;
}

/// First step (eq. 55): no derivative is known at the start, so a quadratic
/// through u(0) with value and derivative û, u̇̂ at the end.
inline Eigen::Matrix4d first_step_weights(double step) {
  const double h = step, h2 = step * step;
  Eigen::Matrix4d w;
  w << 1.0,       0.0, 0.0,       0.0,       // ξ₀
       -2.0 / h,  0.0, 2.0 / h,   -1.0,      // ξ₁
       1.0 / h2,  0.0, -1.0 / h2, 1.0 / h,   // ξ₂
       0.0,       0.0, 0.0,       0.0;       // ξ₃
  return w;
}

}  // namespace couplet::missiles
