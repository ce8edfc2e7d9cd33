#include "runtime/algorithms/f3ornits.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "couplet/errors.hpp"
#include "runtime/algorithms/landing_times.hpp"

namespace couplet {
namespace {

// Smoothing replaces every input by a cubic Hermite polynomial (eq. 28).
constexpr int kSmoothingDegree = 3;

[[noreturn]] void reject(const char* key, const std::string& why) {
  throw ConfigurationError(std::string("algorithm.") + key + ": " + why);
}

}  // namespace

F3ornits::F3ornits(const F3ornitsSettings& settings) : settings_(settings) {
  if (settings.max_degree < 0 || settings.max_degree > Polynomial::kMaxDegree) {
    reject("max_degree", "must be a whole number from 0 to " + std::to_string(Polynomial::kMaxDegree));
  }
  check_time_stepper_settings(settings.time_stepper);
  if (!std::isfinite(settings.initial_step) || !(settings.initial_step > 0.0)) {
    reject("initial_step", "must be a finite number > 0 (seconds)");
  }
  // δt⁽⁰⁾ obeys the step bounds like every other proposal.
  settings_.initial_step = std::clamp(settings.initial_step, settings.time_stepper.min_step, settings.time_stepper.max_step);
}

AlgorithmRequirements F3ornits::requirements() const {
  // Whatever the slaves accept: the degree is reduced per slave (eq. 16), output
  // derivatives are never needed, and nothing is iterated.
  return {.algorithm_name = std::string(name())};
}

void F3ornits::start(const RunSetup& setup, std::span<StepSlot> slots) {
  system_ = &setup.system;
  start_ = setup.start;
  end_ = setup.end;
  abort_step_ = abort_step(settings_.abort_below_step, start_, end_);
  sources_ = InputSources(setup.system);
  check_configuration(setup.system);
  describe_system(setup.system);
  for (std::size_t s = 0; s < slots.size(); ++s) slots[s].sample_times.clear();
  phase_ = Phase::rendezvous;
  rendezvous_ = start_;
  rendezvous_count_ = refresh_count_ = horizon_overruns_ = 0;
  smallest_step_ = std::numeric_limits<double>::infinity();
  largest_step_ = 0.0;
  decision_ = F3ornitsDecision{};
  decision_.slave_records = slave_records_;
  decision_.output_records = output_records_;
  decision_.input_records = input_records_;
}

void F3ornits::check_configuration(const System& system) const {
  if (!settings_.smoothing) return;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription& description = system.description(s);
    if (!description.inputs.empty() && description.capabilities.max_input_degree < kSmoothingDegree) {
      throw ConfigurationError(
          "slave '" + system.slave_name(s) + "' accepts input polynomials of degree at most " +
          std::to_string(description.capabilities.max_input_degree) +
          ", but algorithm.smoothing needs degree 3 (C¹ Hermite inputs, F3ORNITS §3.1.4): set "
          "algorithm.smoothing=false or let the slave accept degree 3");
    }
  }
}

