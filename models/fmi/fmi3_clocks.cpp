// The clocks of an FMI 3.0 FMU and their schedule in virtual time (§2.3.5).
#include "models/fmi/fmi3_clocks.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"

namespace couplet::models::fmi3 {
namespace {

bool belongs_to(const Variable& variable, std::uint32_t clock) {
  return std::find(variable.clocks.begin(), variable.clocks.end(), clock) != variable.clocks.end();
}

std::string decimal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

fmi::FmuSettings without_clock_ports(const Package& package, const fmi::FmuSettings& settings) {
  fmi::FmuSettings ports = settings;
  if (ports.coupled_inputs) {
    const std::vector<Variable>& variables = package.description().variables;
    std::erase_if(*ports.coupled_inputs, [&variables](const std::string& name) {
      return std::any_of(variables.begin(), variables.end(), [&name](const Variable& variable) {
        return variable.clock && variable.causality == Causality::input && variable.name == name;
      });
    });
  }
  return ports;
}

SplitPorts split_ports(const Package& package, const fmi::FmuSettings& settings,
                       const ArrayLayout& layout) {
  SplitPorts split{port_elements(package, without_clock_ports(package, settings), layout), {}};
  const auto unclocked = [&package](const Element& element) {
    return package.description().variables[element.variable].clocks.empty();
  };
  const auto split_kind = [&](std::vector<Element>& all, std::vector<Element>& first) {
    const auto clocked = std::stable_partition(all.begin(), all.end(), unclocked);
    first.assign(all.begin(), clocked);
  };
  split_kind(split.all.inputs, split.unclocked.inputs);
  split_kind(split.all.outputs, split.unclocked.outputs);
  split_kind(split.all.discrete_inputs, split.unclocked.discrete_inputs);
  split_kind(split.all.discrete_outputs, split.unclocked.discrete_outputs);
  return split;
}

Clocks::Clocks(const Package& package, const Functions& functions, const LogRing& log,
               const fmi::FmuSettings& settings, const std::string& exchange)
    : package_(package), functions_(functions), log_(log), slave_name_(settings.slave_name) {
  for (const Variable& variable : package_.description().variables) {
    if (!variable.clock) continue;
    const ClockProperties& clock = *variable.clock;
    const auto refuse = [&](const std::string& why) {
      configuration_error(
          settings, package_,
          "clock " + fmi::single_quoted(variable.name) + ": " + why + " (docs/fmi.md, FMI 3.0)");
    };
    if (variable.causality == Causality::output) {
      output_references_.push_back(variable.value_reference);
      output_names_.push_back(variable.name);
      continue;
    }
    if (variable.causality != Causality::input)
      refuse("only input and output clocks are supported in " + exchange);
    InputClock input;
    input.reference = variable.value_reference;
    input.name = variable.name;
    input.priority = clock.priority.value_or(0);
    const auto read_shift = [&] {
      input.shift = to_ticks(clock.shift_decimal.value_or(0.0));
      if (input.shift < 0) refuse("its shift must not be negative");
    };
    const auto read_interval = [&] {
      input.interval = to_ticks(*clock.interval_decimal);
      if (input.interval <= 0) refuse("its interval must be at least 1 ns");
    };
    switch (clock.interval_variability) {
      case IntervalVariability::constant:
      case IntervalVariability::fixed:
      case IntervalVariability::tunable:
        input.is_periodic = true;
        read_shift();
        if (clock.interval_decimal) {
          read_interval();
        } else {
          // The FMU tells it in Initialization Mode (§2.3.4).
          if (clock.interval_variability == IntervalVariability::constant)
            refuse("a constant clock needs an intervalDecimal");
          if (functions_.GetIntervalDecimal == nullptr)
            refuse("it has no intervalDecimal and the FMU lacks fmi3GetIntervalDecimal");
          input.ask_interval = true;
        }
        break;
      case IntervalVariability::triggered:
        break;
      case IntervalVariability::countdown:
        if (functions_.GetIntervalDecimal == nullptr)
          refuse("a countdown clock needs fmi3GetIntervalDecimal, which the FMU lacks");
        input.is_countdown = true;
        break;
      case IntervalVariability::changing:
        // Ticks at its shift, then an interval later each time: the
        // intervalDecimal or what the FMU tells in Initialization Mode
        // first, after each tick what fmi3GetIntervalDecimal says then.
        if (functions_.GetIntervalDecimal == nullptr)
          refuse("a changing clock needs fmi3GetIntervalDecimal, which the FMU lacks");
        input.is_changing = true;
        read_shift();
        if (clock.interval_decimal)
          read_interval();
        else
          input.ask_interval = true;
        break;
    }
    inputs_.push_back(std::move(input));
  }
  std::sort(inputs_.begin(), inputs_.end(), [](const InputClock& a, const InputClock& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.reference < b.reference;
  });
  if (!output_references_.empty() && functions_.GetClock == nullptr) {
    configuration_error(settings, package_,
                        "output clock " + fmi::single_quoted(output_names_.front()) +
                            ": the FMU lacks fmi3GetClock");
  }
  output_ports_.resize(output_references_.size());
  ticking_.reserve(inputs_.size());
  ticking_references_.reserve(inputs_.size());
  actives_ = std::make_unique<fmi3Clock[]>(inputs_.size());
  std::fill_n(actives_.get(), inputs_.size(), fmi3ClockActive);
  output_clock_values_ = std::make_unique<fmi3Clock[]>(output_references_.size());
  saved_countdowns_.assign(inputs_.size(), std::nullopt);
  saved_changing_ticks_.assign(inputs_.size(), std::nullopt);
  saved_intervals_.assign(inputs_.size(), 0);
  saved_triggers_.assign(inputs_.size(), 0);
}

void Clocks::add_clock_ports(SlaveDescription& description, const fmi::FmuSettings& settings) {
  for (InputClock& clock : inputs_) {
    const bool coupled = !settings.coupled_inputs ||
                         std::find(settings.coupled_inputs->begin(), settings.coupled_inputs->end(),
                                   clock.name) != settings.coupled_inputs->end();
    if (clock.is_periodic || clock.is_countdown || clock.is_changing || !coupled) continue;
    clock.trigger_port = description.discrete_inputs.size();
    description.discrete_inputs.push_back({clock.name, DiscreteType::boolean, "", 0});
  }
  first_output_clock_port_ = description.discrete_outputs.size();
  for (const std::string& name : output_names_)
    description.discrete_outputs.push_back({name, DiscreteType::boolean, "", 0});
}

void Clocks::assign_ports(const ArrayLayout& layout, const PortElements& ports,
                          const fmi::FmuSettings& settings) {
  const Description& description = package_.description();
  const auto assign = [&](const std::vector<Element>& elements, auto member) {
    for (std::size_t port = 0; port < elements.size(); ++port) {
      const Variable& variable = description.variables[elements[port].variable];
      bool placed = false;
      for (InputClock& clock : inputs_) {
        if (!belongs_to(variable, clock.reference)) continue;
        (clock.ports.*member).push_back(port);
        placed = true;
      }
      for (std::size_t k = 0; k < output_references_.size() && !placed; ++k) {
        if (!belongs_to(variable, output_references_[k])) continue;
        (output_ports_[k].*member).push_back(port);
        placed = true;
      }
      if (!placed) (unclocked_.*member).push_back(port);
    }
  };
  assign(ports.inputs, &ClockedPorts::inputs);
  assign(ports.discrete_inputs, &ClockedPorts::discrete_inputs);
  assign(ports.outputs, &ClockedPorts::outputs);
  assign(ports.discrete_outputs, &ClockedPorts::discrete_outputs);
  const auto pick = [](const std::vector<Element>& elements,
                       const std::vector<std::size_t>& indices) {
    std::vector<Element> picked;
    for (const std::size_t k : indices) picked.push_back(elements[k]);
    return picked;
  };
  const auto prepare = [&](ClockedPorts& p) {
    p.input_values.emplace(package_, layout, pick(ports.inputs, p.inputs), settings.parameters);
    p.discrete_input_values.emplace(
        package_, layout, pick(ports.discrete_inputs, p.discrete_inputs), settings.parameters);
    p.output_values.emplace(package_, layout, pick(ports.outputs, p.outputs));
    p.discrete_output_values.emplace(package_, layout,
                                     pick(ports.discrete_outputs, p.discrete_outputs));
    p.real_in.assign(p.inputs.size(), 0.0);
    p.real_out.assign(p.outputs.size(), 0.0);
    p.discrete_in.assign(p.discrete_inputs.size(), 0);
    p.discrete_out.assign(p.discrete_outputs.size(), 0);
  };
  for (InputClock& clock : inputs_) prepare(clock.ports);
  for (ClockedPorts& p : output_ports_) prepare(p);
  prepare(unclocked_);
}

void Clocks::set_up(fmi3Instance instance, Time start) {
  for (InputClock& clock : inputs_) {
    if (clock.ask_interval) ask_interval(instance, clock, start);
    if (clock.is_changing) clock.changing_tick = std::max(start, clock.shift);
  }
}

void Clocks::ask_interval(fmi3Instance instance, InputClock& clock, Time start) {
  fmi3Float64 interval = 0.0;
  fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
  check_status(functions_.GetIntervalDecimal(instance, &clock.reference, 1, &interval, &qualifier),
               "fmi3GetIntervalDecimal", std::nullopt, slave_name_, package_, log_);
  clock.interval = qualifier == fmi3IntervalNotYetKnown ? 0 : to_ticks(interval);
  if (clock.interval <= 0) {
    throw ConfigurationError(
        "slave '" + slave_name_ + "': FMU '" + package_.path() +
        "': fmi3GetIntervalDecimal gave clock " + fmi::single_quoted(clock.name) +
        (qualifier == fmi3IntervalNotYetKnown
             ? std::string(" no interval (fmi3IntervalNotYetKnown)")
             : " the interval " + decimal(interval) + " s") +
        " at t = " + seconds_text(start) + " s: a periodic clock needs one of at least 1 ns");
  }
}

Time Clocks::next_tick(Time time) const {
  Time next = std::numeric_limits<Time>::max();
  for (const InputClock& clock : inputs_) {
    if (clock.is_periodic && clock.interval > 0) next = std::min(next, clock.next_tick(time));
    if (clock.countdown) next = std::min(next, std::max(*clock.countdown, time));
    if (clock.changing_tick) next = std::min(next, std::max(*clock.changing_tick, time));
  }
  return next;
}

bool Clocks::take_triggers(std::span<const std::int64_t> discrete_inputs) {
  bool rises = false;
  for (InputClock& clock : inputs_) {
    if (clock.trigger_port == InputClock::kNoPort) continue;
    const std::int64_t value = discrete_inputs[clock.trigger_port];
    clock.triggered = value != 0 && clock.held_trigger == 0;
    clock.held_trigger = value;
    rises = rises || clock.triggered;
  }
  return rises;
}

std::span<InputClock* const> Clocks::activate_ticking(fmi3Instance instance, Time time) {
  ticking_.clear();  // reserved: no allocation
  ticking_references_.clear();
  for (InputClock& clock : inputs_) {  // in priority order
    const bool due = clock.countdown && *clock.countdown <= time;
    if (!(std::exchange(clock.triggered, false) || due ||
          (clock.is_periodic && clock.interval > 0 && clock.next_tick(time) == time) ||
          (clock.changing_tick && *clock.changing_tick <= time)))
      continue;
    if (due) clock.countdown.reset();
    ticking_.push_back(&clock);
    ticking_references_.push_back(clock.reference);
  }
  if (!ticking_.empty()) {
    check(functions_.SetClock(instance, ticking_references_.data(), ticking_references_.size(),
                              actives_.get()),
          "fmi3SetClock", time);
  }
  return ticking_;
}

void Clocks::complete_ticks(fmi3Instance instance, Time time, std::span<double> real_outputs,
                            std::span<std::int64_t> discrete_outputs) {
  for (InputClock* clock : ticking_) {
    read_outputs(instance, clock->ports, time, real_outputs, discrete_outputs);
    if (clock->is_changing) schedule_changing(instance, *clock, time);
  }
  ask_countdowns(instance, time);
}

void Clocks::schedule_changing(fmi3Instance instance, InputClock& clock, Time time) {
  fmi3Float64 interval = 0.0;
  fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
  check(functions_.GetIntervalDecimal(instance, &clock.reference, 1, &interval, &qualifier),
        "fmi3GetIntervalDecimal", time);
  if (qualifier == fmi3IntervalChanged) {
    const Time ticks = interval > 0.0 && interval < 1e8 ? to_ticks(interval) : 0;
    if (ticks <= 0) {
      throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_.path() +
                       "': fmi3GetIntervalDecimal gave the changing clock " +
                       fmi::single_quoted(clock.name) + " the interval " + decimal(interval) +
                       " s at t = " + seconds_text(time) +
                       " s: its next tick needs one of at least 1 ns");
    }
    clock.interval = ticks;
  }
  clock.changing_tick = time + clock.interval;
}

void Clocks::ask_countdowns(fmi3Instance instance, Time time) {
  for (InputClock& clock : inputs_) {
    if (!clock.is_countdown) continue;
    fmi3Float64 interval = 0.0;
    fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
    check(functions_.GetIntervalDecimal(instance, &clock.reference, 1, &interval, &qualifier),
          "fmi3GetIntervalDecimal", time);
    if (qualifier != fmi3IntervalChanged) continue;
    if (!(interval >= 0.0 && interval < 1e8)) {
      throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_.path() +
                       "': fmi3GetIntervalDecimal gave the countdown clock " +
                       fmi::single_quoted(clock.name) + " the interval " + decimal(interval) +
                       " s at t = " + seconds_text(time) + " s: its tick needs one of 0 to 1e8 s");
    }
    clock.countdown = time + to_ticks(interval);
  }
}

