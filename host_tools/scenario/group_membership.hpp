#pragma once
// Questions about a scenario's groups (`groups:`, docs/iterative.md) that
// reading, assembly and the tools all ask: which group a slave belongs to,
// and how a member's port is named from outside its group.
#include <string>

#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// The slave of a connection endpoint: "left" of "left.x".
std::string slave_of(const std::string& endpoint);

/// The group `slave` belongs to, or null.
const GroupSpec* group_of(const Scenario& scenario, const std::string& slave);

/// True when both ends of `connection` are members of the same group.
bool is_inside_group(const Scenario& scenario, const ConnectionSpec& connection);

/// "member.port" → "group.member.port" for a group member; anything else unchanged.
std::string outer_name(const Scenario& scenario, const std::string& endpoint);

}  // namespace couplet::tools
