#pragma once
// Classical IFOSMONDI (IFOSMONDI-JFM paper §3.2.1, eqs. 25–26;
// docs/references.md): the
// coupling of every macro step solved by the fixed-point iteration x ← Ψ(x) on the
// values and derivatives of the inputs at the step end. It converges when Ψ is a
// contraction (spectral radius of J_Ψ below 1; for the damper test case √(D_SD/D_D),
// eq. 34) and fails cleanly otherwise (ifosmondi_algorithm.hpp).
//
// As in the paper (§5.3), one iteration is one integration: `iterations` counts every
// evaluation of Ψ, the first iterate included.
//
// Iteration budget. Near the end of its convergence the fixed point reduces ‖γ‖ by the
// spectral radius ρ per iteration, so from ‖γ_k‖ it needs about
// log(threshold / ‖γ_k‖) / log ρ more iterations — 100 and more for ρ ≈ 0.9, beyond a
// fixed budget of 50. With IfosmondiSettings::iteration_cap set (the scenario default
// when max_iterations is not given), an attempt that reaches max_iterations while
// still contracting measures ρ over its last iterations and goes on for that many
// iterations plus a margin, as long as the total stays within the cap; otherwise (and
// always with an explicit max_iterations) it fails with a message naming the measured
// rate and the iterations the tolerance would need.
#include <algorithm>

#include "runtime/algorithms/ifosmondi_algorithm.hpp"

namespace couplet {

/// The most evaluations an attempt of the fixed point may take when its budget is
/// sized from the measured contraction (scenarios without max_iterations).
inline constexpr int kFixedPointIterationCap = 1000;

/// The fixed-point iterations that reach `threshold` from the residual norm
/// `residual` after `done` iterations, at the contraction rate `rate` (< 1):
/// done + ⌈log(threshold / residual) / log rate⌉.
int fixed_point_iterations_needed(int done, double residual, double threshold, double rate);

class Ifosmondi final : public IfosmondiAlgorithm {
 public:
  explicit Ifosmondi(const IfosmondiSettings& settings) : IfosmondiAlgorithm(settings) {}
  std::string_view name() const override { return "ifosmondi"; }

 protected:
  std::unique_ptr<CouplingSolver> make_solver(std::size_t unknowns) override;
  // The solver stops at its budget first, with its own message.
  int max_evaluations(std::size_t) const override {
    return std::max(settings().max_iterations, settings().iteration_cap) + 1;
  }
};

}  // namespace couplet
