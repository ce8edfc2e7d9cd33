#pragma once
// Classical IFOSMONDI (papers/ifosmondi-jfm.txt §3.2.1, eqs. 25–26; DESIGN §4.4): the
// coupling of every macro step solved by the fixed-point iteration x ← Ψ(x) on the
// values and derivatives of the inputs at the step end. It converges when Ψ is a
// contraction (spectral radius of J_Ψ below 1; for the damper test case √(D_SD/D_D),
// eq. 34) and fails cleanly otherwise (ifosmondi_algorithm.hpp).
//
// As in the paper (§5.3), one iteration is one integration: `iterations` counts every
// evaluation of Ψ, the first iterate included.
#include "runtime/algorithms/ifosmondi_algorithm.hpp"

namespace couplet {

class Ifosmondi final : public IfosmondiAlgorithm {
 public:
  explicit Ifosmondi(const IfosmondiSettings& settings) : IfosmondiAlgorithm(settings) {}
  std::string_view name() const override { return "ifosmondi"; }

 protected:
  std::unique_ptr<CouplingSolver> make_solver(std::size_t unknowns) override;
  // The solver stops at max_iterations first, with its own message.
  int max_evaluations(std::size_t) const override { return settings().max_iterations + 1; }
};

}  // namespace couplet
