// A co-simulation FMU as a couplet slave (FMI 2.0 §4): set inputs (values and,
// when the FMU can interpolate, their time derivatives), fmi2DoStep, read
// outputs and output derivatives. Intermediate samples split a step into
// several fmi2DoStep calls at the sample times (variable-step FMUs only).
#include <algorithm>
#include <cmath>

#include "models/fmi/fmu_call_in_progress.hpp"
#include "models/fmi/fmu_instance.hpp"
#include "models/fmi/fmu_slaves.hpp"
#include "couplet/errors.hpp"

namespace couplet::models::fmi {

SlaveCapabilities co_simulation_capabilities(const CoSimulationOffer& offer,
                                             const CapabilityLimits& limits,
                                             const std::string& slave_name,
                                             const std::string& fmu_path) {
  const auto refuse = [&](const std::string& why) {
    throw ConfigurationError("slave '" + slave_name + "': FMU '" + fmu_path + "': " + why);
  };
  SlaveCapabilities capabilities;
  const int provided = std::min(offer.max_output_derivative_order, kMaxFmuOutputDerivativeOrder);
  const int order = limits.output_derivative_order.value_or(provided);
  if (order < 0 || order > provided) {
    refuse("capabilities.output_derivative_order " + std::to_string(order) +
           " is more than the FMU provides (maxOutputDerivativeOrder " +
           std::to_string(offer.max_output_derivative_order) + ")");
  }
  capabilities.output_derivative_order = order;
  capabilities.can_rollback = offer.can_get_and_set_fmu_state && limits.can_rollback;
  capabilities.imposed_step = limits.imposed_step;
  if (!offer.can_handle_variable_communication_step_size && capabilities.imposed_step == 0) {
    const std::optional<double> step = offer.default_step_size;
    if (!step || !(*step > 0.0) || !std::isfinite(*step)) {
      refuse(
          "the FMU cannot handle a variable communication step and gives no "
          "DefaultExperiment/stepSize: set capabilities.imposed_step");
    }
    capabilities.imposed_step = step_to_ticks(*step);
  }
  capabilities.variable_step = capabilities.imposed_step == 0;
  // Samples inside a step need extra communication points, which only a
  // variable-step FMU can take.
  capabilities.intermediate_samples = capabilities.variable_step && limits.intermediate_samples;
  return capabilities;
}

namespace {

[[noreturn]] void configuration_error(const FmuSettings& settings, const Package& package,
                                      const std::string& why) {
  throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package.path() +
                           "': " + why);
}

SlaveCapabilities capabilities_of(const Package& package, const FmuSettings& settings) {
  const CoSimulationInterface& cs = *package.description().co_simulation;
  const CapabilityLimits& limits = settings.limits;
  SlaveCapabilities capabilities =
      co_simulation_capabilities({cs.max_output_derivative_order, cs.can_get_and_set_fmu_state,
                                  cs.can_handle_variable_communication_step_size,
                                  package.description().default_experiment.step_size},
                                 limits, settings.slave_name, package.path());
  const int degree = limits.max_input_degree.value_or(cs.can_interpolate_inputs ? 1 : 0);
  const int accepted = cs.can_interpolate_inputs ? kMaxFmuInputDegree : 0;
  if (degree < 0 || degree > accepted) {
    configuration_error(settings, package,
                        "capabilities.max_input_degree " + std::to_string(degree) +
                            " is more than the FMU accepts (" + std::to_string(accepted) +
                            (cs.can_interpolate_inputs ? ")" : ": canInterpolateInputs is false)"));
  }
  capabilities.max_input_degree = degree;
  // FMI 2.0 co-simulation exposes neither the continuous states nor their
  // derivatives (fmi2GetContinuousStates is model exchange only), so there is no
  // x, ẋ or A to report: such a slave cannot linearize. A model-exchange FMU run
  // by an ODE slave can (finite differences through the Model interface).
  capabilities.can_linearize = false;
  capabilities.state_count = 0;
  return capabilities;
}

class CoSimulationSlave final : public Slave {
 public:
  CoSimulationSlave(std::shared_ptr<Package> package, const FmuSettings& settings)
      : CoSimulationSlave(package, settings, fmu_ports(*package, settings)) {}