bool Clocks::countdown_due(Time time) {
  const auto due = std::find_if(inputs_.begin(), inputs_.end(), [time](const InputClock& clock) {
    return clock.countdown && *clock.countdown <= time;
  });
  if (due == inputs_.end()) return false;
  ticks_at_instant_ = time == instant_ ? ticks_at_instant_ + 1 : 1;
  instant_ = time;
  if (ticks_at_instant_ > kMaxTicksPerInstant) {
    throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_.path() +
                     "': the countdown clock " + fmi::single_quoted(due->name) +
                     " is due again after " + std::to_string(kMaxTicksPerInstant) +
                     " ticks at t = " + seconds_text(time) + " s: time cannot go on");
  }
  return true;
}

InputClock* Clocks::due_countdown(Time time) {
  if (!countdown_due(time)) return nullptr;
  for (InputClock& clock : inputs_) {
    if (!clock.countdown || *clock.countdown > time) continue;
    clock.countdown.reset();
    return &clock;
  }
  return nullptr;
}

void Clocks::read_output_clocks(fmi3Instance instance, Time time, std::span<double> real_outputs,
                                std::span<std::int64_t> discrete_outputs) {
  if (output_references_.empty()) return;
  check(functions_.GetClock(instance, output_references_.data(), output_references_.size(),
                            output_clock_values_.get()),
        "fmi3GetClock", time);
  for (std::size_t k = 0; k < output_references_.size(); ++k) {
    if (!output_clock_values_[k]) continue;
    discrete_outputs[first_output_clock_port_ + k] = 1;
    read_outputs(instance, output_ports_[k], time, real_outputs, discrete_outputs);
  }
}