void F3ornits::describe_system(const System& system) {
  const std::size_t count = system.slave_count();
  slaves_.assign(count, SlaveState{});
  output_offset_.assign(count + 1, 0);
  input_offset_.assign(count + 1, 0);
  for (std::size_t s = 0; s < count; ++s) {
    output_offset_[s + 1] = output_offset_[s] + system.description(s).outputs.size();
    input_offset_[s + 1] = input_offset_[s] + system.description(s).inputs.size();
  }
  outputs_.assign(output_offset_.back(), OutputState{});
  inputs_.assign(input_offset_.back(), InputState{});

  std::vector<SchedulerSlave> topology(count);
  std::vector<std::string> names(count);
  for (std::size_t s = 0; s < count; ++s) {
    const SlaveDescription& description = system.description(s);
    SlaveState& slave = slaves_[s];
    slave.time = slave.previous_time = start_;
    slave.accepted_degree = std::min(settings_.max_degree, description.capabilities.max_input_degree);
    slave.smoothing = settings_.smoothing && !description.inputs.empty();
    slave.has_feedthrough = std::any_of(description.outputs.begin(), description.outputs.end(),
                                        [](const OutputDescription& output) { return output.direct_feedthrough; });
    topology[s].imposed_step = description.capabilities.imposed_step;
    names[s] = system.slave_name(s);
    for (std::size_t i = 0; i < description.inputs.size(); ++i) {
      inputs_[input_offset_[s] + i].source = sources_.source(s, i);
      inputs_[input_offset_[s] + i].held = sources_.held(s, i);
    }
  }
  const auto add_unique = [](std::vector<std::size_t>& list, std::size_t value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
  };
  // Some input reads `source`'s outputs: it proposes steps (eq. 37, or the
  // initial step while no read Real output measures an error) and the
  // scheduler orders `target` after it.
  const auto feeds = [&](std::size_t source, std::size_t target) {
    slaves_[source].reads_outputs = true;
    topology[source].feeds_inputs = true;
    add_unique(topology[target].sources, source);
    if (topology[target].imposed_step > 0) {
      add_unique(topology[source].imposed_targets, target);
    } else {
      topology[source].feeds_variable_step = true;
    }
  };
  for (const Connection& connection : system.connections()) {
    const std::size_t source = connection.source.slave;
    const std::size_t target = connection.target.slave;
    OutputState& output = outputs_[output_offset_[source] + connection.source.port];
    output.connected = true;
    output.target_degrees |= static_cast<std::uint8_t>(1U << slaves_[target].accepted_degree);
    feeds(source, target);
  }
  // Discrete values (and rounded Real outputs) are read too, though no error
  // estimate applies to them: without this a source read only so would step
  // to the end at once (eq. 39) and its readers would hold its start value.
  for (const Connection& connection : system.discrete_connections())
    feeds(connection.source.slave, connection.target.slave);
  for (const Connection& connection : system.integer_to_real_connections())
    feeds(connection.source.slave, connection.target.slave);
  for (const RoundedConnection& connection : system.rounded_connections())
    feeds(connection.source.slave, connection.target.slave);
  for (SchedulerSlave& slave : topology) {
    std::sort(slave.sources.begin(), slave.sources.end());
    std::sort(slave.imposed_targets.begin(), slave.imposed_targets.end());
  }
  scheduler_ = F3ornitsScheduler(std::move(topology), std::move(names), start_, end_, settings_.synchronous);

  times_.assign(count, start_);
  proposals_.assign(count, end_);
  ends_.assign(count, start_);
  limits_.assign(count, StepLimit::proposal);
  acted_.clear();
  acted_.reserve(count);
  slave_records_.assign(count, F3ornitsSlaveRecord{});
  output_records_.assign(outputs_.size(), F3ornitsOutputRecord{});
  input_records_.assign(inputs_.size(), F3ornitsInputRecord{});
}

// ---------------------------------------------------------------------------
// Planning: rendez-vous, then refresh passes, then the steps.
// ---------------------------------------------------------------------------

bool F3ornits::plan_next(std::span<StepSlot> slots, Plan& plan) {
  for (;;) {
    switch (phase_) {
      case Phase::rendezvous:
        if (!begin_rendezvous(slots)) return false;
        phase_ = Phase::refresh;
        break;
      case Phase::refresh:
        if (plan_refresh(slots, plan)) return true;
        phase_ = Phase::step;
        break;
      case Phase::step:
        plan_steps(slots, plan);
        return true;
    }
  }
}

