// Polynomial (F3ORNITS paper eqs. 9-14, docs/references.md): every constructor must reproduce a
// polynomial of its degree to rounding, also far from t = 0 with small steps, which is
// where a representation in raw t (instead of the scaled s) loses all its digits.
#include "couplet/polynomial.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace couplet {
namespace {

constexpr double kRelativeTolerance = 1e-12;

// A reference polynomial r(t) = Σ a_k x^k, x = (t - center) / width, evaluated
// independently of Polynomial, with analytic derivatives.
struct Reference {
  double center = 0.0;
  double width = 1.0;
  std::vector<double> coefficients;

  int degree() const { return static_cast<int>(coefficients.size()) - 1; }

  double derivative(double t, int order) const {
    const double x = (t - center) / width;
    double sum = 0.0;
    for (int k = order; k <= degree(); ++k) {
      sum += coefficients[static_cast<std::size_t>(k)] * falling_factorial(k, order) *
             std::pow(x, k - order);
    }
    return sum / std::pow(width, order);
  }
  double value(double t) const { return derivative(t, 0); }

  // The size of the terms that make up the value (or derivative): the scale for
  // a relative tolerance, because the sum itself may cancel to near zero.
  double magnitude(double t, int order = 0) const {
    const double x = (t - center) / width;
    double sum = 0.0;
    for (int k = order; k <= degree(); ++k) {
      sum += std::abs(coefficients[static_cast<std::size_t>(k)]) * falling_factorial(k, order) *
             std::pow(std::abs(x), k - order);
    }
    return std::max(sum, 1.0) / std::pow(width, order);
  }

