// The pieces of an IFOSMONDI macro step (IFOSMONDI-JFM paper §3,
// docs/references.md): Hermite
// inputs (eqs. 18, 22), the first step's quadratic (§3.1.3), the first iterate
// (eq. 20), Ψ with finite-difference derivatives (§2.6), the residual (eq. 24), the
// convergence test (eq. 27) and the step control (eq. 28).
#include <gtest/gtest.h>

#include <cmath>

#include "ifosmondi_test_slaves.hpp"
#include "runtime/algorithms/ifosmondi_coupling.hpp"
#include "runtime/algorithms/ifosmondi_step_control.hpp"

namespace couplet::testing {
namespace {

/// Slots for the gain pair as the executor sizes them.
std::vector<StepSlot> slots_for(const System& system) {
  std::vector<StepSlot> slots(system.slave_count());
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const SlaveDescription& description = system.description(s);
    slots[s].inputs.assign(description.inputs.size(), Polynomial{});
    slots[s].output_count = description.outputs.size();
    slots[s].output_derivative_order = description.capabilities.output_derivative_order;
    slots[s].outputs.assign(static_cast<std::size_t>(slots[s].output_derivative_order + 1) * slots[s].output_count, 0.0);
  }
  return slots;
}

struct Pair {
  System system = loop_of(std::make_unique<GainSlave>(2.0, 1.0), std::make_unique<GainSlave>(0.5, 0.0, false));
  std::vector<StepSlot> slots = slots_for(system);
  IfosmondiCoupling coupling{system, std::nullopt};
};

TEST(IfosmondiCoupling, UnknownsAreValuesThenDerivativesOfEveryCoupledInput) {
  Pair pair;
  EXPECT_EQ(pair.coupling.input_count(), 2U);
  EXPECT_EQ(pair.coupling.unknown_count(), 4U);
  EXPECT_EQ(pair.coupling.stepped_slaves().size(), 2U);
}

// First step (§3.1.3): no derivative at t⁽⁰⁾; x⁰ = (u_init, 0) gives the constant, and
// a later iterate the quadratic through u_init, ũ and u̇̃.
TEST(IfosmondiCoupling, FirstStepHasNoDerivativeConstraintAtTheStart) {
  Pair pair;
  pair.slots[0].outputs = {3.0, 0.0};  // y_a(0) = 3 feeds b.u
  pair.slots[1].outputs = {-1.0};      // y_b(0) = -1 feeds a.u
  pair.coupling.start(pair.slots);
  std::vector<double> x(4);
  pair.coupling.first_iterate(x);
  EXPECT_EQ(x, (std::vector<double>{-1.0, 3.0, 0.0, 0.0}));

  const Time from = to_ticks(0.0), to = to_ticks(0.1);
  pair.coupling.prepare_step(pair.slots, from, to, x);
  EXPECT_EQ(pair.slots[0].inputs[0].degree(), 2);
  EXPECT_DOUBLE_EQ(pair.slots[0].inputs[0].value(0.05), -1.0);
  EXPECT_DOUBLE_EQ(pair.slots[0].inputs[0].derivative(0.1), 0.0);

  const std::vector<double> later{-0.5, 2.0, 4.0, -6.0};
  pair.coupling.prepare_step(pair.slots, from, to, later);
  const Polynomial& u_b = pair.slots[1].inputs[0];
  EXPECT_NEAR(u_b.value(0.0), 3.0, 1e-15);
  EXPECT_NEAR(u_b.value(0.1), 2.0, 1e-14);
  EXPECT_NEAR(u_b.derivative(0.1), -6.0, 1e-12);
}

// After a converged step the inputs are C¹ (eq. 18): the next step's Hermite
// polynomials start with the converged value and derivative and end on x (eq. 22);
// the first iterate (eq. 20) is the quadratic with u(t⁽ᴺ⁺¹⁾) = u(t⁽ᴺ⁾).
TEST(IfosmondiCoupling, HermiteInputsAreC1AndTheFirstIterateIsTheQuadraticOfEq20) {
  Pair pair;
  pair.coupling.start(pair.slots);
  const std::vector<double> converged{1.5, -2.0, 0.25, 4.0};
  pair.coupling.advance(converged, std::vector<double>{1.5, -2.0, 0.25, 4.0});

  std::vector<double> x(4);
  pair.coupling.first_iterate(x);
  EXPECT_EQ(x, (std::vector<double>{1.5, -2.0, -0.25, -4.0}));
  const Time from = to_ticks(1.0), to = to_ticks(1.02);
  pair.coupling.prepare_step(pair.slots, from, to, x);
  const Polynomial& first = pair.slots[0].inputs[0];
  EXPECT_NEAR(first.coefficients()[3], 0.0, 1e-15);  // a quadratic
  EXPECT_NEAR(first.value(1.0), 1.5, 1e-15);
  EXPECT_NEAR(first.derivative(1.0), 0.25, 1e-12);
  EXPECT_NEAR(first.value(1.02), 1.5, 1e-14);

  const std::vector<double> iterate{1.7, -2.1, 0.5, 3.0};
  pair.coupling.prepare_step(pair.slots, from, to, iterate);
  const Polynomial& u_b = pair.slots[1].inputs[0];
  EXPECT_NEAR(u_b.value(1.0), -2.0, 1e-14);
  EXPECT_NEAR(u_b.derivative(1.0), 4.0, 1e-11);
  EXPECT_NEAR(u_b.value(1.02), -2.1, 1e-14);
  EXPECT_NEAR(u_b.derivative(1.02), 3.0, 1e-11);
}

// Ψ: values and reported derivatives of the sources; for b, which reports none, the
// finite difference over the macro step, (y(t⁽ᴺ⁺¹⁾) − y(t⁽ᴺ⁾)) / δt, with no sample
// requested.
TEST(IfosmondiCoupling, GatherUsesReportedDerivativesOrAFiniteDifferenceOverTheStep) {
  Pair pair;
  pair.slots[1].outputs = {1.0};  // y_b(t⁽ᴺ⁾)
  pair.coupling.start(pair.slots);
  std::vector<double> x(4, 0.0);
  const Time from = 0, to = to_ticks(0.1);
  pair.coupling.prepare_step(pair.slots, from, to, x);
  EXPECT_TRUE(pair.slots[0].sample_times.empty());
  EXPECT_TRUE(pair.slots[1].sample_times.empty());
  pair.slots[1].outputs = {1.25};
  pair.slots[0].outputs = {7.0, -8.0};
  std::vector<double> psi(4);
  pair.coupling.gather(pair.slots, from, to, psi);
  // Unknown order: a.u (from b.y), b.u (from a.y), then their derivatives.
  EXPECT_DOUBLE_EQ(psi[0], 1.25);
  EXPECT_DOUBLE_EQ(psi[1], 7.0);
  EXPECT_NEAR(psi[2], 2.5, 1e-12);
  EXPECT_DOUBLE_EQ(psi[3], -8.0);

  // The next step differences from where this one converged.
  pair.coupling.advance(std::vector<double>{1.25, 7.0, 2.5, -8.0}, psi);
  pair.slots[1].outputs = {1.0};
  pair.coupling.gather(pair.slots, to, to_ticks(0.2), psi);
  EXPECT_NEAR(psi[2], -2.5, 1e-12);
}

TEST(IfosmondiCoupling, ResidualAndConvergenceTestOfEqs24And27) {
  const std::vector<double> x{3.0, 4.0}, psi{2.5, 4.0};
  std::vector<double> gamma(2);
  coupling_residual(x, psi, gamma);
  EXPECT_EQ(gamma, (std::vector<double>{0.5, 0.0}));
  EXPECT_DOUBLE_EQ(euclidean_norm(x), 5.0);
  // ‖x‖ ε_rel + ‖(1, 1)‖ ε_abs
  EXPECT_DOUBLE_EQ(convergence_threshold(x, 1e-3, 1e-2), 5.0 * 1e-2 + std::sqrt(2.0) * 1e-3);
}

// Eq. 28 with min (the text: "without exceeding δt_ref"): +30 % after convergence up
// to δt_ref, halving after a failure down to min_step, integer ticks throughout.
TEST(IfosmondiStepControl, GrowsThirtyPercentUpToTheReferenceAndHalvesDownToTheMinimum) {
  IfosmondiStepControl control(1000, 100);
  EXPECT_EQ(control.step(), 1000);
  ASSERT_TRUE(control.halve(1000));
  EXPECT_EQ(control.step(), 500);
  control.converged();
  EXPECT_EQ(control.step(), 650);
  control.converged();
  EXPECT_EQ(control.step(), 845);
  control.converged();
  EXPECT_EQ(control.step(), 1000);  // not 1098
  ASSERT_TRUE(control.halve(300));   // a clipped attempt is halved from its own size
  EXPECT_EQ(control.step(), 150);
  EXPECT_FALSE(control.halve(150));  // 75 < min_step
  EXPECT_EQ(control.step(), 150);
  EXPECT_THROW(IfosmondiStepControl(100, 200), ConfigurationError);
}

}  // namespace
}  // namespace couplet::testing
