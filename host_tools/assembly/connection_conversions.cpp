#include "host_tools/assembly/connection_conversions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "couplet/errors.hpp"
#include "host_tools/assembly/group_builder.hpp"

namespace couplet::tools {

namespace {

/// A Real port's or an Integer output's unit and what it means: the slave's
/// own definition, else the unit read by name; nullopt for a Boolean port, a
/// discrete input, a port without a unit or an end not in `system`.
struct DeclaredUnit {
  std::string text;
  std::optional<UnitDefinition> definition;
};

std::optional<DeclaredUnit> declared_unit(const System& system, const std::string& endpoint,
                                          bool output) {
  const std::size_t dot = endpoint.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::optional<std::size_t> slave = system.find_slave(endpoint.substr(0, dot));
  if (!slave) return std::nullopt;
  const SlaveDescription& description = system.description(*slave);
  const std::string port = endpoint.substr(dot + 1);
  const auto read = [&](const auto& ports) -> std::optional<DeclaredUnit> {
    for (const auto& candidate : ports) {
      if (candidate.name != port || candidate.unit.empty()) continue;
      return DeclaredUnit{candidate.unit, unit_definition_of(candidate)};
    }
    return std::nullopt;
  };
  if (!output) return read(description.inputs);
  if (auto real = read(description.outputs)) return real;
  for (const DiscretePortDescription& candidate : description.discrete_outputs) {
    if (candidate.name != port || candidate.unit.empty() || candidate.type != DiscreteType::integer)
      continue;
    return DeclaredUnit{candidate.unit, parse_unit(candidate.unit)};
  }
  return std::nullopt;
}

std::string short_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

}  // namespace

std::vector<UnitConversionNeed> unit_conversions(const Scenario& scenario, const System& system) {
  std::vector<UnitConversionNeed> needs;
  for (std::size_t k = 0; k < scenario.connections.size(); ++k) {
    const ConnectionSpec& connection = scenario.connections[k];
    if (connection.converted || is_inside_group(scenario, connection)) continue;
    const auto from = declared_unit(system, outer_name(scenario, connection.from), true);
    const auto to = declared_unit(system, outer_name(scenario, connection.to), false);
    if (!from || !to || !from->definition || !to->definition ||
        from->definition == to->definition)  // also "N.m" and "N m": one unit
      continue;
    if (const auto conversion = conversion_between(*from->definition, *to->definition))
      needs.push_back({k, from->text, to->text, base_text(*from->definition), *conversion});
  }
  return needs;
}

Scenario with_unit_conversions(Scenario scenario, const std::vector<UnitConversionNeed>& needs) {
  for (const UnitConversionNeed& need : needs)
    insert_converter(scenario, need.connection, need.conversion);
  return scenario;
}

std::string describe(const Scenario& scenario, const UnitConversionNeed& need) {
  const ConnectionSpec& connection = scenario.connections[need.connection];
  std::string rule = "to = " + short_text(need.conversion.factor) + " * from";
  if (need.conversion.offset != 0.0)
    rule +=
        (need.conversion.offset < 0 ? " - " : " + ") + short_text(std::abs(need.conversion.offset));
  return connection.where + ": '" + connection.from + "' [" + need.from_unit + "] -> '" +
         connection.to + "' [" + need.to_unit + "]: converted, " + rule + " (both " + need.base +
         ")";
}

}  // namespace couplet::tools
