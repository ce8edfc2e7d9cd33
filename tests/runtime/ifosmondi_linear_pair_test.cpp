// IFOSMONDI and IFOSMONDI-JFM (IFOSMONDI-JFM paper §3, docs/references.md) on a linear
// coupled pair with a known implicit solution:
//   a: y_a = g_a u_a + A sin t,   b: y_b = g_b u_b,   u_a ← y_b, u_b ← y_a,
// so u_b = A sin t / (1 − g_a g_b), u_a = g_b u_b. The residual γ is affine in the
// unknowns; the fixed-point map Ψ has J_Ψ = [[0, g_b], [g_a, 0]] on the values and on
// the derivatives, spectral radius √|g_a g_b|, and J_Ψ² = g_a g_b I.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ifosmondi_test_slaves.hpp"
#include "runtime/algorithms/ifosmondi.hpp"
#include "runtime/algorithms/ifosmondi_jfm.hpp"

namespace couplet::testing {
namespace {

constexpr double kAmplitude = 1.0;

IfosmondiSettings coupling_settings(double step = 0.01) {
  IfosmondiSettings settings;
  settings.reference_step = to_ticks(step);
  settings.min_step = to_ticks(1e-6);
  return settings;
}

IfosmondiJfmSettings jfm_settings(KinsolMethod method, double step = 0.01) {
  IfosmondiJfmSettings settings{coupling_settings(step), {}};
  settings.kinsol.method = method;
  return settings;
}

System gain_pair(double gain_a, double gain_b, bool derivatives = true) {
  return loop_of(std::make_unique<GainSlave>(gain_a, kAmplitude, derivatives),
                 std::make_unique<GainSlave>(gain_b, 0.0, derivatives));
}

/// y_a at the end of a run to `end` equals u_b of the implicit solution.
double exact_output_a(double gain_a, double gain_b, double end) {
  return kAmplitude * std::sin(end) / (1.0 - gain_a * gain_b);
}

// A linear residual is solved by one Newton step: every macro step converges after
// exactly one Newton iteration (KINSOL's GMRES, difference-quotient J·v), on a pair
// whose fixed-point radius √1.8 ≈ 1.34 makes the fixed point diverge.
TEST(IfosmondiLinearPair, NewtonConvergesInOneIterationOnALinearResidual) {
  System system = gain_pair(2.0, 0.9);
  IfosmondiJfm algorithm(jfm_settings(KinsolMethod::newton));
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  const RunResult result = run(system, algorithm, 1.0);
  ASSERT_EQ(observer.steps.size(), 100U);
  for (const IfosmondiStepRecord& step : observer.steps) {
    EXPECT_TRUE(step.converged);
    EXPECT_EQ(step.iterations, 1) << "step at " << to_seconds(step.start);
  }
  EXPECT_EQ(algorithm.totals().rejected_steps, 0U);
  EXPECT_NEAR(result.outputs[0][0], exact_output_a(2.0, 0.9, 1.0), 1e-6);
}

// The classical fixed point contracts the residual by the spectral radius per
// iteration: with J² = g_a g_b I, ‖γ_{m+2}‖ / ‖γ_m‖ = g_a g_b exactly.
TEST(IfosmondiLinearPair, FixedPointContractionMatchesTheSpectralRadius) {
  const double gain_a = 0.8, gain_b = 0.5;
  const double radius = std::sqrt(gain_a * gain_b);
  System system = gain_pair(gain_a, gain_b);
  IfosmondiSettings settings = coupling_settings();
  settings.absolute_tolerance = settings.relative_tolerance = 1e-10;  // many iterations to look at
  // Each unknown held to 1e-10 (ConvergenceTest) takes a few iterations more than 50.
  settings.max_iterations = 80;
  Ifosmondi algorithm(settings);
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  run(system, algorithm, 0.05);
  int checked = 0;
  for (std::size_t m = 0; m + 2 < observer.evaluations.size(); ++m) {
    const IfosmondiStepRecord& now = observer.evaluations[m];
    const IfosmondiStepRecord& later = observer.evaluations[m + 2];
    if (later.start != now.start || later.residual < 1e-11) continue;
    EXPECT_NEAR(std::sqrt(later.residual / now.residual), radius, 1e-6 * radius);
    ++checked;
  }
  EXPECT_GT(checked, 20);
  EXPECT_EQ(algorithm.totals().rejected_steps, 0U);
}

// Above radius 1 the fixed point diverges on every step size: the step is halved
// down to min_step, then the run ends with a message naming the step and ‖γ‖.
TEST(IfosmondiLinearPair, FixedPointFailsCleanlyAboveRadiusOne) {
  System system = gain_pair(2.0, 0.9);
  Ifosmondi algorithm(coupling_settings());
  try {
    run(system, algorithm, 1.0);
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    const std::string message = failure.what();
    EXPECT_NE(message.find("ifosmondi: no convergence on the step [0, "), std::string::npos) << message;
    EXPECT_NE(message.find("residual |gamma| = "), std::string::npos) << message;
    EXPECT_NE(message.find("min_step"), std::string::npos) << message;
  }
  EXPECT_GT(algorithm.totals().rejected_steps, 10U);
}

// Anderson acceleration converges where the plain fixed point cannot.
TEST(IfosmondiLinearPair, AndersonConvergesAboveRadiusOne) {
  System system = gain_pair(2.0, 0.9);
  IfosmondiJfm algorithm(jfm_settings(KinsolMethod::anderson));
  const RunResult result = run(system, algorithm, 1.0);
  EXPECT_EQ(algorithm.totals().rejected_steps, 0U);
  EXPECT_NEAR(result.outputs[0][0], exact_output_a(2.0, 0.9, 1.0), 1e-5);
}

// KINSOL's plain fixed point (run by replay) takes exactly the iterates of the
// classical implementation: same decisions, same outputs, bit for bit.
TEST(IfosmondiLinearPair, KinsolFixedPointReproducesClassicalIfosmondi) {
  System classical_system = gain_pair(0.8, 0.5);
  Ifosmondi classical(coupling_settings());
  const RunResult expected = run(classical_system, classical, 0.5);
  System kinsol_system = gain_pair(0.8, 0.5);
  IfosmondiJfm kinsol(jfm_settings(KinsolMethod::fixed_point));
  const RunResult actual = run(kinsol_system, kinsol, 0.5);
  EXPECT_EQ(actual.decision_hash, expected.decision_hash);
  EXPECT_EQ(actual.outputs, expected.outputs);
  EXPECT_EQ(kinsol.totals().integrations, classical.totals().integrations);
}

// Same configuration, same decisions: KINSOL in the loop does not break it.
TEST(IfosmondiLinearPair, DecisionHashIsReproducibleWithKinsol) {
  for (const KinsolMethod method : {KinsolMethod::newton, KinsolMethod::anderson}) {
    std::uint64_t hashes[2];
    for (std::uint64_t& hash : hashes) {
      System system = gain_pair(2.0, 0.9);
      IfosmondiJfm algorithm(jfm_settings(method));
      hash = run(system, algorithm, 0.5).decision_hash;
    }
    EXPECT_EQ(hashes[0], hashes[1]) << kinsol_method_name(method);
  }
}

// Slaves without output derivatives: ẏ by the finite difference over the step
// (the secant). The values still converge to the implicit solution.
TEST(IfosmondiLinearPair, FiniteDifferenceStandsInForMissingDerivatives) {
  System system = gain_pair(2.0, 0.9, false);
  IfosmondiJfm algorithm(jfm_settings(KinsolMethod::newton));
  const RunResult result = run(system, algorithm, 1.0);
  EXPECT_EQ(algorithm.totals().rejected_steps, 0U);
  EXPECT_NEAR(result.outputs[0][0], exact_output_a(2.0, 0.9, 1.0), 1e-5);
}

TEST(IfosmondiLinearPair, ASlaveThatCannotRollBackIsAConfigurationError) {
  System system = loop_of(std::make_unique<GainSlave>(0.5, 1.0), std::make_unique<GainSlave>(0.5, 0.0, true, false));
  IfosmondiJfm algorithm(jfm_settings(KinsolMethod::newton));
  try {
    run(system, algorithm, 1.0);
    FAIL() << "expected a ConfigurationError";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("slave 'b' cannot roll back"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace couplet::testing