  static double falling_factorial(int k, int order) {
    double product = 1.0;
    for (int j = k - order + 1; j <= k; ++j) product *= j;
    return product;
  }
};

Reference random_reference(std::mt19937_64& generator, int degree, double center, double width) {
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  Reference reference{center, width, {}};
  for (int k = 0; k <= degree; ++k) reference.coefficients.push_back(coefficient(generator));
  // Offset the constant so values are not all near zero.
  reference.coefficients[0] += 3.0;
  return reference;
}

// Absolute times of the sampled data: large origins with small spacing stress the
// conditioning; the jitter makes the spacing non-uniform.
struct Grid {
  double origin;
  double spacing;
};
constexpr std::array<Grid, 7> kGrids{
    {{0.0, 1.0}, {0.0, 0.1}, {1.0, 1e-3}, {1e3, 1e-3}, {1e4, 1e-3}, {1e5, 1e-3}, {1e5, 0.25}}};

std::vector<double> sample_times(std::mt19937_64& generator, const Grid& grid, int count) {
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  std::vector<double> times;
  for (int i = 0; i < count; ++i) {
    times.push_back(grid.origin + (i + jitter(generator)) * grid.spacing);
  }
  return times;
}

// Points on and beyond the data, out to two spacings past the newest time (the
// extrapolation range of a macro step).
std::vector<double> check_times(const std::vector<double>& times, double spacing) {
  std::vector<double> result = times;
  for (int j = 1; j <= 6; ++j) result.push_back(times.back() + j * spacing / 3.0);
  result.push_back(0.5 * (times.front() + times.back()));
  return result;
}

void expect_reproduces(const Polynomial& polynomial, const Reference& reference,
                       const std::vector<double>& times) {
  for (const double t : times) {
    for (int order = 0; order <= reference.degree() + 1; ++order) {
      EXPECT_NEAR(polynomial.derivative(t, order), reference.derivative(t, order),
                  kRelativeTolerance * reference.magnitude(t, order) * 100.0 * (order + 1))
          << "t = " << t << ", order " << order;
    }
    EXPECT_NEAR(polynomial.value(t), reference.value(t),
                kRelativeTolerance * reference.magnitude(t))
        << "t = " << t;
  }
}

std::vector<double> values_at(const Reference& reference, const std::vector<double>& times) {
  std::vector<double> values;
  for (const double t : times) values.push_back(reference.value(t));
  return values;
}

TEST(Polynomial, DefaultIsZero) {
  const Polynomial zero;
  EXPECT_EQ(zero.degree(), 0);
  EXPECT_EQ(zero.origin(), 0.0);
  EXPECT_EQ(zero.scale(), 1.0);
  EXPECT_EQ(zero.value(123.0), 0.0);
  EXPECT_EQ(zero.derivative(123.0, 1), 0.0);
  ASSERT_EQ(zero.coefficients().size(), 1u);
}

TEST(Polynomial, Constant) {
  const Polynomial constant = Polynomial::constant(1e5, -2.5);
  EXPECT_EQ(constant.degree(), 0);
  EXPECT_EQ(constant.origin(), 1e5);
  EXPECT_EQ(constant.value(0.0), -2.5);
  EXPECT_EQ(constant.value(2e5), -2.5);
  EXPECT_EQ(constant.derivative(1e5, 1), 0.0);
}

TEST(Polynomial, FromCoefficientsEvaluatesInScaledAbscissa) {
  // p(t) = 1 + 2 s + 3 s^2, s = (t - 10) / 2.
  const std::array<double, 3> coefficients{1.0, 2.0, 3.0};
  const Polynomial polynomial = Polynomial::from_coefficients(10.0, 2.0, coefficients);
  EXPECT_EQ(polynomial.degree(), 2);
  EXPECT_EQ(polynomial.value(10.0), 1.0);
  EXPECT_EQ(polynomial.value(12.0), 6.0);
  EXPECT_EQ(polynomial.value(8.0), 2.0);
  // dp/dt = (2 + 6 s) / 2, d2p/dt2 = 6 / 4.
  EXPECT_EQ(polynomial.derivative(12.0, 1), 4.0);
  EXPECT_EQ(polynomial.derivative(12.0, 2), 1.5);
  EXPECT_EQ(polynomial.derivative(12.0, 3), 0.0);
  ASSERT_EQ(polynomial.coefficients().size(), 3u);
  EXPECT_EQ(polynomial.coefficients()[2], 3.0);
}

TEST(Polynomial, DerivativesOfEveryOrderMatchAnalyticValues) {
  std::mt19937_64 generator(1);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= Polynomial::kMaxDegree; ++degree) {
      const double center = grid.origin + 0.7 * grid.spacing;
      const Reference reference = random_reference(generator, degree, center, 2.0 * grid.spacing);
      const Polynomial polynomial =
          Polynomial::from_coefficients(center, 2.0 * grid.spacing, reference.coefficients);
      for (const double t : check_times(sample_times(generator, grid, 4), grid.spacing)) {
        EXPECT_EQ(polynomial.derivative(t, 0), polynomial.value(t));
        for (int order = 0; order <= degree; ++order) {
          EXPECT_NEAR(polynomial.derivative(t, order), reference.derivative(t, order),
                      kRelativeTolerance * reference.magnitude(t, order))
              << "degree " << degree << ", order " << order << ", t = " << t;
        }
        for (int order = degree + 1; order <= Polynomial::kMaxDegree + 2; ++order) {
          EXPECT_EQ(polynomial.derivative(t, order), 0.0);
        }
      }
    }
  }
}

TEST(Polynomial, TaylorReproducesPolynomialOfItsDegree) {
  std::mt19937_64 generator(2);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= 4; ++degree) {
      const Reference reference =
          random_reference(generator, degree, grid.origin - 0.4 * grid.spacing, 3.0 * grid.spacing);
      const double expansion_point = grid.origin + 1.3 * grid.spacing;
      std::vector<double> derivatives;
      for (int k = 0; k <= degree; ++k)
        derivatives.push_back(reference.derivative(expansion_point, k));
      const Polynomial polynomial = Polynomial::taylor(expansion_point, derivatives, grid.spacing);
      EXPECT_EQ(polynomial.degree(), degree);
      EXPECT_EQ(polynomial.origin(), expansion_point);
      EXPECT_EQ(polynomial.value(expansion_point), derivatives[0]);
      expect_reproduces(polynomial, reference,
                        check_times(sample_times(generator, grid, 5), grid.spacing));
    }
  }
}

TEST(Polynomial, TaylorDefaultScaleIsOne) {
  // p(t) = 1 + 2 (t - 3) + 3 (t - 3)^2: derivatives 1, 2, 6 at t = 3.
  const std::array<double, 3> derivatives{1.0, 2.0, 6.0};
  const Polynomial polynomial = Polynomial::taylor(3.0, derivatives);
  EXPECT_EQ(polynomial.scale(), 1.0);
  EXPECT_EQ(polynomial.value(5.0), 17.0);
  EXPECT_EQ(polynomial.derivative(5.0, 1), 14.0);
  EXPECT_EQ(polynomial.derivative(5.0, 2), 6.0);
}

