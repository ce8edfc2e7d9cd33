#include "couplet/polynomial.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace couplet {
namespace {

constexpr int kMaxCoefficients = Polynomial::kMaxDegree + 1;
// Ω^CLS takes degree + 2 points or more; we bound the count so that the least
// squares problem lives in fixed-capacity matrices (no heap allocation on the real-time path,
// docs/architecture.md).
constexpr int kMaxFitPoints = 2 * kMaxCoefficients;

// Fixed maximum sizes: Eigen keeps these on the stack, so the QR does not allocate.
using FitMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor,
                                kMaxFitPoints, Polynomial::kMaxDegree>;
using FitVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxFitPoints, 1>;
using FitSolution =
    Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, Polynomial::kMaxDegree, 1>;

[[noreturn]] void fail(const char* function, const std::string& why) {
  throw std::invalid_argument(std::string("Polynomial::") + function + ": " + why);
}

void require_finite(const char* function, const char* name, double value) {
  if (!std::isfinite(value)) fail(function, std::string(name) + " must be finite");
}

void require_scale(const char* function, double scale) {
  if (!std::isfinite(scale) || !(scale > 0.0)) {
    fail(function, "scale must be finite and > 0, got " + std::to_string(scale));
  }
}

void require_coefficient_count(const char* function, const char* what, std::size_t count) {
  if (count < 1 || count > static_cast<std::size_t>(kMaxCoefficients)) {
    fail(function, std::string("needs 1 to ") + std::to_string(kMaxCoefficients) + " " + what +
                       " (degree 0 to " + std::to_string(Polynomial::kMaxDegree) + "), got " +
                       std::to_string(count));
  }
}

// The scaled abscissae s_i = (t_i - origin) / scale of a fit, origin = newest (last) time
// and scale = the largest distance to it, so that s_i ∈ [-1, 1] and s_last = 0 exactly.
struct ScaledAbscissae {
  double origin = 0.0;
  double scale = 1.0;
  std::array<double, kMaxFitPoints> s{};
};

ScaledAbscissae scale_abscissae(const char* function, std::span<const double> times) {
  ScaledAbscissae result;
  for (const double time : times) require_finite(function, "every time", time);
  result.origin = times.back();
  double spread = 0.0;
  for (const double time : times) spread = std::max(spread, std::abs(time - result.origin));
  if (!std::isfinite(spread)) fail(function, "the time span overflows");
  if (spread > 0.0) result.scale = spread;
  for (std::size_t i = 0; i < times.size(); ++i) {
    result.s[i] = (times[i] - result.origin) / result.scale;
  }
  // Checked on the scaled abscissae, which is what the solves divide by: two times so
  // close that they coincide after scaling are as bad as equal times.
  for (std::size_t i = 0; i < times.size(); ++i) {
    for (std::size_t j = i + 1; j < times.size(); ++j) {
      if (result.s[i] == result.s[j]) {
        fail(function, "times must be distinct, but times[" + std::to_string(i) + "] and times[" +
                           std::to_string(j) + "] coincide (" + std::to_string(times[i]) + ")");
      }
    }
  }
  return result;
}

}  // namespace

Polynomial Polynomial::constant(double origin, double value) {
  require_finite("constant", "origin", origin);
  Polynomial result;
  result.origin_ = origin;
  result.coefficients_[0] = value;
  return result;
}

Polynomial Polynomial::taylor(double origin, std::span<const double> derivatives, double scale) {
  require_finite("taylor", "origin", origin);
  require_scale("taylor", scale);
  require_coefficient_count("taylor", "derivatives", derivatives.size());
  Polynomial result;
  result.origin_ = origin;
  result.scale_ = scale;
  result.degree_ = static_cast<int>(derivatives.size()) - 1;
  // p(t) = Σ d_k (t - origin)^k / k! = Σ (d_k scale^k / k!) s^k.
  double factor = 1.0;  // scale^k / k!
  for (std::size_t k = 0; k < derivatives.size(); ++k) {
    if (k > 0) factor *= scale / static_cast<double>(k);
    result.coefficients_[k] = derivatives[k] * factor;
  }
  return result;
}

