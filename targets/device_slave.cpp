// The device SDK's slave: a Device (description + callbacks, couplet/device.hpp)
// seen through the slave interface, and the source couplet::serve() hands to
// the target server.
#include "targets/device_source.hpp"

#include <algorithm>
#include <array>
#include <exception>
#include <iomanip>
#include <sstream>

#include "couplet/device.hpp"
#include "couplet/errors.hpp"
#include "protocol/limits.hpp"

namespace couplet {
namespace {

std::string device_label(const DeviceDescription& description) {
  return "device '" + description.name + "'";
}

void check_name(const DeviceDescription& device, const std::string& what, const std::string& name) {
  if (name.empty() || name.size() > protocol::kMaxNameBytes ||
      name.find_first_of(" \t\n.") != std::string::npos) {
    throw ConfigurationError(device_label(device) + ": " + what + " '" + name +
                             "' must be 1 to " + std::to_string(protocol::kMaxNameBytes) +
                             " characters without spaces or dots");
  }
}

/// Which of the device's Real inputs the slave shows: all, or those a scenario
/// connects. Its discrete inputs are always shown: the master sends the start
/// value of one no connection drives.
std::vector<std::size_t> shown_inputs(const DeviceDescription& device,
                                      const std::optional<std::vector<std::string>>& connected) {
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < device.inputs.size(); ++i) {
    if (!connected || std::find(connected->begin(), connected->end(), device.inputs[i].name) !=
                          connected->end())
      shown.push_back(i);
  }
  if (connected) {
    for (const std::string& name : *connected) {
      const auto named = [&](const auto& input) { return input.name == name; };
      if (std::none_of(device.inputs.begin(), device.inputs.end(), named) &&
          std::none_of(device.discrete_inputs.begin(), device.discrete_inputs.end(), named))
        throw ConfigurationError(device_label(device) + " has no input '" + name + "'");
    }
  }
  return shown;
}

SlaveDescription slave_description(const DeviceDescription& device,
                                   const std::vector<std::size_t>& inputs) {
  SlaveDescription description;
  for (const std::size_t i : inputs)
    description.inputs.push_back({device.inputs[i].name, device.inputs[i].unit});
  for (const DeviceOutput& output : device.outputs)
    description.outputs.push_back({output.name, output.direct_feedthrough, output.unit});
  description.discrete_inputs = device.discrete_inputs;
  description.discrete_outputs = device.discrete_outputs;
  SlaveCapabilities& capabilities = description.capabilities;
  capabilities.max_input_degree = device.input_degree;
  capabilities.output_derivative_order = device.output_derivative_order;
  capabilities.can_rollback = false;  // hardware cannot go back in time
  capabilities.variable_step = device.sample_period == 0;
  capabilities.imposed_step = device.sample_period;
  capabilities.intermediate_samples = device.intermediate_samples;
  // The SDK's device gives outputs, not its equations: no state or Jacobians.
  capabilities.can_linearize = false;
  capabilities.state_count = 0;
  return description;
}

/// Narrows the device's capabilities by the limits a scenario declares.
void apply_limits(const DeviceDescription& device, const models::CapabilityLimits& limits,
                  SlaveCapabilities& capabilities) {
  if (limits.max_input_degree)
    capabilities.max_input_degree = std::min(capabilities.max_input_degree, *limits.max_input_degree);
  if (limits.output_derivative_order) {
    capabilities.output_derivative_order =
        std::min(capabilities.output_derivative_order, *limits.output_derivative_order);
  }
  capabilities.intermediate_samples = capabilities.intermediate_samples && limits.intermediate_samples;
  if (limits.imposed_step > 0) {
    if (device.sample_period > 0 && limits.imposed_step % device.sample_period != 0) {
      throw ConfigurationError(device_label(device) + ": the declared step " +
                               seconds_text(limits.imposed_step) +
                               " s is not a multiple of the device's sample period " +
                               seconds_text(device.sample_period) + " s");
    }
    capabilities.imposed_step = limits.imposed_step;
    capabilities.variable_step = false;
  }
}

DeviceParameters session_parameters(const DeviceDescription& device,
                                     const DeviceParameters& overrides) {
  DeviceParameters values;
  for (const DeviceParameter& parameter : device.parameters)
    values[parameter.name] = parameter.default_value;
  for (const auto& [name, value] : overrides) {
    if (!values.contains(name)) {
      std::string known;
      for (const DeviceParameter& parameter : device.parameters)
        known += (known.empty() ? "" : ", ") + parameter.name;
      throw ConfigurationError(device_label(device) + " has no parameter '" + name +
                               "' (it has: " + (known.empty() ? "none" : known) + ")");
    }
    values[name] = value;
  }
  return values;
}

/// Runs a user callback; what it throws becomes a SlaveError naming the device
/// and the call (`what()` describes it, built only then: this is the real-time
/// path), so that the master's message says where the run ended. A
/// StopRequest is no failure: the device ends the simulation, and it passes.
template <typename Describe, typename Call>
void guarded(const DeviceDescription& device, Describe&& what, Call&& call) {
  try {
    call();
  } catch (const ProtocolViolation&) {
    throw;
  } catch (const StopRequest&) {
    throw;
  } catch (const std::exception& error) {
    throw SlaveError(device_label(device) + ": " + what() + " failed: " + error.what());
  } catch (...) {
    throw SlaveError(device_label(device) + ": " + what() + " failed (a non-standard exception)");
  }
}

class DeviceSlave final : public Slave {
 public:
  DeviceSlave(std::string slave_name, const Device& device, const DeviceParameters& overrides,
              const models::CapabilityLimits& limits,
              const std::optional<std::vector<std::string>>& connected_inputs)
      : slave_name_(std::move(slave_name)),
        device_(device),
        shown_(shown_inputs(device.description, connected_inputs)),
        description_(slave_description(device.description, shown_)),
        parameters_(session_parameters(device.description, overrides)) {
    apply_limits(device.description, limits, description_.capabilities);
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    current_ = start;
    const std::vector<DeviceInput>& inputs = device_.description.inputs;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      all_inputs_[i] = Polynomial::constant(to_seconds(start), inputs[i].default_value);
    if (device_.callbacks.initialize) {
      guarded(device_.description, [&] { return "initialize at t = " + seconds_text(start) + " s"; },
              [&] { device_.callbacks.initialize(start, parameters_); });
    }
  }

  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) override {
    const std::span<const Polynomial> all = with_defaults(inputs);
    guarded(device_.description, [&] { return "outputs at t = " + seconds_text(current_) + " s"; },
            [&] { device_.callbacks.outputs(current_, all, end_outputs); });
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    if (description_.discrete_outputs.empty()) return;
    guarded(
        device_.description,
        [&] { return "discrete_outputs at t = " + seconds_text(current_) + " s"; },
        [&] { device_.callbacks.discrete_outputs(current_, discrete_outputs); });
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    check_step_request(slave_name_, description_, current_, request);
    StepRequest device_request = request;
    device_request.inputs = with_defaults(request.inputs);
    guarded(device_.description,
            [&] {
              return "step from t = " + seconds_text(request.start) + " to " +
                     seconds_text(request.end) + " s";
            },
            [&] { device_.callbacks.step(device_request, result); });
    current_ = request.end;
  }

