#include "runtime/algorithms/ifosmondi_algorithm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "runtime/algorithms/landing_times.hpp"

namespace couplet {

namespace {

// PETSc's SNES divergence tolerance (snes_divergence_tolerance, default 10⁴): the
// paper's solvers ran with PETSc defaults (appendix A).
constexpr double kDivergenceRatio = 1e4;

bool all_finite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double value) { return std::isfinite(value); });
}

std::string number_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3e", value);
  return text;
}

}  // namespace

IfosmondiAlgorithm::IfosmondiAlgorithm(const IfosmondiSettings& settings)
    : settings_(settings), control_(settings.reference_step, settings.min_step) {
  if (!(settings.absolute_tolerance > 0.0) || !(settings.relative_tolerance > 0.0) ||
      !std::isfinite(settings.absolute_tolerance) || !std::isfinite(settings.relative_tolerance)) {
    throw ConfigurationError("algorithm.eps_abs and algorithm.eps_rel must be finite and > 0 (eq. 27)");
  }
  if (settings.max_iterations < 1) throw ConfigurationError("algorithm.max_iterations must be at least 1");
  if (settings.iteration_cap != 0 && settings.iteration_cap < settings.max_iterations) {
    throw std::logic_error("IfosmondiSettings: iteration_cap below max_iterations");
  }
}

AlgorithmRequirements IfosmondiAlgorithm::requirements() const {
  // Cubic Hermite inputs (eq. 22); output derivatives are welcome but a finite
  // difference stands in for them (§2.6).
  return {.algorithm_name = std::string(name()),
          .required_input_degree = 3,
          .needs_rollback = true,
          .resolves_algebraic_loops = true};
}

void IfosmondiAlgorithm::start(const RunSetup& setup, std::span<StepSlot> slots) {
  coupling_ = IfosmondiCoupling(setup.system, given_);
  for (const std::size_t s : coupling_.stepped_slaves()) {
    if (setup.system.description(s).capabilities.imposed_step > 0) {
      throw ConfigurationError(setup.system.located(
          s, "slave '" + setup.system.slave_name(s) + "' imposes its step size, but algorithm '" +
                 std::string(name()) + "' chooses step sizes itself (eq. 28)"));
    }
  }
  const std::size_t unknowns = coupling_.unknown_count();
  x_.assign(unknowns, 0.0);
  psi_.assign(unknowns, 0.0);
  gamma_.assign(unknowns, 0.0);
  next_.assign(unknowns, 0.0);
  solver_ = unknowns > 0 ? make_solver(unknowns) : nullptr;
  max_evaluations_ = max_evaluations(unknowns);
  initial_refresh_passes_ = 1;
  for (const std::size_t s : coupling_.stepped_slaves()) initial_refresh_passes_ += slots[s].output_count;
  time_ = setup.start;
  end_ = setup.end;
  horizon_ = setup.end;
  members_time_ = setup.start;
  phase_ = Phase::idle;
  // Everything a previous run left (an algorithm object may be started again).
  started_ = false;
  last_plan_ = PlanKind::none;
  saved_time_ = std::numeric_limits<Time>::min();
  refresh_passes_left_ = 0;
  anchored_ = anchor_save_pending_ = anchor_restore_pending_ = false;
  since_anchor_.clear();
  totals_ = Totals{};
  record_ = IfosmondiStepRecord{};
  control_ = IfosmondiStepControl(settings_.reference_step, settings_.min_step);
}

void IfosmondiAlgorithm::set_horizon(Time horizon) { horizon_ = std::min(horizon, end_); }

void IfosmondiAlgorithm::request_output_refresh() {
  if (phase_ != Phase::idle) throw std::logic_error("IfosmondiAlgorithm: output refresh inside a step");
  refresh_passes_left_ = started_ ? 1 : initial_refresh_passes_;
}

void IfosmondiAlgorithm::set_anchor() {
  if (phase_ != Phase::idle) throw std::logic_error("IfosmondiAlgorithm: anchor inside a step");
  anchored_ = true;
  anchor_ = Anchor{time_, coupling_.start_state(), control_.step(), started_};
  since_anchor_.clear();
  anchor_save_pending_ = true;
}

void IfosmondiAlgorithm::rollback_to_anchor() {
  if (!anchored_) throw ProtocolViolation("rollback of an IFOSMONDI group that was never saved");
  time_ = anchor_.time;
  horizon_ = anchor_.time;
  coupling_.restore_start_state(anchor_.coupling);
  control_.restore(anchor_.step);
  started_ = anchor_.started;
  since_anchor_.clear();
  phase_ = Phase::idle;
  anchor_restore_pending_ = true;
}

