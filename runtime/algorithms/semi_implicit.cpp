#include "runtime/algorithms/semi_implicit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "couplet/errors.hpp"

namespace couplet {

SemiImplicit::SemiImplicit(const SemiImplicitSettings& settings) : settings_(settings) {
  if (settings.step <= 0) throw ConfigurationError("algorithm.step must be positive");
  if (settings.input_order < 0 || settings.input_order > CommunicationHistory::kMaxOrder) {
    throw ConfigurationError("algorithm.input_order must be between 0 and " +
                             std::to_string(CommunicationHistory::kMaxOrder));
  }
  if (!(settings.perturbation != 0.0) || !std::isfinite(settings.perturbation)) {
    throw ConfigurationError("algorithm.perturbation (Δλ of eq. 4) must be finite and not zero");
  }
}

// Rollback and linearization are checked per role in start() (subsystems roll
// back, coupling elements linearize), naming the slave; the polynomials the
// subsystems get are of degree k.
AlgorithmRequirements SemiImplicit::requirements() const {
  return {.algorithm_name = std::string(name()), .required_input_degree = settings_.input_order};
}

void SemiImplicit::start(const RunSetup& setup, std::span<StepSlot> slots) {
  system_ = &setup.system;
  coupling_ = SemiImplicitCoupling(setup.system, name());
  for (std::size_t s = 0; s < setup.system.slave_count(); ++s) {
    const Time imposed = setup.system.description(s).capabilities.imposed_step;
    if (imposed > 0 &&
        (settings_.step % imposed != 0 || (setup.end - setup.start) % imposed != 0)) {
      throw ConfigurationError("slave '" + setup.system.slave_name(s) + "' imposes a step of " +
                               seconds_text(imposed) +
                               " s; algorithm.step and the time span must be multiples of it");
    }
  }
  for (const OutputHistorySeed& seed : settings_.history) {
    const bool is_lambda = [&] {
      for (std::size_t l = 0; l < coupling_.lambda_count(); ++l) {
        if (coupling_.lambda_name(setup.system, l) == seed.output) return true;
      }
      return false;
    }();
    if (!is_lambda) {
      throw ConfigurationError(
          "algorithm.history: '" + seed.output +
          "' is not an output of a coupling element (only coupling forces λ are extrapolated)");
    }
  }
  history_.start(setup.system, slots, setup.start, settings_.step, settings_.history);
  const std::size_t lambdas = coupling_.lambda_count();
  predicted_.assign(lambdas, 0.0);
  evaluated_.assign(lambdas, 0.0);
  slope_.assign(lambdas, 0.0);
  corrected_.assign(lambdas, 0.0);
  const std::size_t inputs = coupling_.coupling_input_count();
  inputs_now_.assign(inputs, 0.0);
  inputs_predicted_.assign(inputs, 0.0);
  inputs_perturbed_.assign(inputs, 0.0);
  inputs_corrected_.assign(inputs, 0.0);
  coupling_.gather_inputs(slots, inputs_now_);
  time_ = setup.start;
  end_ = setup.end;
  saved_time_ = std::numeric_limits<Time>::min();
  phase_ = Phase::idle;
  max_correction_ = max_update_ = max_slope_ = 0.0;
  macro_steps_ = integrations_ = 0;
}

bool SemiImplicit::plan_next(std::span<StepSlot> slots, Plan& plan) {
  if (phase_ == Phase::idle) {
    if (time_ >= end_) return false;
    step_end_ = std::min(time_ + settings_.step, end_);
    phase_ = saved_time_ == time_ ? Phase::predict : Phase::save;
  }
  plan_phase(slots, plan);
  return true;
}

void SemiImplicit::plan_phase(std::span<StepSlot> slots, Plan& plan) {
  const auto add_subsystems = [&](SlaveAction action) {
    for (const std::size_t s : coupling_.subsystems()) plan.add(s, action);
  };
  const auto add_couplings = [&](SlaveAction action) {
    for (const std::size_t c : coupling_.couplings()) plan.add(c, action);
  };
  switch (phase_) {
    case Phase::save:
      add_subsystems(SlaveAction::save_state);
      saved_time_ = time_;
      break;
    case Phase::predict:
      for (std::size_t l = 0; l < coupling_.lambda_count(); ++l) {
        predicted_[l] = history_.extrapolation(coupling_.lambda(l), settings_.input_order)
                            .value(to_seconds(step_end_));
      }
      prepare_subsystems(slots, Phase::predict);
      add_subsystems(SlaveAction::step);
      break;
    case Phase::evaluate_predicted:
      set_constant_inputs(slots, inputs_predicted_);
      add_couplings(SlaveAction::evaluate_outputs);
      break;
    case Phase::linearize:  // at u^p: the inputs of the evaluation stand
      add_couplings(SlaveAction::linearize);
      add_subsystems(SlaveAction::restore_state);
      break;
    case Phase::perturbed:
      prepare_subsystems(slots, Phase::perturbed);
      add_subsystems(SlaveAction::step);
      break;
    case Phase::restore:
      add_subsystems(SlaveAction::restore_state);
      set_constant_inputs(slots, inputs_now_);
      add_couplings(SlaveAction::evaluate_outputs);
      break;
    case Phase::correct:
      prepare_subsystems(slots, Phase::correct);
      add_subsystems(SlaveAction::step);
      break;
    case Phase::update:
      set_update_inputs(slots);
      add_couplings(SlaveAction::step);
      if (step_end_ < end_) {
        add_subsystems(SlaveAction::save_state);
        saved_time_ = step_end_;
      }
      break;
    case Phase::idle:
      break;
  }
}

void SemiImplicit::prepare_subsystems(std::span<StepSlot> slots, Phase phase) {
  const int order = settings_.input_order;
  for (const std::size_t s : coupling_.subsystems()) {
    StepSlot& slot = slots[s];
    slot.start = time_;
    slot.end = step_end_;
    for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
      if (coupling_.sources().held(s, i)) continue;
      const std::size_t l = coupling_.lambda_of_input(s, i);
      const PortReference lambda = coupling_.lambda(l);
      if (phase == Phase::predict) {
        slot.inputs[i] = history_.extrapolation(lambda, order);
      } else {
        const double at_end =
            phase == Phase::perturbed ? predicted_[l] + settings_.perturbation : corrected_[l];
        slot.inputs[i] = history_.interpolation(lambda, order, step_end_, at_end);
      }
    }
  }
}