 private:
  /// Every input of the device: the connected ones from `inputs`, the others
  /// at their defaults (no allocation: a fixed array).
  std::span<const Polynomial> with_defaults(std::span<const Polynomial> inputs) {
    for (std::size_t k = 0; k < shown_.size() && k < inputs.size(); ++k)
      all_inputs_[shown_[k]] = inputs[k];
    return {all_inputs_.data(), device_.description.inputs.size()};
  }

  std::string slave_name_;  ///< the scenario's name for it, for messages
  const Device& device_;
  std::vector<std::size_t> shown_;  ///< device input index of each slave input
  SlaveDescription description_;
  DeviceParameters parameters_;
  std::array<Polynomial, protocol::kMaxPorts> all_inputs_{};
  Time current_ = 0;
};

class DeviceSource final : public models::SlaveSource {
 public:
  explicit DeviceSource(Device device) : device_(std::move(device)) { check_device(device_); }

  std::string name() const override { return device_label(device_.description); }
  std::string identity() const override { return targets::device_identity(device_.description.name); }

  std::unique_ptr<Slave> make_slave(const models::SlaveSettings& settings) const override {
    return std::make_unique<DeviceSlave>(settings.slave_name, device_, settings.parameters,
                                         settings.limits, settings.coupled_inputs);
  }