// The slaves that reached the rendez-vous time take in their outputs, except the
// feedthrough outputs of the slaves that re-evaluate them first.
bool F3ornits::begin_rendezvous(std::span<const StepSlot> slots) {
  for (std::size_t s = 0; s < slaves_.size(); ++s) times_[s] = slaves_[s].time;
  rendezvous_ = scheduler_.next_rendezvous(times_);
  if (rendezvous_ >= end_) return false;
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    SlaveState& slave = slaves_[s];
    if (slave.time != rendezvous_ || slave.updated) continue;
    const std::span<const double> values(slots[s].outputs.data(), slots[s].output_count);
    if (needs_refresh(s)) {
      slave.refresh_pending = true;
      update_outputs(s, values, Outputs::not_feedthrough);
    } else {
      update_outputs(s, values, Outputs::all);
      finish_update(s);
    }
  }
  return true;
}

// With smoothed inputs too: the histories hold the coupled signal, not the
// smoothing's lag (f3ornits.hpp; measured in docs/f3ornits.md).
bool F3ornits::needs_refresh(std::size_t slave) const {
  const bool has_inputs = input_offset_[slave + 1] > input_offset_[slave];
  return has_inputs && slaves_[slave].has_feedthrough;
}

bool F3ornits::is_feedthrough(PortReference output) const {
  return system_->description(output.slave).outputs[output.port].direct_feedthrough;
}

// A slave re-evaluates its outputs after every source whose feedthrough output it
// reads has done so. Without an algebraic loop (System::validate) this order exists.
bool F3ornits::waits_for_refresh(std::size_t slave) const {
  for (std::size_t i = input_offset_[slave]; i < input_offset_[slave + 1]; ++i) {
    if (inputs_[i].held) continue;  // an Integer source changes in steps only
    const PortReference source = inputs_[i].source;
    if (source.slave != slave && slaves_[source.slave].refresh_pending && is_feedthrough(source)) return true;
  }
  return false;
}

bool F3ornits::plan_refresh(std::span<StepSlot> slots, Plan& plan) {
  acted_.clear();
  bool pending = false;
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (!slaves_[s].refresh_pending) continue;
    pending = true;
    if (waits_for_refresh(s)) continue;
    // The raw inputs at the rendez-vous (eq. 25, before any smoothing): the
    // connection equations there. Their value and slope do not depend on the step
    // end, which is not known yet.
    const double scale = slaves_[s].proposed_step > 0.0 ? slaves_[s].proposed_step : settings_.initial_step;
    StepSlot& slot = slots[s];
    for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
      if (!inputs_[input_offset_[s] + i].held) slot.inputs[i] = raw_input(s, i, rendezvous_, scale);
    }
    plan.add(s, SlaveAction::evaluate_outputs);
    acted_.push_back(s);
  }
  if (pending && acted_.empty()) {
    throw std::logic_error("f3ornits: feedthrough outputs wait for each other (an algebraic loop "
                           "validation should have rejected)");
  }
  return !acted_.empty();
}

void F3ornits::plan_steps(std::span<StepSlot> slots, Plan& plan) {
  acted_.clear();
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    times_[s] = slaves_[s].time;
    proposals_[s] = slaves_[s].proposal;
  }
  scheduler_.schedule(rendezvous_, times_, proposals_, ends_, limits_);
  // The estimates made at the rendez-vous are used until the source's proposal, or
  // until its next communication if that is later (an imposed period, eq. 39).
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (slaves_[s].time != rendezvous_) continue;
    slaves_[s].current.horizon = std::max(slaves_[s].proposal, ends_[s]);
    acted_.push_back(s);
  }
  for (const std::size_t s : acted_) {
    StepSlot& slot = slots[s];
    slot.start = rendezvous_;
    slot.end = ends_[s];
    prepare_inputs(s, slot);
    plan.add(s);
    F3ornitsSlaveRecord& record = slave_records_[s];
    record.step_start = slot.start;
    record.step_end = slot.end;
    record.limit = limits_[s];
    const double step = to_seconds(slot.end - slot.start);
    smallest_step_ = std::min(smallest_step_, step);
    largest_step_ = std::max(largest_step_, step);
  }
  ++rendezvous_count_;
}

