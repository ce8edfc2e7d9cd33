#include "runtime/algorithms/f3ornits_order_function.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace couplet {
namespace {

// Extrapolating a polynomial of its own degree or higher leaves errors of a few
// ulps of the values, amplified by the extrapolation weights (at most ~2^q for
// steps of similar sizes): 64 ulps separate them from genuine differences.
constexpr double kTieUlps = 64.0;

}  // namespace

OrderChoice choose_order(const OutputHistory& history, int max_degree) {
  if (max_degree < 0 || max_degree > Polynomial::kMaxDegree) {
    throw std::invalid_argument("choose_order: max_degree must be in 0.." +
                                std::to_string(Polynomial::kMaxDegree) + ", got " +
                                std::to_string(max_degree));
  }
  OrderChoice choice;
  if (history.size() < 2) return choice;
  const std::size_t previous_points = history.size() - 1;
  // q + 1 ≤ previous points and q ≤ M (the paper's q ∈ ⟦0, min(M, n−1)⟧).
  choice.candidates = static_cast<int>(std::min<std::size_t>(previous_points, static_cast<std::size_t>(max_degree) + 1));
  const double newest_time = to_seconds(history.time(0));
  const double newest_value = history.value(0);

  std::array<double, OutputHistory::kCapacity> times{};
  std::array<double, OutputHistory::kCapacity> values{};
  // Errors closer than rounding are a tie: an output that is a polynomial of
  // degree q is extrapolated exactly by every degree ≥ q, up to a few ulps.
  double magnitude = 0.0;
  for (std::size_t age = 0; age < std::min<std::size_t>(history.size(), static_cast<std::size_t>(choice.candidates) + 1); ++age) {
    magnitude = std::max(magnitude, std::abs(history.value(age)));
  }
  const double rounding = kTieUlps * std::numeric_limits<double>::epsilon() * magnitude;
  double best_error = 0.0;
  for (int q = 0; q < choice.candidates; ++q) {
    const auto count = static_cast<std::size_t>(q) + 1;
    history.points(1, count, times, values);  // t⁽ⁿ⁻q⁾..t⁽ⁿ⁾, the newest excluded
    const Polynomial extrapolation = Polynomial::extrapolation(
        std::span<const double>(times.data(), count), std::span<const double>(values.data(), count));
    const double error = std::abs(newest_value - extrapolation.value(newest_time));
    choice.errors[static_cast<std::size_t>(q)] = error;
    // Smaller by more than rounding only: ties keep the lower degree. A NaN error never wins.
    if (q == 0 || error < best_error - rounding) {
      best_error = error;
      choice.degree = q;
    }
  }
  return choice;
}

}  // namespace couplet
