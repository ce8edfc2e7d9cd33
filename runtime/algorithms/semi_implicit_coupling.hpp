#pragma once
// The structure and the linear algebra of the semi-implicit co-simulation scheme
// (B. Schweizer, D. Lu, "Semi-implicit co-simulation approach for solver
// coupling", Archive of Applied Mechanics 84(12), 2014; as summarised in
// J. Kraft, B. Schweizer, "Reduction of Computation Time by Parallelization and
// Incorporating Co-Simulation Techniques", §2.4), made generic over a system:
//
//   coupling slaves  no state (state_count 0), inputs, every output with direct
//                    feedthrough: λ = f(u), the coupling condition g = λ − f(u) = 0
//                    of eq. 3; they must linearize (the D row ∂f/∂u of eq. 5; a
//                    slave that cannot, with feedthrough on every output, is
//                    taken for one and refused);
//   subsystems       every other slave; they must save and restore their state,
//                    and each of their inputs must be fed by a coupling output,
//                    or be held from an Integer output (set by the executor,
//                    no λ).
// Every input of a coupling slave must be fed by a subsystem's Real output.
//
// Eq. 4 / eq. 5, generalised: one scalar unknown per coupling output λ_l.
// All coupling inputs of all subsystems are perturbed at once by Δλ (as the
// paper does), so each subsystem output u_i gives one finite difference
// s_i = (u_i^Δ − u_i^p)/Δλ (eq. 4), the response to every λ reaching its
// subsystem. Coupling output l of slave c then has the linearized condition
//   λ − f_l(u^p) − J_l (λ − λ^p) = 0,   J_l = Σ_i D_c[l, i] s_i           (eq. 5)
// solved as λ^c_l = λ^p_l + (f_l(u^p) − λ^p_l) / (1 − J_l). For the chain (one
// λ feeding the left segment's force_right and the right segment's force_left,
// inputs x, v of both coupling bodies) this is eq. 5 term by term; with several
// outputs per coupling slave or one output feeding several subsystems, each
// λ_l is solved on its own (a diagonal, Jacobi-type treatment of the coupled
// linear system), the cross-sensitivities entering only through the joint
// perturbation.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

class SemiImplicitCoupling {
 public:
  SemiImplicitCoupling() = default;
  /// Classifies the slaves; throws ConfigurationError naming the slave or the
  /// input that breaks the rules above.
  SemiImplicitCoupling(const System& system, std::string_view algorithm);

  std::span<const std::size_t> subsystems() const { return subsystems_; }
  std::span<const std::size_t> couplings() const { return couplings_; }
  const InputSources& sources() const { return sources_; }

  /// The coupling outputs λ_l, in slave then output order.
  std::size_t lambda_count() const { return lambdas_.size(); }
  PortReference lambda(std::size_t l) const { return lambdas_[l]; }
  /// The λ feeding input `input` of subsystem slave `slave`.
  std::size_t lambda_of_input(std::size_t slave, std::size_t input) const {
    return input_lambda_[slave][input];
  }

  /// Coupling inputs, flattened: coupling slave couplings()[k] owns
  /// [input_begin(k), input_begin(k) + its input count).
  std::size_t coupling_input_count() const { return coupling_input_begin_.back(); }
  std::size_t input_begin(std::size_t coupling) const { return coupling_input_begin_[coupling]; }

  /// The subsystem outputs feeding the coupling inputs, read from `slots`.
  void gather_inputs(std::span<const StepSlot> slots, std::span<double> values) const;

  /// J_l of eq. 5 for every λ from the D rows of the couplings' linearizations and
  /// the finite differences of eq. 4.
  void slopes(std::span<const StepSlot> slots, std::span<const double> predicted_inputs,
              std::span<const double> perturbed_inputs, double perturbation,
              std::span<double> slope) const;

  std::string lambda_name(const System& system, std::size_t l) const {
    return system.output_name(lambdas_[l]);
  }

 private:
  InputSources sources_;
  std::vector<std::size_t> subsystems_;
  std::vector<std::size_t> couplings_;
  std::vector<PortReference> lambdas_;
  std::vector<std::size_t> lambda_begin_;               ///< per coupling: its first λ
  std::vector<std::vector<std::size_t>> input_lambda_;  ///< [slave][input]: λ index (subsystems)
  std::vector<std::size_t> coupling_input_begin_{0};
  std::vector<LinearizationLayout> layouts_;  ///< per coupling
};

/// λ^c = λ^p + (f − λ^p)/(1 − J) (eq. 5); false when 1 − J is zero or the result
/// is not finite.
bool solve_linearized_coupling(double predicted, double evaluated, double slope, double& corrected);

}  // namespace couplet