const OutputEstimate& F3ornits::estimate_for(PortReference source, Time time) const {
  const OutputState& output = outputs_[output_offset_[source.slave] + source.port];
  if (output.current.time() <= time && !output.history.empty()) return output.current;
  // The scheduler lets a slave step only from the earliest time, so a source is
  // at most one step ahead (f3ornits_scheduler.hpp): the estimate before is the one.
  if (output.history.size() >= 2 && output.previous.time() <= time) return output.previous;
  throw std::logic_error("f3ornits: no estimate of '" + system_->output_name(source) + "' made at or before " +
                         std::to_string(time) + " ns");
}

Time F3ornits::horizon_of(std::size_t source_slave, Time estimate_time) const {
  const SlaveState& source = slaves_[source_slave];
  return source.current.time == estimate_time ? source.current.horizon : source.previous.horizon;
}

Polynomial F3ornits::raw_input(std::size_t slave, std::size_t input, Time time, double scale) const {
  const PortReference source = inputs_[input_offset_[slave] + input].source;
  const OutputEstimate& estimate = estimate_for(source, time);
  // Eq. 16: recalibrated at the degree the slave accepts; re-expanded around the
  // step start, scaled by the step, for a well-conditioned representation.
  return estimate.for_degree(slaves_[slave].accepted_degree).shifted(to_seconds(time), scale);
}

void F3ornits::prepare_inputs(std::size_t slave, StepSlot& slot) {
  const double start = to_seconds(slot.start);
  const double end = to_seconds(slot.end);
  const SlaveState& state = slaves_[slave];
  for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
    InputState& input = inputs_[input_offset_[slave] + i];
    if (input.held) continue;  // no estimate, no smoothing: the executor holds it
    F3ornitsInputRecord& record = input_records_[input_offset_[slave] + i];
    const OutputEstimate& estimate = estimate_for(input.source, slot.start);
    const Polynomial raw = raw_input(slave, i, slot.start, end - start);
    const bool smooth = state.smoothing && input.has_previous;
    slot.inputs[i] = smooth ? smoothed_input(input.previous_input, raw, start, end) : raw;
    input.previous_input = slot.inputs[i];
    input.has_previous = true;
    record.estimate_time = estimate.time();
    record.horizon = horizon_of(input.source.slave, estimate.time());
    record.degree = slot.inputs[i].degree();
    record.smoothed = smooth;
    record.beyond_horizon = slot.end > record.horizon;
    if (record.beyond_horizon) ++horizon_overruns_;
  }
}

// ---------------------------------------------------------------------------
// After the executor carried out a plan.
// ---------------------------------------------------------------------------

void F3ornits::accept(std::span<const StepSlot> slots, const Plan& plan) {
  if (phase_ == Phase::refresh) {
    for (const PlannedAction& action : plan.actions()) {
      const std::size_t s = action.slave;
      const StepSlot& slot = slots[s];
      slaves_[s].refresh_pending = false;
      update_outputs(s, std::span<const double>(slot.outputs.data(), slot.output_count), Outputs::feedthrough);
      finish_update(s);
      slave_records_[s].refreshed = true;
      ++refresh_count_;
    }
    record_plan(true);
    return;
  }
  for (const PlannedAction& action : plan.actions()) {
    const std::size_t s = action.slave;
    SlaveState& slave = slaves_[s];
    slave.previous_time = slave.time;
    slave.time = slots[s].end;
    slave.updated = false;
    ++slave.steps;
    slave_records_[s].refreshed = false;
    // At t_end nobody reads the outputs any more; taken in for the record only.
    if (slave.time >= end_) {
      update_outputs(s, std::span<const double>(slots[s].outputs.data(), slots[s].output_count), Outputs::all);
      finish_update(s);
    }
  }
  record_plan(false);
  phase_ = Phase::rendezvous;
}

void F3ornits::update_outputs(std::size_t slave, std::span<const double> values, Outputs which) {
  for (std::size_t j = 0; j < values.size(); ++j) {
    const bool feedthrough = is_feedthrough({slave, j});
    if (which == Outputs::all || (which == Outputs::feedthrough) == feedthrough) {
      update_output(slave, j, values[j]);
    }
  }
}

