#include <algorithm>

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

FmuPorts fmu_ports(const Package& package, const FmuSettings& settings) {
  const Description& description = package.description();
  FmuPorts ports;
  std::string real_inputs;
  for (std::size_t k = 0; k < description.variables.size(); ++k) {
    const Variable& variable = description.variables[k];
    if (variable.type != VariableType::real) continue;
    if (variable.causality == Causality::input) {
      real_inputs += (real_inputs.empty() ? "" : ", ") + variable.name;
      const bool coupled =
          !settings.coupled_inputs ||
          std::find(settings.coupled_inputs->begin(), settings.coupled_inputs->end(),
                    variable.name) != settings.coupled_inputs->end();
      if (coupled) ports.inputs.push_back(k);
    } else if (variable.causality == Causality::output) {
      ports.outputs.push_back(k);
      // The unit travels with the port (run log, report's y axes).
      ports.output_descriptions.push_back(
          {variable.name, description.has_direct_feedthrough(k), port_unit(variable.unit)});
    }
  }
  if (settings.coupled_inputs) {
    for (const std::string& name : *settings.coupled_inputs) {
      const bool found = std::any_of(ports.inputs.begin(), ports.inputs.end(), [&](std::size_t k) {
        return description.variables[k].name == name;
      });
      if (!found) {
        throw ConfigurationError("slave '" + settings.slave_name + "': FMU '" + package.path() +
                                 "': '" + name + "' is not a Real input (Real inputs: " +
                                 (real_inputs.empty() ? "none" : real_inputs) + ")");
      }
    }
  }
  return ports;
}

}  // namespace couplet::models::fmi