  std::unique_ptr<models::Model> make_model(const models::SlaveSettings& settings) const override {
    throw ConfigurationError("slave '" + settings.slave_name + "': " + name() +
                             " has no equations couplet can integrate: no monolithic reference");
  }

  std::string describe() const override { return targets::describe_device(device_.description); }

 private:
  Device device_;
};

}  // namespace

void check_device(const Device& device) {
  const DeviceDescription& description = device.description;
  if (description.name.empty()) throw ConfigurationError("a device needs a name");
  check_name(description, "name", description.name);
  if (description.inputs.size() > protocol::kMaxPorts ||
      description.outputs.size() > protocol::kMaxPorts ||
      description.discrete_inputs.size() > protocol::kMaxPorts ||
      description.discrete_outputs.size() > protocol::kMaxPorts) {
    throw ConfigurationError(device_label(description) + ": at most " +
                             std::to_string(protocol::kMaxPorts) + " inputs and " +
                             std::to_string(protocol::kMaxPorts) +
                             " outputs of each kind (Real, discrete)");
  }
  if (description.parameters.size() > protocol::kMaxParameters) {
    throw ConfigurationError(device_label(description) + ": at most " +
                             std::to_string(protocol::kMaxParameters) + " parameters");
  }
  std::vector<std::string> names;
  for (const DeviceInput& input : description.inputs) names.push_back(input.name);
  for (const DeviceOutput& output : description.outputs) names.push_back(output.name);
  for (const auto* ports : {&description.discrete_inputs, &description.discrete_outputs}) {
    for (const DiscretePortDescription& port : *ports) names.push_back(port.name);
  }
  for (const std::string& name : names) check_name(description, "port", name);
  std::sort(names.begin(), names.end());
  if (const auto twice = std::adjacent_find(names.begin(), names.end()); twice != names.end())
    throw ConfigurationError(device_label(description) + ": two ports named '" + *twice + "'");
  for (const DeviceParameter& parameter : description.parameters)
    check_name(description, "parameter", parameter.name);
  const auto check_units = [&](const std::string& unit) {
    if (unit.size() > protocol::kMaxUnitBytes) {
      throw ConfigurationError(device_label(description) + ": unit '" + unit + "' is longer than " +
                               std::to_string(protocol::kMaxUnitBytes) + " bytes");
    }
  };
  for (const DeviceInput& input : description.inputs) check_units(input.unit);
  for (const DeviceOutput& output : description.outputs) check_units(output.unit);
  for (const auto* ports : {&description.discrete_inputs, &description.discrete_outputs}) {
    for (const DiscretePortDescription& port : *ports) check_units(port.unit);
  }
  for (const DiscretePortDescription& input : description.discrete_inputs) {
    if (input.type == DiscreteType::boolean && input.start != 0 && input.start != 1) {
      throw ConfigurationError(device_label(description) + ": Boolean input '" + input.name +
                               "' starts at " + std::to_string(input.start) + " (0 or 1)");
    }
  }
  if (description.input_degree < 0 || description.input_degree > 3) {
    throw ConfigurationError(device_label(description) + ": input_degree must be 0 to 3, not " +
                             std::to_string(description.input_degree));
  }
  if (description.output_derivative_order < 0 || description.output_derivative_order > 3) {
    throw ConfigurationError(device_label(description) +
                             ": output_derivative_order must be 0 to 3, not " +
                             std::to_string(description.output_derivative_order));
  }
  const std::size_t rows = static_cast<std::size_t>(description.output_derivative_order) + 1;
  if (rows * description.outputs.size() > protocol::kMaxEndOutputs) {
    throw ConfigurationError(device_label(description) +
                             ": outputs × (derivative order + 1) exceeds " +
                             std::to_string(protocol::kMaxEndOutputs));
  }
  if (description.sample_period < 0)
    throw ConfigurationError(device_label(description) + ": sample_period must not be negative");
  if (!device.callbacks.outputs || !device.callbacks.step) {
    throw ConfigurationError(device_label(description) +
                             ": the callbacks 'outputs' and 'step' are required");
  }
  if (!description.discrete_outputs.empty() && !device.callbacks.discrete_outputs) {
    throw ConfigurationError(
        device_label(description) +
        ": the callback 'discrete_outputs' is required with Integer or Boolean outputs");
  }
}

