#include "host_tools/scenario/connection_converter.hpp"

#include <algorithm>
#include <string>

#include "couplet/errors.hpp"
#include "host_tools/scenario/group_membership.hpp"

namespace couplet::tools {

void insert_converter(Scenario& scenario, std::size_t index, UnitConversion conversion) {
  ConnectionSpec& connection = scenario.connections[index];
  const std::string target_slave = slave_of(connection.to);
  for (const std::string& member : {slave_of(connection.from), target_slave}) {
    if (const GroupSpec* group = group_of(scenario, member)) {
      throw ConfigurationError(connection.where + ": a conversion on a connection of '" + member +
                               "', a member of group '" + group->name +
                               "', is not supported (the converter would sit outside "
                               "the group): convert inside the member");
    }
  }
  const auto named = [&](const std::string& name) {
    return std::any_of(scenario.slaves.begin(), scenario.slaves.end(),
                       [&](const SlaveSpec& slave) { return slave.name == name; });
  };
  std::string base = "transform_" + connection.to;
  std::replace(base.begin(), base.end(), '.', '_');
  std::string name = base;
  for (int suffix = 2; named(name); ++suffix) name = base + "_" + std::to_string(suffix);

  SlaveSpec converter;
  converter.name = name;
  converter.model = "coupling.linear";
  converter.parameters = {{"factor", conversion.factor}, {"offset", conversion.offset}};
  converter.where = connection.where;
  const auto target =
      std::find_if(scenario.slaves.begin(), scenario.slaves.end(),
                   [&](const SlaveSpec& slave) { return slave.name == target_slave; });
  scenario.slaves.insert(target, std::move(converter));

  // A rounding applies to the converted value: it moves to the converter's output.
  const ConnectionSpec output{name + ".y", connection.to, connection.where, true,
                              connection.rounding};
  connection.to = name + ".u";
  connection.converted = true;
  connection.rounding.reset();
  scenario.connections.push_back(output);
}

}  // namespace couplet::tools
