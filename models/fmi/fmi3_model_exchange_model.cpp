// FMI 3.0 model exchange (§3.2): after fmi3ExitInitializationMode the
// instance is in Event Mode, so start() iterates fmi3UpdateDiscreteStates and
// enters Continuous-Time Mode; every event later — a state event the solver
// located, a time event the FMU announced, a change of a discrete input, or
// fmi3CompletedIntegratorStep asking for one — goes through Event Mode the
// same way. Integer and Boolean inputs are set in Event Mode only (§3.2.3).
// The ticks of time-based input clocks (fmi3_clocks.hpp) are time events
// too: in Event Mode there the ticking clocks are activated (fmi3SetClock),
// their inputs set from the inputs' values then and their outputs read and
// held until their next ticks.
//
// Output derivatives (order 1) by a central difference along the trajectory's
// tangent, as for FMI 2.0 FMUs without directional derivatives:
//   dy/dt ≈ [g(t+h, x+hẋ, u+hu̇) − g(t−h, x−hẋ, u−hu̇)] / 2h,  h = ∛ε·max(1, |t|).
#include "models/fmi/fmi3_model_exchange_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_clocks.hpp"
#include "models/fmi/fmi3_instance.hpp"
#include "models/fmi/fmi3_port_values.hpp"

namespace couplet::models::fmi3 {
namespace {

/// The continuous states in the FMU's order (§2.4.8: that of the
/// ContinuousStateDerivative elements), an array state as its elements.
std::vector<Element> state_elements(const ArrayLayout& layout) {
  const Description& description = layout.description();
  std::vector<Element> states;
  for (const Unknown& derivative : description.continuous_state_derivatives) {
    const auto state = description.find(*description.variables[derivative.variable].derivative);
    const std::size_t count = layout.element_count(description.variables[*state]);
    for (std::size_t k = 0; k < count; ++k) states.push_back({*state, k});
  }
  return states;
}

class ModelExchangeModel final : public Model {
 public:
  ModelExchangeModel(std::shared_ptr<Package> package, const fmi::FmuSettings& settings)
      : ModelExchangeModel(package, settings, array_layout(*package, settings)) {}

  ModelExchangeModel(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                     const ArrayLayout& layout)
      : ModelExchangeModel(package, settings, layout, split_ports(*package, settings, layout)) {}

  ModelExchangeModel(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                     const ArrayLayout& layout, const SplitPorts& ports)
      : package_(std::move(package)),
        functions_(package_->load(Interface::model_exchange)),
        slave_name_(settings.slave_name),
        log_(std::make_unique<LogRing>()),
        layout_(layout),
        interface_(*package_->description().model_exchange),
        inputs_(*package_, layout_, ports.unclocked.inputs, settings.parameters),
        outputs_(*package_, layout_, ports.unclocked.outputs),
        discrete_inputs_(*package_, layout_, ports.unclocked.discrete_inputs, settings.parameters),
        discrete_outputs_(*package_, layout_, ports.unclocked.discrete_outputs),
        unclocked_inputs_(ports.unclocked.inputs.size()),
        unclocked_outputs_(ports.unclocked.outputs.size()),
        unclocked_discrete_inputs_(ports.unclocked.discrete_inputs.size()),
        unclocked_discrete_outputs_(ports.unclocked.discrete_outputs.size()),
        clocks_(*package_, functions_, *log_, settings, "model exchange") {
    refuse_clocks(settings);
    describe(settings, ports.all);
    clocks_.assign_ports(layout_, ports.all, settings);
    const Description& description = package_->description();
    const std::string resources = package_->resource_path();
    instance_ = functions_.InstantiateModelExchange(
        slave_name_.c_str(), description.instantiation_token.c_str(), resources.c_str(), fmi3False,
        fmi3True, log_.get(), &LogRing::log);
    if (instance_ == nullptr) {
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': fmi3InstantiateModelExchange returned NULL (instantiation "
                               "token " +
                               description.instantiation_token + ")" + log_->recent());
    }
    try {
      set_start_values(*package_, instance_, layout_, settings, *log_);
      check_counts();
    } catch (...) {
      functions_.FreeInstance(instance_);  // the destructor does not run for a throwing constructor
      throw;
    }
    const std::size_t states = description_.states.size();
    initial_state_.assign(states, 0.0);
    slope_.assign(states, 0.0);
    shifted_state_.assign(states, 0.0);
    shifted_inputs_.assign(description_.inputs.size(), 0.0);
    ahead_.assign(description_.outputs.size(), 0.0);
    behind_.assign(description_.outputs.size(), 0.0);
    for (const DiscretePortDescription& input : description_.discrete_inputs)
      held_discrete_inputs_.push_back(input.start);
    saved_discrete_inputs_ = held_discrete_inputs_;
    held_outputs_.assign(description_.outputs.size(), 0.0);
    held_discrete_outputs_.assign(description_.discrete_outputs.size(), 0);
    saved_held_outputs_ = held_outputs_;
    saved_held_discrete_outputs_ = held_discrete_outputs_;
  }

