#include "runtime/executor.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "runtime/initial_evaluation_order.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

Executor::Executor(System& system, Algorithm& algorithm, Time start, Time end,
                   std::vector<Time> grid)
    : system_(system), algorithm_(algorithm), start_(start), end_(end), frontier_(start) {
  if (end <= start) throw ConfigurationError("time.end must be after time.start");
  trace_.times = std::move(grid);
  for (std::size_t k = 0; k < trace_.times.size(); ++k) {
    if (trace_.times[k] < start || trace_.times[k] > end ||
        (k > 0 && trace_.times[k] <= trace_.times[k - 1])) {
      throw ConfigurationError(
          "evaluation grid must be increasing and inside [time.start, time.end]");
    }
  }
  // Sized here, before anything can fail (the run log's header, validation,
  // set-up), so that a refused run still has a (row-less) trace to write its
  // summary from.
  trace_.values.assign(system_.slave_count(), {});
  trace_.interpolated_slaves.assign(system_.slave_count(), false);
  trace_.discrete_values.assign(system_.slave_count(), {});
}

void Executor::initialize() {
  const std::size_t count = system_.slave_count();
  system_.validate(algorithm_.requirements());
  slots_.assign(count, StepSlot{});
  scratch_.assign(count, Scratch{});
  discrete_.assign(count, DiscreteSignals{});
  slave_time_.assign(count, start_);
  saved_time_.assign(count, start_);
  // A wave holds every slave at most once.
  calls_.reserve(count);
  wave_of_slave_.assign(count, 0);
  wave_number_ = 0;
  for (std::size_t s = 0; s < count; ++s) {
    const SlaveDescription& desc = system_.description(s);
    StepSlot& slot = slots_[s];
    slot.inputs.assign(desc.inputs.size(), Polynomial{});
    slot.output_count = desc.outputs.size();
    slot.output_derivative_order = desc.capabilities.output_derivative_order;
    slot.outputs.assign(
        static_cast<std::size_t>(slot.output_derivative_order + 1) * slot.output_count, 0.0);
    slot.output_time = start_;
    slot.start = slot.end = start_;
    trace_.values[s].assign(trace_.times.size() * slot.output_count, 0.0);
    trace_.interpolated_slaves[s] = !desc.capabilities.intermediate_samples;
    scratch_[s].previous_values.assign(slot.output_count, 0.0);
    scratch_[s].saved_outputs.assign(slot.outputs.size(), 0.0);
    if (desc.capabilities.can_linearize) {
      slot.linearization.assign(LinearizationLayout::of(desc).size(), 0.0);
    }
    DiscreteSignals& discrete = discrete_[s];
    for (std::size_t i = 0; i < desc.inputs.size(); ++i) {
      if (const auto integer = system_.integer_source_of({s, i}))
        discrete.held_inputs.push_back({i, *integer});
    }
    for (std::size_t i = 0; i < desc.discrete_inputs.size(); ++i) {
      if (const auto rounded = system_.rounded_source_of({s, i})) {
        discrete.sources.push_back({rounded->source, rounded->rounding});
      } else {
        discrete.sources.push_back({system_.discrete_source_of({s, i}), std::nullopt});
      }
      discrete.inputs.push_back(desc.discrete_inputs[i].start);
    }
    discrete.outputs.assign(desc.discrete_outputs.size(), 0);
    discrete.previous_outputs = discrete.saved_outputs = discrete.outputs;
    trace_.discrete_values[s].assign(trace_.times.size() * discrete.outputs.size(), 0);
    if (dispatcher_->calls_slave(s)) {
      system_.slave(s).setup(start_);
      if (!discrete.outputs.empty()) system_.slave(s).evaluate_discrete_outputs(discrete.outputs);
    }
    if (!discrete.outputs.empty()) dispatcher_->share_discrete_start_values(s, discrete.outputs);
    if (observer_ != nullptr) {
      observer_->slave_set_up(s, start_);
      if (!discrete.outputs.empty()) observer_->discrete_outputs_evaluated(s, discrete.outputs);
    }
  }
  compute_initial_outputs();
  algorithm_.start(RunSetup{system_, start_, end_}, slots_);
  plan_.reserve(4 * count + 4);
  for (std::size_t s = 0; s < count; ++s) {
    StepSlot& slot = slots_[s];
    slot.samples.reserve(slot.sample_times.capacity() * slot.output_count);
    scratch_[s].algorithm_sample_positions.reserve(slot.sample_times.capacity());
    // Room for the evaluation grid's times inside a step too, so that the first
    // step holding grid times (not necessarily an early one) does not allocate.
    const std::size_t samples = slot.sample_times.capacity() + kGridSamplesPerStepReserved;
    scratch_[s].sample_times.reserve(samples);
    scratch_[s].samples.reserve(samples * slot.output_count);
    if (!trace_.times.empty() && trace_.times.front() == start_) {
      std::copy_n(slot.outputs.begin(), slot.output_count, trace_.values[s].begin());
      std::copy(discrete_[s].outputs.begin(), discrete_[s].outputs.end(),
                trace_.discrete_values[s].begin());
    }
  }
}

