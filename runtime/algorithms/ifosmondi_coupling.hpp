#pragma once
// The coupling problem of one IFOSMONDI macro step (IFOSMONDI-JFM paper §3;
// docs/references.md): unknowns, input polynomials, first iterate, residual, convergence.
//
// On τ = [t⁽ᴺ⁾, t⁽ᴺ⁺¹⁾] the unknowns are the values and time derivatives of the
// coupled inputs at t⁽ᴺ⁺¹⁾, x = (ũ, u̇̃) ∈ R²ⁿ (n coupled inputs, in slave then
// input order). Each input is the cubic Hermite polynomial whose value and
// derivative at t⁽ᴺ⁾ are those the previous step ended with (C¹, eq. 18) and whose
// value and derivative at t⁽ᴺ⁺¹⁾ are x (eq. 22). On the first step there is no
// derivative at t⁽⁰⁾ (§3.1.3): the quadratic through u⁽ⁱⁿⁱᵗ⁾ at t⁽⁰⁾ and x at t⁽¹⁾.
// After every slave stepped over τ, Ψ(x) = (Φᵀy, Φᵀẏ)(t⁽ᴺ⁺¹⁾) (eq. 25) and the
// residual is γ(x) = x − Ψ(x) (eq. 24).
//
// "Given" inputs (a composite slave's own inputs) are not unknowns: their
// polynomials come from outside, from the outputs of one designated source slave,
// and are handed to their targets as they are.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"

namespace couplet {

/// Inputs fed by `source_slave` take `polynomials[output port]` as they are.
struct GivenInputs {
  std::size_t source_slave = 0;
  std::span<const Polynomial> polynomials;
};

/// Where a step of the coupled inputs starts: values and derivatives at t⁽ᴺ⁾ (eq. 18)
/// and the source outputs there (for finite-difference derivatives).
struct CouplingStart {
  std::vector<double> values;
  std::vector<double> derivatives;
  std::vector<double> source_outputs;
  bool has_derivatives = false;  ///< false at the first step (§3.1.3)
};

class IfosmondiCoupling {
 public:
  IfosmondiCoupling() = default;
  /// `given` (optional) names the outside's stand-in slave; every other input is coupled.
  IfosmondiCoupling(const System& system, std::optional<GivenInputs> given);

  std::size_t input_count() const { return coupled_.size(); }
  std::size_t unknown_count() const { return 2 * coupled_.size(); }
  /// The slaves the algorithm steps: all but the outside's stand-in.
  std::span<const std::size_t> stepped_slaves() const { return stepped_slaves_; }

  /// u⁽ⁱⁿⁱᵗ⁾ = Φᵀy(t⁽⁰⁾) from the consistent initial outputs; no derivative (§3.1.3).
  void start(std::span<const StepSlot> slots);

  /// The first iterate of a step (eq. 20): the quadratic with the start value and
  /// derivative and ũ(t⁽ᴺ⁺¹⁾) = ũ(t⁽ᴺ⁾) has u̇(t⁽ᴺ⁺¹⁾) = −u̇(t⁽ᴺ⁾), so x⁰ = (u_N, −u̇_N);
  /// its Hermite polynomial (eq. 22) is that quadratic. First step: x⁰ = (u_init, 0),
  /// the constant (§3.1.3).
  void first_iterate(std::span<double> x) const;

  /// Requests for every stepped slave over [from, to]: coupled inputs meeting x at
  /// `to` (eqs. 18, 22), given inputs as they are, and as sample times those of
  /// `samples` (increasing) inside (from, to] for slaves that report samples.
  void prepare_step(std::span<StepSlot> slots, Time from, Time to, std::span<const double> x,
                    std::span<const Time> samples = {}) const;
  /// Same, from another start (replaying a step of the past).
  void prepare_step(std::span<StepSlot> slots, Time from, Time to, std::span<const double> x,
                    const CouplingStart& start, std::span<const Time> samples) const;