TEST(Polynomial, ExtrapolationReproducesPolynomialOfItsDegree) {
  std::mt19937_64 generator(3);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= 4; ++degree) {
      const std::vector<double> times = sample_times(generator, grid, degree + 1);
      const Reference reference =
          random_reference(generator, degree, grid.origin + 0.5 * grid.spacing, 4.0 * grid.spacing);
      const std::vector<double> values = values_at(reference, times);
      const Polynomial polynomial = Polynomial::extrapolation(times, values);
      EXPECT_EQ(polynomial.degree(), degree);
      EXPECT_EQ(polynomial.origin(), times.back());
      EXPECT_GT(polynomial.scale(), 0.0);
      // The newest point is the origin: it is matched exactly.
      EXPECT_EQ(polynomial.value(times.back()), values.back());
      expect_reproduces(polynomial, reference, check_times(times, grid.spacing));
    }
  }
}

TEST(Polynomial, ExtrapolationInterpolatesEveryPointUpToMaximumDegree) {
  // Arbitrary (not polynomial) data: the interpolant passes through all of it.
  std::mt19937_64 generator(4);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  for (const Grid& grid : kGrids) {
    for (int count = 1; count <= Polynomial::kMaxDegree + 1; ++count) {
      const std::vector<double> times = sample_times(generator, grid, count);
      std::vector<double> values;
      for (int i = 0; i < count; ++i) values.push_back(value(generator));
      const Polynomial polynomial = Polynomial::extrapolation(times, values);
      EXPECT_EQ(polynomial.degree(), count - 1);
      for (int i = 0; i < count; ++i) {
        EXPECT_NEAR(polynomial.value(times[static_cast<std::size_t>(i)]),
                    values[static_cast<std::size_t>(i)], 1e-11)
            << "point " << i << " of " << count;
      }
    }
  }
}

TEST(Polynomial, ExtrapolationOfLineAndParabolaByHand) {
  const std::array<double, 2> line_times{1.0, 2.0};
  const std::array<double, 2> line_values{3.0, 5.0};
  const Polynomial line = Polynomial::extrapolation(line_times, line_values);
  EXPECT_DOUBLE_EQ(line.value(3.0), 7.0);
  EXPECT_DOUBLE_EQ(line.derivative(10.0), 2.0);

  // t^2 through t = 0, 1, 2 (unsorted input is allowed; the last one is the origin).
  const std::array<double, 3> times{1.0, 0.0, 2.0};
  const std::array<double, 3> values{1.0, 0.0, 4.0};
  const Polynomial parabola = Polynomial::extrapolation(times, values);
  EXPECT_EQ(parabola.origin(), 2.0);
  EXPECT_DOUBLE_EQ(parabola.value(3.0), 9.0);
  EXPECT_DOUBLE_EQ(parabola.derivative(3.0, 2), 2.0);
}

TEST(Polynomial, ConstrainedLeastSquaresReproducesPolynomialOfItsDegree) {
  std::mt19937_64 generator(5);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= 4; ++degree) {
      for (int extra : {2, 3, 5}) {
        const std::vector<double> times = sample_times(generator, grid, degree + extra);
        const Reference reference =
            random_reference(generator, degree, grid.origin + grid.spacing, 5.0 * grid.spacing);
        const std::vector<double> values = values_at(reference, times);
        const Polynomial polynomial = Polynomial::constrained_least_squares(times, values, degree);
        EXPECT_EQ(polynomial.degree(), degree);
        EXPECT_EQ(polynomial.origin(), times.back());
        EXPECT_EQ(polynomial.value(times.back()), values.back());
        expect_reproduces(polynomial, reference, check_times(times, grid.spacing));
      }
    }
  }
}