// Feedthrough outputs depend on their inputs at the start time. Without an
// algebraic loop the values and derivatives have one consistent set, reached by
// passes in initial_evaluation_order(): each pass settles at least one more
// derivative order (the k-th derivative of a feedthrough output depends on the
// k-th input derivative, and through the source's dynamics that one on lower
// orders elsewhere), so the passes stop after the first that changes no output
// — about (orders + 2) passes over the slaves, linear in their number. With a
// loop (iterative algorithms only) (orders + 1) × (outputs + 1) passes in slave
// order give a start value that the algorithm then iterates on. Each evaluation
// reads the one before it (Gauss–Seidel order), so each is a wave of its own; it
// still goes through the dispatcher, which owns the slave calls (an MPI one: the
// process that holds the slave).
void Executor::compute_initial_outputs() {
  const InputSources sources(system_);
  std::size_t output_count = 1;
  int highest_order = 0;
  for (const StepSlot& slot : slots_) {
    output_count += slot.output_count;
    highest_order = std::max(highest_order, slot.output_derivative_order);
  }
  // One evaluation of `slave` on its sources' current outputs; true when an
  // output value or derivative changed (bit for bit).
  std::vector<double> before;
  const auto evaluate = [&](std::size_t slave) {
    before = slots_[slave].outputs;
    const int degree = system_.description(slave).capabilities.max_input_degree;
    assign_taylor_inputs(slave, sources, slots_, degree, 1.0);
    hold_integer_inputs(slave, start_);
    const PlannedAction evaluation{slave, SlaveAction::evaluate_outputs};
    dispatch_and_complete({&evaluation, 1});
    const std::vector<double>& after = slots_[slave].outputs;
    // std::equal would call 0.0 and -0.0 equal; the loop must stop only on
    // bit-identical outputs. (No memcmp: a slave without outputs has null data.)
    return !before.empty() &&
           std::memcmp(before.data(), after.data(), before.size() * sizeof(double)) != 0;
  };
  const std::size_t passes = static_cast<std::size_t>(highest_order + 1) * output_count;
  if (const std::optional<std::vector<std::size_t>> order =
          initial_evaluation_order(system_, sources)) {
    for (std::size_t pass = 0; pass < passes; ++pass) {
      bool changed = false;
      for (const std::size_t s : *order) changed = evaluate(s) || changed;
      if (!changed) return;
    }
    return;
  }
  for (std::size_t pass = 0; pass < passes; ++pass) {
    for (std::size_t s = 0; s < slots_.size(); ++s) evaluate(s);
  }
}

