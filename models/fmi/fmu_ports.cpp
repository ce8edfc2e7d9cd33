#include <algorithm>
#include <limits>

#include "models/fmi/fmu_instance.hpp"
#include "models/fmi/fmu_slaves.hpp"
#include "couplet/errors.hpp"
#include "protocol/limits.hpp"

namespace couplet::models::fmi {

std::string port_unit(const std::string& unit) {
  const bool printable = std::all_of(unit.begin(), unit.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  });
  return printable && unit.size() <= protocol::kMaxUnitBytes ? unit : std::string();
}

std::optional<UnitDefinition> unit_definition(const Description& description,
                                              const std::string& unit) {
  const auto defined = description.units.find(unit);
  if (defined == description.units.end() || port_unit(unit).empty()) return std::nullopt;
  return defined->second;
}

namespace {

std::optional<DiscreteType> discrete_type(VariableType type) {
  switch (type) {
    case VariableType::integer:
    case VariableType::enumeration:  // its items' values
      return DiscreteType::integer;
    case VariableType::boolean:
      return DiscreteType::boolean;
    case VariableType::real:
    case VariableType::string:
      break;
  }
  return std::nullopt;
}

/// The value an unconnected discrete input holds: the scenario's start value
/// for it, else the FMU's, else 0.
std::int64_t discrete_start(const Variable& variable, const FmuSettings& settings) {
  const auto given = settings.parameters.find(variable.name);
  const double start = given != settings.parameters.end() ? given->second
                                                           : variable.start.value_or(0.0);
  return static_cast<std::int64_t>(start);
}

}  // namespace

FmuPorts fmu_ports(const Package& package, const FmuSettings& settings) {
  const Description& description = package.description();
  FmuPorts ports;
  std::string known_inputs;
  const auto coupled = [&](const Variable& variable) {
    return !settings.coupled_inputs ||
           std::find(settings.coupled_inputs->begin(), settings.coupled_inputs->end(),
                     variable.name) != settings.coupled_inputs->end();
  };
  for (std::size_t k = 0; k < description.variables.size(); ++k) {
    const Variable& variable = description.variables[k];
    const std::optional<DiscreteType> discrete = discrete_type(variable.type);
    if (variable.type != VariableType::real && !discrete) continue;
    if (variable.causality == Causality::input) {
      known_inputs += (known_inputs.empty() ? "" : ", ") + variable.name;
      if (!coupled(variable)) continue;
      if (discrete) {
        ports.discrete_inputs.push_back(k);
        ports.discrete_input_descriptions.push_back(
            {variable.name, *discrete, port_unit(variable.unit), discrete_start(variable, settings)});
      } else {
        ports.inputs.push_back(k);
      }
    } else if (variable.causality == Causality::output) {
      if (discrete) {
        ports.discrete_outputs.push_back(k);
        ports.discrete_output_descriptions.push_back(
            {variable.name, *discrete, port_unit(variable.unit), 0});
        continue;
      }
      ports.outputs.push_back(k);
      // The unit travels with the port (run log, report's y axes).
      ports.output_descriptions.push_back({variable.name, description.has_direct_feedthrough(k),
                                           port_unit(variable.unit),
                                           unit_definition(description, variable.unit)});
    }
  }
  if (settings.coupled_inputs) {
    for (const std::string& name : *settings.coupled_inputs) {
      const std::optional<std::size_t> k = description.find(name);
      const bool found = k && description.variables[*k].causality == Causality::input &&
                         (description.variables[*k].type == VariableType::real ||
                          discrete_type(description.variables[*k].type));
      if (!found) {
        throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package.path() +
                                 "': '" + name + "' is not a Real, Integer or Boolean input " +
                                 "(inputs: " + (known_inputs.empty() ? "none" : known_inputs) +
                                 ")");
      }
    }
  }
  return ports;
}

DiscreteExchange::DiscreteExchange(const Description& description,
                                   std::span<const std::size_t> variables) {
  for (std::size_t p = 0; p < variables.size(); ++p) {
    const Variable& variable = description.variables[variables[p]];
    if (variable.type == VariableType::boolean) {
      boolean_ports_.push_back(p);
      boolean_references_.push_back(variable.value_reference);
    } else {
      integer_ports_.push_back(p);
      integer_references_.push_back(variable.value_reference);
      integer_names_.push_back(variable.name);
    }
  }
  integers_.assign(integer_ports_.size(), 0);
  booleans_.assign(boolean_ports_.size(), fmi2False);
}

void DiscreteExchange::set(const Instance& instance, std::span<const std::int64_t> values,
                           double time) {
  const Functions& fmi = instance.functions();
  if (!integer_ports_.empty()) {
    for (std::size_t i = 0; i < integer_ports_.size(); ++i) {
      const std::int64_t value = values[integer_ports_[i]];
      if (value < std::numeric_limits<fmi2Integer>::min() ||
          value > std::numeric_limits<fmi2Integer>::max()) {
        throw SlaveError("slave '" + instance.slave_name() + "': Integer input '" +
                         integer_names_[i] + "' is " + std::to_string(value) +
                         ", outside the 32-bit range of an FMI 2.0 Integer");
      }
      integers_[i] = static_cast<fmi2Integer>(value);
    }
    instance.check(fmi.SetInteger(instance.component(), integer_references_.data(),
                                  integer_references_.size(), integers_.data()),
                   "fmi2SetInteger", time);
  }
  if (!boolean_ports_.empty()) {
    for (std::size_t i = 0; i < boolean_ports_.size(); ++i) {
      booleans_[i] = values[boolean_ports_[i]] != 0 ? fmi2True : fmi2False;
    }
    instance.check(fmi.SetBoolean(instance.component(), boolean_references_.data(),
                                  boolean_references_.size(), booleans_.data()),
                   "fmi2SetBoolean", time);
  }
}

void DiscreteExchange::get(const Instance& instance, std::span<std::int64_t> values, double time) {
  const Functions& fmi = instance.functions();
  if (!integer_ports_.empty()) {
    instance.check(fmi.GetInteger(instance.component(), integer_references_.data(),
                                  integer_references_.size(), integers_.data()),
                   "fmi2GetInteger", time);
    for (std::size_t i = 0; i < integer_ports_.size(); ++i) values[integer_ports_[i]] = integers_[i];
  }
  if (!boolean_ports_.empty()) {
    instance.check(fmi.GetBoolean(instance.component(), boolean_references_.data(),
                                  boolean_references_.size(), booleans_.data()),
                   "fmi2GetBoolean", time);
    // fmi2Boolean is an int: any non-zero value is true.
    for (std::size_t i = 0; i < boolean_ports_.size(); ++i) {
      values[boolean_ports_[i]] = booleans_[i] != fmi2False ? 1 : 0;
    }
  }
}

}  // namespace couplet::models::fmi
