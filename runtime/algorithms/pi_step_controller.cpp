#include "runtime/algorithms/pi_step_controller.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

bool finite_positive(double value) { return std::isfinite(value) && value > 0.0; }

void check_settings(const PiStepControllerSettings& settings) {
  const auto reject = [](const std::string& key, const std::string& why) {
    throw ConfigurationError("algorithm." + key + ": " + why);
  };
  if (!finite_positive(settings.tolerance)) reject("tol", "must be a finite number > 0");
  if (!finite_positive(settings.initial_step)) reject("initial_step", "must be a finite number > 0 (seconds)");
  if (!std::isfinite(settings.proportional_gain) || settings.proportional_gain < 0.0) {
    reject("k_p", "must be a finite number >= 0");
  }
  if (!std::isfinite(settings.integral_gain) || settings.integral_gain < 0.0) {
    reject("k_i", "must be a finite number >= 0");
  }
  if (!std::isfinite(settings.max_growth) || settings.max_growth < 1.0) {
    reject("theta_max", "must be a finite number >= 1");
  }
  if (!std::isfinite(settings.min_step) || settings.min_step < 0.0) {
    reject("min_step", "must be a finite number >= 0 (seconds)");
  }
  if (!(settings.max_step > 0.0)) reject("max_step", "must be > 0 (seconds)");
  if (settings.min_step > settings.max_step) {
    reject("min_step", "must not exceed algorithm.max_step");
  }
  if (settings.initial_step < settings.min_step || settings.initial_step > settings.max_step) {
    reject("initial_step", "must lie within [algorithm.min_step, algorithm.max_step]");
  }
}

}  // namespace

PiStepController::PiStepController(const PiStepControllerSettings& settings)
    : settings_(settings), log_tolerance_(0.0), integral_(0.0) {
  check_settings(settings_);
  log_tolerance_ = std::log(settings_.tolerance);
  integral_ = std::log(settings_.initial_step);  // I₀ = ln H₁ (eq. 39)
}

PiStepDecision PiStepController::next(double defect, double previous_step) {
  PiStepDecision decision;
  // The floor keeps e finite for a step without defect (ε = 0); the ceiling does the
  // same for an infinite one, and a NaN defect (a slave returned NaN) counts as the
  // largest, so that the step shrinks as far as the bounds allow.
  const double measured =
      std::isnan(defect) ? kDefectCeiling : std::clamp(defect, kDefectFloor, kDefectCeiling);
  decision.error_log = log_tolerance_ - std::log(measured);
  integral_ += settings_.integral_gain * decision.error_log;

  // The limits compared in the logarithm, where nothing overflows; a limited step is
  // the bound itself, exactly.
  const double log_unlimited = integral_ + settings_.proportional_gain * decision.error_log;
  double log_step = log_unlimited;
  double step = 0.0;
  const auto limit_to = [&](double bound) {
    log_step = std::log(bound);
    step = bound;
    decision.limited = true;
  };
  const double growth_bound = settings_.max_growth * previous_step;
  if (log_step > std::log(growth_bound)) limit_to(growth_bound);
  if (log_step > std::log(settings_.max_step)) limit_to(settings_.max_step);
  if (settings_.min_step > 0.0 && log_step < std::log(settings_.min_step)) limit_to(settings_.min_step);
  if (!decision.limited) step = std::exp(log_step);
  // Anti-windup: keep ln H = I + K_P e for the step actually proposed, so that a
  // stretch at a limit does not leave I far beyond it.
  integral_ += log_step - log_unlimited;
  decision.unlimited_step = std::exp(log_unlimited);
  decision.step = step;
  decision.integral = integral_;
  return decision;
}

}  // namespace couplet