bool Executor::advance() {
  plan_.clear();
  if (!algorithm_.plan_next(slots_, plan_)) return false;
  batch_announced_ = announce_steps();
  announce_evaluations();
  const std::span<const PlannedAction> actions = plan_.actions();
  for (std::size_t first = 0; first < actions.size();) {
    const std::size_t end = wave_end(actions, first);
    run_wave(actions.subspan(first, end - first));
    first = end;
  }
  algorithm_.accept(slots_, plan_);
  return true;
}

// The end of the wave starting at `first`: the first action on a slave the
// wave already holds (or the batch's end).
std::size_t Executor::wave_end(std::span<const PlannedAction> actions, std::size_t first) {
  ++wave_number_;
  std::size_t end = first;
  while (end < actions.size() && wave_of_slave_[actions[end].slave] != wave_number_) {
    wave_of_slave_[actions[end].slave] = wave_number_;
    ++end;
  }
  return end;
}

// Prepares the wave's actions in plan order. An action refused before its call
// (a step request the slave cannot take) ends the wave there: the actions before
// it are carried out and completed first, as when every action ran on its own,
// so that the hash, the counters and the run log stand where they always did.
void Executor::run_wave(std::span<const PlannedAction> wave) {
  std::size_t prepared = 0;
  std::exception_ptr refused;
  for (; prepared < wave.size(); ++prepared) {
    try {
      prepare(wave[prepared]);
    } catch (...) {
      refused = std::current_exception();
      break;
    }
  }
  if (prepared > 0) dispatch_and_complete(wave.first(prepared));
  if (refused) std::rethrow_exception(refused);
}

// Everything before an action's slave call, in plan order: the decision hash,
// the checks, the request's sample times, the step's start for the observer.
void Executor::prepare(const PlannedAction& action) {
  hash_.add(static_cast<std::uint64_t>(action.slave));
  hash_.add(static_cast<std::uint64_t>(action.action));
  switch (action.action) {
    case SlaveAction::step:
      prepare_step(action.slave);
      break;
    case SlaveAction::evaluate_outputs:
      hold_integer_inputs(action.slave, slave_time_[action.slave]);
      for (const Polynomial& input : slots_[action.slave].inputs) hash_.add(input);
      break;
    case SlaveAction::linearize:
      if (!system_.description(action.slave).capabilities.can_linearize) {
        throw ProtocolViolation("slave '" + system_.slave_name(action.slave) +
                                "' cannot linearize, but algorithm '" +
                                std::string(algorithm_.name()) + "' asked it to");
      }
      hold_integer_inputs(action.slave, slave_time_[action.slave]);
      for (const Polynomial& input : slots_[action.slave].inputs) hash_.add(input);
      break;
    case SlaveAction::save_state:
    case SlaveAction::restore_state:
      break;
  }
}

void Executor::prepare_step(std::size_t slave) {
  StepSlot& slot = slots_[slave];
  Scratch& scratch = scratch_[slave];
  DiscreteSignals& discrete = discrete_[slave];
  // Tested here, not inside: a Real-only slave pays no call (master_overhead_bench).
  if (!discrete.sources.empty()) gather_discrete_inputs(slave);
  if (!discrete.held_inputs.empty()) hold_integer_inputs(slave, slot.start);
  hash_request(slave, slot);
  merge_sample_times(slave);
  std::copy_n(slot.outputs.begin(), slot.output_count, scratch.previous_values.begin());
  if (!discrete.outputs.empty())
    std::copy(discrete.outputs.begin(), discrete.outputs.end(), discrete.previous_outputs.begin());
  check_step_request(system_.slave_name(slave), system_.description(slave), slave_time_[slave],
                     request_of(slave));
  if (observer_ != nullptr && !batch_announced_) observer_->step_began(slave);
}

// The calls, then everything after them in plan order. The first failed call
// in plan order is rethrown once the actions before it are completed; the
// results of the calls after it are dropped (the run stops there).
void Executor::dispatch_and_complete(std::span<const PlannedAction> wave) {
  calls_.begin(wave);
  dispatcher_->carry_out(wave, calls_);
  for (const PlannedAction& action : wave) {
    if (const std::exception_ptr error = calls_.failure(action)) std::rethrow_exception(error);
    complete(action);
  }
}