void IfosmondiAlgorithm::add_all(Plan& plan, SlaveAction action) const {
  for (const std::size_t s : coupling_.stepped_slaves()) plan.add(s, action);
}

bool IfosmondiAlgorithm::plan_next(std::span<StepSlot> slots, Plan& plan) {
  last_plan_ = PlanKind::none;
  if (anchor_restore_pending_) {
    anchor_restore_pending_ = false;
    add_all(plan, SlaveAction::restore_state);
    members_time_ = saved_time_;
    last_plan_ = PlanKind::anchor;
    return true;
  }
  if (refresh_passes_left_ > 0) {
    plan_refresh(slots, plan);
    return true;
  }
  if (anchor_save_pending_) {
    anchor_save_pending_ = false;
    add_all(plan, SlaveAction::save_state);
    saved_time_ = members_time_;
    last_plan_ = PlanKind::anchor;
    return true;
  }
  if (phase_ == Phase::idle) {
    if (time_ >= horizon_) return false;
    begin_step(slots);
  }
  if (plan_positioning(slots, plan)) return true;
  plan_evaluation(slots, plan);
  return true;
}

// The step control's step from `start`, ending at the horizon or at the next
// landing time it would cross (when that is at least min_step away).
Time IfosmondiAlgorithm::step_end_from(Time start) const {
  return land_on_next(settings_.landing_times, start, std::min(start + control_.step(), horizon_),
                      settings_.min_step);
}

void IfosmondiAlgorithm::begin_step(std::span<const StepSlot> slots) {
  if (!started_) {
    coupling_.start(slots);
    started_ = true;
  }
  step_start_ = time_;
  step_end_ = step_end_from(time_);
  phase_ = Phase::iterating;
  begin_attempt();
}

void IfosmondiAlgorithm::begin_attempt() {
  coupling_.first_iterate(x_);
  if (solver_) solver_->begin(x_);
  attempt_evaluations_ = 0;
}

void IfosmondiAlgorithm::plan_refresh(std::span<StepSlot> slots, Plan& plan) {
  --refresh_passes_left_;
  coupling_.prepare_output_refresh(slots, time_, started_);
  for (const std::size_t s : coupling_.stepped_slaves()) {
    if (!slots[s].inputs.empty()) plan.add(s, SlaveAction::evaluate_outputs);
  }
  last_plan_ = PlanKind::refresh;
}

// The slaves must stand at the step start in the state they had there. Past it
// (after an evaluation): restore the saved state. Before it (anchored only, the
// saved state being the anchor's): replay the converged steps since, one plan each,
// since a slot holds one request.
bool IfosmondiAlgorithm::plan_positioning(std::span<StepSlot> slots, Plan& plan) {
  if (members_time_ == step_start_) return false;
  if (members_time_ > step_start_) {
    add_all(plan, SlaveAction::restore_state);
    members_time_ = saved_time_;
    if (members_time_ == step_start_) return false;  // the evaluation joins this plan
  }
  const auto replay = std::find_if(since_anchor_.begin(), since_anchor_.end(),
                                   [&](const ConvergedStep& step) { return step.start == members_time_; });
  if (replay == since_anchor_.end()) {
    throw std::logic_error("IfosmondiAlgorithm: no saved state nor converged step leads to the step start");
  }
  coupling_.prepare_step(slots, replay->start, replay->end, replay->x, replay->from, sample_times_);
  add_all(plan, SlaveAction::step);
  members_time_ = replay->end;
  last_plan_ = PlanKind::replay;
  return true;
}

void IfosmondiAlgorithm::plan_evaluation(std::span<StepSlot> slots, Plan& plan) {
  // Not anchored: every step starts with a save (the single slot then holds t⁽ᴺ⁾).
  if (!anchored_ && saved_time_ != step_start_) {
    add_all(plan, SlaveAction::save_state);
    saved_time_ = step_start_;
  }
  coupling_.prepare_step(slots, step_start_, step_end_, x_, sample_times_);
  add_all(plan, SlaveAction::step);
  members_time_ = step_end_;
  last_plan_ = PlanKind::evaluation;
}

void IfosmondiAlgorithm::accept(std::span<const StepSlot> slots, const Plan&) {
  if (last_plan_ == PlanKind::replay) ++totals_.replayed_integrations;
  if (last_plan_ == PlanKind::evaluation) evaluated(slots);
}

