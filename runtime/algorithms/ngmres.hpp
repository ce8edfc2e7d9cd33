#pragma once
// IFOSMONDI-JFM with nonlinear GMRES (N-GMRES): the third Jacobian-free solver the
// IFOSMONDI-JFM paper ran ("Ngmres", with and without line search, §5 and appendix A),
// next to Newton–Krylov and Anderson (ifosmondi_jfm.hpp). Scenario: `type:
// ifosmondi_jfm, solver: ngmres`.
//
// N-GMRES (Washio & Oosterlee; Oosterlee & Washio, "Krylov subspace acceleration of
// nonlinear multigrid with application to recirculating flows", SIAM J. Sci. Comput.
// 21 (2000), doi:10.1137/S1064827598338093; in the form of De Sterck, "Steepest
// descent preconditioning for nonlinear GMRES optimization", Numer. Linear Algebra
// Appl. 20 (2013), doi:10.1002/nla.883) accelerates a one-step method — here the
// fixed point x ↦ Ψ(x) = x − γ(x) of eq. 26 — with the last m iterates x_j and their
// residuals γ_j = γ(x_j). Iteration k:
//   I    candidate  x̄ = Ψ(x_k) = x_k − γ_k (no evaluation: γ_k is known), then γ̄ = γ(x̄);
//   II   combination  x̂ = x̄ + Σ_j α_j (x̄ − x_j), α minimising the linearised residual
//        ‖γ̄ + Σ_j α_j (γ̄ − γ_j)‖₂ over the window (for an affine γ: exactly γ(x̂));
//   III  the next iterate, a point of the line through x̄ and x̂. Without line search: x̂.
//        With line search: x̂ when it reduces ‖γ_k‖ by 10 % at least; else x̄ when x̂
//        is worse than it (the combination failed; no evaluation needed); else —
//        stagnation, x̂ ≈ x_k, whose candidate would repeat this one's direction, the
//        breakdown of residual-based Krylov methods — the point
//        x̂ + β (x̄ − x̂), β = min(1, ‖γ_k‖ / ‖γ̄ − γ(x̂)‖), a step toward x̄ of the size
//        of ‖γ_k‖ in the linear model, which gives the next candidate a new direction.
// So an iteration evaluates γ twice (x̄ and x̂), three times on stagnation. Eq. 27 is
// tested on every evaluation by the caller (ifosmondi_algorithm.hpp): the attempt may
// end on a candidate. On the damper test case at radius 10 the plain N-GMRES stagnates
// on the first step and fails, the line search converges — as in the paper (§5).
//
// The least-squares problem (m ≤ 30 unknowns) is solved in normal form on the m × m
// Gram matrix of the column-scaled residual differences with a truncated SVD, as
// PETSc's SNESNGMRES (the implementation the paper ran) does with LAPACK's gelss; the
// matrices have a fixed upper size, so nothing is allocated after construction. The
// arithmetic depends only on the residuals handed in, in a fixed order: the same
// residuals give the same iterates bit for bit (`couplet replay --verify`), and no
// replay of the solver is needed (unlike KINSOL's, kinsol_replay.hpp).
#include <cstddef>
#include <memory>

#include "runtime/algorithms/ifosmondi_algorithm.hpp"

namespace couplet {

/// The most iterates N-GMRES combines (PETSc's default m).
inline constexpr int kMaxNgmresWindow = 30;
/// Line search: evaluations after the candidate's, at most (x̂, a step toward x̄).
inline constexpr int kNgmresLineSearchTrials = 2;

struct NgmresSettings {
  int window = 5;           ///< m: previous iterates combined, clipped to the number of unknowns
  bool line_search = true;  ///< step III chooses on the line through x̄ and x̂
};

/// The N-GMRES solver of one step attempt over `unknowns` unknowns (> 0), at most
/// `max_iterations` iterations per attempt.
std::unique_ptr<CouplingSolver> make_ngmres_solver(std::size_t unknowns,
                                                   const NgmresSettings& settings,
                                                   int max_iterations);

/// `iterations` counts N-GMRES iterations (each begins with its candidate);
/// `integrations` every evaluation of γ.
class IfosmondiNgmres final : public IfosmondiAlgorithm {
 public:
  IfosmondiNgmres(const IfosmondiSettings& settings, const NgmresSettings& ngmres);
  std::string_view name() const override { return "ifosmondi_jfm"; }
  const NgmresSettings& ngmres_settings() const { return ngmres_; }

 protected:
  std::unique_ptr<CouplingSolver> make_solver(std::size_t unknowns) override;
  int max_evaluations(std::size_t unknowns) const override;

 private:
  NgmresSettings ngmres_;
};

}  // namespace couplet
