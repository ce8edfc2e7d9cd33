#include "runtime/algorithms/f3ornits_time_stepper.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

[[noreturn]] void reject(const char* key, const std::string& why) {
  throw ConfigurationError(std::string("algorithm.") + key + ": " + why);
}

bool finite_positive(double value) { return std::isfinite(value) && value > 0.0; }

}  // namespace

void check_time_stepper_settings(const TimeStepperSettings& settings) {
  if (!finite_positive(settings.tol_rel)) reject("tol_rel", "must be a finite number > 0");
  if (!std::isfinite(settings.tol_abs) || settings.tol_abs < 0.0) {
    reject("tol_abs", "must be a finite number >= 0");
  }
  if (settings.normalization == Normalization::magnitude && settings.tol_abs == 0.0) {
    reject("tol_abs", "must be > 0 with normalization magnitude (an output crossing zero would "
                      "divide by zero, eq. 33)");
  }
  if (!std::isfinite(settings.damping) || settings.damping < 0.0) {
    reject("damping", "must be a finite number >= 0 (per second; 0.05 in the paper)");
  }
  if (!finite_positive(settings.rho_min) || settings.rho_min > 1.0) {
    reject("rho_min", "must be in (0, 1]");
  }
  if (!std::isfinite(settings.rho_max) || settings.rho_max < 1.0) {
    reject("rho_max", "must be a finite number >= 1");
  }
  if (!std::isfinite(settings.min_step) || settings.min_step < 0.0) {
    reject("min_step", "must be a finite number >= 0 (seconds)");
  }
  if (!(settings.max_step > 0.0) || std::isnan(settings.max_step)) {
    reject("max_step", "must be > 0 (seconds)");
  }
  if (settings.max_step < settings.min_step) reject("max_step", "must not be below algorithm.min_step");
}

void OutputRange::start(double value) {
  max_ = min_ = damped_max_ = damped_min_ = value;
}

void OutputRange::add(double value, double previous_step, double damping) {
  max_ = std::max(max_, value);
  min_ = std::min(min_, value);
  const double amplitude = damped_max_ - damped_min_;  // α⁽ᵐ⁻¹⁾
  const double shrink = std::min(0.5, 0.5 * damping * previous_step) * amplitude;
  damped_max_ = std::max(value, damped_max_ - shrink);
  damped_min_ = std::min(value, damped_min_ + shrink);
}

OutputError measure_output(double value, double estimate, int degree, const OutputRange& range,
                           const TimeStepperSettings& settings) {
  OutputError result;
  result.error = std::abs(value - estimate);
  double spread = 0.0;
  switch (settings.normalization) {
    case Normalization::magnitude:
      spread = std::abs(value);
      break;
    case Normalization::amplitude:
      spread = range.amplitude();
      break;
    case Normalization::damped_amplitude:
      spread = range.damped_amplitude();
      break;
  }
  result.scale = settings.tol_abs + settings.tol_rel * spread;
  // A constant output with tol_abs = 0 has scale 0 and error 0: nothing to control.
  result.normalized = result.scale > 0.0 ? result.error / result.scale : (result.error > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
  if (result.normalized == 0.0) {
    result.ratio = settings.rho_max;
  } else if (std::isfinite(result.normalized)) {
    result.ratio = std::pow(1.0 / result.normalized, 1.0 / static_cast<double>(degree + 1));
  } else {
    result.ratio = 0.0;  // NaN or infinite: as small as the bounds allow
  }
  return result;
}

StepProposal propose_step(double ratio, double actual_step, double proposed_step,
                          const TimeStepperSettings& settings) {
  const double reference = std::max(actual_step, proposed_step);
  const double wanted = (std::isnan(ratio) ? 0.0 : ratio) * actual_step;
  double step = std::clamp(wanted, settings.rho_min * reference, settings.rho_max * reference);
  step = std::clamp(step, settings.min_step, settings.max_step);
  StepProposal proposal;
  proposal.step = step;
  proposal.ratio = step / actual_step;
  proposal.limited = step != wanted;
  return proposal;
}

}  // namespace couplet
