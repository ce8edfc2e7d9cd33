#include "host_tools/scenario/group_membership.hpp"

#include <algorithm>

namespace couplet::tools {

std::string slave_of(const std::string& endpoint) {
  return endpoint.substr(0, endpoint.find('.'));
}

const GroupSpec* group_of(const Scenario& scenario, const std::string& slave) {
  for (const GroupSpec& group : scenario.groups) {
    if (std::find(group.members.begin(), group.members.end(), slave) != group.members.end())
      return &group;
  }
  return nullptr;
}

bool is_inside_group(const Scenario& scenario, const ConnectionSpec& connection) {
  const GroupSpec* from = group_of(scenario, slave_of(connection.from));
  return from != nullptr && from == group_of(scenario, slave_of(connection.to));
}

std::string outer_name(const Scenario& scenario, const std::string& endpoint) {
  const GroupSpec* group = group_of(scenario, slave_of(endpoint));
  return group ? group->name + "." + endpoint : endpoint;
}

}  // namespace couplet::tools