void SemiImplicit::set_constant_inputs(std::span<StepSlot> slots,
                                       std::span<const double> values) const {
  const std::span<const std::size_t> couplings = coupling_.couplings();
  for (std::size_t k = 0; k < couplings.size(); ++k) {
    StepSlot& slot = slots[couplings[k]];
    for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
      slot.inputs[i] =
          Polynomial::constant(to_seconds(time_), values[coupling_.input_begin(k) + i]);
    }
  }
}

// The coupling elements follow the corrected states linearly over the step
// (their outputs at T_N+1, eq. 3 at u(T_N+1), are what the scheme uses; the line
// only shapes what the evaluation grid shows inside the step).
void SemiImplicit::set_update_inputs(std::span<StepSlot> slots) const {
  const std::span<const std::size_t> couplings = coupling_.couplings();
  const std::array<double, 2> times{to_seconds(time_), to_seconds(step_end_)};
  for (std::size_t k = 0; k < couplings.size(); ++k) {
    StepSlot& slot = slots[couplings[k]];
    slot.start = time_;
    slot.end = step_end_;
    const bool linear = system_->description(couplings[k]).capabilities.max_input_degree >= 1;
    for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
      const std::size_t flat = coupling_.input_begin(k) + i;
      const std::array<double, 2> values{inputs_now_[flat], inputs_corrected_[flat]};
      slot.inputs[i] = linear ? Polynomial::extrapolation(times, values)
                              : Polynomial::constant(times[1], inputs_corrected_[flat]);
    }
  }
}

