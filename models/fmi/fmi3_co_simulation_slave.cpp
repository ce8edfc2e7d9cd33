// An FMI 3.0 co-simulation FMU as a couplet slave (FMI 3.0 §4.2): set the
// inputs, fmi3DoStep, read the outputs and their derivatives. An FMU with
// hasEventMode is instantiated with event mode, one with
// mightReturnEarlyFromDoStep with early return: fmi3DoStep may then stop at an
// event inside the communication step, which is handled there in Event Mode
// (fmi3UpdateDiscreteStates) before the step goes on to its end, and a change
// of a discrete input is an event at the communication point (§4.2.5). An
// FMU with clocks steps to each tick of its input clocks and has the tick
// handled there in Event Mode (fmi3SetClock, its clocked inputs and outputs).
#include "models/fmi/fmi3_co_simulation_slave.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_clocks.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmi3_instance.hpp"
#include "models/fmi/fmi3_port_values.hpp"
#include "models/fmi/fmu_call_in_progress.hpp"

namespace couplet::models::fmi3 {
namespace {

/// Input degree: FMI 3.0 has no input derivatives, so an input polynomial
/// reaches the FMU as values only — at the communication point, held over the
/// step (degree 0), or, where the FMU provides intermediate update, also at
/// the points inside the step where it asks (degree up to 3, 1 by default as
/// for an FMI 2.0 FMU that interpolates).
SlaveCapabilities capabilities_of(const Package& package, const fmi::FmuSettings& settings) {
  const CoSimulationInterface& cs = *package.description().co_simulation;
  SlaveCapabilities capabilities = fmi::co_simulation_capabilities(
      {cs.max_output_derivative_order, cs.capabilities.can_get_and_set_fmu_state,
       cs.can_handle_variable_communication_step_size,
       package.description().default_experiment.step_size},
      settings.limits, settings.slave_name, package.path());
  const bool intermediate = cs.provides_intermediate_update;
  const int degree = settings.limits.max_input_degree.value_or(intermediate ? 1 : 0);
  const int accepted = intermediate ? fmi::kMaxFmuInputDegree : 0;
  if (degree < 0 || degree > accepted) {
    configuration_error(
        settings, package,
        "capabilities.max_input_degree " + std::to_string(degree) +
            (intermediate ? " is more than couplet gives an FMU (" + std::to_string(accepted) + ")"
                          : ": an FMI 3.0 FMU without intermediate update takes "
                            "its inputs as values held over the step (FMI 3.0 "
                            "has no input derivatives), degree 0"));
  }
  capabilities.max_input_degree = degree;
  return capabilities;
}

class CoSimulationSlave final : public Slave {
 public:
  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings)
      : CoSimulationSlave(package, settings, array_layout(*package, settings)) {}

  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                    const ArrayLayout& layout)
      : CoSimulationSlave(package, settings, layout, split_ports(*package, settings, layout)) {}

  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                    const ArrayLayout& layout, const SplitPorts& ports)
      : package_(std::move(package)),
        functions_(package_->load(Interface::co_simulation)),
        slave_name_(settings.slave_name),
        log_(std::make_unique<LogRing>()),
        event_mode_(package_->description().co_simulation->has_event_mode),
        early_return_(package_->description().co_simulation->might_return_early_from_do_step),
        layout_(layout),
        inputs_(*package_, layout_, ports.unclocked.inputs, settings.parameters),
        outputs_(*package_, layout_, ports.unclocked.outputs),
        discrete_inputs_(*package_, layout_, ports.unclocked.discrete_inputs, settings.parameters),
        discrete_outputs_(*package_, layout_, ports.unclocked.discrete_outputs),
        unclocked_outputs_(ports.unclocked.outputs.size()),
        unclocked_discrete_outputs_(ports.unclocked.discrete_outputs.size()),
        clocks_(*package_, functions_, *log_, settings, "co-simulation") {
    if (!clocks_.empty() && !event_mode_) {
      configuration_error(settings, *package_,
                          "it has clocks but no event mode (hasEventMode), which FMI 3.0 "
                          "co-simulation needs for their ticks");
    }
    if (!clocks_.inputs().empty() && functions_.SetClock == nullptr) {
      configuration_error(settings, *package_,
                          "input clock " + fmi::single_quoted(clocks_.inputs().front().name) +
                              ": the FMU lacks fmi3SetClock");
    }
    PortDescriptions described = describe_ports(*package_, layout_, ports.all, settings);
    description_.inputs = std::move(described.inputs);
    description_.outputs = std::move(described.outputs);
    description_.discrete_inputs = std::move(described.discrete_inputs);
    description_.discrete_outputs = std::move(described.discrete_outputs);
    clocks_.add_clock_ports(description_, settings);
    clocks_.assign_ports(layout_, ports.all, settings);
    prepare_output_derivatives(ports.unclocked.outputs);
    description_.capabilities = capabilities_of(*package_, settings);
    const Description& description = package_->description();
    const std::string resources = package_->resource_path();
    // With intermediate update the Real inputs are set again at the points
    // the FMU asks for; they are its intermediate variables (§4.2.2).
    const bool intermediate = description.co_simulation->provides_intermediate_update &&
                              description_.capabilities.max_input_degree > 0;
    if (intermediate) intermediate_references_ = inputs_.references();
    log_->context = this;
    instance_ = functions_.InstantiateCoSimulation(
        slave_name_.c_str(), description.instantiation_token.c_str(), resources.c_str(), fmi3False,
        fmi3True, event_mode_, early_return_, intermediate_references_.data(),
        intermediate_references_.size(), log_.get(), &LogRing::log,
        intermediate ? &CoSimulationSlave::intermediate_update : nullptr);
    if (instance_ == nullptr) {
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': fmi3InstantiateCoSimulation returned NULL (instantiation "
                               "token " +
                               description.instantiation_token + ")" + log_->recent());
    }
    try {
      set_start_values(*package_, instance_, layout_, settings, *log_);
    } catch (...) {
      functions_.FreeInstance(instance_);  // the destructor does not run for a throwing constructor
      throw;
    }
    input_values_.assign(ports.unclocked.inputs.size(), 0.0);
    for (std::size_t k = 0; k < ports.unclocked.discrete_inputs.size(); ++k)
      held_discrete_inputs_.push_back(description_.discrete_inputs[k].start);
    saved_discrete_inputs_ = held_discrete_inputs_;
    held_outputs_.assign(description_.outputs.size(), 0.0);
    held_discrete_outputs_.assign(description_.discrete_outputs.size(), 0);
    saved_held_outputs_ = held_outputs_;
    saved_held_discrete_outputs_ = held_discrete_outputs_;
  }

  ~CoSimulationSlave() override {
    if (saved_state_ != nullptr) functions_.FreeFMUState(instance_, &saved_state_);
    functions_.FreeInstance(instance_);
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    check(functions_.EnterInitializationMode(instance_, fmi3False, 0.0, to_seconds(start),
                                             fmi3False, 0.0),
          "fmi3EnterInitializationMode", to_seconds(start), true);
    clocks_.read_initial_outputs(instance_, start, held_outputs_, held_discrete_outputs_);
    clocks_.set_up(instance_, start);
    check(functions_.ExitInitializationMode(instance_), "fmi3ExitInitializationMode",
          to_seconds(start), true);
    if (event_mode_) {
      // With event mode the instance is in Event Mode now (§4.2.5).
      if (!held_discrete_inputs_.empty())
        check(discrete_inputs_.set(instance_, held_discrete_inputs_, slave_name_),
              to_seconds(start));
      leave_event_mode(to_seconds(start));
    }
    current_time_ = start;
    is_set_up_ = true;
  }

  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    require_set_up("evaluate_outputs");
    if (inputs.size() != description_.inputs.size())
      violation("evaluate_outputs with a wrong number of inputs");
    check_end_outputs(slave_name_, description_, end_outputs);
    read_outputs_at(inputs, to_seconds(current_time_), end_outputs);
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    require_set_up("evaluate_discrete_outputs");
    check_discrete_outputs(slave_name_, description_, discrete_outputs);
    read_discrete_outputs(discrete_outputs, to_seconds(current_time_));
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    require_set_up("step");
    check_step_request(slave_name_, description_, current_time_, request);
    check_end_outputs(slave_name_, description_, result.end_outputs);
    check_discrete_outputs(slave_name_, description_, result.discrete_outputs);
    const std::size_t outputs = description_.outputs.size();
    if (result.samples.size() < request.sample_times.size() * outputs)
      violation("sample buffer too small");
    // An output clock's port says whether it ticked during the step.
    if (clocks_.has_output_clocks()) {
      std::fill(
          held_discrete_outputs_.begin() + static_cast<std::ptrdiff_t>(clocks_.output_clock_port()),
          held_discrete_outputs_.end(), 0);
    }
    // Held over the whole step: set once, before its first fmi3DoStep; with
    // event mode a change is an event, and set in Event Mode (§4.2.5), as
    // are the ticks at the communication point.
    if (event_mode_ || !held_discrete_inputs_.empty()) at_communication_point(request);
    // noSetFMUStatePriorToCurrentPoint: true unless a rollback may follow.
    const fmi3Boolean final_point = !description_.capabilities.can_rollback;
    stepping_inputs_ = request.inputs;  // for intermediate update
    // fmi3DoStep up to each sample and each tick of an input clock inside
    // the step; a sample at a tick's time shows the outputs before it.
    Time from = request.start;
    Time cursor = request.start + 1;  // the ticks at the start are handled
    std::size_t k = 0;
    while (true) {
      const Time tick = clocks_.inputs().empty() ? request.end : clocks_.next_tick(cursor);
      const Time sample = k < request.sample_times.size() ? request.sample_times[k] : request.end;
      const Time to = std::min({tick, sample, request.end});
      if (to > from) {
        const double at = to_seconds(from);
        set_inputs(request.inputs, at);
        do_step(at, to_seconds(to) - at, final_point);
        from = to;
        current_time_ = to;
      }
      for (; k < request.sample_times.size() && request.sample_times[k] == to; ++k)
        read_values_at(request.inputs, to_seconds(to),
                       result.samples.subspan(k * outputs, outputs));
      if (to == request.end) break;
      if (to == tick) {
        clock_event(tick, request, false);
        cursor = tick + 1;
      }
    }
    stepping_inputs_ = {};
    read_outputs_at(request.inputs, to_seconds(request.end), result.end_outputs);
    if (!result.discrete_outputs.empty())
      read_discrete_outputs(result.discrete_outputs, to_seconds(request.end));
  }

  void save_state() override {
    require_rollback("save_state");
    // An existing state is overwritten in place (§2.3.6), no new one made.
    check(functions_.GetFMUState(instance_, &saved_state_), "fmi3GetFMUState",
          to_seconds(current_time_));
    saved_time_ = current_time_;
    saved_discrete_inputs_ = held_discrete_inputs_;  // same sizes: no allocation
    saved_held_outputs_ = held_outputs_;
    saved_held_discrete_outputs_ = held_discrete_outputs_;
    clocks_.save();
  }

  void restore_state() override {
    require_rollback("restore_state");
    if (saved_state_ == nullptr) violation("restore_state without a saved state");
    check(functions_.SetFMUState(instance_, saved_state_), "fmi3SetFMUState",
          to_seconds(saved_time_));
    current_time_ = saved_time_;
    held_discrete_inputs_ = saved_discrete_inputs_;
    held_outputs_ = saved_held_outputs_;
    held_discrete_outputs_ = saved_held_discrete_outputs_;
    clocks_.restore();
  }

 private:
  /// fmi3GetOutputDerivatives names each output variable once and returns
  /// every element of an array: where each Real output port sits in that.
  void prepare_output_derivatives(const std::vector<Element>& outputs) {
    const Description& description = package_->description();
    std::vector<std::size_t>
        variables;  // each output variable once, with its first element's place
    std::vector<std::size_t> bases;
    std::size_t count = 0;
    for (const Element& element : outputs) {
      const auto known = std::find(variables.begin(), variables.end(), element.variable);
      std::size_t base = 0;
      if (known == variables.end()) {
        variables.push_back(element.variable);
        bases.push_back(count);
        base = count;
        derivative_references_.push_back(description.variables[element.variable].value_reference);
        count += layout_.element_count(description.variables[element.variable]);
      } else {
        base = bases[static_cast<std::size_t>(known - variables.begin())];
      }
      derivative_offsets_.push_back(base + element.index);
    }
    derivative_orders_.assign(derivative_references_.size(), 0);
    derivative_values_.assign(count, 0.0);
  }

  /// The discrete inputs of no clock; with event mode an event when they
  /// changed, a triggered clock rose or an input clock ticks now.
  void at_communication_point(const StepRequest& request) {
    const double at = to_seconds(request.start);
    const std::span<const std::int64_t> discrete =
        request.discrete_inputs.first(held_discrete_inputs_.size());
    if (!event_mode_) {
      if (!discrete.empty()) check(discrete_inputs_.set(instance_, discrete, slave_name_), at);
      return;
    }
    const bool changed = !std::equal(discrete.begin(), discrete.end(),
                                     held_discrete_inputs_.begin(), held_discrete_inputs_.end());
    std::copy(discrete.begin(), discrete.end(), held_discrete_inputs_.begin());
    const bool rises = clocks_.take_triggers(request.discrete_inputs);
    const bool ticks = clocks_.next_tick(request.start) == request.start;
    if (changed || rises || ticks) clock_event(request.start, request, changed);
  }

  /// An event at `time`: Event Mode; the input clocks that tick then
  /// activated (fmi3SetClock) and their inputs set, their outputs read; the
  /// output clocks that ticked and their outputs; the countdown and changing
  /// clocks' next ticks; the event iteration; Step Mode. Again while a
  /// countdown clock is due at the same time.
  void clock_event(Time time, const StepRequest& request, bool set_discrete) {
    const double at = to_seconds(time);
    check(functions_.EnterEventMode(instance_), "fmi3EnterEventMode", at);
    if (set_discrete)
      check(discrete_inputs_.set(instance_, held_discrete_inputs_, slave_name_), at);
    for (InputClock* clock : clocks_.activate_ticking(instance_, time))
      clocks_.set_inputs(instance_, clock->ports, time, request);
    clocks_.complete_ticks(instance_, time, held_outputs_, held_discrete_outputs_);
    clocks_.read_output_clocks(instance_, time, held_outputs_, held_discrete_outputs_);
    leave_event_mode(at);
    if (clocks_.countdown_due(time)) clock_event(time, request, false);
  }

  /// The discrete outputs of no clock from the FMU, the others as their
  /// clocks' latest ticks left them.
  void read_discrete_outputs(std::span<std::int64_t> values, double time) {
    check(discrete_outputs_.get(instance_, values.first(unclocked_discrete_outputs_), slave_name_),
          time);
    std::copy(
        held_discrete_outputs_.begin() + static_cast<std::ptrdiff_t>(unclocked_discrete_outputs_),
        held_discrete_outputs_.end(),
        values.begin() + static_cast<std::ptrdiff_t>(unclocked_discrete_outputs_));
  }

  /// The event iteration, then Step Mode again.
  void leave_event_mode(double t) {
    if (update_discrete_states(functions_, instance_, t, slave_name_, *package_, *log_).terminate)
      request_stop(t, "fmi3UpdateDiscreteStates set terminateSimulation");
    check(functions_.EnterStepMode(instance_), "fmi3EnterStepMode", t);
  }

  /// fmi3DoStep from `at` over `size`. An FMU that returns early (when allowed)
  /// is stepped on from where it stopped, its event handled first in Event
  /// Mode when it needs that, so that the step ends at at + size.
  void do_step(double at, double size, fmi3Boolean final_point) {
    const double end = at + size;
    double from = at;
    while (true) {
      fmi3Boolean event_handling_needed = fmi3False;
      fmi3Boolean terminate = fmi3False;
      fmi3Boolean early_return = fmi3False;
      fmi3Float64 reached = from;
      fmi3Status status;
      {
        const fmi::FmuCall call{slave_name_, package_->path(), "fmi3DoStep", from};
        const fmi::FmuCallScope running(call);  // tells an exit() inside it where it came from
        status = functions_.DoStep(instance_, from, end - from, final_point, &event_handling_needed,
                                   &terminate, &early_return, &reached);
      }
      // fmi3OK or fmi3Discard (the step ended at lastSuccessfulTime) with
      // terminateSimulation: the FMU asks to end the simulation (§4.2.1).
      if (terminate && (status == fmi3OK || status == fmi3Warning || status == fmi3Discard))
        request_stop(reached, std::string("fmi3DoStep returned ") + to_string(status) +
                                  " with terminateSimulation");
      check(status, "fmi3DoStep", from);
      if (intermediate_failure_) {
        const PortValues::Failure failure = *intermediate_failure_;
        intermediate_failure_.reset();
        check(failure.status, failure.call, intermediate_failure_time_);
      }
      if (early_return && !early_return_) {
        // Early return was not allowed at instantiation: the FMU broke the contract.
        early_return_error(reached, "although earlyReturnAllowed was false");
      }
      if (event_handling_needed && event_mode_) {
        check(functions_.EnterEventMode(instance_), "fmi3EnterEventMode", reached);
        clocks_.read_output_clocks(instance_, to_ticks(reached), held_outputs_,
                                   held_discrete_outputs_);
        leave_event_mode(reached);
      }
      if (!early_return) return;
      // The FMU must make progress and stay within the step.
      if (!(reached > from) || reached > end)
        early_return_error(reached, "outside (" + seconds(from) + ", " + seconds(end) + "] s");
      if (reached == end) return;
      from = reached;
    }
  }

  static std::string seconds(double time) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", time);
    return text;
  }

  [[noreturn]] void early_return_error(double reached, const std::string& why) const {
    throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                     "': fmi3DoStep returned early at t = " + seconds(reached) + " s " + why);
  }

  [[noreturn]] void request_stop(double time, const std::string& how) const {
    char at[64];
    std::snprintf(at, sizeof at, "%.17g", time);
    throw StopRequest(slave_name_, time,
                      "slave '" + slave_name_ + "' asked to stop the simulation at t = " + at +
                          " s (FMU '" + package_->path() + "': " + how + ")");
  }

  void check(const std::optional<PortValues::Failure>& failure, double time,
             bool setup = false) const {
    if (failure) check(failure->status, failure->call, time, setup);
  }

  void check(fmi3Status status, const char* call, double time, bool setup = false) const {
    check_status(status, call, setup ? std::nullopt : std::optional<double>(time), slave_name_,
                 *package_, *log_);
  }

  [[noreturn]] void violation(const std::string& why) const {
    throw ProtocolViolation("slave '" + slave_name_ + "': " + why);
  }
  void require_set_up(const char* call) const { check_set_up(slave_name_, is_set_up_, call); }
  void require_rollback(const char* call) const {
    check_rollback(slave_name_, description_, is_set_up_, call);
  }

  /// fmi3IntermediateUpdateCallback: where the FMU asks, its Real inputs take
  /// their polynomials' values at `time`. It runs inside fmi3DoStep, in the
  /// FMU's C frames, so it throws nothing: a failed set is kept and thrown
  /// after fmi3DoStep returns.
  static void intermediate_update(fmi3InstanceEnvironment environment, fmi3Float64 time,
                                  fmi3Boolean set_requested, fmi3Boolean /*get_allowed*/,
                                  fmi3Boolean /*step_finished*/, fmi3Boolean /*can_return_early*/,
                                  fmi3Boolean* early_return_requested,
                                  fmi3Float64* early_return_time) {
    if (early_return_requested != nullptr) *early_return_requested = fmi3False;
    if (early_return_time != nullptr) *early_return_time = time;
    if (environment == nullptr || !set_requested) return;
    auto& slave = *static_cast<CoSimulationSlave*>(static_cast<LogRing*>(environment)->context);
    if (slave.stepping_inputs_.size() != slave.input_values_.size() || slave.intermediate_failure_)
      return;
    for (std::size_t i = 0; i < slave.input_values_.size(); ++i)
      slave.input_values_[i] = slave.stepping_inputs_[i].value(time);
    if (const auto failure = slave.inputs_.set(slave.instance_, slave.input_values_)) {
      slave.intermediate_failure_ = failure;
      slave.intermediate_failure_time_ = time;
    }
  }

  /// Input values at `time`, held by the FMU over the step that follows.
  void set_inputs(std::span<const Polynomial> inputs, double time) {
    if (input_values_.empty()) return;
    for (std::size_t i = 0; i < input_values_.size(); ++i) input_values_[i] = inputs[i].value(time);
    check(inputs_.set(instance_, input_values_), time);
  }

  /// The outputs of no clock from the FMU, the others as their clocks'
  /// latest ticks left them.
  void read_values_at(std::span<const Polynomial> inputs, double time, std::span<double> values) {
    set_inputs(inputs, time);  // feedthrough outputs see the inputs at `time`
    check(outputs_.get(instance_, values.first(unclocked_outputs_)), time);
    std::copy(held_outputs_.begin() + static_cast<std::ptrdiff_t>(unclocked_outputs_),
              held_outputs_.end(),
              values.begin() + static_cast<std::ptrdiff_t>(unclocked_outputs_));
  }

  void read_outputs_at(std::span<const Polynomial> inputs, double time,
                       std::span<double> end_outputs) {
    const std::size_t count = description_.outputs.size();
    read_values_at(inputs, time, end_outputs.first(count));
    for (int order = 1; order <= description_.capabilities.output_derivative_order; ++order) {
      std::fill(derivative_orders_.begin(), derivative_orders_.end(), order);
      check(functions_.GetOutputDerivatives(
                instance_, derivative_references_.data(), derivative_references_.size(),
                derivative_orders_.data(), derivative_values_.data(), derivative_values_.size()),
            "fmi3GetOutputDerivatives", time);
      const std::span<double> derivatives =
          end_outputs.subspan(static_cast<std::size_t>(order) * count, count);
      for (std::size_t port = 0; port < count; ++port)  // a clocked output is piecewise constant
        derivatives[port] =
            port < unclocked_outputs_ ? derivative_values_[derivative_offsets_[port]] : 0.0;
    }
  }

  std::shared_ptr<Package> package_;
  const Functions& functions_;
  std::string slave_name_;
  std::unique_ptr<LogRing> log_;  ///< stable address for the callback
  const bool event_mode_;         ///< eventModeUsed: the FMU has it (hasEventMode)
  const bool early_return_;       ///< earlyReturnAllowed: the FMU may (mightReturnEarlyFromDoStep)
  fmi3Instance instance_ = nullptr;
  SlaveDescription description_;
  ArrayLayout layout_;
  PortValues inputs_, outputs_, discrete_inputs_, discrete_outputs_;  ///< the ports of no clock
  /// The ports of no clock come first among the outputs and discrete outputs.
  const std::size_t unclocked_outputs_, unclocked_discrete_outputs_;
  // Sized at construction: stepping does not allocate on couplet's side.
  std::vector<double> input_values_;
  std::vector<std::int64_t> held_discrete_inputs_, saved_discrete_inputs_;  ///< with event mode
  std::vector<fmi3ValueReference> intermediate_references_;  ///< the Real inputs, if set there
  std::span<const Polynomial> stepping_inputs_;  ///< during step(), for intermediate update
  std::optional<PortValues::Failure> intermediate_failure_;
  double intermediate_failure_time_ = 0.0;
  std::vector<fmi3ValueReference> derivative_references_;  ///< each Real output variable once
  std::vector<fmi3Int32> derivative_orders_;
  std::vector<double> derivative_values_;        ///< every element of those variables
  std::vector<std::size_t> derivative_offsets_;  ///< each Real output port's place in it
  // The clocked outputs and output clocks as their latest ticks left them, at
  // their ports' places; sized at construction.
  std::vector<double> held_outputs_, saved_held_outputs_;
  std::vector<std::int64_t> held_discrete_outputs_, saved_held_discrete_outputs_;
  fmi3FMUState saved_state_ = nullptr;
  Time current_time_ = 0;
  Time saved_time_ = 0;
  bool is_set_up_ = false;
  Clocks clocks_;  ///< after the members every step uses
};

}  // namespace

std::unique_ptr<Slave> make_co_simulation_slave(std::shared_ptr<Package> package,
                                                const fmi::FmuSettings& settings) {
  return std::make_unique<CoSimulationSlave>(std::move(package), settings);
}

}  // namespace couplet::models::fmi3
