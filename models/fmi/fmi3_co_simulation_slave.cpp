// An FMI 3.0 co-simulation FMU as a couplet slave (FMI 3.0 §4.2): set the
// inputs, fmi3DoStep, read the outputs and their derivatives. The instance is
// made without event mode and without early return, so fmi3DoStep always
// reaches the end of the step unless the FMU asks to end the simulation.
#include "models/fmi/fmi3_co_simulation_slave.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmi3_port_values.hpp"
#include "models/fmi/fmu_call_in_progress.hpp"

namespace couplet::models::fmi3 {
namespace {

const char* to_string(fmi3Status status) {
  switch (status) {
    case fmi3OK:
      return "fmi3OK";
    case fmi3Warning:
      return "fmi3Warning";
    case fmi3Discard:
      return "fmi3Discard";
    case fmi3Error:
      return "fmi3Error";
    case fmi3Fatal:
      return "fmi3Fatal";
  }
  return "unknown status";
}

/// A start value couplet may set before initialization (§2.4.7.5: parameters,
/// inputs, and variables with initial exact or approx that are not constants;
/// structural parameters in Configuration Mode, §2.3.3).
bool settable(const Variable& variable) {
  if (!(is_real_port(variable) || is_discrete_port(variable)) ||
      variable.variability == Variability::constant)
    return false;
  return variable.causality == Causality::parameter || variable.causality == Causality::input ||
         variable.causality == Causality::structural_parameter ||
         variable.initial == Initial::exact || variable.initial == Initial::approx;
}

bool is_structural(const Variable& variable) {
  return variable.causality == Causality::structural_parameter;
}

DiscreteType discrete_type(const Variable& variable) {
  return variable.type == VariableType::boolean ? DiscreteType::boolean : DiscreteType::integer;
}

/// What an unconnected discrete input holds: the scenario's start value for
/// it, else the FMU's, else 0.
std::int64_t discrete_start(const ArrayLayout& layout, const Element& element,
                            const fmi::FmuSettings& settings) {
  if (const auto given = settings.parameters.find(layout.name_of(element));
      given != settings.parameters.end())
    return static_cast<std::int64_t>(given->second);
  const std::string* start = layout.start_of(element);
  if (start == nullptr) return 0;
  if (const auto flag = fmi::parse_boolean(*start)) return *flag ? 1 : 0;
  return fmi::parse_integer<std::int64_t>(*start).value_or(0);
}

/// The FMU's recent log lines, kept by its logger callback in a fixed ring
/// (the callback runs on the stepping thread: no allocation, no I/O).
struct LogRing {
  static constexpr std::size_t kLines = 8;
  static constexpr std::size_t kLength = 240;
  std::array<std::array<char, kLength>, kLines> lines{};
  std::size_t written = 0;

  static void log(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category,
                  fmi3String message) {
    if (environment == nullptr || message == nullptr) return;
    auto& ring = *static_cast<LogRing*>(environment);
    auto& line = ring.lines[ring.written % kLines];
    std::snprintf(line.data(), line.size(), "[%s %s] %s", to_string(status),
                  category ? category : "", message);
    ++ring.written;
  }

