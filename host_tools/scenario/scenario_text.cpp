#include "host_tools/scenario/scenario_text.hpp"

#include <yaml-cpp/yaml.h>

#include "couplet/errors.hpp"

namespace couplet::tools {

std::string group_listing(const std::string& scenario_text, const std::string& slave) {
  try {
    for (const auto& group : YAML::Load(scenario_text)["groups"]) {
      for (const auto& member : group.second["slaves"]) {
        if (member.as<std::string>() == slave) return group.first.as<std::string>();
      }
    }
  } catch (const YAML::Exception&) {
    // A text that does not read names no group.
  }
  return "";
}

std::string without_slave_keys(const std::string& scenario_text, const std::string& what,
                               const std::string& slave, const std::vector<std::string>& keys) {
  YAML::Node root;
  try {
    root = YAML::Load(scenario_text);
  } catch (const YAML::Exception& error) {
    throw ConfigurationError(what + ": its scenario text is not valid YAML: " + error.what());
  }
  if (!root.IsMap()) return scenario_text;
  YAML::Node node = root["slaves"][slave];
  if (node.IsMap()) {
    for (const std::string& key : keys) node.remove(key);
  }
  return YAML::Dump(root);
}

}  // namespace couplet::tools