std::unique_ptr<Slave> make_device_slave(
    const Device& device, const DeviceParameters& overrides,
    const std::optional<std::vector<std::string>>& connected_inputs) {
  check_device(device);
  return std::make_unique<DeviceSlave>(device.description.name, device, overrides,
                                       models::CapabilityLimits{}, connected_inputs);
}

namespace targets {

std::string device_identity(const std::string& device_name) {
  return "device:" + device_name;
}

std::string describe_device(const DeviceDescription& device) {
  std::ostringstream text;
  const auto with_unit = [](const std::string& name, const std::string& unit) {
    return unit.empty() ? name : name + " [" + unit + "]";
  };
  text << "device " << device.name << "\n  inputs: ";
  for (std::size_t i = 0; i < device.inputs.size(); ++i)
    text << (i ? ", " : "") << with_unit(device.inputs[i].name, device.inputs[i].unit)
         << " (default " << device.inputs[i].default_value << ")";
  if (device.inputs.empty()) text << "none";
  text << "\n  outputs: ";
  for (std::size_t j = 0; j < device.outputs.size(); ++j) {
    text << (j ? ", " : "") << with_unit(device.outputs[j].name, device.outputs[j].unit)
         << (device.outputs[j].direct_feedthrough ? " (feedthrough)" : "");
  }
  if (device.outputs.empty()) text << "none";
  const auto discrete = [&](const char* label, const std::vector<DiscretePortDescription>& ports,
                            bool inputs) {
    if (ports.empty()) return;
    text << "\n  " << label << ": ";
    for (std::size_t k = 0; k < ports.size(); ++k) {
      text << (k ? ", " : "") << with_unit(ports[k].name, ports[k].unit) << " ("
           << to_string(ports[k].type);
      if (inputs) text << ", default " << ports[k].start;
      text << ")";
    }
  };
  discrete("discrete inputs", device.discrete_inputs, true);
  discrete("discrete outputs", device.discrete_outputs, false);
  text << "\n  input degree " << device.input_degree << ", output derivatives "
       << device.output_derivative_order << ", sample period "
       << (device.sample_period > 0 ? seconds_text(device.sample_period) + " s" : "any")
       << (device.intermediate_samples ? ", intermediate samples" : "")
       << (device.realtime ? ", runs on the wall clock" : "") << "\n  parameters:";
  if (device.parameters.empty()) text << " none";
  text << "\n";
  // As wide as the longest name, so that a long one never runs into its value.
  std::size_t name_width = 21;
  for (const DeviceParameter& parameter : device.parameters)
    name_width = std::max(name_width, parameter.name.size() + 2);
  for (const DeviceParameter& parameter : device.parameters) {
    text << "    " << std::left << std::setw(static_cast<int>(name_width)) << parameter.name
         << " = " << parameter.default_value << (parameter.unit.empty() ? "" : " " + parameter.unit)
         << "\n";
  }
  return text.str();
}

std::shared_ptr<const models::SlaveSource> device_source(const Device& device) {
  return std::make_shared<DeviceSource>(device);
}

}  // namespace targets
}  // namespace couplet