  CoSimulationSlave(std::shared_ptr<Package> package, const FmuSettings& settings,
                    const FmuPorts& ports)
      : instance_(package, InterfaceKind::co_simulation, settings.slave_name),
        discrete_inputs_(package->description(), ports.discrete_inputs),
        discrete_outputs_(package->description(), ports.discrete_outputs) {
    const Description& description = package->description();
    for (const std::size_t k : ports.inputs) {
      const Variable& input = description.variables[k];
      description_.inputs.push_back(
          {input.name, port_unit(input.unit), unit_definition(description, input.unit)});
      input_references_.push_back(description.variables[k].value_reference);
    }
    description_.outputs = ports.output_descriptions;
    for (const std::size_t k : ports.outputs)
      output_references_.push_back(description.variables[k].value_reference);
    description_.capabilities = capabilities_of(*package, settings);
    description_.discrete_inputs = ports.discrete_input_descriptions;
    description_.discrete_outputs = ports.discrete_output_descriptions;
    instance_.set_start_values(settings.parameters);
    const std::size_t inputs = input_references_.size();
    input_values_.assign(inputs, 0.0);
    input_orders_.assign(inputs, 0);
    output_orders_.assign(output_references_.size(), 0);
  }

  ~CoSimulationSlave() override {
    if (saved_state_ != nullptr)
      instance_.functions().FreeFMUstate(instance_.component(), &saved_state_);
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    const Functions& fmi = instance_.functions();
    const fmi2Component component = instance_.component();
    const double start_seconds = to_seconds(start);
    instance_.check_setup(
        fmi.SetupExperiment(component, fmi2False, 0.0, start_seconds, fmi2False, 0.0),
        "fmi2SetupExperiment");
    instance_.check_setup(fmi.EnterInitializationMode(component), "fmi2EnterInitializationMode");
    instance_.check_setup(fmi.ExitInitializationMode(component), "fmi2ExitInitializationMode");
    current_time_ = start;
    is_set_up_ = true;
  }

  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    require_set_up("evaluate_outputs");
    if (inputs.size() != input_references_.size())
      violation("evaluate_outputs with a wrong number of inputs");
    check_end_outputs(instance_.slave_name(), description_, end_outputs);
    read_outputs_at(inputs, to_seconds(current_time_), end_outputs);
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    require_set_up("evaluate_discrete_outputs");
    check_discrete_outputs(instance_.slave_name(), description_, discrete_outputs);
    discrete_outputs_.get(instance_, discrete_outputs, to_seconds(current_time_));
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    require_set_up("step");
    check_step_request(instance_.slave_name(), description_, current_time_, request);
    check_end_outputs(instance_.slave_name(), description_, result.end_outputs);
    check_discrete_outputs(instance_.slave_name(), description_, result.discrete_outputs);
    // Held over the whole step: set once, before its first fmi2DoStep.
    if (!request.discrete_inputs.empty()) {
      discrete_inputs_.set(instance_, request.discrete_inputs, to_seconds(request.start));
    }
    const std::size_t outputs = output_references_.size();
    if (result.samples.size() < request.sample_times.size() * outputs)
      violation("sample buffer too small");
    // noSetFMUStatePriorToCurrentPoint: true unless a rollback may follow.
    const fmi2Boolean final_point = description_.capabilities.can_rollback ? fmi2False : fmi2True;
    Time from = request.start;
    for (std::size_t k = 0; k <= request.sample_times.size(); ++k) {
      const Time to = k < request.sample_times.size() ? request.sample_times[k] : request.end;
      if (to > from) {
        set_inputs(request.inputs, to_seconds(from));
        const double at = to_seconds(from);
        const FmuCall call{instance_.slave_name(), instance_.package().path(), "fmi2DoStep", at};
        fmi2Status status;
        {
          const FmuCallScope running(call);  // tells an exit() inside it where it came from
          status = instance_.functions().DoStep(instance_.component(), at, to_seconds(to) - at,
                                                final_point);
        }
        if (status == fmi2Discard) stop_if_terminated(at);
        instance_.check(status, "fmi2DoStep", at);
        from = to;
        current_time_ = to;
      }
      if (k < request.sample_times.size()) {
        read_values_at(request.inputs, to_seconds(to),
                       result.samples.subspan(k * outputs, outputs));
      }
    }
    read_outputs_at(request.inputs, to_seconds(request.end), result.end_outputs);
    if (!result.discrete_outputs.empty()) {
      discrete_outputs_.get(instance_, result.discrete_outputs, to_seconds(request.end));
    }
  }

  void save_state() override {
    require_rollback("save_state");
    // An existing state is overwritten in place (FMI 2.0 §2.1.8), no new one made.
    instance_.check(instance_.functions().GetFMUstate(instance_.component(), &saved_state_),
                    "fmi2GetFMUstate", to_seconds(current_time_));
    saved_time_ = current_time_;
  }