TEST(Polynomial, ConstrainedLeastSquaresKeepsNewestPointAndIsOptimal) {
  std::mt19937_64 generator(6);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= Polynomial::kMaxDegree; ++degree) {
      for (int extra : {2, 4}) {
        const std::vector<double> times = sample_times(generator, grid, degree + extra);
        const Reference reference =
            random_reference(generator, degree, grid.origin, 3.0 * grid.spacing);
        std::vector<double> values = values_at(reference, times);
        for (double& value : values) value += noise(generator);
        const Polynomial polynomial = Polynomial::constrained_least_squares(times, values, degree);
        // Eq. 12's constraint: bit-exact at the newest point, noise or not.
        EXPECT_EQ(polynomial.value(times.back()), values.back());

        // Optimality: with p = y_last + Σ_{k>=1} c_k x^k, the residuals are orthogonal
        // to every x^k, k = 1..q (normal equations), x in any fixed scaling.
        double spread = 0.0;
        for (const double t : times) spread = std::max(spread, std::abs(t - times.back()));
        for (int k = 1; k <= degree; ++k) {
          double inner_product = 0.0;
          double size = 0.0;
          for (std::size_t i = 0; i < times.size(); ++i) {
            const double residual = values[i] - polynomial.value(times[i]);
            const double basis = std::pow((times[i] - times.back()) / spread, k);
            inner_product += residual * basis;
            size += std::abs(values[i]) * std::abs(basis);
          }
          EXPECT_NEAR(inner_product, 0.0, 1e-10 * size)
              << "degree " << degree << ", basis " << k << ", origin " << grid.origin;
        }
      }
    }
  }
}

TEST(Polynomial, ConstrainedLeastSquaresByHand) {
  // Line through (2, 0) fitted to (0, 0), (1, 1): p = c (t - 2), minimising
  // (2c)^2 + (1 + c)^2 gives c = -1/5.
  const std::array<double, 3> times{0.0, 1.0, 2.0};
  const std::array<double, 3> values{0.0, 1.0, 0.0};
  const Polynomial line = Polynomial::constrained_least_squares(times, values, 1);
  EXPECT_EQ(line.value(2.0), 0.0);
  EXPECT_NEAR(line.derivative(0.5), -0.2, 1e-15);
  EXPECT_NEAR(line.value(0.0), 0.4, 1e-15);

  // Degree 0 is the newest value, whatever the others.
  const Polynomial constant = Polynomial::constrained_least_squares(times, values, 0);
  EXPECT_EQ(constant.degree(), 0);
  EXPECT_EQ(constant.value(-7.0), 0.0);
}

TEST(Polynomial, HermiteMatchesItsFourConditions) {
  std::mt19937_64 generator(7);
  std::uniform_real_distribution<double> draw(-2.0, 2.0);
  for (const Grid& grid : kGrids) {
    const double t0 = grid.origin;
    const double t1 = grid.origin + grid.spacing;
    const double y0 = draw(generator);
    const double y1 = draw(generator);
    const double dy0 = draw(generator);
    const double dy1 = draw(generator);
    const Polynomial hermite = Polynomial::hermite(t0, y0, dy0, t1, y1, dy1);
    EXPECT_EQ(hermite.degree(), 3);
    EXPECT_EQ(hermite.origin(), t0);
    EXPECT_EQ(hermite.scale(), t1 - t0);
    EXPECT_EQ(hermite.value(t0), y0);
    const double value_scale =
        std::abs(y0) + std::abs(y1) + grid.spacing * (std::abs(dy0) + std::abs(dy1));
    EXPECT_NEAR(hermite.value(t1), y1, kRelativeTolerance * value_scale);
    EXPECT_NEAR(hermite.derivative(t0), dy0, kRelativeTolerance * value_scale / grid.spacing);
    EXPECT_NEAR(hermite.derivative(t1), dy1, kRelativeTolerance * value_scale / grid.spacing);
  }
}

TEST(Polynomial, HermiteReproducesCubics) {
  std::mt19937_64 generator(8);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= 3; ++degree) {
      const Reference reference =
          random_reference(generator, degree, grid.origin + 0.2 * grid.spacing, grid.spacing);
      const double t0 = grid.origin;
      const double t1 = grid.origin + 2.0 * grid.spacing;
      const Polynomial hermite =
          Polynomial::hermite(t0, reference.value(t0), reference.derivative(t0, 1), t1,
                              reference.value(t1), reference.derivative(t1, 1));
      expect_reproduces(hermite, reference, check_times({t0, 0.5 * (t0 + t1), t1}, grid.spacing));
    }
  }
}