Polynomial Polynomial::extrapolation(std::span<const double> times,
                                     std::span<const double> values) {
  if (times.size() != values.size()) {
    fail("extrapolation", "times and values differ in size (" + std::to_string(times.size()) +
                              " vs " + std::to_string(values.size()) + ")");
  }
  require_coefficient_count("extrapolation", "points", times.size());
  const ScaledAbscissae abscissae = scale_abscissae("extrapolation", times);
  const std::size_t count = times.size();

  // Newton divided differences in the scaled variable (F3ORNITS eq. 11), nodes ordered
  // newest first: node 0 is the origin (s = 0), so the constant coefficient comes out as
  // the newest value exactly, and the remaining nodes, one-sided, keep the nested
  // conversion below well conditioned.
  std::array<double, kMaxCoefficients> nodes{};
  std::array<double, kMaxCoefficients> differences{};
  for (std::size_t j = 0; j < count; ++j) {
    nodes[j] = abscissae.s[count - 1 - j];
    differences[j] = values[count - 1 - j];
  }
  for (std::size_t level = 1; level < count; ++level) {
    for (std::size_t j = count - 1; j >= level; --j) {
      differences[j] = (differences[j] - differences[j - 1]) / (nodes[j] - nodes[j - level]);
    }
  }

  // Newton form to monomials by nested multiplication:
  // p(s) = a_0 + (s - x_0)(a_1 + (s - x_1)(a_2 + ...)).
  Polynomial result;
  result.origin_ = abscissae.origin;
  result.scale_ = abscissae.scale;
  result.degree_ = static_cast<int>(count) - 1;
  auto& c = result.coefficients_;
  c[0] = differences[count - 1];
  for (std::size_t k = count - 1; k-- > 0;) {
    // c(s) <- c(s) (s - x_k) + a_k, from the top coefficient down so each c[i-1] is still old.
    const std::size_t current_degree = count - 2 - k;
    c[current_degree + 1] = c[current_degree];
    for (std::size_t i = current_degree; i > 0; --i) c[i] = c[i - 1] - nodes[k] * c[i];
    c[0] = differences[k] - nodes[k] * c[0];
  }
  // x_0 = 0: force the exact equality at the newest point whatever the rounding above.
  c[0] = differences[0];
  return result;
}

Polynomial Polynomial::constrained_least_squares(std::span<const double> times,
                                                 std::span<const double> values, int degree) {
  if (times.size() != values.size()) {
    fail("constrained_least_squares", "times and values differ in size (" +
                                          std::to_string(times.size()) + " vs " +
                                          std::to_string(values.size()) + ")");
  }
  if (degree < 0 || degree > kMaxDegree) {
    fail("constrained_least_squares",
         "degree must be in 0.." + std::to_string(kMaxDegree) + ", got " + std::to_string(degree));
  }
  const std::size_t count = times.size();
  const auto minimum = static_cast<std::size_t>(degree) + 2;
  if (count < minimum || count > static_cast<std::size_t>(kMaxFitPoints)) {
    fail("constrained_least_squares",
         "degree " + std::to_string(degree) + " needs " + std::to_string(minimum) + " to " +
             std::to_string(kMaxFitPoints) + " points (F3ORNITS eq. 12), got " +
             std::to_string(count));
  }
  const ScaledAbscissae abscissae = scale_abscissae("constrained_least_squares", times);

  // Eq. 12 with the constraint built in: p(s) = y_last + Σ_{k=1..q} c_k s^k equals the
  // newest value at s = 0 exactly, and c_1..c_q solve an unconstrained least squares
  // on the older points (the newest row would be all zeros).
  Polynomial result;
  result.origin_ = abscissae.origin;
  result.scale_ = abscissae.scale;
  result.degree_ = degree;
  const double newest = values[count - 1];
  result.coefficients_[0] = newest;
  if (degree == 0) return result;

  const auto rows = static_cast<Eigen::Index>(count - 1);
  FitMatrix design(rows, degree);
  FitVector right_hand_side(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double s = abscissae.s[static_cast<std::size_t>(i)];
    double power = 1.0;
    for (Eigen::Index k = 0; k < degree; ++k) {
      power *= s;
      design(i, k) = power;
    }
    right_hand_side(i) = values[static_cast<std::size_t>(i)] - newest;
  }
  // Distinct nonzero s_i, at least q + 1 of them: the design matrix has full column
  // rank, and column pivoting copes with the very different column norms s^k.
  const Eigen::ColPivHouseholderQR<FitMatrix> decomposition(design);
  const FitSolution solution = decomposition.solve(right_hand_side);
  for (int k = 0; k < degree; ++k)
    result.coefficients_[static_cast<std::size_t>(k) + 1] = solution(k);
  return result;
}