// One action's slave call. Runs on whichever thread the dispatcher chose: it
// reads the slot's request and the scratch the wave's preparation wrote, and
// writes only this slave's result buffers (results_of).
void Executor::call_slave(const PlannedAction& action) {
  const std::size_t s = action.slave;
  StepSlot& slot = slots_[s];
  Slave& slave = system_.slave(s);
  switch (action.action) {
    case SlaveAction::step:
      slave.step(request_of(s), buffers_of(s));
      break;
    case SlaveAction::evaluate_outputs:
      slave.evaluate_outputs(slot.inputs, slot.outputs);
      break;
    case SlaveAction::save_state:
      slave.save_state();
      break;
    case SlaveAction::restore_state:
      slave.restore_state();
      break;
    case SlaveAction::linearize:
      slave.linearize(slot.inputs, slot.linearization);
      break;
  }
}

ActionResults Executor::results_of(const PlannedAction& action) {
  StepSlot& slot = slots_[action.slave];
  switch (action.action) {
    case SlaveAction::step:
      return {slot.outputs, scratch_[action.slave].samples, {}, discrete_[action.slave].outputs};
    case SlaveAction::evaluate_outputs:
      return {slot.outputs, {}, {}};
    case SlaveAction::linearize:
      return {{}, {}, slot.linearization};
    case SlaveAction::save_state:
    case SlaveAction::restore_state:
      break;
  }
  return {};
}

// Everything after an action's slave call, in plan order: the observer sees
// the calls in the order the plan lists them, whoever made them.
void Executor::complete(const PlannedAction& action) {
  const std::size_t s = action.slave;
  StepSlot& slot = slots_[s];
  switch (action.action) {
    case SlaveAction::step:
      complete_step(s);
      break;
    case SlaveAction::evaluate_outputs:
      if (observer_ != nullptr) observer_->outputs_evaluated(s, slot.inputs, slot.outputs);
      break;
    case SlaveAction::save_state:
      saved_time_[s] = slave_time_[s];
      // The slot's outputs are the slave's outputs at that time: a rollback brings
      // them back with the state (the next step interpolates from them).
      std::copy(slot.outputs.begin(), slot.outputs.end(), scratch_[s].saved_outputs.begin());
      discrete_[s].saved_outputs = discrete_[s].outputs;  // same size: no allocation
      if (observer_ != nullptr) observer_->state_saved(s);
      break;
    case SlaveAction::restore_state:
      slave_time_[s] = saved_time_[s];
      std::copy(scratch_[s].saved_outputs.begin(), scratch_[s].saved_outputs.end(),
                slot.outputs.begin());
      discrete_[s].outputs = discrete_[s].saved_outputs;
      slot.output_time = saved_time_[s];
      ++counters_.rollbacks;
      if (observer_ != nullptr) observer_->state_restored(s);
      break;
    case SlaveAction::linearize:
      if (observer_ != nullptr) observer_->slave_linearized(s, slot.inputs, slot.linearization);
      break;
  }
}

void Executor::WaveCalls::begin(std::span<const PlannedAction> wave) {
  wave_ = wave;
  std::fill_n(errors_.begin(), wave.size(), nullptr);
}

void Executor::WaveCalls::call(const PlannedAction& action) noexcept {
  try {
    executor_.call_slave(action);
  } catch (...) {
    errors_[index(action)] = std::current_exception();
  }
}

ActionResults Executor::WaveCalls::results(const PlannedAction& action) const {
  return executor_.results_of(action);
}

void Executor::WaveCalls::fail(const PlannedAction& action, std::exception_ptr error) noexcept {
  errors_[index(action)] = std::move(error);
}

bool Executor::WaveCalls::failed(const PlannedAction& action) const noexcept {
  return errors_[index(action)] != nullptr;
}