void Clocks::read_initial_outputs(fmi3Instance instance, Time time, std::span<double> real_outputs,
                                  std::span<std::int64_t> discrete_outputs) {
  for (InputClock& clock : inputs_)
    read_outputs(instance, clock.ports, time, real_outputs, discrete_outputs);
  for (ClockedPorts& ports : output_ports_)
    read_outputs(instance, ports, time, real_outputs, discrete_outputs);
}

void Clocks::set_inputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                        const StepRequest& request) {
  const double at = to_seconds(time);
  if (!ports.inputs.empty()) {
    for (std::size_t i = 0; i < ports.inputs.size(); ++i)
      ports.real_in[i] = request.inputs[ports.inputs[i]].value(at);
    check(ports.input_values->set(instance, ports.real_in), time);
  }
  if (!ports.discrete_inputs.empty()) {
    for (std::size_t i = 0; i < ports.discrete_inputs.size(); ++i)
      ports.discrete_in[i] = request.discrete_inputs[ports.discrete_inputs[i]];
    check(ports.discrete_input_values->set(instance, ports.discrete_in, slave_name_), time);
  }
}

void Clocks::set_inputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                        std::span<const double> real, std::span<const std::int64_t> discrete) {
  if (!ports.inputs.empty()) {
    for (std::size_t i = 0; i < ports.inputs.size(); ++i) ports.real_in[i] = real[ports.inputs[i]];
    check(ports.input_values->set(instance, ports.real_in), time);
  }
  if (!ports.discrete_inputs.empty()) {
    for (std::size_t i = 0; i < ports.discrete_inputs.size(); ++i)
      ports.discrete_in[i] = discrete[ports.discrete_inputs[i]];
    check(ports.discrete_input_values->set(instance, ports.discrete_in, slave_name_), time);
  }
}

