#include "runtime/defects.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace couplet {
namespace {

constexpr int kMaxNodes = Polynomial::kMaxDegree + 1;

/// Gauss–Legendre nodes and weights on [−1, 1] for 1..kMaxNodes nodes.
struct GaussLegendreTable {
  std::array<std::array<double, kMaxNodes>, kMaxNodes + 1> nodes{};
  std::array<std::array<double, kMaxNodes>, kMaxNodes + 1> weights{};

  GaussLegendreTable() {
    for (int count = 1; count <= kMaxNodes; ++count) fill(count);
  }

 private:
  /// P_count and its derivative at x (count >= 1, |x| < 1) by the three-term recurrence.
  static void legendre(int count, double x, double& value, double& slope) {
    double previous = 1.0;  // P_0
    double current = x;     // P_1
    for (int k = 2; k <= count; ++k) {
      const double next = ((2.0 * k - 1.0) * x * current - (k - 1.0) * previous) / k;
      previous = current;
      current = next;
    }
    value = current;
    slope = count * (x * current - previous) / (x * x - 1.0);
  }

  // Newton from the classical initial guess cos(π(i − 1/4)/(N + 1/2)); the roots
  // are simple and well separated for N ≤ 8, so a few iterations reach rounding.
  void fill(int count) {
    const auto row = static_cast<std::size_t>(count);
    for (int i = 0; i < count; ++i) {
      double x = std::cos(std::numbers::pi * (i + 0.75) / (count + 0.5));
      double value = 0.0;
      double slope = 1.0;
      for (int iteration = 0; iteration < 100; ++iteration) {
        legendre(count, x, value, slope);
        const double correction = value / slope;
        x -= correction;
        if (std::abs(correction) < 1e-17) break;
      }
      legendre(count, x, value, slope);
      nodes[row][static_cast<std::size_t>(i)] = x;
      weights[row][static_cast<std::size_t>(i)] = 2.0 / ((1.0 - x * x) * slope * slope);
    }
  }
};

const GaussLegendreTable& gauss_legendre() {
  static const GaussLegendreTable table;
  return table;
}

void require_interval(const char* function, double from, double to) {
  if (!(to > from) || !std::isfinite(from) || !std::isfinite(to)) {
    throw std::invalid_argument(std::string(function) + ": needs finite from < to, got [" +
                                std::to_string(from) + ", " + std::to_string(to) + "]");
  }
}

}  // namespace

double mean_square(const Polynomial& polynomial, double from, double to) {
  require_interval("mean_square", from, to);
  // In s = (t − from)/(to − from) ∈ [0, 1] the nodes need no absolute times, which
  // would cost digits on a short step late in a run; for a polynomial already
  // expanded around the interval (every defect of a step is) the shift is exact.
  const Polynomial local = polynomial.shifted(from, to - from);
  const std::span<const double> coefficients = local.coefficients();
  // The square has degree 2d: d + 1 nodes (exact to degree 2d + 1) suffice.
  const std::size_t count = coefficients.size();
  const GaussLegendreTable& table = gauss_legendre();
  double sum = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    const double s = 0.5 * (1.0 + table.nodes[count][i]);
    double value = 0.0;
    for (std::size_t k = count; k-- > 0;) value = value * s + coefficients[k];
    sum += table.weights[count][i] * value * value;
  }
  // ∫_0^1 q(s)² ds = (1/2) Σ w_i q(s_i)², and that is the mean over [from, to].
  return 0.5 * sum;
}

double root_mean_square(const Polynomial& polynomial, double from, double to) {
  return std::sqrt(mean_square(polynomial, from, to));
}

Polynomial polynomial_difference(const Polynomial& minuend, const Polynomial& subtrahend, double origin,
                                 double scale) {
  const Polynomial left = minuend.shifted(origin, scale);
  const Polynomial right = subtrahend.shifted(origin, scale);
  const int degree = std::max(left.degree(), right.degree());
  std::array<double, Polynomial::kMaxDegree + 1> coefficients{};
  for (int k = 0; k <= degree; ++k) {
    const auto index = static_cast<std::size_t>(k);
    const double a = k <= left.degree() ? left.coefficients()[index] : 0.0;
    const double b = k <= right.degree() ? right.coefficients()[index] : 0.0;
    coefficients[index] = a - b;
  }
  return Polynomial::from_coefficients(origin, scale,
                                       std::span<const double>(coefficients.data(), static_cast<std::size_t>(degree + 1)));
}

Polynomial connection_defect(const Polynomial& input, const Polynomial& output, double step_start,
                             double step) {
  // Eq. 17: δu = ũ − ỹ on (T_{k−1}, T_k]; expanded around the step start in
  // s = (t − T_{k−1})/H_k ∈ [0, 1], where both operands are well conditioned.
  return polynomial_difference(input, output, step_start, step);
}

Polynomial output_defect_estimate(double taylor_at_midpoint, double sample_at_midpoint, double midpoint,
                                  double step_end, int order) {
  if (order < 0 || order + 1 > Polynomial::kMaxDegree) {
    throw std::invalid_argument("output_defect_estimate: order must be in 0.." +
                                std::to_string(Polynomial::kMaxDegree - 1));
  }
  require_interval("output_defect_estimate", midpoint, step_end);
  // Eq. 30 adds (ŷ − ỹ)(t) = ((T_k − t)/(T_k − t_mid))^{n+1} (y_mid − ỹ(t_mid)) to the
  // Taylor polynomial, so that ŷ(t_mid) = y_mid while ŷ keeps ỹ's n derivatives at
  // T_k (eq. 31); eq. 32 is its negative. In s = (t − T_k)/(T_k − t_mid) the factor
  // is (−s)^{n+1}: a single monomial.
  std::array<double, Polynomial::kMaxDegree + 1> coefficients{};
  const double sign = (order + 1) % 2 == 0 ? 1.0 : -1.0;
  coefficients[static_cast<std::size_t>(order + 1)] = sign * (taylor_at_midpoint - sample_at_midpoint);
  return Polynomial::from_coefficients(step_end, step_end - midpoint,
                                       std::span<const double>(coefficients.data(), static_cast<std::size_t>(order + 2)));
}

double output_defect_rms(double taylor_at_midpoint, double sample_at_midpoint, double step,
                         double midpoint_to_end, int order) {
  if (!(step > 0.0) || !(midpoint_to_end > 0.0)) {
    throw std::invalid_argument("output_defect_rms: needs step > 0 and midpoint_to_end > 0");
  }
  const double ratio = step / midpoint_to_end;
  double growth = 1.0;  // (H / (T_k − t_mid))^{n+1}
  for (int k = 0; k <= order; ++k) growth *= ratio;
  return std::abs(taylor_at_midpoint - sample_at_midpoint) * growth / std::sqrt(2.0 * order + 3.0);
}

}  // namespace couplet
