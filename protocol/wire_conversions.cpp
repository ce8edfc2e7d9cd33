#include "protocol/wire_conversions.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "couplet/unit.hpp"
#include "protocol/limits.hpp"

namespace couplet::wire {

void to_wire(const Polynomial& polynomial, couplet_wire_Polynomial& wire) {
  wire.origin = polynomial.origin();
  wire.scale = polynomial.scale();
  const std::span<const double> coefficients = polynomial.coefficients();
  wire.coefficients_count = static_cast<pb_size_t>(coefficients.size());
  std::copy(coefficients.begin(), coefficients.end(), wire.coefficients);
}

Polynomial from_wire(const couplet_wire_Polynomial& wire) {
  // The decoder bounds coefficients_count by the schema (max_count 8 = degree 7).
  const std::size_t count = std::max<std::size_t>(wire.coefficients_count, 1);
  const double zero[1] = {0.0};
  const std::span<const double> coefficients =
      wire.coefficients_count == 0 ? std::span<const double>(zero, 1) : std::span<const double>(wire.coefficients, count);
  return Polynomial::from_coefficients(wire.origin, wire.scale, coefficients);
}

void copy_name_into(std::span<char> field, const std::string& text, const std::string& what) {
  if (text.size() + 1 > field.size()) {
    throw ConfigurationError(what + " '" + text + "' is longer than the wire protocol allows (" +
                             std::to_string(field.size() - 1) + " bytes)");
  }
  std::memcpy(field.data(), text.c_str(), text.size() + 1);
}

namespace {

void unit_to_wire(const std::optional<UnitDefinition>& definition, couplet_wire_Port& port) {
  port.has_unit_definition = definition.has_value();
  if (!definition) return;
  const std::array<int, 8>& e = definition->exponents;
  port.unit_definition = {
      e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], definition->factor, definition->offset};
}

}  // namespace

void to_wire(const SlaveDescription& description, const std::string& model, couplet_wire_Describe& wire) {
  wire = couplet_wire_Describe{};
  wire.version = couplet_wire_Version_VERSION_CURRENT;
  copy_name(wire.model, model, "model name");
  if (description.inputs.size() > protocol::kMaxPorts || description.outputs.size() > protocol::kMaxPorts) {
    throw ConfigurationError("model '" + model + "' has more than " + std::to_string(protocol::kMaxPorts) +
                             " inputs or outputs: too many for the wire protocol");
  }
  wire.inputs_count = static_cast<pb_size_t>(description.inputs.size());
  for (std::size_t i = 0; i < description.inputs.size(); ++i) {
    copy_name(wire.inputs[i].name, description.inputs[i].name, "input name");
    copy_name(wire.inputs[i].unit, description.inputs[i].unit, "unit");
    unit_to_wire(description.inputs[i].unit_definition, wire.inputs[i]);
  }
  wire.outputs_count = static_cast<pb_size_t>(description.outputs.size());
  for (std::size_t j = 0; j < description.outputs.size(); ++j) {
    copy_name(wire.outputs[j].name, description.outputs[j].name, "output name");
    wire.outputs[j].direct_feedthrough = description.outputs[j].direct_feedthrough;
    copy_name(wire.outputs[j].unit, description.outputs[j].unit, "unit");
    unit_to_wire(description.outputs[j].unit_definition, wire.outputs[j]);
  }
  if (description.discrete_inputs.size() > protocol::kMaxPorts ||
      description.discrete_outputs.size() > protocol::kMaxPorts) {
    throw ConfigurationError("model '" + model + "' has more than " + std::to_string(protocol::kMaxPorts) +
                             " Integer/Boolean inputs or outputs: too many for the wire protocol");
  }
  const auto copy_discrete = [](const DiscretePortDescription& port, couplet_wire_Port& target) {
    copy_name(target.name, port.name, "port name");
    copy_name(target.unit, port.unit, "unit");
    target.type = port.type == DiscreteType::boolean ? couplet_wire_PortType_PORT_BOOLEAN
                                                     : couplet_wire_PortType_PORT_INTEGER;
    target.start = port.start;
  };
  wire.discrete_inputs_count = static_cast<pb_size_t>(description.discrete_inputs.size());
  for (std::size_t i = 0; i < description.discrete_inputs.size(); ++i) {
    copy_discrete(description.discrete_inputs[i], wire.discrete_inputs[i]);
  }
  wire.discrete_outputs_count = static_cast<pb_size_t>(description.discrete_outputs.size());
  for (std::size_t j = 0; j < description.discrete_outputs.size(); ++j) {
    copy_discrete(description.discrete_outputs[j], wire.discrete_outputs[j]);
  }
  const SlaveCapabilities& capabilities = description.capabilities;
  wire.has_capabilities = true;
  wire.capabilities.max_input_degree = static_cast<std::uint32_t>(capabilities.max_input_degree);
  wire.capabilities.output_derivative_order = static_cast<std::uint32_t>(capabilities.output_derivative_order);
  wire.capabilities.can_rollback = capabilities.can_rollback;
  wire.capabilities.variable_step = capabilities.variable_step;
  wire.capabilities.imposed_step_ns = capabilities.imposed_step;
  wire.capabilities.intermediate_samples = capabilities.intermediate_samples;
  const std::size_t outputs = std::max<std::size_t>(description.outputs.size(), 1);
  wire.capabilities.max_sample_times =
      static_cast<std::uint32_t>(std::min(protocol::kMaxSampleTimes, protocol::kMaxSampleValues / outputs));
  if (capabilities.can_linearize &&
      linearization_fits(capabilities.state_count, description.inputs.size(), description.outputs.size())) {
    wire.capabilities.can_linearize = true;
    wire.capabilities.state_count = static_cast<std::uint32_t>(capabilities.state_count);  // < 720, fits
  }
}