// Eqs. 32–36 against the estimate sent, then eqs. 18–22 for the next one.
void F3ornits::update_output(std::size_t slave, std::size_t output, double value) {
  OutputState& state = outputs_[output_offset_[slave] + output];
  F3ornitsOutputRecord& record = output_records_[output_offset_[slave] + output];
  const Time time = slaves_[slave].time;
  record.time = time;
  record.value = value;
  record.measured = !state.history.empty();
  if (state.history.empty()) {
    state.range.start(value);
  } else {
    const double step = to_seconds(time - state.history.time(0));
    state.range.add(value, step, settings_.time_stepper.damping);
    measure(state, value, time, record);
  }
  record.damped_max = state.range.damped_max();
  record.damped_min = state.range.damped_min();
  state.history.push(time, value);
  record.order = choose_order(state.history, settings_.max_degree);
  state.previous = state.current;
  state.current.calibrate(state.history, record.order.degree, settings_.calibration);
  record.estimate_degree_next = state.current.degree();
}

// Ours: eq. 32 takes p = the degree the order function chose. A target that
// accepts less received a lower-degree estimate (eq. 16), whose error is larger;
// the step must suit what was actually sent, so every degree a target received
// is measured and the smallest ratio kept. With targets accepting M or more this
// is exactly eq. 32.
void F3ornits::measure(const OutputState& state, double value, Time time, F3ornitsOutputRecord& record) const {
  const int chosen = state.current.degree();
  bool first = true;
  for (int degree = chosen; degree >= 0; --degree) {
    const bool received = degree == chosen || (state.target_degrees & (1U << degree)) != 0;
    if (!received) continue;
    const OutputError error = measure_output(value, state.current.for_degree(degree).value(to_seconds(time)), degree,
                                             state.range, settings_.time_stepper);
    if (first || error.ratio < record.error.ratio) {
      record.error = error;
      record.estimate_degree = degree;
    }
    first = false;
  }
}

void F3ornits::finish_update(std::size_t slave_index) {
  SlaveState& slave = slaves_[slave_index];
  F3ornitsSlaveRecord& record = slave_records_[slave_index];
  const Time time = slave.time;
  const TimeStepperSettings& stepper = settings_.time_stepper;
  // Eq. 37 over the outputs that some input reads: the others cannot hurt the coupling.
  double ratio = std::numeric_limits<double>::infinity();
  bool measured = false;
  for (std::size_t j = output_offset_[slave_index]; j < output_offset_[slave_index + 1]; ++j) {
    if (!outputs_[j].connected || !output_records_[j].measured) continue;
    ratio = std::min(ratio, output_records_[j].error.ratio);
    measured = true;
  }
  record.ratio = measured ? ratio : stepper.rho_max;
  Time proposal = end_;  // eq. 39: nothing reads its outputs
  if (slave.reads_outputs) {
    if (slave.communications == 0 || !measured) {
      // Remark 3: the first step is a parameter.
      record.proposal_step = StepProposal{settings_.initial_step, 1.0, false};
    } else {
      const double actual = to_seconds(time - slave.current.time);
      record.proposal_step = propose_step(record.ratio, actual, slave.proposed_step, stepper);
      if (time < end_ && slave.collapse.collapsed(record.proposal_step.step, abort_step_)) {
        stop_collapsed_run(slave_index);
      }
    }
    slave.proposed_step = record.proposal_step.step;
    const double remaining = to_seconds(end_ - time);
    proposal = record.proposal_step.step >= remaining ? end_ : time + step_to_ticks(record.proposal_step.step);
    proposal = land_on_next(settings_.landing_times, time, proposal,
                            step_to_ticks(settings_.time_stepper.min_step));
  }
  slave.proposal = std::min(proposal, end_);
  slave.previous = slave.current;
  slave.current = Epoch{time, slave.proposal};
  ++slave.communications;
  slave.updated = true;
  record.time = time;
  record.communications = slave.communications;
  record.proposal = slave.proposal;
}

