// Estimated outputs (eqs. 21–22, 12), degree reduction (eq. 16) and smoothness
// enhancement (eqs. 26–28) of F3ORNITS.
#include "runtime/algorithms/f3ornits_estimates.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace couplet {
namespace {

OutputHistory history_of(std::initializer_list<std::pair<double, double>> points) {
  OutputHistory history;
  for (const auto& [time, value] : points) history.push(to_ticks(time), value);
  return history;
}

TEST(F3ornitsEstimates, ExtrapolationPassesThroughTheNewestPoints) {
  const OutputHistory history = history_of({{0.0, 5.0}, {1.0, 1.0}, {2.0, 2.0}, {3.0, 5.0}});
  const Polynomial quadratic = estimate_output(history, 2, Calibration::extrapolation);
  EXPECT_EQ(quadratic.degree(), 2);
  EXPECT_NEAR(quadratic.value(1.0), 1.0, 1e-12);
  EXPECT_NEAR(quadratic.value(2.0), 2.0, 1e-12);
  EXPECT_EQ(quadratic.value(3.0), 5.0);        // exactly the newest value
  EXPECT_NEAR(quadratic.value(4.0), 10.0, 1e-12);  // t² − 2t + 2 ... through (1,1),(2,2),(3,5)
  // The oldest point is forgotten in extrapolation mode (fig. 5).
  EXPECT_NEAR(quadratic.value(0.0), 2.0, 1e-12);
}

TEST(F3ornitsEstimates, ClsFitsPPlusTwoPointsAndEqualsTheNewest) {
  const OutputHistory history = history_of({{0.0, 0.0}, {1.0, 1.0}, {2.0, 1.0}, {3.0, 3.0}});
  const Polynomial line = estimate_output(history, 1, Calibration::constrained_least_squares);
  EXPECT_EQ(line.degree(), 1);
  EXPECT_EQ(line.value(3.0), 3.0);
  // Through (3, 3) with slope s minimizing (1 − 3 + s)² + (1 − 3 + 2s)²: s = 6/5.
  EXPECT_NEAR(line.derivative(3.0), 1.2, 1e-12);
  // Degree 0 is the newest value in both modes.
  EXPECT_EQ(estimate_output(history, 0, Calibration::constrained_least_squares).value(10.0), 3.0);
}

TEST(F3ornitsEstimates, EarlyInTheRunTheDegreeIsCappedByThePoints) {
  const OutputHistory one = history_of({{0.0, 4.0}});
  EXPECT_EQ(estimate_output(one, 2, Calibration::extrapolation).degree(), 0);
  EXPECT_EQ(estimate_output(one, 2, Calibration::constrained_least_squares).degree(), 0);
}

// Eq. 16: a target accepting less gets a recalibration at its degree, which still
// passes through the newest value (a truncation would not).
TEST(F3ornitsEstimates, DegreeReductionRecalibrates) {
  const OutputHistory history = history_of({{0.0, 0.0}, {0.5, 0.25}, {1.0, 1.0}});  // t²
  OutputEstimate estimate;
  estimate.calibrate(history, 2, Calibration::extrapolation);
  EXPECT_EQ(estimate.degree(), 2);
  EXPECT_EQ(estimate.time(), to_ticks(1.0));
  EXPECT_NEAR(estimate.for_degree(5).value(2.0), 4.0, 1e-12);
  const Polynomial line = estimate.for_degree(1);
  EXPECT_EQ(line.degree(), 1);
  EXPECT_EQ(line.value(1.0), 1.0);
  EXPECT_NEAR(line.derivative(1.0), 1.5, 1e-12);  // the secant through (0.5, 0.25), (1, 1)
  const Polynomial constant = estimate.for_degree(0);
  EXPECT_EQ(constant.degree(), 0);
  EXPECT_EQ(constant.value(7.0), 1.0);
}

// Eqs. 26–28: value and slope continuous at the step start, the raw input's at the end.
TEST(F3ornitsEstimates, SmoothedInputIsC1WithThePreviousInput) {
  const std::array<double, 3> previous_coefficients{1.0, 2.0, -1.0};
  const Polynomial previous = Polynomial::from_coefficients(0.0, 1.0, previous_coefficients);
  const Polynomial raw = Polynomial::constant(1.0, 3.0);  // a ZOH-like raw input with a jump
  const Polynomial smooth = smoothed_input(previous, raw, 1.0, 1.5);
  EXPECT_EQ(smooth.degree(), 3);
  EXPECT_NEAR(smooth.value(1.0), previous.value(1.0), 1e-14);
  EXPECT_NEAR(smooth.derivative(1.0), previous.derivative(1.0), 1e-13);
  EXPECT_NEAR(smooth.value(1.5), 3.0, 1e-14);
  EXPECT_NEAR(smooth.derivative(1.5), 0.0, 1e-13);
}

}  // namespace
}  // namespace couplet
