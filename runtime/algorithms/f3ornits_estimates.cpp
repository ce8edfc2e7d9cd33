#include "runtime/algorithms/f3ornits_estimates.hpp"

#include <stdexcept>
#include <string>

namespace couplet {

Polynomial estimate_output(const OutputHistory& history, int degree, Calibration calibration) {
  if (history.empty()) throw std::invalid_argument("estimate_output: empty history");
  if (degree < 0 || degree > Polynomial::kMaxDegree) {
    throw std::invalid_argument("estimate_output: degree must be in 0.." +
                                std::to_string(Polynomial::kMaxDegree) + ", got " +
                                std::to_string(degree));
  }
  const auto wanted = static_cast<std::size_t>(degree);
  std::array<double, OutputHistory::kCapacity> times{};
  std::array<double, OutputHistory::kCapacity> values{};
  if (calibration == Calibration::constrained_least_squares && degree > 0 &&
      history.size() >= wanted + 2) {
    // Eq. 12 on p + 2 points; at degree 0 it is the newest value, as extrapolation.
    const std::size_t count = wanted + 2;
    history.points(0, count, times, values);
    return Polynomial::constrained_least_squares(std::span<const double>(times.data(), count),
                                                 std::span<const double>(values.data(), count),
                                                 degree);
  }
  // Eq. 11 through p + 1 points, or all there are early in the run. (The order
  // function never picks a degree whose CLS fit lacks points: q ≤ size − 2.)
  const std::size_t count = std::min(wanted + 1, history.size());
  history.points(0, count, times, values);
  return Polynomial::extrapolation(std::span<const double>(times.data(), count),
                                   std::span<const double>(values.data(), count));
}

void OutputEstimate::calibrate(const OutputHistory& history, int degree, Calibration calibration) {
  time_ = history.time(0);
  degree_ = 0;
  for (int d = 0; d <= degree; ++d) {
    by_degree_[static_cast<std::size_t>(d)] = estimate_output(history, d, calibration);
    // Early in the run the points may not allow the degree asked for.
    if (by_degree_[static_cast<std::size_t>(d)].degree() == d) degree_ = d;
  }
}

Polynomial smoothed_input(const Polynomial& previous_input, const Polynomial& raw_input,
                          double start, double end) {
  return Polynomial::hermite(start, previous_input.value(start), previous_input.derivative(start, 1),
                             end, raw_input.value(end), raw_input.derivative(end, 1));
}

}  // namespace couplet