namespace {

[[noreturn]] void invalid_description(const std::string& slave_name, const std::string& why) {
  throw SlaveError("slave '" + slave_name + "': invalid description from the target: Describe." + why);
}

template <std::size_t Size>
std::span<const char> text_field(const char (&field)[Size]) {
  return std::span<const char>(field, Size);
}

/// Port names: present, well formed, unique among their kind (a connection
/// names a port; two of one name would make it ambiguous).
template <typename Port>
void check_ports(const Port* ports, std::size_t count, const char* kind, const std::string& slave_name) {
  if (count > protocol::kMaxPorts) {
    invalid_description(slave_name, std::string(kind) + " has " + std::to_string(count) + " ports, more than the " +
                                         std::to_string(protocol::kMaxPorts) + " the protocol carries");
  }
  for (std::size_t k = 0; k < count; ++k) {
    const std::string field = std::string(kind) + "[" + std::to_string(k) + "]";
    if (const std::string problem = text_problem(text_field(ports[k].name)); !problem.empty()) {
      invalid_description(slave_name, field + ".name " + problem);
    }
    if (ports[k].name[0] == '\0') invalid_description(slave_name, field + ".name is empty: every port needs a name");
    if (const std::string problem = text_problem(text_field(ports[k].unit)); !problem.empty()) {
      invalid_description(slave_name, field + ".unit " + problem);
    }
    for (std::size_t earlier = 0; earlier < k; ++earlier) {
      if (std::strcmp(ports[earlier].name, ports[k].name) == 0) {
        invalid_description(slave_name, field + ".name '" + ports[k].name + "' is also the name of " + kind + "[" +
                                            std::to_string(earlier) + "]: port names must be unique");
      }
    }
  }
}

/// A Real port's unit definition, when the target sent one: for a named
/// unit, with whole exponents of at most ±1000 and a finite, non-zero factor
/// and a finite offset.
std::optional<UnitDefinition> unit_definition(const couplet_wire_Port& port,
                                              const std::string& field,
                                              const std::string& slave_name) {
  if (!port.has_unit_definition) return std::nullopt;
  const couplet_wire_UnitDefinition& wire = port.unit_definition;
  if (port.unit[0] == '\0')
    invalid_description(slave_name, field + ".unit_definition without a unit");
  UnitDefinition definition;
  definition.exponents = {wire.kg, wire.m, wire.s, wire.A, wire.K, wire.mol, wire.cd, wire.rad};
  for (std::size_t k = 0; k < definition.exponents.size(); ++k) {
    if (definition.exponents[k] < -1000 || definition.exponents[k] > 1000) {  // no abs: INT_MIN
      invalid_description(slave_name, field + ".unit_definition." + kSiBaseUnits[k] + " = " +
                                          std::to_string(definition.exponents[k]) +
                                          ": beyond ±1000");
    }
  }
  if (!std::isfinite(wire.factor) || wire.factor == 0.0 || !std::isfinite(wire.offset)) {
    invalid_description(slave_name, field + ".unit_definition: factor " + exact_text(wire.factor) +
                                        ", offset " + exact_text(wire.offset) +
                                        " (a finite, non-zero factor and a finite offset)");
  }
  definition.factor = wire.factor;
  definition.offset = wire.offset;
  return definition;
}

/// Integer and Boolean ports (names checked by check_ports): each with its type,
/// a Boolean's start 0 or 1.
std::vector<DiscretePortDescription> discrete_ports(const couplet_wire_Port* ports, std::size_t count,
                                                    const char* kind, const std::string& slave_name) {
  std::vector<DiscretePortDescription> described;
  for (std::size_t k = 0; k < count; ++k) {
    const std::string field = std::string(kind) + "[" + std::to_string(k) + "]";
    // nanopb decodes an enum as any int32: read it as one.
    const std::int32_t type = enum_value(ports[k].type);
    if (type != couplet_wire_PortType_PORT_INTEGER && type != couplet_wire_PortType_PORT_BOOLEAN) {
      invalid_description(slave_name, field + ".type = " + std::to_string(type) +
                                          ": a discrete port is PORT_INTEGER or PORT_BOOLEAN");
    }
    const DiscreteType discrete =
        type == couplet_wire_PortType_PORT_BOOLEAN ? DiscreteType::boolean : DiscreteType::integer;
    if (discrete == DiscreteType::boolean && ports[k].start != 0 && ports[k].start != 1) {
      invalid_description(slave_name, field + ".start = " + std::to_string(ports[k].start) +
                                          ": a Boolean starts at 0 or 1");
    }
    described.push_back({ports[k].name, discrete, ports[k].unit, ports[k].start});
  }
  return described;
}

/// state_count bounds the values of every Linearization the master will
/// accept: it must fit one (with the described ports), and a real-time
/// target, whose model runs on its own clock, has no current point to
/// linearize at the master's communication times.
void check_linearization(const couplet_wire_Describe& wire, const std::string& slave_name) {
  const couplet_wire_Capabilities& capabilities = wire.capabilities;
  if (!linearization_fits(capabilities.state_count, wire.inputs_count, wire.outputs_count)) {
    invalid_description(slave_name, "capabilities.state_count = " + std::to_string(capabilities.state_count) +
                                         " exceeds what the protocol carries: a linearization of that many states, " +
                                         std::to_string(wire.inputs_count) + " input(s) and " +
                                         std::to_string(wire.outputs_count) +
                                         " output(s) (x, dx/dt, A, B, C, D) must be at most " +
                                         std::to_string(protocol::kMaxLinearizationValues) + " values");
  }
  if (capabilities.can_linearize && capabilities.realtime) {
    invalid_description(slave_name,
                        "capabilities.can_linearize is set on a real-time target (capabilities.realtime), whose "
                        "model advances on its own clock");
  }
}

}  // namespace

