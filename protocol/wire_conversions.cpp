#include "protocol/wire_conversions.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/limits.hpp"
#include "couplet/errors.hpp"

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
  }
  wire.outputs_count = static_cast<pb_size_t>(description.outputs.size());
  for (std::size_t j = 0; j < description.outputs.size(); ++j) {
    copy_name(wire.outputs[j].name, description.outputs[j].name, "output name");
    wire.outputs[j].direct_feedthrough = description.outputs[j].direct_feedthrough;
    copy_name(wire.outputs[j].unit, description.outputs[j].unit, "unit");
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
}

SlaveDescription from_wire(const couplet_wire_Describe& wire, const std::string& slave_name) {
  if (wire.version != couplet_wire_Version_VERSION_CURRENT) {
    throw SlaveError("slave '" + slave_name + "': the target speaks protocol version " +
                     std::to_string(wire.version) + ", this master version " +
                     std::to_string(couplet_wire_Version_VERSION_CURRENT));
  }
  SlaveDescription description;
  for (std::size_t i = 0; i < wire.inputs_count; ++i) description.inputs.push_back({wire.inputs[i].name, wire.inputs[i].unit});
  for (std::size_t j = 0; j < wire.outputs_count; ++j) {
    description.outputs.push_back(
        {wire.outputs[j].name, wire.outputs[j].direct_feedthrough, wire.outputs[j].unit});
  }
  const couplet_wire_Capabilities& wire_capabilities = wire.capabilities;
  SlaveCapabilities& capabilities = description.capabilities;
  capabilities.max_input_degree = static_cast<int>(std::min<std::uint32_t>(wire_capabilities.max_input_degree, Polynomial::kMaxDegree));
  capabilities.output_derivative_order = static_cast<int>(wire_capabilities.output_derivative_order);
  capabilities.can_rollback = wire_capabilities.can_rollback;
  capabilities.variable_step = wire_capabilities.variable_step;
  capabilities.imposed_step = wire_capabilities.imposed_step_ns;
  capabilities.intermediate_samples = wire_capabilities.intermediate_samples;
  const std::size_t rows = static_cast<std::size_t>(capabilities.output_derivative_order) + 1;
  if (rows * description.outputs.size() > protocol::kMaxEndOutputs || capabilities.imposed_step < 0) {
    throw SlaveError("slave '" + slave_name + "': the target describes more outputs and derivatives than the wire protocol carries");
  }
  return description;
}

}  // namespace couplet::wire
