#pragma once
// The order function of F3ORNITS (F3ORNITS paper §3.1.1, eqs. 18–20;
// docs/references.md).
//
// Once the newest value y⁽ⁿ⁺¹⁾ of an output is known, each degree q = 0..min(M, n)
// is scored by how well Ω_q^Ex, calibrated on the q + 1 points before the newest,
// predicted it (eq. 18):
//   ⁽q⁾err = | y⁽ⁿ⁺¹⁾ − Ω_q^Ex(t⁽ⁿ⁺¹⁾) |
// and the degree for the next step is the argmin (eq. 20), ties to the lower
// degree (the cheaper and more robust polynomial); errors within rounding of each
// other (a few ulps of the values) are ties, so that an output that is exactly a
// polynomial of degree q gets degree q. The delay of one step this
// implies is what lets all slaves integrate at the same time (§3.1.1).
#include <array>

#include "runtime/output_history.hpp"
#include "couplet/polynomial.hpp"

namespace couplet {

struct OrderChoice {
  int degree = 0;      ///< p for the next step (eq. 20)
  int candidates = 0;  ///< how many q were scored: min(M, points before the newest - 1) + 1
  std::array<double, Polynomial::kMaxDegree + 1> errors{};  ///< ⁽q⁾err, q < candidates (eq. 18)
};

/// Scores the newest point of `history` against the extrapolations from the points
/// before it, for q = 0..max_degree as far as those points allow. With fewer than
/// two points nothing can be scored: degree 0, no candidates.
/// Throws std::invalid_argument if max_degree is outside 0..Polynomial::kMaxDegree.
OrderChoice choose_order(const OutputHistory& history, int max_degree);

}  // namespace couplet