// Names the read output with the smallest ratio (eq. 37): the one whose error
// forced the step of `slave_index` down.
void F3ornits::stop_collapsed_run(std::size_t slave_index) const {
  const F3ornitsSlaveRecord& record = slave_records_[slave_index];
  std::size_t culprit = output_offset_[slave_index];
  for (std::size_t j = output_offset_[slave_index]; j < output_offset_[slave_index + 1]; ++j) {
    if (outputs_[j].connected && output_records_[j].measured &&
        output_records_[j].error.ratio <= output_records_[culprit].error.ratio) {
      culprit = j;
    }
  }
  const std::size_t port = culprit - output_offset_[slave_index];
  char numbers[320];
  std::snprintf(numbers, sizeof numbers,
                "f3ornits: %u steps of slave '%s' in a row below algorithm.abort_below_step (%.3g s), the last "
                "%.3g s at t = %.9g s; the output holding it down is %s (error %.3g times its tolerance "
                "algorithm.tol_abs + algorithm.tol_rel",
                static_cast<unsigned>(kCollapsedSteps), system_->slave_name(slave_index).c_str(), abort_step_,
                record.proposal_step.step, to_seconds(slaves_[slave_index].time),
                system_->output_name({slave_index, port}).c_str(),
                output_records_[culprit].error.normalized);
  throw SlaveError(std::string(numbers) +
                   " x scale). Raise algorithm.tol_abs or algorithm.tol_rel, set algorithm.min_step to go on "
                   "at a bounded step, or lower algorithm.abort_below_step (0: never stop)");
}

void F3ornits::record_plan(bool refresh) {
  ++decision_.index;
  decision_.time = rendezvous_;
  decision_.refresh = refresh;
  decision_.slaves = std::span<const std::size_t>(acted_.data(), acted_.size());
}

void F3ornits::report(AlgorithmReport& report) const {
  report.counters["rendezvous"] = static_cast<double>(rendezvous_count_);
  report.counters["feedthrough_refreshes"] = static_cast<double>(refresh_count_);
  report.counters["horizon_overruns"] = static_cast<double>(horizon_overruns_);
  if (largest_step_ > 0.0) {
    report.counters["smallest_step_s"] = smallest_step_;
    report.counters["largest_step_s"] = largest_step_;
  }
  for (std::size_t s = 0; s < slaves_.size() && system_ != nullptr; ++s) {
    report.counters["steps." + system_->slave_name(s)] = static_cast<double>(slaves_[s].steps);
  }
}

// The run log's view of last_decision(): per output the degree of its newest
// estimate (eqs. 18–20) and its normalized error (eqs. 32–35); per slave its
// latest step and the ratio ρ of eq. 37.
std::vector<std::string> F3ornits::internal_quantities() const {
  std::vector<std::string> names;
  for (std::size_t s = 0; s < system_->slave_count(); ++s) {
    for (std::size_t j = 0; j < system_->description(s).outputs.size(); ++j) {
      names.push_back("order:" + system_->output_name({s, j}));
      names.push_back("error:" + system_->output_name({s, j}));
    }
  }
  for (std::size_t s = 0; s < system_->slave_count(); ++s) {
    names.push_back("step_s:" + system_->slave_name(s));
    names.push_back("ratio:" + system_->slave_name(s));
  }
  return names;
}

void F3ornits::internal_values(std::span<double> values) const {
  std::size_t k = 0;
  for (const F3ornitsOutputRecord& output : output_records_) {
    values[k++] = output.estimate_degree_next;
    values[k++] = output.error.normalized;
  }
  for (const F3ornitsSlaveRecord& slave : slave_records_) {
    values[k++] = to_seconds(slave.step_end - slave.step_start);
    values[k++] = slave.ratio;
  }
}

}  // namespace couplet
