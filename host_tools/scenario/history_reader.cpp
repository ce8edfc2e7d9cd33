#include "host_tools/scenario/history_reader.hpp"

#include "couplet/errors.hpp"

namespace couplet::tools {

std::vector<OutputHistorySeed> parse_history_seeds(const YAML::Node& node,
                                                   const std::string& source,
                                                   const std::string& path) {
  std::vector<OutputHistorySeed> seeds;
  if (!node || node.IsNull()) return seeds;
  if (!node.IsMap()) {
    throw ConfigurationError(
        locate(source, node, path) +
        ": expected a map from slave.output to its values at start - H, start - 2H, ...");
  }
  for (const auto& entry : node) {
    OutputHistorySeed seed;
    seed.output = require_string(entry.first, source, path);
    const std::string key = path + "." + seed.output;
    if (!entry.second.IsSequence())
      throw ConfigurationError(locate(source, entry.second, key) + ": expected a list of numbers");
    if (entry.second.size() > static_cast<std::size_t>(CommunicationHistory::kMaxOrder)) {
      throw ConfigurationError(locate(source, entry.second, key) + ": at most " +
                               std::to_string(CommunicationHistory::kMaxOrder) + " values");
    }
    for (const auto& value : entry.second)
      seed.values.push_back(require_number(value, source, key));
    seeds.push_back(std::move(seed));
  }
  return seeds;
}

}  // namespace couplet::tools
