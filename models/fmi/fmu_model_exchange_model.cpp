// A model-exchange FMU as a couplet Model (FMI 2.0 §3): couplet's solvers
// integrate its derivatives, locate its state events (event indicators) and
// stop at its time events; the FMU's event iteration runs in handle_event.
// Integer and Boolean inputs are set in event mode, a change of one being an
// event (§3.2.3); discrete outputs are read in continuous-time mode.
//
// Output derivatives (order 1): dy/dt = ∂g/∂x ẋ + ∂g/∂u u̇ (+ ∂g/∂t), from
// fmi2GetDirectionalDerivative when the FMU provides it (then without ∂g/∂t),
// else by a central difference along the trajectory's tangent:
//   dy/dt ≈ [g(t+h, x+hẋ, u+hu̇) − g(t−h, x−hẋ, u−hu̇)] / 2h,
// which is second-order accurate in h; h = ∛ε·max(1, |t|) balances truncation
// (O(h²)) against rounding (O(ε/h)).
#include <algorithm>
#include <cmath>
#include <limits>

#include "couplet/errors.hpp"
#include "models/fmi/fmu_instance.hpp"
#include "models/fmi/fmu_slaves.hpp"

namespace couplet::models::fmi {
namespace {

// Event iteration that does not settle is a modelling error (FMI 2.0 §3.1).
constexpr int kMaxEventIterations = 100;

class ModelExchangeModel final : public Model {
 public:
  ModelExchangeModel(std::shared_ptr<Package> package, const FmuSettings& settings)
      : ModelExchangeModel(package, settings, fmu_ports(*package, settings)) {}

  ModelExchangeModel(std::shared_ptr<Package> package, const FmuSettings& settings,
                     const FmuPorts& ports)
      : instance_(package, InterfaceKind::model_exchange, settings.slave_name),
        interface_(*package->description().model_exchange),
        discrete_inputs_(package->description(), ports.discrete_inputs),
        discrete_outputs_(package->description(), ports.discrete_outputs) {
    const Description& description = package->description();
    description_.name = description.model_name;
    description_.summary = "FMU " + package->path() + " (model exchange)";
    for (const std::size_t k : ports.inputs) {
      description_.inputs.push_back(description.variables[k].name);
      description_.input_units.push_back(port_unit(description.variables[k].unit));
      if (const auto unit = unit_definition(description, description.variables[k].unit))
        description_.unit_definitions.emplace(description.variables[k].unit, *unit);
      input_references_.push_back(description.variables[k].value_reference);
    }
    description_.outputs = ports.output_descriptions;
    for (const std::size_t k : ports.outputs)
      output_references_.push_back(description.variables[k].value_reference);
    description_.discrete_inputs = ports.discrete_input_descriptions;
    description_.discrete_outputs = ports.discrete_output_descriptions;
    for (const DiscretePortDescription& input : description_.discrete_inputs)
      held_discrete_inputs_.push_back(input.start);
    saved_discrete_inputs_ = held_discrete_inputs_;
    for (const std::size_t k : description.states())
      description_.states.push_back(description.variables[k].name);
    for (const std::size_t k : description.states())
      state_references_.push_back(description.variables[k].value_reference);
    indicator_count_ = description.number_of_event_indicators;
    instance_.set_start_values(settings.parameters);
    const std::size_t states = description_.states.size();
    const std::size_t outputs = output_references_.size();
    initial_state_.assign(states, 0.0);
    slope_.assign(states, 0.0);
    shifted_state_.assign(states, 0.0);
    shifted_inputs_.assign(input_references_.size(), 0.0);
    ahead_.assign(outputs, 0.0);
    behind_.assign(outputs, 0.0);
    known_references_ = state_references_;
    known_references_.insert(known_references_.end(), input_references_.begin(),
                             input_references_.end());
    known_values_.assign(known_references_.size(), 0.0);
  }

  const ModelDescription& description() const override { return description_; }

  void start(double time) const override {
    const Functions& fmi = instance_.functions();
    const fmi2Component component = instance_.component();
    instance_.check_setup(fmi.SetupExperiment(component, fmi2False, 0.0, time, fmi2False, 0.0),
                          "fmi2SetupExperiment");
    instance_.check_setup(fmi.EnterInitializationMode(component), "fmi2EnterInitializationMode");
    instance_.check_setup(fmi.ExitInitializationMode(component), "fmi2ExitInitializationMode");
    iterate_events(time);
    instance_.check_setup(fmi.EnterContinuousTimeMode(component), "fmi2EnterContinuousTimeMode");
    if (!initial_state_.empty()) {
      instance_.check_setup(
          fmi.GetContinuousStates(component, initial_state_.data(), initial_state_.size()),
          "fmi2GetContinuousStates");
    }
    started_ = true;
  }