TEST(Polynomial, HermiteSmoothstepByHand) {
  // 3 s^2 - 2 s^3 on [0, 1].
  const Polynomial step = Polynomial::hermite(0.0, 0.0, 0.0, 1.0, 1.0, 0.0);
  EXPECT_DOUBLE_EQ(step.value(0.5), 0.5);
  EXPECT_DOUBLE_EQ(step.derivative(0.5), 1.5);
  EXPECT_DOUBLE_EQ(step.derivative(0.5, 2), 0.0);
  EXPECT_DOUBLE_EQ(step.derivative(0.0, 3), -12.0);
}

TEST(Polynomial, ShiftedIsTheSameFunction) {
  std::mt19937_64 generator(9);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  for (const Grid& grid : kGrids) {
    for (int degree = 0; degree <= Polynomial::kMaxDegree; ++degree) {
      std::vector<double> coefficients;
      for (int k = 0; k <= degree; ++k) coefficients.push_back(coefficient(generator));
      const Polynomial original =
          Polynomial::from_coefficients(grid.origin, grid.spacing, coefficients);
      const Reference reference{grid.origin, grid.spacing, coefficients};
      for (const double offset : {-1.0, 0.5, 2.0}) {
        for (const double ratio : {0.5, 1.0, 3.0}) {
          const Polynomial moved =
              original.shifted(grid.origin + offset * grid.spacing, ratio * grid.spacing);
          EXPECT_EQ(moved.degree(), degree);
          EXPECT_EQ(moved.origin(), grid.origin + offset * grid.spacing);
          EXPECT_EQ(moved.scale(), ratio * grid.spacing);
          for (int i = -10; i <= 30; ++i) {
            const double t = grid.origin + 0.1 * i * grid.spacing;
            for (int order = 0; order <= degree; ++order) {
              EXPECT_NEAR(moved.derivative(t, order), reference.derivative(t, order),
                          kRelativeTolerance * reference.magnitude(t, order) * 10.0)
                  << "degree " << degree << ", order " << order << ", t = " << t;
            }
          }
        }
      }
      // Re-expanding onto itself changes nothing at all.
      EXPECT_EQ(original.shifted(original.origin(), original.scale()), original);
    }
  }
}

TEST(Polynomial, ShiftedByHand) {
  // t^2 around 0 is 1 + 2 (t - 1) + (t - 1)^2 around 1, and in s = (t - 1) / 2:
  // 1 + 4 s + 4 s^2.
  const std::array<double, 3> coefficients{0.0, 0.0, 1.0};
  const Polynomial square = Polynomial::from_coefficients(0.0, 1.0, coefficients);
  const Polynomial moved = square.shifted(1.0, 2.0);
  ASSERT_EQ(moved.coefficients().size(), 3u);
  EXPECT_DOUBLE_EQ(moved.coefficients()[0], 1.0);
  EXPECT_DOUBLE_EQ(moved.coefficients()[1], 4.0);
  EXPECT_DOUBLE_EQ(moved.coefficients()[2], 4.0);
  const Polynomial default_scale = square.shifted(1.0);
  EXPECT_EQ(default_scale.scale(), 1.0);
  EXPECT_DOUBLE_EQ(default_scale.coefficients()[1], 2.0);
}

TEST(Polynomial, TruncatedKeepsLeadingTaylorTerms) {
  const std::array<double, 6> coefficients{1.0, -2.0, 3.0, -4.0, 5.0, -6.0};
  const Polynomial full = Polynomial::from_coefficients(1e4, 0.5, coefficients);

  const Polynomial quadratic = full.truncated(2);
  EXPECT_EQ(quadratic.degree(), 2);
  EXPECT_EQ(quadratic.origin(), full.origin());
  EXPECT_EQ(quadratic.scale(), full.scale());
  EXPECT_EQ(quadratic, Polynomial::from_coefficients(1e4, 0.5, std::span(coefficients).first(3)));
  // s = 1: 1 - 2 + 3.
  EXPECT_EQ(quadratic.value(1e4 + 0.5), 2.0);
  EXPECT_EQ(quadratic.derivative(1e4, 3), 0.0);
  // Same value and first two derivatives at the origin as the full polynomial.
  for (int order = 0; order <= 2; ++order) {
    EXPECT_EQ(quadratic.derivative(1e4, order), full.derivative(1e4, order));
  }

  EXPECT_EQ(full.truncated(0), Polynomial::constant(1e4, 1.0).shifted(1e4, 0.5));
  EXPECT_EQ(full.truncated(5), full);
  EXPECT_EQ(full.truncated(Polynomial::kMaxDegree), full);
}

