#include "runtime/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace couplet {

SignalError compare_to_reference(std::span<const double> cosimulation, std::span<const double> reference) {
  if (cosimulation.size() != reference.size() || reference.empty()) {
    throw std::invalid_argument("compare_to_reference: signals must be non-empty and on the same grid");
  }
  double sum_of_squares = 0.0;
  for (std::size_t k = 0; k < reference.size(); ++k) {
    const double difference = cosimulation[k] - reference[k];
    sum_of_squares += difference * difference;
  }
  const auto [low, high] = std::minmax_element(reference.begin(), reference.end());
  SignalError error;
  error.rmse = std::sqrt(sum_of_squares / static_cast<double>(reference.size()));
  const double range = *high - *low;
  error.nrmse_pct = range > 0.0 ? 100.0 * error.rmse / range : std::numeric_limits<double>::infinity();
  return error;
}

}  // namespace couplet
