// The F3ORNITS order function (F3ORNITS paper eqs. 18–20,
// docs/references.md) and the output
// history it reads.
#include "runtime/algorithms/f3ornits_order_function.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>

namespace couplet {
namespace {

// Irregular communication times (ticks), as a variable-step run produces.
constexpr std::array<Time, 7> kTimes{0, 10'000'000, 23'000'000, 31'000'000, 47'000'000, 52'000'000, 70'000'000};

double polynomial(int degree, double t) {
  // Degree `degree` with every coefficient nonzero, so lower degrees cannot fit it.
  const std::array<double, 4> coefficients{0.7, -2.0, 30.0, -400.0};
  double value = 0.0;
  for (int k = degree; k >= 0; --k) value = value * t + coefficients[static_cast<std::size_t>(k)];
  return value;
}

OutputHistory history_of(int degree, std::size_t points) {
  OutputHistory history;
  for (std::size_t k = 0; k < points; ++k) history.push(kTimes[k], polynomial(degree, to_seconds(kTimes[k])));
  return history;
}

TEST(OutputHistory, KeepsTheNewestPointsOldestFirst) {
  OutputHistory history;
  for (std::size_t k = 0; k < OutputHistory::kCapacity + 3; ++k) {
    history.push(static_cast<Time>(k) * 5, static_cast<double>(k));
  }
  EXPECT_EQ(history.size(), OutputHistory::kCapacity);
  EXPECT_EQ(history.value(0), static_cast<double>(OutputHistory::kCapacity + 2));
  std::array<double, 3> times{};
  std::array<double, 3> values{};
  history.points(1, 3, times, values);
  EXPECT_EQ(values[0], static_cast<double>(OutputHistory::kCapacity - 1));  // oldest first
  EXPECT_EQ(values[2], static_cast<double>(OutputHistory::kCapacity + 1));
  history.replace_newest(-1.0);
  EXPECT_EQ(history.value(0), -1.0);
  EXPECT_THROW(history.push(history.time(0), 0.0), std::invalid_argument);
}

TEST(OrderFunction, NothingToScoreBeforeTwoPoints) {
  const OrderChoice choice = choose_order(history_of(2, 1), 2);
  EXPECT_EQ(choice.degree, 0);
  EXPECT_EQ(choice.candidates, 0);
}

// The test: degree q when the output is a polynomial of degree q ≤ M.
TEST(OrderFunction, PicksTheDegreeOfAPolynomialOutput) {
  for (int max_degree = 0; max_degree <= 3; ++max_degree) {
    for (int degree = 0; degree <= max_degree; ++degree) {
      const OrderChoice choice = choose_order(history_of(degree, kTimes.size()), max_degree);
      EXPECT_EQ(choice.degree, degree) << "M = " << max_degree;
      EXPECT_EQ(choice.candidates, max_degree + 1);
      for (int q = 0; q < degree; ++q) EXPECT_GT(choice.errors[static_cast<std::size_t>(q)], 1e-6) << q;
    }
  }
}

// A polynomial of a degree above M gets the best degree up to M: M itself here,
// since each extra degree removes one more term of the smooth signal.
TEST(OrderFunction, NeverExceedsTheMaximumDegree) {
  const OrderChoice choice = choose_order(history_of(3, kTimes.size()), 2);
  EXPECT_EQ(choice.candidates, 3);
  EXPECT_EQ(choice.degree, 2);
}

// Only q + 1 ≤ n previous points can calibrate Ω_q^Ex (q ≤ min(M, n − 1)).
TEST(OrderFunction, CandidatesLimitedByThePointsAvailable) {
  const OrderChoice two_points = choose_order(history_of(2, 2), 2);
  EXPECT_EQ(two_points.candidates, 1);
  EXPECT_EQ(two_points.degree, 0);
  const OrderChoice three_points = choose_order(history_of(1, 3), 2);
  EXPECT_EQ(three_points.candidates, 2);
  EXPECT_EQ(three_points.degree, 1);
}

// Eq. 18 by hand: the errors of the constant and of the line through the points
// before the newest.
TEST(OrderFunction, ErrorsFollowEquation18) {
  OutputHistory history;
  history.push(0, 1.0);
  history.push(1'000'000'000, 2.0);
  history.push(2'000'000'000, 5.0);
  const OrderChoice choice = choose_order(history, 2);
  EXPECT_EQ(choice.candidates, 2);
  EXPECT_DOUBLE_EQ(choice.errors[0], 3.0);  // |5 − 2|
  EXPECT_DOUBLE_EQ(choice.errors[1], 2.0);  // |5 − 3|, the line through (0,1), (1,2)
  EXPECT_EQ(choice.degree, 1);
}

TEST(OrderFunction, EqualErrorsKeepTheLowerDegree) {
  OutputHistory history;
  history.push(0, 0.0);
  history.push(1'000'000'000, 1.0);
  history.push(2'000'000'000, 1.0);  // constant predicts 1 (error 0), line predicts 2
  EXPECT_EQ(choose_order(history, 2).degree, 0);
  history.push(3'000'000'000, 1.0);  // constant and the quadratic both exact → constant
  EXPECT_EQ(choose_order(history, 2).degree, 0);
}

TEST(OrderFunction, RejectsADegreeOutOfRange) {
  EXPECT_THROW(choose_order(history_of(1, 3), -1), std::invalid_argument);
  EXPECT_THROW(choose_order(history_of(1, 3), Polynomial::kMaxDegree + 1), std::invalid_argument);
}

}  // namespace
}  // namespace couplet