  void restore_state() override {
    require_rollback("restore_state");
    if (saved_state_ == nullptr) violation("restore_state without a saved state");
    instance_.check(instance_.functions().SetFMUstate(instance_.component(), saved_state_),
                    "fmi2SetFMUstate", to_seconds(saved_time_));
    current_time_ = saved_time_;
  }

 private:
  /// fmi2Discard from fmi2DoStep with fmi2Terminated set: the FMU asks to end
  /// the simulation where it stopped (fmi2LastSuccessfulTime), FMI 2.0 §4.2.3.
  void stop_if_terminated(double step_start) const {
    const Functions& fmi = instance_.functions();
    fmi2Boolean terminated = fmi2False;
    if (fmi.GetBooleanStatus(instance_.component(), fmi2Terminated, &terminated) != fmi2OK ||
        terminated != fmi2True)
      return;
    fmi2Real reached = step_start;
    if (fmi.GetRealStatus(instance_.component(), fmi2LastSuccessfulTime, &reached) != fmi2OK)
      reached = step_start;
    instance_.request_stop(reached, "fmi2DoStep returned fmi2Discard with fmi2Terminated");
  }

  [[noreturn]] void violation(const std::string& why) const {
    throw ProtocolViolation("slave '" + instance_.slave_name() + "': " + why);
  }
  void require_set_up(const char* call) const {
    check_set_up(instance_.slave_name(), is_set_up_, call);
  }
  void require_rollback(const char* call) const {
    check_rollback(instance_.slave_name(), description_, is_set_up_, call);
  }

  /// Input values at `time` and, up to the accepted degree, their derivatives.
  void set_inputs(std::span<const Polynomial> inputs, double time) {
    const std::size_t count = input_references_.size();
    if (count == 0) return;
    for (std::size_t i = 0; i < count; ++i) input_values_[i] = inputs[i].value(time);
    const Functions& fmi = instance_.functions();
    instance_.check(
        fmi.SetReal(instance_.component(), input_references_.data(), count, input_values_.data()),
        "fmi2SetReal", time);
    for (int order = 1; order <= description_.capabilities.max_input_degree; ++order) {
      for (std::size_t i = 0; i < count; ++i) {
        input_values_[i] = inputs[i].derivative(time, order);
        input_orders_[i] = order;
      }
      instance_.check(
          fmi.SetRealInputDerivatives(instance_.component(), input_references_.data(), count,
                                      input_orders_.data(), input_values_.data()),
          "fmi2SetRealInputDerivatives", time);
    }
  }

  void read_values_at(std::span<const Polynomial> inputs, double time, std::span<double> values) {
    set_inputs(inputs, time);  // feedthrough outputs see the inputs at `time`
    instance_.check(instance_.functions().GetReal(instance_.component(), output_references_.data(),
                                                  output_references_.size(), values.data()),
                    "fmi2GetReal", time);
  }

  void read_outputs_at(std::span<const Polynomial> inputs, double time,
                       std::span<double> end_outputs) {
    const std::size_t count = output_references_.size();
    read_values_at(inputs, time, end_outputs.first(count));
    for (int order = 1; order <= description_.capabilities.output_derivative_order; ++order) {
      std::fill(output_orders_.begin(), output_orders_.end(), order);
      instance_.check(
          instance_.functions().GetRealOutputDerivatives(
              instance_.component(), output_references_.data(), count, output_orders_.data(),
              end_outputs.subspan(static_cast<std::size_t>(order) * count, count).data()),
          "fmi2GetRealOutputDerivatives", time);
    }
  }

  Instance instance_;
  DiscreteExchange discrete_inputs_;
  DiscreteExchange discrete_outputs_;
  SlaveDescription description_;
  std::vector<fmi2ValueReference> input_references_;
  std::vector<fmi2ValueReference> output_references_;
  // Sized at construction: stepping does not allocate on couplet's side.
  std::vector<double> input_values_;
  std::vector<fmi2Integer> input_orders_;
  std::vector<fmi2Integer> output_orders_;
  fmi2FMUstate saved_state_ = nullptr;
  Time current_time_ = 0;
  Time saved_time_ = 0;
  bool is_set_up_ = false;
};

}  // namespace

std::unique_ptr<Slave> make_co_simulation_slave(std::shared_ptr<Package> package,
                                                const FmuSettings& settings) {
  if (!package->offers(InterfaceKind::co_simulation)) {
    configuration_error(settings, *package, "does not offer co-simulation (fmu_kind: me)");
  }
  return std::make_unique<CoSimulationSlave>(std::move(package), settings);
}

}  // namespace couplet::models::fmi