  ~ModelExchangeModel() override {
    if (saved_state_ != nullptr) functions_.FreeFMUState(instance_, &saved_state_);
    functions_.FreeInstance(instance_);
  }

  const ModelDescription& description() const override { return description_; }

  void start(double time) const override {
    setup_check(functions_.EnterInitializationMode(instance_, fmi3False, 0.0, time, fmi3False, 0.0),
                "fmi3EnterInitializationMode");
    clocks_.read_initial_outputs(instance_, to_ticks(time), held_outputs_, held_discrete_outputs_);
    clocks_.set_up(instance_, to_ticks(time));
    tick_cursor_ = to_ticks(time);
    setup_check(functions_.ExitInitializationMode(instance_), "fmi3ExitInitializationMode");
    // Held discrete inputs that differ from the FMU's start values reach it here.
    if (unclocked_discrete_inputs_ > 0)
      check(discrete_inputs_.set(instance_, unclocked_discrete(held_discrete_inputs_), slave_name_),
            time);
    iterate_events(time);
    setup_check(functions_.EnterContinuousTimeMode(instance_), "fmi3EnterContinuousTimeMode");
    if (!initial_state_.empty()) {
      setup_check(
          functions_.GetContinuousStates(instance_, initial_state_.data(), initial_state_.size()),
          "fmi3GetContinuousStates");
    }
    started_ = true;
  }