// A slave without discrete inputs adds nothing for them: Real-only runs keep
// the decision hashes they always had.
void Executor::hash_request(std::size_t slave, const StepSlot& slot) {
  hash_.add(slot.start);
  hash_.add(slot.end);
  for (const Polynomial& input : slot.inputs) hash_.add(input);
  for (const Time sample : slot.sample_times) hash_.add(sample);
  for (const std::int64_t value : discrete_[slave].inputs) {
    hash_.add(static_cast<std::uint64_t>(value));
  }
}

// Discrete inputs take their sources' values when the step is prepared: after
// the restores of earlier waves, before any step of its own wave. So the values
// held at the step start under Jacobi (every step in one wave), the value a
// source reached in an earlier plan under Gauss–Seidel (one slave per plan),
// and a retried step (IFOSMONDI, semi-implicit) takes them again from its
// restored sources. Never extrapolated; an input no connection drives keeps
// its start value.
void Executor::gather_discrete_inputs(std::size_t slave) {
  DiscreteSignals& discrete = discrete_[slave];
  for (std::size_t i = 0; i < discrete.sources.size(); ++i) {
    const DiscreteSignals::Source& source = discrete.sources[i];
    if (!source.output) continue;
    discrete.inputs[i] = source.rounding
                             ? rounded_input(slave, i, *source.output, *source.rounding)
                             : discrete_[source.output->slave].outputs[source.output->port];
  }
}

// A Real input an Integer output drives is that value, constant over the step
// (or at the evaluation), taken as a discrete input's is (gather_discrete_inputs):
// held, never extrapolated, whatever degree the algorithm sends elsewhere. A
// value beyond 2⁵³ becomes the nearest double.
void Executor::hold_integer_inputs(std::size_t slave, Time origin) {
  StepSlot& slot = slots_[slave];
  for (const DiscreteSignals::HeldInput& held : discrete_[slave].held_inputs) {
    const std::int64_t value = discrete_[held.output.slave].outputs[held.output.port];
    slot.inputs[held.input] = Polynomial::constant(to_seconds(origin), static_cast<double>(value));
  }
}

// A Real output's value at its slave's current time (the first of the slot's
// outputs: values, then derivatives), rounded; one that has no 64-bit integer
// (NaN, ±∞, beyond ±2⁶³) ends the run naming the source.
std::int64_t Executor::rounded_input(std::size_t slave, std::size_t input, PortReference output,
                                     Rounding rounding) const {
  const double value = slots_[output.slave].outputs[output.port];
  if (const std::optional<std::int64_t> integer = rounded(value, rounding)) return *integer;
  throw SlaveError("slave '" + system_.slave_name(output.slave) + "': output '" +
                   system_.description(output.slave).outputs[output.port].name + "' = " +
                   exact_text(value) + " at t = " + seconds_text(slave_time_[output.slave]) +
                   " s has no 64-bit Integer value for input '" + system_.slave_name(slave) + "." +
                   system_.description(slave).discrete_inputs[input].name +
                   "' (rounding: " + std::string(to_string(rounding)) + ")");
}

// Split phase: every step of the batch is announced before any is carried out,
// so that slaves behind links compute at the same time (Slave::announce_step).
// Local slaves ignore it; the requests are the ones the steps then pass. A
// batch of one step has nothing to overlap. True when the steps were announced.
bool Executor::announce_steps() {
  const auto steps =
      std::count_if(plan_.actions().begin(), plan_.actions().end(),
                    [](const PlannedAction& action) { return action.action == SlaveAction::step; });
  if (steps < 2) return false;
  for (const PlannedAction& action : plan_.actions()) {
    if (action.action != SlaveAction::step) continue;
    merge_sample_times(action.slave);
    // Only slaves behind links take announcements, discrete and held inputs
    // included: gathered here as the step's preparation gathers them again
    // (Slave::announce_step: the very request step() then receives).
    if (!discrete_[action.slave].sources.empty()) gather_discrete_inputs(action.slave);
    if (!discrete_[action.slave].held_inputs.empty())
      hold_integer_inputs(action.slave, slots_[action.slave].start);
    const StepRequest request = request_of(action.slave);
    check_step_request(system_.slave_name(action.slave), system_.description(action.slave),
                       time_when_stepped(action), request);
    if (observer_ != nullptr) observer_->step_began(action.slave);
    if (dispatcher_->calls_slave(action.slave)) system_.slave(action.slave).announce_step(request);
  }
  return true;
}