bool linearization_fits(std::uint64_t states, std::size_t inputs, std::size_t outputs) {
  // Every factor is bounded by the capacity before the products are formed.
  constexpr std::uint64_t capacity = protocol::kMaxLinearizationValues;
  if (states > capacity || inputs > capacity || outputs > capacity) return false;
  const LinearizationLayout layout{static_cast<std::size_t>(states), inputs, outputs};
  return layout.size() <= capacity;
}

bool end_outputs_fit(std::uint64_t derivative_order, std::size_t outputs) {
  // Both factors are bounded before they are multiplied.
  if (derivative_order >= protocol::kMaxEndOutputs) return false;
  const std::uint64_t rows = derivative_order + 1;
  const std::uint64_t columns = std::max<std::uint64_t>(outputs, 1);
  return columns <= protocol::kMaxEndOutputs && rows * columns <= protocol::kMaxEndOutputs;
}

std::string text_problem(std::span<const char> field) {
  const std::size_t length = strnlen(field.data(), field.size());
  if (length == field.size()) {
    return "has no terminating NUL within its " + std::to_string(field.size()) + " bytes";
  }
  for (std::size_t k = 0; k < length; ++k) {
    const auto byte = static_cast<unsigned char>(field[k]);
    if (byte < 0x20 || byte == 0x7F) {
      return "contains the control character " + std::to_string(byte) + " at byte " + std::to_string(k);
    }
  }
  return {};
}

std::string polynomial_problem(const couplet_wire_Polynomial& wire, int max_degree) {
  if (wire.coefficients_count > protocol::kMaxCoefficients) {
    return ".coefficients has " + std::to_string(wire.coefficients_count) + " values, more than the " +
           std::to_string(protocol::kMaxCoefficients) + " the protocol carries";
  }
  // No coefficient at all is the zero polynomial (degree 0).
  const int degree = wire.coefficients_count == 0 ? 0 : static_cast<int>(wire.coefficients_count) - 1;
  if (degree > max_degree) {
    return " has degree " + std::to_string(degree) + " (" + std::to_string(wire.coefficients_count) +
           " coefficients), above the " + std::to_string(max_degree) + " the slave takes";
  }
  if (!std::isfinite(wire.origin)) return ".origin = " + number_text(wire.origin) + " is not finite";
  if (!std::isfinite(wire.scale) || !(wire.scale > 0.0)) {
    return ".scale = " + number_text(wire.scale) + " must be finite and > 0";
  }
  for (std::size_t k = 0; k < wire.coefficients_count; ++k) {
    if (!std::isfinite(wire.coefficients[k])) {
      return ".coefficients[" + std::to_string(k) + "] = " + number_text(wire.coefficients[k]) + " is not finite";
    }
  }
  return {};
}

