#include "models/fmi/fmi3_instance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_port_values.hpp"

namespace couplet::models::fmi3 {
namespace {

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

bool is_text(const Variable& variable) {
  return variable.type == VariableType::string || variable.type == VariableType::binary;
}

/// A String or Binary variable couplet may set: a scalar that settable() would
/// admit were it numeric (couplet couples no text, but sets it before the run).
bool settable_text(const Variable& variable) {
  return is_text(variable) && variable.dimensions.empty() &&
         variable.variability != Variability::constant &&
         (variable.causality == Causality::parameter || variable.causality == Causality::input ||
          variable.initial == Initial::exact || variable.initial == Initial::approx);
}

/// The scalar String and Binary variables a scenario may set, for a message.
std::string settable_text_names(const Description& description) {
  std::string names;
  for (const Variable& variable : description.variables)
    if (settable_text(variable))
      names += (names.empty() ? "" : ", ") + variable.name + " (" + to_string(variable.type) + ")";
  return names.empty() ? "none" : names;
}

/// Sets the scenario's text values (FmuSettings::text_parameters): fmi3SetString
/// for a String variable, fmi3SetBinary with the bytes of its hexadecimal
/// digits for a Binary one. A quoted number naming a numeric variable was set
/// as a number.
void set_text_values(const Package& package, fmi3Instance instance,
                     const fmi::FmuSettings& settings, const LogRing& log) {
  const Description& description = package.description();
  const Functions& functions = package.loaded();
  for (const auto& [name, text] : settings.text_parameters) {
    const auto index = description.find(name);
    const Variable* variable = index ? &description.variables[*index] : nullptr;
    if (variable != nullptr && !is_text(*variable) && settings.parameters.contains(name)) continue;
    const std::string given = "parameters: " + fmi::single_quoted(name) + " = \"" + text + "\"";
    if (variable == nullptr || !settable_text(*variable)) {
      const std::string what = variable == nullptr ? " is no variable of the FMU"
                               : !is_text(*variable)
                                   ? std::string(" is a ") + to_string(variable->type) +
                                         ", which takes a number, not text"
                                   : " cannot be set";
      configuration_error(settings, package,
                          given + ": " + fmi::single_quoted(name) + what +
                              " (String and Binary variables it can set: " +
                              settable_text_names(description) + ")");
    }
    const fmi3ValueReference reference = variable->value_reference;
    if (variable->type == VariableType::string) {
      if (functions.SetString == nullptr)
        configuration_error(settings, package, given + ": the FMU lacks fmi3SetString");
      const fmi3String value = text.c_str();
      check_status(functions.SetString(instance, &reference, 1, &value, 1), "fmi3SetString",
                   std::nullopt, settings.slave_name, package, log);
      continue;
    }
    const std::optional<std::vector<std::uint8_t>> bytes = binary_bytes(text);
    if (!bytes) {
      configuration_error(settings, package,
                          given + ": a Binary value is written as pairs of hexadecimal digits");
    }
    if (functions.SetBinary == nullptr)
      configuration_error(settings, package, given + ": the FMU lacks fmi3SetBinary");
    const std::size_t size = bytes->size();
    const fmi3Binary value = bytes->data();
    check_status(functions.SetBinary(instance, &reference, 1, &size, &value, 1), "fmi3SetBinary",
                 std::nullopt, settings.slave_name, package, log);
  }
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
      given != settings.parameters.end()) {
    // A UInt64 above 2^63 − 1 saturates: no discrete signal holds it (and the
    // FMU gets the exact value from set_start_values).
    constexpr double kBound = 9223372036854775808.0;  // 2^63
    if (std::isnan(given->second)) return 0;          // refused by set_start_values
    if (given->second >= kBound) return std::numeric_limits<std::int64_t>::max();
    if (given->second < -kBound) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(given->second);
  }
  const std::string* start = layout.start_of(element);
  if (start == nullptr) return 0;
  if (const auto flag = fmi::parse_boolean(*start)) return *flag ? 1 : 0;
  return fmi::parse_integer<std::int64_t>(*start).value_or(0);
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

/// Does output `variable` depend directly on an input? Absent dependencies
/// (or an output missing from ModelStructure) may depend on every known.
bool has_direct_feedthrough(const Description& description, const Variable& variable) {
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

}  // namespace

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

void LogRing::log(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category,
                  fmi3String message) {
  if (environment == nullptr || message == nullptr) return;
  auto& ring = *static_cast<LogRing*>(environment);
  auto& line = ring.lines[ring.written % kLines];
  std::snprintf(line.data(), line.size(), "[%s %s] %s", to_string(status), category ? category : "",
                message);
  ++ring.written;
}

std::string LogRing::recent() const {
  std::string text;
  for (std::size_t k = written > kLines ? written - kLines : 0; k < written; ++k)
    text += std::string("; FMU log: ") + lines[k % kLines].data();
  return text;
}

[[noreturn]] void configuration_error(const fmi::FmuSettings& settings, const Package& package,
                                      const std::string& why) {
  throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package.path() +
                           "': " + why);
}

void check_status(fmi3Status status, const char* call, std::optional<double> time,
                  const std::string& slave_name, const Package& package, const LogRing& log) {
  if (status == fmi3OK || status == fmi3Warning) return;
  char at[64] = "";
  if (time) std::snprintf(at, sizeof at, " at t = %.17g s", *time);
  const std::string text = "slave '" + slave_name + "': FMU '" + package.path() + "': " + call +
                           " returned " + to_string(status) + at + log.recent();
  if (!time) throw ConfigurationError(text);
  throw SlaveError(text);
}

EventOutcome update_discrete_states(const Functions& functions, fmi3Instance instance, double t,
                                    const std::string& slave_name, const Package& package,
                                    const LogRing& log) {
  // Event iteration that does not settle is a modelling error.
  constexpr int kMaxEventIterations = 100;
  EventOutcome outcome;
  fmi3Boolean again = fmi3True;
  for (int iteration = 0; again; ++iteration) {
    if (iteration == kMaxEventIterations) {
      char at[64];
      std::snprintf(at, sizeof at, "%.17g", t);
      throw SlaveError("slave '" + slave_name + "': FMU '" + package.path() +
                       "': event iteration at t = " + at + " s did not settle after " +
                       std::to_string(kMaxEventIterations) + " fmi3UpdateDiscreteStates calls");
    }
    fmi3Boolean terminate = fmi3False, nominals_changed = fmi3False, values_changed = fmi3False;
    fmi3Boolean next_event_defined = fmi3False;
    fmi3Float64 next_event = 0.0;
    again = fmi3False;
    check_status(functions.UpdateDiscreteStates(instance, &again, &terminate, &nominals_changed,
                                                &values_changed, &next_event_defined, &next_event),
                 "fmi3UpdateDiscreteStates", t, slave_name, package, log);
    outcome.states_changed = outcome.states_changed || values_changed;
    outcome.next_event = next_event_defined ? std::optional<double>(next_event) : std::nullopt;
    if (terminate) {
      outcome.terminate = true;
      break;
    }
  }
  return outcome;
}

ArrayLayout array_layout(const Package& package, const fmi::FmuSettings& settings) {
  return ArrayLayout(package.description(), structural_values(package, settings));
}

PortElements port_elements(const Package& package, const fmi::FmuSettings& settings,
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

PortDescriptions describe_ports(const Package& package, const ArrayLayout& layout,
                                const PortElements& ports, const fmi::FmuSettings& settings) {
  const Description& description = package.description();
  const auto unit_of = [&description](const Variable& variable) {
    const std::string unit = fmi::port_unit(variable.unit);
    const auto defined = description.units.find(unit);
    return std::pair{unit, defined == description.units.end() || unit.empty()
                               ? std::optional<UnitDefinition>()
                               : std::optional<UnitDefinition>(defined->second)};
  };
  PortDescriptions result;
  for (const Element& element : ports.inputs) {
    const auto [unit, definition] = unit_of(description.variables[element.variable]);
    result.inputs.push_back({layout.name_of(element), unit, definition});
  }
  for (const Element& element : ports.outputs) {
    const Variable& variable = description.variables[element.variable];
    const auto [unit, definition] = unit_of(variable);
    result.outputs.push_back(
        {layout.name_of(element), has_direct_feedthrough(description, variable), unit, definition});
  }
  for (const Element& element : ports.discrete_inputs) {
    const Variable& variable = description.variables[element.variable];
    result.discrete_inputs.push_back({layout.name_of(element), discrete_type(variable),
                                      fmi::port_unit(variable.unit),
                                      discrete_start(layout, element, settings)});
  }
  for (const Element& element : ports.discrete_outputs) {
    const Variable& variable = description.variables[element.variable];
    result.discrete_outputs.push_back(
        {layout.name_of(element), discrete_type(variable), fmi::port_unit(variable.unit), 0});
  }
  return result;
}

void set_start_values(const Package& package, fmi3Instance instance, const ArrayLayout& layout,
                      const fmi::FmuSettings& settings, const LogRing& log) {
  const Description& description = package.description();
  const Functions& functions = package.loaded();
  // A refused value names the parameters set in that call.
  const auto check = [&](const std::optional<PortValues::Failure>& failure,
                         const std::vector<Element>& elements) {
    if (!failure) return;
    std::string names;
    for (const Element& element : elements)
      names += (names.empty() ? "" : ", ") + layout.name_of(element);
    configuration_error(settings, package,
                        std::string(failure->call) + " returned " + to_string(failure->status) +
                            " setting parameters " + names + log.recent());
  };
  const auto check_call = [&](fmi3Status status, const char* call) {
    check_status(status, call, std::nullopt, settings.slave_name, package, log);
  };
  std::vector<Element> structural, others;
  std::vector<double> structural_values, other_values;
  for (const auto& [name, value] : settings.parameters) {
    if (const auto index = description.find(name);
        index && is_text(description.variables[*index])) {
      if (settings.text_parameters.contains(name)) continue;  // a quoted number: set as text
      configuration_error(settings, package,
                          "parameters: " + fmi::single_quoted(name) + " is a " +
                              to_string(description.variables[*index].type) +
                              ": give its value as text, in quotes");
    }
    const Element element = settable_element(layout, name, value, settings, package);
    const bool configuration = is_structural(description.variables[element.variable]);
    (configuration ? structural : others).push_back(element);
    (configuration ? structural_values : other_values).push_back(value);
  }
  if (!structural.empty()) {
    if (functions.EnterConfigurationMode == nullptr || functions.ExitConfigurationMode == nullptr) {
      configuration_error(settings, package,
                          "parameters: " + fmi::single_quoted(layout.name_of(structural[0])) +
                              " is a structural parameter, but the FMU lacks "
                              "fmi3EnterConfigurationMode or fmi3ExitConfigurationMode");
    }
    check_call(functions.EnterConfigurationMode(instance), "fmi3EnterConfigurationMode");
    check(PortValues(package, layout, structural, settings.parameters)
              .set_exactly(instance, structural_values),
          structural);
    check_call(functions.ExitConfigurationMode(instance), "fmi3ExitConfigurationMode");
  }
  if (!others.empty()) {
    check(PortValues(package, layout, others, settings.parameters)
              .set_exactly(instance, other_values),
          others);
  }
  set_text_values(package, instance, settings, log);
}

}  // namespace couplet::models::fmi3