// Split phase for evaluations likewise (Slave::announce_outputs): the levels of
// a feedthrough refresh go out at once. Only an evaluation that is its slave's
// sole action in the batch, so that nothing moves the slave in between; the
// inputs are those evaluate_outputs then passes.
void Executor::announce_evaluations() {
  const auto announceable = [this](const PlannedAction& action) {
    return action.action == SlaveAction::evaluate_outputs && actions_on(action.slave) == 1;
  };
  const auto actions = plan_.actions();
  if (std::count_if(actions.begin(), actions.end(), announceable) < 2) return;
  for (const PlannedAction& action : actions) {
    if (announceable(action) && dispatcher_->calls_slave(action.slave)) {
      hold_integer_inputs(action.slave, slave_time_[action.slave]);
      system_.slave(action.slave).announce_outputs(slots_[action.slave].inputs);
    }
  }
}

std::size_t Executor::actions_on(std::size_t slave) const {
  const auto actions = plan_.actions();
  return static_cast<std::size_t>(
      std::count_if(actions.begin(), actions.end(),
                    [slave](const PlannedAction& action) { return action.slave == slave; }));
}

// Where `action`'s slave will stand when `action` runs: a plan may restore a slave
// before stepping it (algorithm.hpp), and the actions run in order.
Time Executor::time_when_stepped(const PlannedAction& action) const {
  Time time = slave_time_[action.slave];
  Time saved = saved_time_[action.slave];
  for (const PlannedAction& earlier : plan_.actions()) {
    if (&earlier == &action) break;
    if (earlier.slave != action.slave) continue;
    if (earlier.action == SlaveAction::save_state) saved = time;
    if (earlier.action == SlaveAction::restore_state) time = saved;
  }
  return time;
}

// The algorithm's sample times merged with the grid times inside (start, end]
// into the slave's scratch (a pure function of the slot: calling it again for
// the same step gives the same request).
void Executor::merge_sample_times(std::size_t slave) {
  const StepSlot& slot = slots_[slave];
  Scratch& scratch = scratch_[slave];
  const bool dense = !trace_.interpolated_slaves[slave];
  const auto grid_begin = std::upper_bound(trace_.times.begin(), trace_.times.end(), slot.start);
  const auto grid_end = std::upper_bound(grid_begin, trace_.times.end(), slot.end);
  const std::size_t grid_count = dense ? static_cast<std::size_t>(grid_end - grid_begin) : 0;
  const std::size_t needed = slot.sample_times.size() + grid_count;
  if (scratch.sample_times.capacity() < needed) ++counters_.sample_buffer_growths;
  scratch.sample_times.clear();
  scratch.algorithm_sample_positions.clear();
  auto grid_it = grid_begin;
  for (const Time sample : slot.sample_times) {
    while (dense && grid_it != grid_end && *grid_it < sample)
      scratch.sample_times.push_back(*grid_it++);
    if (dense && grid_it != grid_end && *grid_it == sample) ++grid_it;
    scratch.algorithm_sample_positions.push_back(scratch.sample_times.size());
    scratch.sample_times.push_back(sample);
  }
  while (dense && grid_it != grid_end) scratch.sample_times.push_back(*grid_it++);
  scratch.samples.resize(scratch.sample_times.size() * slot.output_count);
}