TEST(Polynomial, InvalidArgumentsThrow) {
  const std::array<double, 3> times{0.0, 1.0, 2.0};
  const std::array<double, 3> values{0.0, 1.0, 4.0};
  const std::array<double, 3> repeated_times{0.0, 1.0, 1.0};
  const std::array<double, 2> two{0.0, 1.0};
  const std::array<double, 9> nine_times{0, 1, 2, 3, 4, 5, 6, 7, 8};
  const std::array<double, 9> nine_values{};
  const std::array<double, 3> nan_times{0.0, std::numeric_limits<double>::quiet_NaN(), 2.0};
  const std::span<const double> empty;
  const double infinity = std::numeric_limits<double>::infinity();

  EXPECT_THROW(Polynomial::constant(infinity, 1.0), std::invalid_argument);

  EXPECT_THROW(Polynomial::taylor(0.0, empty), std::invalid_argument);
  EXPECT_THROW(Polynomial::taylor(0.0, nine_values), std::invalid_argument);
  EXPECT_THROW(Polynomial::taylor(0.0, values, 0.0), std::invalid_argument);
  EXPECT_THROW(Polynomial::taylor(0.0, values, -1.0), std::invalid_argument);

  EXPECT_THROW(Polynomial::extrapolation(empty, empty), std::invalid_argument);
  EXPECT_THROW(Polynomial::extrapolation(times, two), std::invalid_argument);
  EXPECT_THROW(Polynomial::extrapolation(repeated_times, values), std::invalid_argument);
  EXPECT_THROW(Polynomial::extrapolation(nine_times, nine_values), std::invalid_argument);
  EXPECT_THROW(Polynomial::extrapolation(nan_times, values), std::invalid_argument);

  EXPECT_THROW(Polynomial::constrained_least_squares(times, values, 2), std::invalid_argument);
  EXPECT_THROW(Polynomial::constrained_least_squares(times, values, -1), std::invalid_argument);
  EXPECT_THROW(Polynomial::constrained_least_squares(nine_times, nine_values, 8),
               std::invalid_argument);
  EXPECT_THROW(Polynomial::constrained_least_squares(times, two, 0), std::invalid_argument);
  EXPECT_THROW(Polynomial::constrained_least_squares(repeated_times, values, 1),
               std::invalid_argument);
  EXPECT_THROW(Polynomial::constrained_least_squares(nan_times, values, 1), std::invalid_argument);
  EXPECT_NO_THROW(Polynomial::constrained_least_squares(times, values, 1));

  EXPECT_THROW(Polynomial::hermite(1.0, 0.0, 0.0, 1.0, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Polynomial::hermite(2.0, 0.0, 0.0, 1.0, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(Polynomial::hermite(0.0, 0.0, 0.0, infinity, 0.0, 0.0), std::invalid_argument);

  EXPECT_THROW(Polynomial::from_coefficients(0.0, 1.0, empty), std::invalid_argument);
  EXPECT_THROW(Polynomial::from_coefficients(0.0, 1.0, nine_values), std::invalid_argument);
  EXPECT_THROW(Polynomial::from_coefficients(0.0, 0.0, values), std::invalid_argument);
  EXPECT_THROW(Polynomial::from_coefficients(0.0, std::nan(""), values), std::invalid_argument);

  const Polynomial polynomial = Polynomial::from_coefficients(0.0, 1.0, values);
  EXPECT_THROW((void)polynomial.derivative(0.0, -1), std::invalid_argument);
  EXPECT_THROW(polynomial.shifted(1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(polynomial.shifted(infinity, 1.0), std::invalid_argument);
  EXPECT_THROW(polynomial.truncated(-1), std::invalid_argument);

  // The message says what is wrong.
  try {
    Polynomial::constrained_least_squares(times, values, 2);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("constrained_least_squares"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("needs 4"), std::string::npos);
  }
}

}  // namespace
}  // namespace couplet
