#pragma once
// IFOSMONDI-JFM (IFOSMONDI-JFM paper §3–4; docs/references.md): the coupling of every
// macro step, γ(x) = x − Ψ(x) = 0 on the values and derivatives of the inputs at the
// step end (that paper's eq. 24), solved by a Jacobian-free method of SUNDIALS KINSOL:
// Newton–Krylov
// with line search (the paper's NewtonLS), fixed point with Anderson acceleration (its
// Anderson), or plain fixed point (classical IFOSMONDI run through KINSOL). Unlike the
// fixed point, Newton and Anderson also converge when Ψ is not a contraction.
//
// KINSOL runs by replay (kinsol_replay.hpp) so that the algorithm stays a planner.
// `iterations` counts KINSOL's nonlinear iterations (Newton: up to the iteration whose
// evaluation converged; fixed point/Anderson: completed updates); `integrations`
// counts every evaluation of γ, Krylov products and line-search trials included.
#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/algorithms/kinsol_replay.hpp"

namespace couplet {

struct IfosmondiJfmSettings {
  IfosmondiSettings coupling;
  KinsolSettings kinsol;  ///< kinsol.max_iterations is set from coupling.max_iterations
};

class IfosmondiJfm final : public IfosmondiAlgorithm {
 public:
  explicit IfosmondiJfm(const IfosmondiJfmSettings& settings);
  std::string_view name() const override { return "ifosmondi_jfm"; }
  KinsolMethod method() const { return kinsol_.method; }

 protected:
  std::unique_ptr<CouplingSolver> make_solver(std::size_t unknowns) override;
  int max_evaluations(std::size_t unknowns) const override;

 private:
  KinsolSettings kinsol_;
};

/// "newton", "anderson", "fixed_point".
const char* kinsol_method_name(KinsolMethod method);

}  // namespace couplet
