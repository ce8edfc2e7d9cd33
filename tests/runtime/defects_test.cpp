// Defects of one macro step (Glumac & Kovačić, Defect Analysis, eqs. 17,
// 30–32; docs/references.md):
// exact RMS of polynomials, the output-defect estimate and its closed-form RMS,
// checked against independent numerical quadrature.
#include "runtime/defects.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <vector>

namespace couplet {
namespace {

// Composite Simpson on [from, to]: an independent check, accurate to ~1e-14
// relative for the smooth low-degree integrands here.
double simpson_mean(const std::function<double(double)>& f, double from, double to, int intervals = 20000) {
  const double h = (to - from) / intervals;
  double sum = f(from) + f(to);
  for (int i = 1; i < intervals; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * f(from + i * h);
  return sum * h / 3.0 / (to - from);
}

// ∫_0^1 (Σ c_k s^k)² ds = Σ c_i c_j / (i + j + 1) in long double: the monomial
// closed form, a second independent check.
double hilbert_mean_square(std::span<const double> coefficients) {
  long double sum = 0.0L;
  for (std::size_t i = 0; i < coefficients.size(); ++i) {
    for (std::size_t j = 0; j < coefficients.size(); ++j) {
      sum += static_cast<long double>(coefficients[i]) * coefficients[j] / static_cast<long double>(i + j + 1);
    }
  }
  return static_cast<double>(sum);
}

TEST(Defects, MeanSquareOfSimplePolynomials) {
  EXPECT_DOUBLE_EQ(mean_square(Polynomial::constant(5.0, -3.0), 1.0, 2.5), 9.0);
  // p(t) = t − 2 on [2, 2 + H]: (1/H) ∫_0^H s² ds = H²/3.
  const std::array<double, 2> line{0.0, 1.0};
  const Polynomial ramp = Polynomial::taylor(2.0, line);
  for (const double nominal : {1e-6, 1e-3, 0.5, 40.0}) {
    const double end = 2.0 + nominal;
    const double step = end - 2.0;  // the interval's length as a double: not exactly `nominal`
    EXPECT_NEAR(mean_square(ramp, 2.0, end), step * step / 3.0, 1e-15 * step * step) << step;
    EXPECT_NEAR(root_mean_square(ramp, 2.0, end), step / std::sqrt(3.0), 1e-15 * step) << step;
  }
}

TEST(Defects, MeanSquareIsExactUpToDegreeSeven) {
  for (int degree = 0; degree <= Polynomial::kMaxDegree; ++degree) {
    std::vector<double> coefficients;
    for (int k = 0; k <= degree; ++k) coefficients.push_back(std::sin(1.7 * k + 0.3) * (k % 2 == 0 ? 1.0 : -2.0));
    // In s ∈ [0, 1] over the interval [10, 10.25]: origin and scale are the interval's.
    const Polynomial on_interval = Polynomial::from_coefficients(10.0, 0.25, coefficients);
    const double expected = hilbert_mean_square(coefficients);
    EXPECT_NEAR(mean_square(on_interval, 10.0, 10.25), expected, 1e-14 * std::abs(expected)) << degree;
    // Another origin and scale than the interval's, against Simpson quadrature.
    const Polynomial elsewhere = on_interval.shifted(9.9, 0.5);
    const double quadrature = simpson_mean([&](double t) { return std::pow(elsewhere.value(t), 2); }, 10.0, 10.25);
    EXPECT_NEAR(mean_square(elsewhere, 10.0, 10.25), quadrature, 1e-10 * quadrature) << degree;
  }
}

TEST(Defects, MeanSquareRejectsAnEmptyInterval) {
  EXPECT_THROW(mean_square(Polynomial::constant(0.0, 1.0), 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(mean_square(Polynomial::constant(0.0, 1.0), 2.0, 1.0), std::invalid_argument);
}

TEST(Defects, ConnectionDefectIsInputMinusOutputOnTheStep) {
  // ũ: Taylor at the step start T_{k−1} = 4; ỹ: Taylor at the step end T_k = 4.5 (eqs. 14, 12, 17).
  const std::array<double, 2> input_jet{1.0, -0.4};
  const std::array<double, 3> output_jet{0.8, -0.5, 0.3};
  const Polynomial input = Polynomial::taylor(4.0, input_jet, 0.5);
  const Polynomial output = Polynomial::taylor(4.5, output_jet, 0.5);
  const Polynomial defect = connection_defect(input, output, 4.0, 0.5);
  EXPECT_EQ(defect.origin(), 4.0);
  EXPECT_EQ(defect.degree(), 2);
  for (const double t : {4.0, 4.1, 4.25, 4.5}) EXPECT_NEAR(defect.value(t), input.value(t) - output.value(t), 1e-15);
  const double quadrature =
      simpson_mean([&](double t) { return std::pow(input.value(t) - output.value(t), 2); }, 4.0, 4.5);
  EXPECT_NEAR(mean_square(defect, 4.0, 4.5), quadrature, 1e-12 * quadrature);
}

// docs/defect-control.md: RMS = |y_mid − P_n(T_k − H/2)| · 2^{n+1}/√(2n+3).
TEST(Defects, OutputDefectClosedFormAtTheMidpoint) {
  const std::array<double, 3> factor{2.0 / std::sqrt(3.0), 4.0 / std::sqrt(5.0), 8.0 / std::sqrt(7.0)};
  for (int order = 0; order <= 2; ++order) {
    for (const double step : {1e-3, 0.1, 1.0}) {
      EXPECT_NEAR(output_defect_rms(0.75, 0.5, step, step / 2, order), 0.25 * factor[static_cast<std::size_t>(order)],
                  1e-14)
          << order << " " << step;
    }
  }
}

// The closed form against numerical quadrature of the defect polynomial of eq. 32,
// written out independently: ((T_k − t)/(T_k − t_mid))^{n+1} (ỹ(t_mid) − y_mid),
// also with the midpoint half a tick early (a step of an odd number of ticks).
TEST(Defects, OutputDefectClosedFormMatchesQuadrature) {
  const double step_end = 3.7;
  for (int order = 0; order <= 2; ++order) {
    for (const double step : {1e-3, 0.05, 1.0}) {
      for (const double early : {0.0, 0.5e-9}) {
        const double midpoint = step_end - step / 2 - early;
        const double gap = 0.3 - 0.1;  // ỹ(t_mid) − y_mid
        const auto defect = [&](double t) {
          return std::pow((step_end - t) / (step_end - midpoint), order + 1) * gap;
        };
        const double quadrature = std::sqrt(simpson_mean([&](double t) { return defect(t) * defect(t); },
                                                         step_end - step, step_end));
        const double closed = output_defect_rms(0.3, 0.1, step, step_end - midpoint, order);
        EXPECT_NEAR(closed, quadrature, 1e-10 * quadrature) << order << " " << step << " " << early;
        const Polynomial estimate = output_defect_estimate(0.3, 0.1, midpoint, step_end, order);
        // Times in seconds near 3.7 carry ~4e-16 absolute rounding: ~1e-12 of a 1 ms step.
        EXPECT_NEAR(root_mean_square(estimate, step_end - step, step_end), closed, 1e-11 * closed);
        for (const double t : {step_end - step, midpoint, step_end - 0.1 * step}) {
          EXPECT_NEAR(estimate.value(t), defect(t), 1e-13 * std::abs(gap) * 8) << order << " " << t;
        }
      }
    }
  }
}

// Eqs. 30–31: ŷ = ỹ − δ̂ matches the midpoint sample and keeps ỹ's value and first
// n derivatives at T_k.
TEST(Defects, HermiteCorrectionInterpolatesTheMidpointSample) {
  const std::array<double, 3> jet{1.2, -0.7, 0.4};
  for (int order = 0; order <= 2; ++order) {
    const Polynomial taylor = Polynomial::taylor(2.0, std::span<const double>(jet.data(), order + 1), 0.2);
    const double midpoint = 1.9;
    const double sample = 1.31;
    const Polynomial estimate = output_defect_estimate(taylor.value(midpoint), sample, midpoint, 2.0, order);
    EXPECT_NEAR(taylor.value(midpoint) - estimate.value(midpoint), sample, 1e-14) << order;
    for (int d = 0; d <= order; ++d) EXPECT_NEAR(estimate.derivative(2.0, d), 0.0, 1e-12) << order << " " << d;
    EXPECT_GT(std::abs(estimate.derivative(2.0, order + 1)), 1.0) << order;
  }
}

// Theorem 4 in isolation: for a smooth signal y and its Taylor polynomial P_n at
// T_k, the estimate's RMS over the step tends to the RMS of the true defect P_n − y.
TEST(Defects, OutputDefectEstimateIsAsymptoticallyCorrect) {
  const auto y = [](double t) { return std::sin(2.0 * t) + 0.3 * std::exp(-t); };
  const auto derivative = [](double t, int order) {
    const std::array<double, 3> sine{std::sin(2.0 * t), 2.0 * std::cos(2.0 * t), -4.0 * std::sin(2.0 * t)};
    return sine[static_cast<std::size_t>(order)] + (order % 2 == 0 ? 0.3 : -0.3) * std::exp(-t);
  };
  const double step_end = 0.9;
  for (int order = 0; order <= 2; ++order) {
    std::array<double, 3> jet{};
    for (int d = 0; d <= order; ++d) jet[static_cast<std::size_t>(d)] = derivative(step_end, d);
    double previous_mismatch = 1.0;
    for (const double step : {0.2, 0.02, 0.002}) {
      const Polynomial taylor = Polynomial::taylor(step_end, std::span<const double>(jet.data(), order + 1), step);
      const double midpoint = step_end - step / 2;
      const double estimated = output_defect_rms(taylor.value(midpoint), y(midpoint), step, step / 2, order);
      const double actual = std::sqrt(simpson_mean([&](double t) { return std::pow(taylor.value(t) - y(t), 2); },
                                                   step_end - step, step_end, 2000));
      const double mismatch = std::abs(estimated / actual - 1.0);
      EXPECT_LT(mismatch, previous_mismatch) << order << " " << step;
      previous_mismatch = mismatch;
    }
    EXPECT_LT(previous_mismatch, 0.01) << order;
  }
}

}  // namespace
}  // namespace couplet