void SemiImplicit::accept(std::span<const StepSlot> slots, const Plan&) {
  switch (phase_) {
    case Phase::save:
      phase_ = Phase::predict;
      break;
    case Phase::predict:
      coupling_.gather_inputs(slots, inputs_predicted_);
      integrations_ += coupling_.subsystems().size();
      phase_ = Phase::evaluate_predicted;
      break;
    case Phase::evaluate_predicted:
      for (std::size_t l = 0; l < coupling_.lambda_count(); ++l) {
        const PortReference lambda = coupling_.lambda(l);
        evaluated_[l] = slots[lambda.slave].output(lambda.port);
      }
      phase_ = Phase::linearize;
      break;
    case Phase::linearize:
      phase_ = Phase::perturbed;
      break;
    case Phase::perturbed:
      coupling_.gather_inputs(slots, inputs_perturbed_);
      integrations_ += coupling_.subsystems().size();
      correct(slots);
      phase_ = Phase::restore;
      break;
    case Phase::restore:
      phase_ = Phase::correct;
      break;
    case Phase::correct:
      coupling_.gather_inputs(slots, inputs_corrected_);
      integrations_ += coupling_.subsystems().size();
      phase_ = Phase::update;
      break;
    case Phase::update:
      finish_step(slots);
      break;
    case Phase::idle:
      break;
  }
}

// Eq. 4 (finite differences) and eq. 5 (the linearized coupling condition).
void SemiImplicit::correct(std::span<const StepSlot> slots) {
  coupling_.slopes(slots, inputs_predicted_, inputs_perturbed_, settings_.perturbation, slope_);
  max_correction_ = max_slope_ = 0.0;
  for (std::size_t l = 0; l < coupling_.lambda_count(); ++l) {
    if (!solve_linearized_coupling(predicted_[l], evaluated_[l], slope_[l], corrected_[l])) {
      throw SlaveError("semi_implicit: the linearized coupling condition (eq. 5) of '" +
                       coupling_.lambda_name(*system_, l) +
                       "' has no finite solution on the step [" + seconds_text(time_) + ", " +
                       seconds_text(step_end_) +
                       "] s (1 - dlambda/dlambda = " + std::to_string(1.0 - slope_[l]) +
                       "); a smaller step or another perturbation may help");
    }
    max_correction_ = std::max(max_correction_, std::abs(corrected_[l] - predicted_[l]));
    max_slope_ = std::max(max_slope_, std::abs(slope_[l]));
  }
}

void SemiImplicit::finish_step(std::span<const StepSlot> slots) {
  max_update_ = 0.0;
  for (const std::size_t c : coupling_.couplings()) history_.record(c, slots);
  for (std::size_t l = 0; l < coupling_.lambda_count(); ++l) {
    const PortReference lambda = coupling_.lambda(l);
    max_update_ =
        std::max(max_update_, std::abs(slots[lambda.slave].output(lambda.port) - corrected_[l]));
  }
  std::copy(inputs_corrected_.begin(), inputs_corrected_.end(), inputs_now_.begin());
  time_ = step_end_;
  ++macro_steps_;
  phase_ = Phase::idle;
}

void SemiImplicit::report(AlgorithmReport& report) const {
  report.counters["macro_steps"] = static_cast<double>(macro_steps_);
  report.counters["integrations"] = static_cast<double>(integrations_);
}

std::vector<std::string> SemiImplicit::internal_quantities() const {
  return {"max_correction", "max_update", "max_slope"};
}

void SemiImplicit::internal_values(std::span<double> values) const {
  values[0] = max_correction_;
  values[1] = max_update_;
  values[2] = max_slope_;
}

}  // namespace couplet
