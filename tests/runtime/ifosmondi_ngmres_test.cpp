// IFOSMONDI-JFM with N-GMRES (runtime/algorithms/ngmres.hpp) and the fixed point's
// iteration budget sized from the measured contraction (runtime/algorithms/ifosmondi.hpp),
// on the linear coupled pair of ifosmondi_linear_pair_test.cpp:
//   a: y_a = g_a u_a + sin t,   b: y_b = g_b u_b,   u_a ← y_b, u_b ← y_a,
// whose fixed-point map has J_Ψ² = g_a g_b I (spectral radius √|g_a g_b|), and on a
// synthetic affine residual driven by hand, where N-GMRES's allocations are counted.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ifosmondi_test_slaves.hpp"
#include "runtime/algorithms/ifosmondi.hpp"
#include "runtime/algorithms/ifosmondi_jfm.hpp"
#include "runtime/algorithms/ngmres.hpp"

// Heap-allocation counter (support/malloc_counter.hpp), for the solver's iterations.
#include "support/malloc_counter.hpp"

namespace couplet::testing {
namespace {

IfosmondiSettings coupling_settings(double step = 0.01) {
  IfosmondiSettings settings;
  settings.reference_step = to_ticks(step);
  settings.min_step = to_ticks(1e-6);
  return settings;
}

NgmresSettings ngmres_settings(bool line_search) {
  NgmresSettings settings;
  settings.line_search = line_search;
  return settings;
}

System gain_pair(double gain_a, double gain_b) {
  return loop_of(std::make_unique<GainSlave>(gain_a, 1.0),
                 std::make_unique<GainSlave>(gain_b, 0.0));
}

double exact_output_a(double gain_a, double gain_b, double end) {
  return std::sin(end) / (1.0 - gain_a * gain_b);
}

// Above radius 1 (√1.8 ≈ 1.34, where the fixed point diverges) N-GMRES converges on
// every step to the implicit solution, with and without line search.
TEST(IfosmondiNgmres, ConvergesAboveRadiusOneWithAndWithoutLineSearch) {
  for (const bool line_search : {true, false}) {
    System system = gain_pair(2.0, 0.9);
    IfosmondiNgmres algorithm(coupling_settings(), ngmres_settings(line_search));
    RecordingObserver observer;
    algorithm.set_observer(&observer);
    const RunResult result = run(system, algorithm, 1.0);
    EXPECT_EQ(algorithm.totals().rejected_steps, 0U) << "line_search " << line_search;
    EXPECT_EQ(algorithm.totals().converged_steps, 100U);
    EXPECT_NEAR(result.outputs[0][0], exact_output_a(2.0, 0.9, 1.0), 1e-5)
        << "line_search " << line_search;
    for (const IfosmondiStepRecord& step : observer.steps) {
      EXPECT_LE(step.iterations, 4)
          << "step at " << to_seconds(step.start);  // 4 unknowns: GMRES is exact by then
    }
  }
}

// On a linear contraction (radius √0.4 ≈ 0.63) N-GMRES needs fewer iterations than
// the fixed point, and reaches the same solution.
TEST(IfosmondiNgmres, FewerIterationsThanTheFixedPointOnALinearContraction) {
  System fixed_point_system = gain_pair(0.8, 0.5);
  Ifosmondi fixed_point(coupling_settings());
  const RunResult fixed_point_result = run(fixed_point_system, fixed_point, 1.0);
  for (const bool line_search : {true, false}) {
    System system = gain_pair(0.8, 0.5);
    IfosmondiNgmres ngmres(coupling_settings(), ngmres_settings(line_search));
    const RunResult result = run(system, ngmres, 1.0);
    EXPECT_LT(ngmres.totals().iterations, fixed_point.totals().iterations)
        << "line_search " << line_search;
    EXPECT_NEAR(result.outputs[0][0], fixed_point_result.outputs[0][0], 1e-4);
    EXPECT_NEAR(result.outputs[0][0], exact_output_a(0.8, 0.5, 1.0), 1e-4);
  }
}

TEST(IfosmondiNgmres, DecisionHashIsReproducible) {
  for (const bool line_search : {true, false}) {
    std::uint64_t hashes[2];
    for (std::uint64_t& hash : hashes) {
      System system = gain_pair(2.0, 0.9);
      IfosmondiNgmres algorithm(coupling_settings(), ngmres_settings(line_search));
      hash = run(system, algorithm, 0.5).decision_hash;
    }
    EXPECT_EQ(hashes[0], hashes[1]) << "line_search " << line_search;
  }
}

TEST(IfosmondiNgmres, WindowOutsideItsBoundsIsAConfigurationError) {
  for (const int window : {0, kMaxNgmresWindow + 1}) {
    NgmresSettings settings;
    settings.window = window;
    EXPECT_THROW(IfosmondiNgmres(coupling_settings(), settings), ConfigurationError) << window;
  }
}

/// Ψ(x) = J x + c with J = diag(λ, −λ): γ(x) = (I − J) x − c, solution x* = (I − J)⁻¹ c.
/// From x⁰ = 0 the candidate's residual J γ⁰ is nearly orthogonal to γ⁰, and the best
/// point on the line through them barely improves: the stagnation of step III.
struct ReflectingMap {
  double lambda = 100.0;
  std::vector<double> c = {1.0, 1.0};
  void residual(std::span<const double> x, std::span<double> gamma) const {
    gamma[0] = (1.0 - lambda) * x[0] - c[0];
    gamma[1] = (1.0 + lambda) * x[1] - c[1];
  }
};

struct DrivenOutcome {
  bool converged = false;
  int evaluations = 0;
  int iterations = 0;
  long allocations = 0;
  std::vector<double> x;
};

/// Drives the solver by hand as IfosmondiAlgorithm does, counting the allocations
/// from the first next() on.
DrivenOutcome drive(CouplingSolver& solver, const ReflectingMap& map, int most_evaluations) {
  std::vector<double> x(2, 0.0), gamma(2), next(2);
  DrivenOutcome outcome;
  solver.begin(x);
  malloc_count = 0;
  counting_mallocs = true;
  for (outcome.evaluations = 1; outcome.evaluations <= most_evaluations; ++outcome.evaluations) {
    map.residual(x, gamma);
    if (std::hypot(gamma[0], gamma[1]) < 1e-10) {
      outcome.converged = true;
      break;
    }
    if (solver.next(x, gamma, next) == CouplingSolver::Verdict::failed) break;
    x = next;  // same size: no allocation
  }
  counting_mallocs = false;
  outcome.allocations = malloc_count;
  outcome.iterations = solver.iterations(outcome.evaluations);
  outcome.x = x;
  return outcome;
}

// The line search's step toward the candidate overcomes the stagnation; plain N-GMRES
// stays at x⁰'s residual until its iteration limit. Neither allocates while iterating.
TEST(IfosmondiNgmres, LineSearchOvercomesStagnationWithoutAllocating) {
  const ReflectingMap map;
  const auto solver = make_ngmres_solver(2, ngmres_settings(true), 50);
  const DrivenOutcome searched = drive(*solver, map, 200);
  EXPECT_TRUE(searched.converged);
  EXPECT_LE(searched.iterations, 4);
  EXPECT_NEAR(searched.x[0], map.c[0] / (1.0 - map.lambda), 1e-12);
  EXPECT_NEAR(searched.x[1], map.c[1] / (1.0 + map.lambda), 1e-12);
  EXPECT_EQ(searched.allocations, 0);

  const auto plain_solver = make_ngmres_solver(2, ngmres_settings(false), 50);
  const DrivenOutcome plain = drive(*plain_solver, map, 200);
  EXPECT_FALSE(plain.converged);
  EXPECT_EQ(plain.iterations, 50);
  EXPECT_EQ(plain_solver->failure(), "50 N-GMRES iterations without convergence");
  EXPECT_EQ(plain.allocations, 0);

  // A second attempt on the same solver: the same iterates (nothing carried over).
  const DrivenOutcome again = drive(*solver, map, 200);
  EXPECT_EQ(again.evaluations, searched.evaluations);
  EXPECT_EQ(again.x, searched.x);
}

// --- the fixed point's iteration budget -------------------------------------------

constexpr double kGain = 0.9;  // radius 0.9 (J_Ψ² = 0.81 I): about 90 iterations per step

// With the default budget (50, no cap), the fixed point fails on a contraction that
// needs more, naming the measured rate and the iterations the tolerance needs.
TEST(IfosmondiIterationBudget, FixedBudgetFailureNamesRateAndNeededIterations) {
  System system = gain_pair(kGain, kGain);
  Ifosmondi algorithm(coupling_settings());
  try {
    run(system, algorithm, 0.1);
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    const std::string message = failure.what();
    EXPECT_NE(message.find(
                  "50 fixed-point iterations without convergence; contraction rate 0.900 measured, "
                  "reaching the tolerance needs about "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("iterations: raise algorithm.max_iterations or use type ifosmondi_jfm"),
              std::string::npos)
        << message;
  }
}

// With the cap (the scenario default), the same case converges on every step without
// a rejection, and every step takes about what the failure message predicted.
TEST(IfosmondiIterationBudget, CappedBudgetFollowsTheMeasuredContraction) {
  IfosmondiSettings settings = coupling_settings();
  settings.iteration_cap = kFixedPointIterationCap;
  System system = gain_pair(kGain, kGain);
  Ifosmondi algorithm(settings);
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  const RunResult result = run(system, algorithm, 0.5);
  EXPECT_EQ(algorithm.totals().rejected_steps, 0U);
  EXPECT_EQ(algorithm.totals().converged_steps, 50U);
  EXPECT_NEAR(result.outputs[0][0], exact_output_a(kGain, kGain, 0.5), 1e-4);
  int most = 0;
  for (const IfosmondiStepRecord& step : observer.steps) most = std::max(most, step.iterations);
  EXPECT_GT(most, 50);
  EXPECT_LT(most, 150);
}

// The prediction: ⌈log(threshold / residual) / log rate⌉ more iterations.
TEST(IfosmondiIterationBudget, NeededIterationsFromTheRate) {
  EXPECT_EQ(fixed_point_iterations_needed(50, 1.0, 1e-4, 0.9),
            50 + 88);                                                 // log(1e-4)/log(0.9) = 87.4
  EXPECT_EQ(fixed_point_iterations_needed(10, 1e-5, 1e-4, 0.9), 10);  // already below
  EXPECT_EQ(fixed_point_iterations_needed(0, 1.0, 1e-4, 1.0 - 1e-12), 1000000000);  // saturates
  EXPECT_EQ(fixed_point_iterations_needed(0, 1.0, 1e-4, 1.0), 1000000000);
}

// A contraction too slow for the cap fails at max_iterations, not at the cap; an
// explicit budget is not extended.
TEST(IfosmondiIterationBudget, TooSlowForTheCapFailsEarly) {
  IfosmondiSettings settings = coupling_settings();
  settings.iteration_cap = kFixedPointIterationCap;
  System system = gain_pair(0.999, 0.999);  // radius 0.999: ~9000 iterations
  Ifosmondi algorithm(settings);
  RecordingObserver observer;
  algorithm.set_observer(&observer);
  try {
    run(system, algorithm, 0.1);
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    const std::string message = failure.what();
    EXPECT_NE(message.find("contraction rate 0.999 measured, reaching the tolerance needs about "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("more than the 1000 an attempt takes without algorithm.max_iterations"),
              std::string::npos)
        << message;
  }
  for (const IfosmondiStepRecord& step : observer.steps) EXPECT_EQ(step.iterations, 50);
}

}  // namespace
}  // namespace couplet::testing