  void initial_state(std::span<double> x) const override {
    if (!started_)
      throw ProtocolViolation("FMU model '" + instance_.slave_name() +
                              "': initial_state before start");
    std::copy(initial_state_.begin(), initial_state_.end(), x.begin());
  }

  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    set_point(t, x, u);
    if (dxdt.empty()) return;
    instance_.check(
        instance_.functions().GetDerivatives(instance_.component(), dxdt.data(), dxdt.size()),
        "fmi2GetDerivatives", t);
  }

  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    set_point(t, x, u);
    read_outputs(t, y);
  }

  int output_derivative_order() const override { return output_references_.empty() ? 0 : 1; }

  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    if (order != 1)
      throw ProtocolViolation("FMU model: output derivatives of order " + std::to_string(order));
    const std::size_t inputs = input_references_.size();
    const std::span<const double> u = input_jet.first(inputs);
    const std::span<const double> input_slope = input_jet.subspan(inputs, inputs);
    this->derivatives(t, x, u, slope_);
    if (interface_.provides_directional_derivative) {
      std::copy(slope_.begin(), slope_.end(), known_values_.begin());
      std::copy(input_slope.begin(), input_slope.end(),
                known_values_.begin() + static_cast<long>(slope_.size()));
      instance_.check(instance_.functions().GetDirectionalDerivative(
                          instance_.component(), output_references_.data(),
                          output_references_.size(), known_references_.data(),
                          known_references_.size(), known_values_.data(), derivatives.data()),
                      "fmi2GetDirectionalDerivative", t);
      return;
    }
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
    instance_.check(instance_.functions().GetEventIndicators(instance_.component(),
                                                             indicators.data(), indicators.size()),
                    "fmi2GetEventIndicators", t);
  }

  bool handle_event(double t, std::span<double> x, std::span<const double> u) const override {
    set_point(t, x, u);
    return event_at(t, x, {});
  }

  double next_time_event() const override { return next_event_time_; }

  bool set_discrete_inputs(double t, std::span<const std::int64_t> values, std::span<double> x,
                           std::span<const double> u) const override {
    if (std::equal(values.begin(), values.end(), held_discrete_inputs_.begin(),
                   held_discrete_inputs_.end()))
      return false;
    set_point(t, x, u);
    std::copy(values.begin(), values.end(), held_discrete_inputs_.begin());
    event_at(t, x, values);
    return true;
  }

  void discrete_outputs(double t, std::span<std::int64_t> values) const override {
    discrete_outputs_.get(instance_, values, t);
  }

  bool completed_step(double t, std::span<double> x, std::span<const double> u) const override {
    if (interface_.completed_integrator_step_not_needed) return false;
    set_point(t, x, u);
    fmi2Boolean enter_event_mode = fmi2False;
    fmi2Boolean terminate = fmi2False;
    instance_.check(instance_.functions().CompletedIntegratorStep(instance_.component(), fmi2False,
                                                                  &enter_event_mode, &terminate),
                    "fmi2CompletedIntegratorStep", t);
    if (terminate) instance_.request_stop(t, "fmi2CompletedIntegratorStep set terminateSimulation");
    return enter_event_mode ? handle_event(t, x, u) : false;
  }

  // Without FMU state access, rollback is sound only when the FMU has no
  // discrete state of its own: no event indicators and no Integer or Boolean
  // ports (docs/fmi.md).
  bool can_save_discrete_state() const override {
    return interface_.can_get_and_set_fmu_state ||
           (indicator_count_ == 0 && description_.discrete_inputs.empty() &&
            description_.discrete_outputs.empty());
  }

  void save_discrete_state() const override {
    saved_next_event_time_ = next_event_time_;
    saved_discrete_inputs_ = held_discrete_inputs_;  // same size: no allocation
    if (!interface_.can_get_and_set_fmu_state) return;
    instance_.check(instance_.functions().GetFMUstate(instance_.component(), &saved_state_),
                    "fmi2GetFMUstate", 0.0);
  }

  void restore_discrete_state() const override {
    next_event_time_ = saved_next_event_time_;
    held_discrete_inputs_ = saved_discrete_inputs_;
    if (!interface_.can_get_and_set_fmu_state) return;
    instance_.check(instance_.functions().SetFMUstate(instance_.component(), saved_state_),
                    "fmi2SetFMUstate", 0.0);
  }

  ~ModelExchangeModel() override {
    if (saved_state_ != nullptr)
      instance_.functions().FreeFMUstate(instance_.component(), &saved_state_);
  }

 private:
  void set_point(double t, std::span<const double> x, std::span<const double> u) const {
    const Functions& fmi = instance_.functions();
    const fmi2Component component = instance_.component();
    instance_.check(fmi.SetTime(component, t), "fmi2SetTime", t);
    if (!x.empty())
      instance_.check(fmi.SetContinuousStates(component, x.data(), x.size()),
                      "fmi2SetContinuousStates", t);
    if (!input_references_.empty()) {
      instance_.check(
          fmi.SetReal(component, input_references_.data(), input_references_.size(), u.data()),
          "fmi2SetReal", t);
    }
  }

  void read_outputs(double t, std::span<double> y) const {
    if (output_references_.empty()) return;
    instance_.check(instance_.functions().GetReal(instance_.component(), output_references_.data(),
                                                  output_references_.size(), y.data()),
                    "fmi2GetReal", t);
  }

  void outputs_along_tangent(double t, double h, std::span<const double> x,
                             std::span<const double> u, std::span<const double> input_slope,
                             std::span<double> y) const {
    for (std::size_t i = 0; i < x.size(); ++i) shifted_state_[i] = x[i] + h * slope_[i];
    for (std::size_t i = 0; i < u.size(); ++i) shifted_inputs_[i] = u[i] + h * input_slope[i];
    outputs(t + h, shifted_state_, shifted_inputs_, y);
  }

  /// An event at t, the FMU at its point already: event mode, the new discrete
  /// inputs (none: nothing to set), the event iteration, continuous-time mode;
  /// x takes the states when the event changed them. Returns whether it did.
  bool event_at(double t, std::span<double> x,
                std::span<const std::int64_t> discrete_inputs) const {
    const Functions& fmi = instance_.functions();
    instance_.check(fmi.EnterEventMode(instance_.component()), "fmi2EnterEventMode", t);
    if (!discrete_inputs.empty()) discrete_inputs_.set(instance_, discrete_inputs, t);
    const bool changed = iterate_events(t);
    instance_.check(fmi.EnterContinuousTimeMode(instance_.component()),
                    "fmi2EnterContinuousTimeMode", t);
    if (changed && !x.empty()) {
      instance_.check(fmi.GetContinuousStates(instance_.component(), x.data(), x.size()),
                      "fmi2GetContinuousStates", t);
    }
    return changed;
  }

  /// fmi2NewDiscreteStates until the FMU settles; records its next time event.
  /// Returns whether the continuous states changed.
  bool iterate_events(double t) const {
    fmi2EventInfo info{};
    bool changed = false;
    info.newDiscreteStatesNeeded = fmi2True;
    for (int iteration = 0; info.newDiscreteStatesNeeded; ++iteration) {
      if (iteration == kMaxEventIterations) {
        throw SlaveError(
            "slave '" + instance_.slave_name() + "': FMU '" + instance_.package().path() +
            "': event iteration at t = " + std::to_string(t) + " s did not settle after " +
            std::to_string(kMaxEventIterations) + " fmi2NewDiscreteStates calls");
      }
      info.newDiscreteStatesNeeded = fmi2False;
      instance_.check(instance_.functions().NewDiscreteStates(instance_.component(), &info),
                      "fmi2NewDiscreteStates", t);
      if (info.terminateSimulation)
        instance_.request_stop(t, "fmi2NewDiscreteStates set terminateSimulation");
      changed = changed || info.valuesOfContinuousStatesChanged;
    }
    next_event_time_ =
        info.nextEventTimeDefined ? info.nextEventTime : std::numeric_limits<double>::infinity();
    return changed;
  }

  Instance instance_;
  const ModelExchangeInterface interface_;
  // Scratch buffers inside (sized at construction): mutable like the mirrors below.
  mutable DiscreteExchange discrete_inputs_;
  mutable DiscreteExchange discrete_outputs_;
  ModelDescription description_;
  std::vector<fmi2ValueReference> input_references_;
  std::vector<fmi2ValueReference> output_references_;
  std::vector<fmi2ValueReference> state_references_;
  std::vector<fmi2ValueReference> known_references_;  ///< states then inputs
  std::size_t indicator_count_ = 0;
  // The FMU's discrete state is outside this object (Model's const contract);
  // these mirror it and are scratch buffers sized at construction.
  mutable std::vector<double> initial_state_;
  mutable std::vector<double> slope_, shifted_state_, shifted_inputs_, ahead_, behind_,
      known_values_;
  mutable std::vector<std::int64_t> held_discrete_inputs_, saved_discrete_inputs_;
  mutable double next_event_time_ = std::numeric_limits<double>::infinity();
  mutable double saved_next_event_time_ = std::numeric_limits<double>::infinity();
  mutable fmi2FMUstate saved_state_ = nullptr;
  mutable bool started_ = false;
};

}  // namespace

std::unique_ptr<Model> make_model_exchange_model(std::shared_ptr<Package> package,
                                                 const FmuSettings& settings) {
  if (!package->offers(InterfaceKind::model_exchange)) {
    throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package->path() +
                             "': does not offer model exchange (fmu_kind: cs)");
  }
  return std::make_unique<ModelExchangeModel>(std::move(package), settings);
}

}  // namespace couplet::models::fmi