std::string number_text(double value) {
  char text[32];
  const std::to_chars_result written = std::to_chars(text, text + sizeof text, value);
  return std::string(text, written.ptr);
}

SlaveDescription from_wire(const couplet_wire_Describe& wire, const std::string& slave_name) {
  if (wire.version != couplet_wire_Version_VERSION_CURRENT) {
    throw SlaveError("slave '" + slave_name + "': the target speaks protocol version " +
                     std::to_string(wire.version) + ", this master version " +
                     std::to_string(couplet_wire_Version_VERSION_CURRENT) + " (Describe.version)");
  }
  if (const std::string problem = text_problem(text_field(wire.model)); !problem.empty()) {
    invalid_description(slave_name, "model " + problem);
  }
  check_ports(wire.inputs, wire.inputs_count, "inputs", slave_name);
  check_ports(wire.outputs, wire.outputs_count, "outputs", slave_name);
  check_ports(wire.discrete_inputs, wire.discrete_inputs_count, "discrete_inputs", slave_name);
  check_ports(wire.discrete_outputs, wire.discrete_outputs_count, "discrete_outputs", slave_name);
  const couplet_wire_Capabilities& wire_capabilities = wire.capabilities;
  if (!end_outputs_fit(wire_capabilities.output_derivative_order, wire.outputs_count)) {
    invalid_description(slave_name, "capabilities.output_derivative_order = " +
                                         std::to_string(wire_capabilities.output_derivative_order) +
                                         " exceeds what the protocol carries: (order + 1) rows of " +
                                         std::to_string(std::max<std::size_t>(wire.outputs_count, 1)) +
                                         " output(s) must be at most " +
                                         std::to_string(protocol::kMaxEndOutputs) + " values");
  }
  if (wire_capabilities.imposed_step_ns < 0 || !time_in_range(wire_capabilities.imposed_step_ns)) {
    invalid_description(slave_name, "capabilities.imposed_step_ns = " +
                                         std::to_string(wire_capabilities.imposed_step_ns) +
                                         " must be >= 0 (0: none) and below 2^61 ns");
  }
  if (wire_capabilities.intermediate_samples && wire_capabilities.max_sample_times == 0) {
    invalid_description(slave_name,
                        "capabilities.max_sample_times = 0 although capabilities.intermediate_samples is set: a "
                        "target that reports intermediate samples must take at least one sample time per step");
  }
  if (wire_capabilities.intermediate_samples && wire_capabilities.realtime) {
    invalid_description(slave_name,
                        "capabilities.intermediate_samples is set on a real-time target (capabilities.realtime), "
                        "which reports outputs at communication times only");
  }
  check_linearization(wire, slave_name);

  SlaveDescription description;
  for (std::size_t i = 0; i < wire.inputs_count; ++i) {
    description.inputs.push_back(
        {wire.inputs[i].name, wire.inputs[i].unit,
         unit_definition(wire.inputs[i], "inputs[" + std::to_string(i) + "]", slave_name)});
  }
  for (std::size_t j = 0; j < wire.outputs_count; ++j) {
    description.outputs.push_back(
        {wire.outputs[j].name, wire.outputs[j].direct_feedthrough, wire.outputs[j].unit,
         unit_definition(wire.outputs[j], "outputs[" + std::to_string(j) + "]", slave_name)});
  }
  SlaveCapabilities& capabilities = description.capabilities;
  // A target that takes a higher degree than a polynomial can have takes the highest.
  capabilities.max_input_degree = static_cast<int>(std::min<std::uint32_t>(wire_capabilities.max_input_degree, Polynomial::kMaxDegree));
  capabilities.output_derivative_order = static_cast<int>(wire_capabilities.output_derivative_order);  // < 64, checked
  capabilities.can_rollback = wire_capabilities.can_rollback;
  capabilities.variable_step = wire_capabilities.variable_step;
  capabilities.imposed_step = wire_capabilities.imposed_step_ns;
  capabilities.intermediate_samples = wire_capabilities.intermediate_samples;
  capabilities.can_linearize = wire_capabilities.can_linearize;
  capabilities.state_count = wire_capabilities.state_count;  // checked: a linearization fits
  description.discrete_inputs = discrete_ports(wire.discrete_inputs, wire.discrete_inputs_count,
                                               "discrete_inputs", slave_name);
  description.discrete_outputs = discrete_ports(wire.discrete_outputs, wire.discrete_outputs_count,
                                                "discrete_outputs", slave_name);
  return description;
}

}  // namespace couplet::wire
