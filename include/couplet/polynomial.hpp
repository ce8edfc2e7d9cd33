#pragma once
// Polynomials in time: the inputs a slave receives over a step, and output estimates.
//
// Stored in a shifted and scaled abscissa s = (t - origin) / scale so that
// coefficients stay well conditioned whatever the absolute time and the step size.
// Fixed capacity: no heap allocation, so polynomials can live on the real-time path.
#include <array>
#include <span>

namespace couplet {

class Polynomial {
 public:
  static constexpr int kMaxDegree = 7;

  /// The zero polynomial (degree 0, origin 0, scale 1).
  Polynomial() = default;

  static Polynomial constant(double origin, double value);

  /// Taylor polynomial around `origin`: derivatives[k] is the k-th time derivative
  /// there (derivatives[0] the value); degree = derivatives.size() - 1.
  /// `scale` only conditions the representation (use the step size).
  static Polynomial taylor(double origin, std::span<const double> derivatives, double scale = 1.0);

  /// Ω_q^Ex (F3ORNITS eqs. 9/11): the interpolating polynomial through the q+1
  /// points (times[i], values[i]); the origin is the newest (last) time.
  static Polynomial extrapolation(std::span<const double> times, std::span<const double> values);

  /// Ω^CLS (F3ORNITS eq. 12): least squares of `degree` on degree+2 points or more,
  /// constrained to equal the newest (last) point exactly.
  static Polynomial constrained_least_squares(std::span<const double> times,
                                              std::span<const double> values, int degree);

  /// Cubic Hermite on [t0, t1] matching values and first derivatives at both ends
  /// (F3ORNITS eqs. 13/14, IFOSMONDI eqs. 18-23). Origin t0, scale t1 - t0.
  static Polynomial hermite(double t0, double y0, double dy0, double t1, double y1, double dy1);

  /// From raw coefficients in s = (t - origin) / scale.
  static Polynomial from_coefficients(double origin, double scale, std::span<const double> coefficients);

  double value(double t) const;
  /// The `order`-th time derivative at t (order 0 = value).
  double derivative(double t, int order = 1) const;

  /// The same function re-expanded around `new_origin` with `new_scale`.
  Polynomial shifted(double new_origin, double new_scale = 1.0) const;

  /// The Taylor truncation at the origin to at most `degree`.
  Polynomial truncated(int degree) const;

  int degree() const { return degree_; }
  double origin() const { return origin_; }
  double scale() const { return scale_; }
  std::span<const double> coefficients() const { return {coefficients_.data(), static_cast<std::size_t>(degree_ + 1)}; }

  friend bool operator==(const Polynomial&, const Polynomial&) = default;

 private:
  double origin_ = 0.0;
  double scale_ = 1.0;
  int degree_ = 0;
  std::array<double, kMaxDegree + 1> coefficients_{};
};

}  // namespace couplet