// A step's results into the bookkeeping: the slave's time, the algorithm's
// samples, the evaluation grid, the frontier.
void Executor::complete_step(std::size_t slave) {
  StepSlot& slot = slots_[slave];
  Scratch& scratch = scratch_[slave];
  const bool dense = !trace_.interpolated_slaves[slave];
  if (observer_ != nullptr) {
    observer_->slave_stepped(slave, request_of(slave), buffers_of(slave),
                             system_.slave(slave).last_link_report());
  }
  ++counters_.slave_steps;
  slave_time_[slave] = slot.end;
  slot.output_time = slot.end;

  slot.samples.resize(slot.sample_times.size() * slot.output_count);
  for (std::size_t k = 0; k < scratch.algorithm_sample_positions.size(); ++k) {
    std::copy_n(
        scratch.samples.begin() +
            static_cast<std::ptrdiff_t>(scratch.algorithm_sample_positions[k] * slot.output_count),
        slot.output_count,
        slot.samples.begin() + static_cast<std::ptrdiff_t>(k * slot.output_count));
  }
  if (dense) {
    record_grid_samples(slave, slot.start, slot.end, scratch.samples, scratch.sample_times);
  } else {
    interpolate_grid(slave, slot.start, slot.end, scratch.previous_values,
                     std::span<const double>(slot.outputs.data(), slot.output_count));
  }
  if (!discrete_[slave].outputs.empty()) hold_discrete_grid(slave, slot.start, slot.end);
  if (slot.end > frontier_) {
    frontier_ = slot.end;
    ++counters_.macro_steps;
  }
}

void Executor::record_grid_samples(std::size_t slave, Time from, Time to,
                                   std::span<const double> samples,
                                   std::span<const Time> sample_times) {
  const std::size_t outputs = slots_[slave].output_count;
  const auto first = std::upper_bound(trace_.times.begin(), trace_.times.end(), from);
  const auto last = std::upper_bound(first, trace_.times.end(), to);
  std::size_t sample = 0;
  for (auto it = first; it != last; ++it) {
    while (sample_times[sample] != *it) ++sample;
    const auto grid_index = static_cast<std::size_t>(it - trace_.times.begin());
    std::copy_n(samples.begin() + static_cast<std::ptrdiff_t>(sample * outputs), outputs,
                trace_.values[slave].begin() + static_cast<std::ptrdiff_t>(grid_index * outputs));
  }
}

// Discrete outputs on the grid: held from the step start; the step's new value
// at its end (a change inside the step is seen only there).
void Executor::hold_discrete_grid(std::size_t slave, Time from, Time to) {
  const DiscreteSignals& discrete = discrete_[slave];
  const std::size_t outputs = discrete.outputs.size();
  const auto first = std::upper_bound(trace_.times.begin(), trace_.times.end(), from);
  const auto last = std::upper_bound(first, trace_.times.end(), to);
  for (auto it = first; it != last; ++it) {
    const auto& values = *it == to ? discrete.outputs : discrete.previous_outputs;
    const auto grid_index = static_cast<std::size_t>(it - trace_.times.begin());
    std::copy(
        values.begin(), values.end(),
        trace_.discrete_values[slave].begin() + static_cast<std::ptrdiff_t>(grid_index * outputs));
  }
}

void Executor::interpolate_grid(std::size_t slave, Time from, Time to,
                                std::span<const double> before, std::span<const double> after) {
  const std::size_t outputs = slots_[slave].output_count;
  const auto first = std::upper_bound(trace_.times.begin(), trace_.times.end(), from);
  const auto last = std::upper_bound(first, trace_.times.end(), to);
  for (auto it = first; it != last; ++it) {
    const double weight = static_cast<double>(*it - from) / static_cast<double>(to - from);
    const auto grid_index = static_cast<std::size_t>(it - trace_.times.begin());
    for (std::size_t j = 0; j < outputs; ++j) {
      trace_.values[slave][grid_index * outputs + j] =
          (1.0 - weight) * before[j] + weight * after[j];
    }
  }
}

}  // namespace couplet