void IfosmondiAlgorithm::evaluated(std::span<const StepSlot> slots) {
  ++attempt_evaluations_;
  ++totals_.integrations;
  coupling_.gather(slots, step_start_, step_end_, psi_);
  coupling_residual(x_, psi_, gamma_);
  convergence_ = test_convergence(x_, gamma_, settings_.absolute_tolerance, settings_.relative_tolerance);
  residual_ = convergence_.residual;
  threshold_ = convergence_.threshold;
  if (attempt_evaluations_ == 1) initial_residual_ = residual_;
  // The attempt so far, for the observer and the run log (notify() completes it).
  record_ = IfosmondiStepRecord{step_start_, step_end_, solver_ ? solver_->iterations(attempt_evaluations_) : 0,
                                attempt_evaluations_, residual_, threshold_, false};
  if (observer_) observer_->residual_evaluated(record_);
  // Eq. 27 held for every unknown on its own (ifosmondi_coupling.hpp, ConvergenceTest).
  if (coupling_.unknown_count() == 0 || convergence_.converged()) {
    if (listener_) listener_->step_converged(slots, step_start_, step_end_);
    finish_step();
    return;
  }
  if (!std::isfinite(residual_) || residual_ > kDivergenceRatio * initial_residual_) {
    reject("the iteration diverged");
    return;
  }
  if (attempt_evaluations_ >= max_evaluations_) {
    reject("the most evaluations of the residual an attempt may take, without convergence");
    return;
  }
  if (solver_->next(x_, gamma_, next_) == CouplingSolver::Verdict::failed) {
    reject(solver_->failure());
    return;
  }
  if (!all_finite(next_)) {
    reject("the solver proposed a non-finite iterate");
    return;
  }
  std::copy(next_.begin(), next_.end(), x_.begin());
}

void IfosmondiAlgorithm::finish_step() {
  notify(true);
  ++totals_.converged_steps;
  if (anchored_) since_anchor_.push_back({step_start_, step_end_, coupling_.start_state(), x_});
  coupling_.advance(x_, psi_);  // C¹: the next step starts where this one converged (eq. 18)
  time_ = step_end_;
  control_.converged();
  phase_ = Phase::idle;
}

// The fixed point rejects without allocating; KINSOL's solvers build their
// failure text when they give up (docs/iterative.md, Limits).
void IfosmondiAlgorithm::reject(std::string_view reason) {
  notify(false);
  ++totals_.rejected_steps;
  if (!control_.halve(step_end_ - step_start_)) fail(reason);
  step_end_ = step_end_from(step_start_);
  begin_attempt();
}

void IfosmondiAlgorithm::notify(bool converged) {
  const int iterations = solver_ ? solver_->iterations(attempt_evaluations_) : 0;
  totals_.iterations += static_cast<std::uint64_t>(iterations);
  record_ = IfosmondiStepRecord{step_start_, step_end_, iterations, attempt_evaluations_, residual_, threshold_, converged};
  if (observer_) observer_->step_finished(record_);
}

void IfosmondiAlgorithm::fail(std::string_view reason) const {
  throw CouplingFailure(std::string(name()) + ": no convergence on the step [" + seconds_text(step_start_) + ", " +
                        seconds_text(step_end_) + "] s (" + std::string(reason) + "): residual |gamma| = " +
                        number_text(residual_) + ", eq. 27 needs < " + number_text(threshold_) + worst_unknown_text() +
                        "; halving the step would go below min_step = " + seconds_text(control_.min_step()) + " s");
}

// The unknown farthest from its own tolerance, which names the port to look at.
std::string IfosmondiAlgorithm::worst_unknown_text() const {
  if (coupling_.unknown_count() == 0) return {};
  return "; farthest from its tolerance: " + coupling_.unknown_name(convergence_.worst_unknown) + ", |gamma| = " +
         number_text(convergence_.worst_residual) + " against eps_rel |x| + eps_abs = " +
         number_text(convergence_.worst_tolerance);
}

void IfosmondiAlgorithm::report(AlgorithmReport& report) const {
  report.counters["iterations"] = static_cast<double>(totals_.iterations);
  report.counters["integrations"] = static_cast<double>(totals_.integrations);
  report.counters["rejected_steps"] = static_cast<double>(totals_.rejected_steps);
  report.counters["converged_steps"] = static_cast<double>(totals_.converged_steps);
  report.counters["replayed_integrations"] = static_cast<double>(totals_.replayed_integrations);
}

// The run log's view of last_record(): the attempt in progress or just ended
// (iterations and integrations so far, ‖γ‖ against the eq. 27 threshold).
std::vector<std::string> IfosmondiAlgorithm::internal_quantities() const {
  return {"step_s", "iterations", "integrations", "residual", "threshold", "converged"};
}

void IfosmondiAlgorithm::internal_values(std::span<double> values) const {
  values[0] = to_seconds(record_.end - record_.start);
  values[1] = record_.iterations;
  values[2] = record_.integrations;
  values[3] = record_.residual;
  values[4] = record_.threshold;
  values[5] = record_.converged ? 1.0 : 0.0;
}

}  // namespace couplet