Polynomial Polynomial::hermite(double t0, double y0, double dy0, double t1, double y1, double dy1) {
  require_finite("hermite", "t0", t0);
  require_finite("hermite", "t1", t1);
  if (!(t1 > t0)) {
    fail("hermite",
         "needs t1 > t0, got t0 = " + std::to_string(t0) + ", t1 = " + std::to_string(t1));
  }
  const double step = t1 - t0;
  require_scale("hermite", step);
  // F3ORNITS eq. 14 in s = (t - t0) / h: p(s) = y0 + h dy0 s + c2 s^2 + c3 s^3 with
  // p(1) = y1 and p'(1) = h dy1, i.e. c2 + c3 = A and 2 c2 + 3 c3 = B below.
  const double value_gap = y1 - y0 - step * dy0;
  const double slope_gap = step * (dy1 - dy0);
  Polynomial result;
  result.origin_ = t0;
  result.scale_ = step;
  result.degree_ = 3;
  result.coefficients_[0] = y0;
  result.coefficients_[1] = step * dy0;
  result.coefficients_[2] = 3.0 * value_gap - slope_gap;
  result.coefficients_[3] = slope_gap - 2.0 * value_gap;
  return result;
}

Polynomial Polynomial::from_coefficients(double origin, double scale,
                                         std::span<const double> coefficients) {
  require_finite("from_coefficients", "origin", origin);
  require_scale("from_coefficients", scale);
  require_coefficient_count("from_coefficients", "coefficients", coefficients.size());
  Polynomial result;
  result.origin_ = origin;
  result.scale_ = scale;
  result.degree_ = static_cast<int>(coefficients.size()) - 1;
  std::copy(coefficients.begin(), coefficients.end(), result.coefficients_.begin());
  return result;
}

double Polynomial::value(double t) const {
  const double s = (t - origin_) / scale_;
  double result = 0.0;
  for (int k = degree_; k >= 0; --k)
    result = result * s + coefficients_[static_cast<std::size_t>(k)];
  return result;
}

double Polynomial::derivative(double t, int order) const {
  if (order < 0) fail("derivative", "order must be >= 0, got " + std::to_string(order));
  if (order > degree_) return 0.0;
  // d^m/dt^m = scale^-m d^m/ds^m, and d^m/ds^m s^k = k!/(k-m)! s^(k-m): Horner on those.
  const double s = (t - origin_) / scale_;
  double result = 0.0;
  for (int k = degree_; k >= order; --k) {
    double falling_factorial = 1.0;
    for (int j = k - order + 1; j <= k; ++j) falling_factorial *= static_cast<double>(j);
    result = result * s + coefficients_[static_cast<std::size_t>(k)] * falling_factorial;
  }
  for (int j = 0; j < order; ++j) result /= scale_;
  return result;
}

Polynomial Polynomial::shifted(double new_origin, double new_scale) const {
  require_finite("shifted", "new_origin", new_origin);
  require_scale("shifted", new_scale);
  // s = (t - origin) / scale = offset + ratio s' with s' = (t - new_origin) / new_scale;
  // Horner in polynomial arithmetic: q <- q (offset + ratio s') + c_k, from the top down.
  const double offset = (new_origin - origin_) / scale_;
  const double ratio = new_scale / scale_;
  Polynomial result;
  result.origin_ = new_origin;
  result.scale_ = new_scale;
  result.degree_ = degree_;
  auto& q = result.coefficients_;
  const auto top = static_cast<std::size_t>(degree_);
  q[0] = coefficients_[top];
  for (std::size_t k = top; k-- > 0;) {
    const std::size_t current_degree = top - 1 - k;
    q[current_degree + 1] = ratio * q[current_degree];
    for (std::size_t i = current_degree; i > 0; --i) q[i] = offset * q[i] + ratio * q[i - 1];
    q[0] = offset * q[0] + coefficients_[k];
  }
  return result;
}

Polynomial Polynomial::truncated(int degree) const {
  if (degree < 0) fail("truncated", "degree must be >= 0, got " + std::to_string(degree));
  if (degree >= degree_) return *this;
  Polynomial result = *this;
  result.degree_ = degree;
  // Unused coefficients stay zero so that operator== compares functions, not leftovers.
  std::fill(result.coefficients_.begin() + degree + 1, result.coefficients_.end(), 0.0);
  return result;
}

}  // namespace couplet