  /// Ψ(x) after the step over [from, to] (eq. 25). ẏ comes from the source's reported
  /// derivative, or else the finite difference over the macro step (§2.6, as in the
  /// original IFOSMONDI): (y(t⁽ᴺ⁺¹⁾) − y(t⁽ᴺ⁾)) / δt. A higher-order formula through a
  /// midpoint sample of the Hermite input would tie ẏ(t⁽ᴺ⁺¹⁾) to u̇(t⁽ᴺ⁾) (with weight
  /// −1 for the 3-point one): a recursion across steps that a loop gain above 1
  /// amplifies. The plain secant does not depend on u̇(t⁽ᴺ⁾).
  void gather(std::span<const StepSlot> slots, Time from, Time to, std::span<double> psi) const;

  /// Inputs for re-evaluating outputs at the current communication time (no time
  /// passes): coupled inputs as their Taylor polynomial of the step start (u_N, u̇_N),
  /// or before the first step the sources' current outputs; given inputs as they are.
  void prepare_output_refresh(std::span<StepSlot> slots, Time now, bool started) const;

  /// The step converged with x and Ψ(x): the next one starts from x (C¹, eq. 18).
  void advance(std::span<const double> x, std::span<const double> psi);

  /// "slave.input (value)" or "slave.input (derivative)" for unknown k, in messages.
  std::string unknown_name(std::size_t k) const;

  const CouplingStart& start_state() const { return start_; }
  void restore_start_state(const CouplingStart& state) { start_ = state; }

 private:
  struct CoupledInput {
    std::size_t slave = 0;
    std::size_t input = 0;
    PortReference source;
  };
  struct GivenInput {
    std::size_t slave = 0;
    std::size_t input = 0;
    std::size_t port = 0;  ///< index into the given polynomials
  };

  Polynomial coupled_polynomial(std::size_t k, Time from, Time to, std::span<const double> x,
                                const CouplingStart& start) const;

  std::vector<CoupledInput> coupled_;
  std::vector<std::string> coupled_names_;  ///< "slave.input" of every coupled input
  std::vector<GivenInput> given_;
  std::span<const Polynomial> given_polynomials_;
  std::vector<std::size_t> stepped_slaves_;
  std::vector<int> derivative_order_;  ///< per slave: output derivatives it reports
  std::vector<bool> reports_samples_;  ///< per slave: intermediate samples
  CouplingStart start_;
};

/// ‖v‖₂.
double euclidean_norm(std::span<const double> values);

/// γ = x − Ψ(x) (eq. 24).
void coupling_residual(std::span<const double> x, std::span<const double> psi, std::span<double> gamma);

/// Right-hand side of eq. 27: ‖x‖ ε_rel + ‖(1, …, 1)‖ ε_abs (Euclidean norms).
double convergence_threshold(std::span<const double> x, double absolute_tolerance, double relative_tolerance);

/// The convergence test of one evaluation. Eq. 27 weighs every unknown by ‖x‖: the
/// unknowns mix units and scales (positions, speeds, forces and their derivatives),
/// and one large unknown loosens the test for all the others. A car's speed
/// controller coupled to the car (its force reads the derivative of the position
/// input) has a force derivative of 10⁶ N/s on the first iterates, so eq. 27 passed
/// with 12 m/s left on the speed unknown (12.8 kN of force instead of 3.1 kN). The
/// test therefore holds each unknown to its own tolerance, as SUNDIALS' weighted norms
/// do: |γ_k| < ε_rel |x_k| + ε_abs for every k, which implies eq. 27 (triangle
/// inequality) — eq. 27's ‖γ‖ and threshold stay the figures the run log records.
struct ConvergenceTest {
  double residual = 0.0;   ///< ‖γ‖₂
  double threshold = 0.0;  ///< ‖x‖₂ ε_rel + ‖(1, …, 1)‖₂ ε_abs (eq. 27)
  std::size_t worst_unknown = 0;  ///< the k of the largest |γ_k| / (ε_rel |x_k| + ε_abs)
  double worst_residual = 0.0;    ///< |γ_k| there
  double worst_tolerance = 0.0;   ///< ε_rel |x_k| + ε_abs there
  /// True when every unknown is within its own tolerance.
  bool converged() const { return worst_residual < worst_tolerance; }
};

/// Tests x and γ = x − Ψ(x) (same size); no allocation.
ConvergenceTest test_convergence(std::span<const double> x, std::span<const double> gamma, double absolute_tolerance,
                                 double relative_tolerance);

}  // namespace couplet
