#pragma once
// Estimated outputs and the input polynomials built from them in F3ORNITS
// (F3ORNITS paper §3.1.2–3.1.4; docs/references.md).
//
// - Estimated output ŷ⁽ⁿ⁺¹⁾ of degree p (eqs. 21–22): in extrapolation mode Ω_p^Ex
//   through the p + 1 newest points (eq. 11); in CLS mode Ω_p^CLS on the p + 2
//   newest points, equal to the newest one (eq. 12), so that the point the order
//   function looked at but the extrapolation forgets still counts (fig. 5).
// - Degree reduction (eq. 16, fig. 7): a target accepting degree m_k < p gets the
//   estimate recalibrated at degree min(p, m_k) on the same newest points, rather
//   than a truncation, so that it still passes through the newest value.
// - Smoothness enhancement (§3.1.4, eqs. 26–28): the cubic Hermite polynomial that
//   continues the previous input with its left value and slope at t⁽ⁿ⁾ and meets
//   the raw new input's value and slope at t⁽ⁿ⁺¹⁾: inputs are C¹ across
//   communication times.
#include <algorithm>
#include <array>
#include <cstdint>

#include "runtime/output_history.hpp"
#include "couplet/polynomial.hpp"
#include "couplet/time.hpp"

namespace couplet {

enum class Calibration : std::uint8_t { extrapolation, constrained_least_squares };

/// ŷ of `degree` on the newest points of `history` (eqs. 21–22, 11, 12). The degree
/// is capped by what the points allow: size() - 1 in extrapolation mode, size() - 2
/// in CLS mode (with a single point, the constant). The polynomial's origin is the
/// newest time. `history` must not be empty; `degree` in 0..Polynomial::kMaxDegree.
Polynomial estimate_output(const OutputHistory& history, int degree, Calibration calibration);

/// The estimates of one output made at one communication time, at every degree up
/// to the chosen one, so that a target reading it later (eq. 25) still gets it
/// recalibrated at its own accepted degree (eq. 16). Fixed capacity, no heap.
class OutputEstimate {
 public:
  /// Estimates for degrees 0..degree on the newest points of `history`.
  void calibrate(const OutputHistory& history, int degree, Calibration calibration);

  Time time() const { return time_; }   ///< the newest point it passes through
  int degree() const { return degree_; }  ///< p, the degree the order function chose
  /// ỹ (the estimate extended beyond its step, eq. 24) for a target accepting at
  /// most `accepted_degree`.
  const Polynomial& for_degree(int accepted_degree) const {
    return by_degree_[static_cast<std::size_t>(std::clamp(accepted_degree, 0, degree_))];
  }

 private:
  Time time_ = 0;
  int degree_ = 0;
  std::array<Polynomial, Polynomial::kMaxDegree + 1> by_degree_{};
};

/// Eq. 28: the cubic Hermite on [start, end] (seconds, start < end) with the value
/// and slope of `previous_input` at `start` (its left limit, eq. 26) and those of
/// `raw_input` at `end` (eq. 27).
Polynomial smoothed_input(const Polynomial& previous_input, const Polynomial& raw_input,
                          double start, double end);

}  // namespace couplet