void Clocks::read_outputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                          std::span<double> real_outputs,
                          std::span<std::int64_t> discrete_outputs) {
  if (!ports.outputs.empty()) {
    check(ports.output_values->get(instance, ports.real_out), time);
    for (std::size_t i = 0; i < ports.outputs.size(); ++i)
      real_outputs[ports.outputs[i]] = ports.real_out[i];
  }
  if (!ports.discrete_outputs.empty()) {
    check(ports.discrete_output_values->get(instance, ports.discrete_out, slave_name_), time);
    for (std::size_t i = 0; i < ports.discrete_outputs.size(); ++i)
      discrete_outputs[ports.discrete_outputs[i]] = ports.discrete_out[i];
  }
}

void Clocks::save() {
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    saved_countdowns_[k] = inputs_[k].countdown;
    saved_changing_ticks_[k] = inputs_[k].changing_tick;
    saved_intervals_[k] = inputs_[k].interval;
    saved_triggers_[k] = inputs_[k].held_trigger;
  }
}

void Clocks::restore() {
  instant_ = -1;
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    inputs_[k].countdown = saved_countdowns_[k];
    inputs_[k].changing_tick = saved_changing_ticks_[k];
    inputs_[k].interval = saved_intervals_[k];
    inputs_[k].held_trigger = saved_triggers_[k];
  }
}

void Clocks::check(fmi3Status status, const char* call, Time time) const {
  check_status(status, call, to_seconds(time), slave_name_, package_, log_);
}

void Clocks::check(const std::optional<PortValues::Failure>& failure, Time time) const {
  if (failure) check(failure->status, failure->call, time);
}

}  // namespace couplet::models::fmi3