  std::string recent() const {
    std::string text;
    for (std::size_t k = written > kLines ? written - kLines : 0; k < written; ++k)
      text += std::string("; FMU log: ") + lines[k % kLines].data();
    return text;
  }
};

[[noreturn]] void configuration_error(const fmi::FmuSettings& settings, const Package& package,
                                      const std::string& why) {
  throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package.path() +
                           "': " + why);
}

/// The elements the scenario may set, for a message: "k, y0, offset[1..6]".
std::string settable_names(const ArrayLayout& layout) {
  std::string names;
  const std::vector<Variable>& variables = layout.description().variables;
  for (std::size_t k = 0; k < variables.size(); ++k) {
    if (!settable(variables[k])) continue;
    names += names.empty() ? "" : ", ";
    if (variables[k].dimensions.empty()) {
      names += variables[k].name;
    } else {
      const std::size_t count = layout.element_count(variables[k]);
      names +=
          variables[k].name + (count == 0 ? "[] (empty)" : "[1.." + std::to_string(count) + "]");
    }
  }
  return names.empty() ? "none" : names;
}

/// Checks a scenario parameter against the FMU: it names a settable element
/// whose type holds the value. Returns the element.
Element settable_element(const ArrayLayout& layout, const std::string& name, double value,
                         const fmi::FmuSettings& settings, const Package& package) {
  const auto element = layout.find(name);
  const Variable* variable = element ? &layout.description().variables[element->variable] : nullptr;
  if (variable == nullptr || !settable(*variable)) {
    configuration_error(
        settings, package,
        "parameters: " + fmi::single_quoted(name) +
            (variable || layout.description().find(name) ? " cannot be set"
                                                         : " is no variable of the FMU") +
            " (settable variables: " + settable_names(layout) + ")" + layout.hint_for(name));
  }
  if (!holds_exactly(*variable, value)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", value);
    configuration_error(settings, package,
                        "parameters: " + fmi::single_quoted(name) + " is a " +
                            to_string(variable->type) + ", which cannot hold " + text);
  }
  return *element;
}

/// The scenario's values of structural parameters, which size the arrays.
std::map<std::uint32_t, std::uint64_t> structural_values(const Package& package,
                                                         const fmi::FmuSettings& settings) {
  const ArrayLayout starts(package.description());
  std::map<std::uint32_t, std::uint64_t> values;
  for (const auto& [name, value] : settings.parameters) {
    const auto index = package.description().find(name);
    if (!index || !is_structural(package.description().variables[*index])) continue;
    const Element element = settable_element(starts, name, value, settings, package);
    const Variable& variable = package.description().variables[element.variable];
    if (variable.type == VariableType::uint64 && variable.dimensions.empty())
      values[variable.value_reference] = static_cast<std::uint64_t>(value);
  }
  return values;
}

SlaveCapabilities capabilities_of(const Package& package, const fmi::FmuSettings& settings) {
  const CoSimulationInterface& cs = *package.description().co_simulation;
  if (settings.limits.max_input_degree.value_or(0) != 0) {
    configuration_error(settings, package,
                        "capabilities.max_input_degree " +
                            std::to_string(*settings.limits.max_input_degree) +
                            ": an FMI 3.0 FMU takes its inputs as values held over the step "
                            "(FMI 3.0 has no input derivatives), degree 0");
  }
  // Degree 0: the default SlaveCapabilities::max_input_degree.
  return fmi::co_simulation_capabilities(
      {cs.max_output_derivative_order, cs.capabilities.can_get_and_set_fmu_state,
       cs.can_handle_variable_communication_step_size,
       package.description().default_experiment.step_size},
      settings.limits, settings.slave_name, package.path());
}

class CoSimulationSlave final : public Slave {
 public:
  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings)
      : CoSimulationSlave(
            package, settings,
            ArrayLayout(package->description(), structural_values(*package, settings))) {}

  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                    const ArrayLayout& layout)
      : CoSimulationSlave(package, settings, layout, port_elements(*package, settings, layout)) {}

  /// The elements of each kind of port, in port order.
  struct PortElements {
    std::vector<Element> inputs, outputs, discrete_inputs, discrete_outputs;
  };

  CoSimulationSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings,
                    const ArrayLayout& layout, const PortElements& ports)
      : package_(std::move(package)),
        functions_(package_->co_simulation()),
        slave_name_(settings.slave_name),
        log_(std::make_unique<LogRing>()),
        layout_(layout),
        inputs_(*package_, layout_, ports.inputs, settings.parameters),
        outputs_(*package_, layout_, ports.outputs),
        discrete_inputs_(*package_, layout_, ports.discrete_inputs, settings.parameters),
        discrete_outputs_(*package_, layout_, ports.discrete_outputs) {
    describe_ports(settings, ports);
    prepare_output_derivatives(ports.outputs);
    description_.capabilities = capabilities_of(*package_, settings);
    const Description& description = package_->description();
    const std::string resources = package_->resource_path();
    instance_ = functions_.InstantiateCoSimulation(
        slave_name_.c_str(), description.instantiation_token.c_str(), resources.c_str(), fmi3False,
        fmi3True, /*eventModeUsed=*/fmi3False, /*earlyReturnAllowed=*/fmi3False, nullptr, 0,
        log_.get(), &LogRing::log, nullptr);
    if (instance_ == nullptr) {
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': fmi3InstantiateCoSimulation returned NULL (instantiation "
                               "token " +
                               description.instantiation_token + ")" + log_->recent());
    }
    try {
      set_start_values(settings);
    } catch (...) {
      functions_.FreeInstance(instance_);  // the destructor does not run for a throwing constructor
      throw;
    }
    input_values_.assign(description_.inputs.size(), 0.0);
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
    check(functions_.ExitInitializationMode(instance_), "fmi3ExitInitializationMode",
          to_seconds(start), true);
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
    check(discrete_outputs_.get(instance_, discrete_outputs, slave_name_),
          to_seconds(current_time_));
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    require_set_up("step");
    check_step_request(slave_name_, description_, current_time_, request);
    check_end_outputs(slave_name_, description_, result.end_outputs);
    check_discrete_outputs(slave_name_, description_, result.discrete_outputs);
    // Held over the whole step: set once, before its first fmi3DoStep.
    if (!request.discrete_inputs.empty()) {
      check(discrete_inputs_.set(instance_, request.discrete_inputs, slave_name_),
            to_seconds(request.start));
    }
    const std::size_t outputs = description_.outputs.size();
    if (result.samples.size() < request.sample_times.size() * outputs)
      violation("sample buffer too small");
    // noSetFMUStatePriorToCurrentPoint: true unless a rollback may follow.
    const fmi3Boolean final_point = !description_.capabilities.can_rollback;
    Time from = request.start;
    for (std::size_t k = 0; k <= request.sample_times.size(); ++k) {
      const Time to = k < request.sample_times.size() ? request.sample_times[k] : request.end;
      if (to > from) {
        const double at = to_seconds(from);
        set_inputs(request.inputs, at);
        do_step(at, to_seconds(to) - at, final_point);
        from = to;
        current_time_ = to;
      }
      if (k < request.sample_times.size())
        read_values_at(request.inputs, to_seconds(to),
                       result.samples.subspan(k * outputs, outputs));
    }
    read_outputs_at(request.inputs, to_seconds(request.end), result.end_outputs);
    if (!result.discrete_outputs.empty()) {
      check(discrete_outputs_.get(instance_, result.discrete_outputs, slave_name_),
            to_seconds(request.end));
    }
  }

  void save_state() override {
    require_rollback("save_state");
    // An existing state is overwritten in place (§2.3.6), no new one made.
    check(functions_.GetFMUState(instance_, &saved_state_), "fmi3GetFMUState",
          to_seconds(current_time_));
    saved_time_ = current_time_;
  }

  void restore_state() override {
    require_rollback("restore_state");
    if (saved_state_ == nullptr) violation("restore_state without a saved state");
    check(functions_.SetFMUState(instance_, saved_state_), "fmi3SetFMUState",
          to_seconds(saved_time_));
    current_time_ = saved_time_;
  }

 private:
  static PortElements port_elements(const Package& package, const fmi::FmuSettings& settings,
                                    const ArrayLayout& layout) {
    const Description& description = package.description();
    const auto is_port = [](const Variable& v) { return is_real_port(v) || is_discrete_port(v); };
    if (settings.coupled_inputs) {
      for (const std::string& name : *settings.coupled_inputs) {
        const auto element = layout.find(name);
        if (!element || description.variables[element->variable].causality != Causality::input ||
            !is_port(description.variables[element->variable])) {
          configuration_error(settings, package,
                              "no input " + fmi::single_quoted(name) +
                                  " of a numeric type (couplet couples the Float, integer, "
                                  "Enumeration and Boolean variables of an FMI 3.0 FMU, an "
                                  "array as its elements name[1], name[2], ...)" +
                                  layout.hint_for(name));
        }
      }
    }
    PortElements ports;
    for (std::size_t index = 0; index < description.variables.size(); ++index) {
      const Variable& variable = description.variables[index];
      if (!is_port(variable)) continue;
      const bool real = is_real_port(variable);
      const std::size_t count = layout.element_count(variable);
      for (std::size_t k = 0; k < count; ++k) {
        const Element element{index, k};
        if (variable.causality == Causality::input) {
          const bool coupled =
              !settings.coupled_inputs ||
              std::find(settings.coupled_inputs->begin(), settings.coupled_inputs->end(),
                        layout.name_of(element)) != settings.coupled_inputs->end();
          if (coupled) (real ? ports.inputs : ports.discrete_inputs).push_back(element);
        } else if (variable.causality == Causality::output) {
          (real ? ports.outputs : ports.discrete_outputs).push_back(element);
        }
      }
    }
    return ports;
  }

  void describe_ports(const fmi::FmuSettings& settings, const PortElements& ports) {
    const Description& description = package_->description();
    const auto unit_of = [&description](const Variable& variable) {
      const std::string unit = fmi::port_unit(variable.unit);
      const auto defined = description.units.find(unit);
      return std::pair{unit, defined == description.units.end() || unit.empty()
                                 ? std::optional<UnitDefinition>()
                                 : std::optional<UnitDefinition>(defined->second)};
    };
    for (const Element& element : ports.inputs) {
      const auto [unit, definition] = unit_of(description.variables[element.variable]);
      description_.inputs.push_back({layout_.name_of(element), unit, definition});
    }
    for (const Element& element : ports.outputs) {
      const Variable& variable = description.variables[element.variable];
      const auto [unit, definition] = unit_of(variable);
      description_.outputs.push_back(
          {layout_.name_of(element), has_direct_feedthrough(variable), unit, definition});
    }
    for (const Element& element : ports.discrete_inputs) {
      const Variable& variable = description.variables[element.variable];
      description_.discrete_inputs.push_back({layout_.name_of(element), discrete_type(variable),
                                              fmi::port_unit(variable.unit),
                                              discrete_start(layout_, element, settings)});
    }
    for (const Element& element : ports.discrete_outputs) {
      const Variable& variable = description.variables[element.variable];
      description_.discrete_outputs.push_back(
          {layout_.name_of(element), discrete_type(variable), fmi::port_unit(variable.unit), 0});
    }
  }

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

  /// Does output `variable` depend directly on an input? Absent dependencies
  /// (or an output missing from ModelStructure) may depend on every known.
  bool has_direct_feedthrough(const Variable& variable) const {
    const Description& description = package_->description();
    const auto index = description.find(variable.value_reference);
    const auto is_input = [&description](std::size_t k) {
      return description.variables[k].causality == Causality::input;
    };
    for (const Unknown& output : description.outputs) {
      if (output.variable != index) continue;
      if (!output.dependencies) break;
      return std::any_of(output.dependencies->begin(), output.dependencies->end(), is_input);
    }
    return std::any_of(description.variables.begin(), description.variables.end(),
                       [](const Variable& v) { return v.causality == Causality::input; });
  }

  /// The scenario's parameters: structural ones in Configuration Mode (they
  /// have sized the arrays already), then the others, every element of a
  /// type in one call (an array moves whole).
  void set_start_values(const fmi::FmuSettings& settings) {
    const Description& description = package_->description();
    std::vector<Element> structural, others;
    std::vector<double> structural_values, other_values;
    for (const auto& [name, value] : settings.parameters) {
      const Element element = settable_element(layout_, name, value, settings, *package_);
      const bool configuration = is_structural(description.variables[element.variable]);
      (configuration ? structural : others).push_back(element);
      (configuration ? structural_values : other_values).push_back(value);
    }
    if (!structural.empty()) {
      if (functions_.EnterConfigurationMode == nullptr ||
          functions_.ExitConfigurationMode == nullptr) {
        configuration_error(settings, *package_,
                            "parameters: " + fmi::single_quoted(layout_.name_of(structural[0])) +
                                " is a structural parameter, but the FMU lacks "
                                "fmi3EnterConfigurationMode or fmi3ExitConfigurationMode");
      }
      check(functions_.EnterConfigurationMode(instance_), "fmi3EnterConfigurationMode", 0.0, true);
      check(PortValues(*package_, layout_, structural, settings.parameters)
                .set_exactly(instance_, structural_values),
            0.0, true);
      check(functions_.ExitConfigurationMode(instance_), "fmi3ExitConfigurationMode", 0.0, true);
    }
    if (!others.empty())
      check(PortValues(*package_, layout_, others, settings.parameters)
                .set_exactly(instance_, other_values),
            0.0, true);
  }

  void do_step(double at, double size, fmi3Boolean final_point) {
    fmi3Boolean event_handling_needed = fmi3False;
    fmi3Boolean terminate = fmi3False;
    fmi3Boolean early_return = fmi3False;
    fmi3Float64 reached = at;
    fmi3Status status;
    {
      const fmi::FmuCall call{slave_name_, package_->path(), "fmi3DoStep", at};
      const fmi::FmuCallScope running(call);  // tells an exit() inside it where it came from
      status = functions_.DoStep(instance_, at, size, final_point, &event_handling_needed,
                                 &terminate, &early_return, &reached);
    }
    // fmi3OK or fmi3Discard (the step ended at lastSuccessfulTime) with
    // terminateSimulation: the FMU asks to end the simulation (§4.2.1).
    if (terminate && (status == fmi3OK || status == fmi3Warning || status == fmi3Discard))
      request_stop(reached, std::string("fmi3DoStep returned ") + to_string(status) +
                                " with terminateSimulation");
    check(status, "fmi3DoStep", at);
    if (early_return) {
      // Early return was not allowed at instantiation: the FMU broke the contract.
      char when[64];
      std::snprintf(when, sizeof when, "%.17g", reached);
      throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                       "': fmi3DoStep returned early at t = " + when +
                       " s although earlyReturnAllowed was false");
    }
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
    if (status == fmi3OK || status == fmi3Warning) return;
    char at[64] = "";
    if (!setup) std::snprintf(at, sizeof at, " at t = %.17g s", time);
    const std::string text = "slave '" + slave_name_ + "': FMU '" + package_->path() +
                             "': " + call + " returned " + to_string(status) + at + log_->recent();
    if (setup) throw ConfigurationError(text);
    throw SlaveError(text);
  }

  [[noreturn]] void violation(const std::string& why) const {
    throw ProtocolViolation("slave '" + slave_name_ + "': " + why);
  }
  void require_set_up(const char* call) const {
    if (!is_set_up_) violation(std::string(call) + " before setup");
  }
  void require_rollback(const char* call) const {
    require_set_up(call);
    if (!description_.capabilities.can_rollback)
      violation(std::string(call) + " on a slave that cannot roll back");
  }

  /// Input values at `time`, held by the FMU over the step that follows.
  void set_inputs(std::span<const Polynomial> inputs, double time) {
    if (input_values_.empty()) return;
    for (std::size_t i = 0; i < input_values_.size(); ++i) input_values_[i] = inputs[i].value(time);
    check(inputs_.set(instance_, input_values_), time);
  }

  void read_values_at(std::span<const Polynomial> inputs, double time, std::span<double> values) {
    set_inputs(inputs, time);  // feedthrough outputs see the inputs at `time`
    check(outputs_.get(instance_, values), time);
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
      for (std::size_t port = 0; port < count; ++port)
        derivatives[port] = derivative_values_[derivative_offsets_[port]];
    }
  }

  std::shared_ptr<Package> package_;
  const CoSimulationFunctions& functions_;
  std::string slave_name_;
  std::unique_ptr<LogRing> log_;  ///< stable address for the callback
  fmi3Instance instance_ = nullptr;
  SlaveDescription description_;
  ArrayLayout layout_;
  PortValues inputs_, outputs_, discrete_inputs_, discrete_outputs_;
  // Sized at construction: stepping does not allocate on couplet's side.
  std::vector<double> input_values_;
  std::vector<fmi3ValueReference> derivative_references_;  ///< each Real output variable once
  std::vector<fmi3Int32> derivative_orders_;
  std::vector<double> derivative_values_;        ///< every element of those variables
  std::vector<std::size_t> derivative_offsets_;  ///< each Real output port's place in it
  fmi3FMUState saved_state_ = nullptr;
  Time current_time_ = 0;
  Time saved_time_ = 0;
  bool is_set_up_ = false;
};

}  // namespace

std::unique_ptr<Slave> make_co_simulation_slave(std::shared_ptr<Package> package,
                                                const fmi::FmuSettings& settings) {
  return std::make_unique<CoSimulationSlave>(std::move(package), settings);
}

}  // namespace couplet::models::fmi3