  void initial_state(std::span<double> x) const override {
    if (!started_)
      throw ProtocolViolation("FMU model '" + slave_name_ + "': initial_state before start");
    std::copy(initial_state_.begin(), initial_state_.end(), x.begin());
  }

  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    set_point(t, x, u);
    if (dxdt.empty()) return;
    check(functions_.GetContinuousStateDerivatives(instance_, dxdt.data(), dxdt.size()),
          "fmi3GetContinuousStateDerivatives", t);
  }

  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    set_point(t, x, u);
    if (unclocked_outputs_ > 0) check(outputs_.get(instance_, y.first(unclocked_outputs_)), t);
    std::copy(held_outputs_.begin() + static_cast<std::ptrdiff_t>(unclocked_outputs_),
              held_outputs_.end(), y.begin() + static_cast<std::ptrdiff_t>(unclocked_outputs_));
  }

  int output_derivative_order() const override { return description_.outputs.empty() ? 0 : 1; }

  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    if (order != 1)
      throw ProtocolViolation("FMU model: output derivatives of order " + std::to_string(order));
    const std::size_t inputs = description_.inputs.size();
    const std::span<const double> u = input_jet.first(inputs);
    const std::span<const double> input_slope = input_jet.subspan(inputs, inputs);
    this->derivatives(t, x, u, slope_);
    const double h = std::cbrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::abs(t));
    outputs_along_tangent(t, h, x, u, input_slope, ahead_);
    outputs_along_tangent(t, -h, x, u, input_slope, behind_);
    for (std::size_t j = 0; j < ahead_.size(); ++j)
      derivatives[j] = (ahead_[j] - behind_[j]) / (2.0 * h);
  }

  std::size_t event_indicator_count() const override { return indicator_count_; }

  void event_indicators(double t, std::span<const double> x, std::span<const double> u,
                        std::span<double> indicators) const override {
    set_point(t, x, u);
    if (indicators.empty()) return;
    check(functions_.GetEventIndicators(instance_, indicators.data(), indicators.size()),
          "fmi3GetEventIndicators", t);
  }

  bool handle_event(double t, std::span<double> x, std::span<const double> u) const override {
    set_point(t, x, u);
    return event_at(t, x, {}, u);
  }

  /// The FMU's next time event, or an input clock's next tick if earlier.
  double next_time_event() const override {
    if (clocks_.inputs().empty()) return next_event_time_;
    return std::min(next_event_time_, to_seconds(clocks_.next_tick(tick_cursor_)));
  }

  bool set_discrete_inputs(double t, std::span<const std::int64_t> values, std::span<double> x,
                           std::span<const double> u) const override {
    if (std::equal(values.begin(), values.end(), held_discrete_inputs_.begin(),
                   held_discrete_inputs_.end()))
      return false;
    set_point(t, x, u);
    std::copy(values.begin(), values.end(), held_discrete_inputs_.begin());
    event_at(t, x, unclocked_discrete(values), u);
    return true;
  }

  void discrete_outputs(double t, std::span<std::int64_t> values) const override {
    if (unclocked_discrete_outputs_ > 0) {
      check(
          discrete_outputs_.get(instance_, values.first(unclocked_discrete_outputs_), slave_name_),
          t);
    }
    std::copy(
        held_discrete_outputs_.begin() + static_cast<std::ptrdiff_t>(unclocked_discrete_outputs_),
        held_discrete_outputs_.end(),
        values.begin() + static_cast<std::ptrdiff_t>(unclocked_discrete_outputs_));
  }

  bool completed_step(double t, std::span<double> x, std::span<const double> u) const override {
    if (!interface_.needs_completed_integrator_step) return false;
    set_point(t, x, u);
    fmi3Boolean enter_event_mode = fmi3False;
    fmi3Boolean terminate = fmi3False;
    check(functions_.CompletedIntegratorStep(instance_, fmi3False, &enter_event_mode, &terminate),
          "fmi3CompletedIntegratorStep", t);
    if (terminate) request_stop(t, "fmi3CompletedIntegratorStep set terminateSimulation");
    return enter_event_mode ? event_at(t, x, {}, u) : false;
  }

  // Without FMU state access, rollback is sound only when the FMU has no
  // discrete state of its own: no event indicators and no discrete ports.
  bool can_save_discrete_state() const override {
    return interface_.capabilities.can_get_and_set_fmu_state ||
           (indicator_count_ == 0 && description_.discrete_inputs.empty() &&
            description_.discrete_outputs.empty() && clocks_.empty());
  }

  void save_discrete_state() const override {
    saved_next_event_time_ = next_event_time_;
    saved_discrete_inputs_ = held_discrete_inputs_;  // same sizes: no allocation
    saved_held_outputs_ = held_outputs_;
    saved_held_discrete_outputs_ = held_discrete_outputs_;
    saved_tick_cursor_ = tick_cursor_;
    clocks_.save();
    if (!interface_.capabilities.can_get_and_set_fmu_state) return;
    // An existing state is overwritten in place (§2.3.6), no new one made.
    check(functions_.GetFMUState(instance_, &saved_state_), "fmi3GetFMUState", 0.0);
  }

  void restore_discrete_state() const override {
    next_event_time_ = saved_next_event_time_;
    held_discrete_inputs_ = saved_discrete_inputs_;
    held_outputs_ = saved_held_outputs_;
    held_discrete_outputs_ = saved_held_discrete_outputs_;
    tick_cursor_ = saved_tick_cursor_;
    clocks_.restore();
    if (!interface_.capabilities.can_get_and_set_fmu_state) return;
    check(functions_.SetFMUState(instance_, saved_state_), "fmi3SetFMUState", 0.0);
  }

 private:
  /// In model exchange couplet ticks the time-based input clocks; a
  /// triggered or output clock, whose Boolean port would need the steps'
  /// bounds, is refused by name rather than run without it (docs/fmi.md).
  void refuse_clocks(const fmi::FmuSettings& settings) const {
    for (const Variable& variable : package_->description().variables) {
      if (!variable.clock) continue;
      const bool triggered = variable.clock->interval_variability == IntervalVariability::triggered;
      if (variable.causality == Causality::input && !triggered) continue;
      configuration_error(
          settings, *package_,
          "clock " + fmi::single_quoted(variable.name) + ": " +
              (triggered && variable.causality == Causality::input ? "a triggered input clock"
                                                                   : "an output clock") +
              " in model exchange is not supported yet (docs/fmi.md); run the FMU as "
              "co-simulation or scheduled execution (fmu_kind)");
    }
    if (!clocks_.inputs().empty() && functions_.SetClock == nullptr) {
      configuration_error(settings, *package_,
                          "input clock " + fmi::single_quoted(clocks_.inputs().front().name) +
                              ": the FMU lacks fmi3SetClock");
    }
  }

  void describe(const fmi::FmuSettings& settings, const PortElements& ports) {
    const Description& description = package_->description();
    description_.name = description.model_name;
    description_.summary = "FMU " + package_->path() + " (FMI 3.0, model exchange)";
    PortDescriptions described = describe_ports(*package_, layout_, ports, settings);
    for (InputDescription& input : described.inputs) {
      description_.inputs.push_back(input.name);
      description_.input_units.push_back(input.unit);
      if (input.unit_definition)
        description_.unit_definitions.emplace(input.unit, *input.unit_definition);
    }
    description_.outputs = std::move(described.outputs);
    description_.discrete_inputs = std::move(described.discrete_inputs);
    description_.discrete_outputs = std::move(described.discrete_outputs);
    for (const Element& state : state_elements(layout_))
      description_.states.push_back(layout_.name_of(state));
  }

  /// The FMU's own counts against its description (they may follow
  /// structural parameters): a disagreement would misread every vector.
  void check_counts() {
    std::size_t states = 0;
    setup_check(functions_.GetNumberOfContinuousStates(instance_, &states),
                "fmi3GetNumberOfContinuousStates");
    setup_check(functions_.GetNumberOfEventIndicators(instance_, &indicator_count_),
                "fmi3GetNumberOfEventIndicators");
    std::size_t described_indicators = 0;
    for (const Unknown& indicator : package_->description().event_indicators)
      described_indicators +=
          layout_.element_count(package_->description().variables[indicator.variable]);
    if (states != description_.states.size() || indicator_count_ != described_indicators) {
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': it says " + std::to_string(states) + " continuous states and " +
                               std::to_string(indicator_count_) +
                               " event indicators, its modelDescription.xml " +
                               std::to_string(description_.states.size()) + " and " +
                               std::to_string(described_indicators));
    }
  }

  void set_point(double t, std::span<const double> x, std::span<const double> u) const {
    check(functions_.SetTime(instance_, t), "fmi3SetTime", t);
    if (!x.empty())
      check(functions_.SetContinuousStates(instance_, x.data(), x.size()),
            "fmi3SetContinuousStates", t);
    if (unclocked_inputs_ > 0) check(inputs_.set(instance_, u.first(unclocked_inputs_)), t);
  }

  /// The discrete inputs of no clock among `values` (they come first).
  std::span<const std::int64_t> unclocked_discrete(std::span<const std::int64_t> values) const {
    return values.first(unclocked_discrete_inputs_);
  }

  void outputs_along_tangent(double t, double h, std::span<const double> x,
                             std::span<const double> u, std::span<const double> input_slope,
                             std::span<double> y) const {
    for (std::size_t i = 0; i < x.size(); ++i) shifted_state_[i] = x[i] + h * slope_[i];
    for (std::size_t i = 0; i < u.size(); ++i) shifted_inputs_[i] = u[i] + h * input_slope[i];
    outputs(t + h, shifted_state_, shifted_inputs_, y);
  }

  /// An event at t, the FMU at its point already: Event Mode, the new discrete
  /// inputs (none: nothing to set), the input clocks that tick at t, the event
  /// iteration, Continuous-Time Mode; x takes the states when the event
  /// changed them. Returns whether it did. Again while a countdown clock is
  /// due at t.
  bool event_at(double t, std::span<double> x, std::span<const std::int64_t> discrete,
                std::span<const double> u) const {
    check(functions_.EnterEventMode(instance_), "fmi3EnterEventMode", t);
    if (!discrete.empty()) check(discrete_inputs_.set(instance_, discrete, slave_name_), t);
    const Time tick = clocks_.inputs().empty() ? -1 : clocks_.next_tick(tick_cursor_);
    const bool ticks = tick >= 0 && tick <= to_ticks(t);
    if (ticks) activate_clocks(tick, u);
    bool changed = iterate_events(t);
    check(functions_.EnterContinuousTimeMode(instance_), "fmi3EnterContinuousTimeMode", t);
    if (changed && !x.empty()) {
      check(functions_.GetContinuousStates(instance_, x.data(), x.size()),
            "fmi3GetContinuousStates", t);
    }
    if (ticks && clocks_.countdown_due(tick)) changed = event_at(t, x, {}, u) || changed;
    return changed;
  }

  /// In Event Mode at an input clock's tick: the clocks that tick then
  /// activated, their inputs set from the inputs' values (u, the held
  /// discrete ones), their outputs read and held; the changing and countdown
  /// clocks' next ticks.
  void activate_clocks(Time tick, std::span<const double> u) const {
    tick_cursor_ = tick + 1;
    for (InputClock* clock : clocks_.activate_ticking(instance_, tick))
      clocks_.set_inputs(instance_, clock->ports, tick, u, held_discrete_inputs_);
    clocks_.complete_ticks(instance_, tick, held_outputs_, held_discrete_outputs_);
  }

  /// The event iteration; records the FMU's next time event. Returns whether
  /// the continuous states changed.
  bool iterate_events(double t) const {
    const EventOutcome outcome =
        update_discrete_states(functions_, instance_, t, slave_name_, *package_, *log_);
    if (outcome.terminate) request_stop(t, "fmi3UpdateDiscreteStates set terminateSimulation");
    next_event_time_ = outcome.next_event.value_or(std::numeric_limits<double>::infinity());
    return outcome.states_changed;
  }

  [[noreturn]] void request_stop(double time, const std::string& how) const {
    char at[64];
    std::snprintf(at, sizeof at, "%.17g", time);
    throw StopRequest(slave_name_, time,
                      "slave '" + slave_name_ + "' asked to stop the simulation at t = " + at +
                          " s (FMU '" + package_->path() + "': " + how + ")");
  }

  void check(const std::optional<PortValues::Failure>& failure, double time) const {
    if (failure) check(failure->status, failure->call, time);
  }
  void check(fmi3Status status, const char* call, double time) const {
    check_status(status, call, time, slave_name_, *package_, *log_);
  }
  void setup_check(fmi3Status status, const char* call) const {
    check_status(status, call, std::nullopt, slave_name_, *package_, *log_);
  }

  std::shared_ptr<Package> package_;
  const Functions& functions_;
  std::string slave_name_;
  std::unique_ptr<LogRing> log_;  ///< stable address for the callback
  ArrayLayout layout_;
  const ModelExchangeInterface interface_;
  fmi3Instance instance_ = nullptr;
  ModelDescription description_;
  std::size_t indicator_count_ = 0;
  // Model's calls are const; the FMU's state lives in its instance, and these
  // are the exchange buffers and mirrors of it, sized at construction.
  mutable PortValues inputs_, outputs_, discrete_inputs_, discrete_outputs_;
  mutable std::vector<double> initial_state_, slope_, shifted_state_, shifted_inputs_, ahead_,
      behind_;
  mutable std::vector<std::int64_t> held_discrete_inputs_, saved_discrete_inputs_;
  mutable double next_event_time_ = std::numeric_limits<double>::infinity();
  mutable double saved_next_event_time_ = std::numeric_limits<double>::infinity();
  mutable fmi3FMUState saved_state_ = nullptr;
  mutable bool started_ = false;
  // The ports of no clock come first among each kind.
  const std::size_t unclocked_inputs_, unclocked_outputs_, unclocked_discrete_inputs_,
      unclocked_discrete_outputs_;
  // The clocked outputs as their latest ticks left them, at their ports'
  // places; the schedule's cursor (the first time a tick may still be at).
  mutable std::vector<double> held_outputs_, saved_held_outputs_;
  mutable std::vector<std::int64_t> held_discrete_outputs_, saved_held_discrete_outputs_;
  mutable Time tick_cursor_ = 0, saved_tick_cursor_ = 0;
  mutable Clocks clocks_;                 ///< after the members every evaluation uses
};

}  // namespace

std::unique_ptr<Model> make_model_exchange_model(std::shared_ptr<Package> package,
                                                 const fmi::FmuSettings& settings) {
  return std::make_unique<ModelExchangeModel>(std::move(package), settings);
}

}  // namespace couplet::models::fmi3
