#include "host_tools/runlog/logged_scenario.hpp"

#include <exception>
#include <string>

#include "host_tools/assembly/system_builder.hpp"

namespace couplet::tools {

Scenario logged_scenario(const RunLog& log) {
  try {
    return parse_scenario(log.scenario_text, log.scenario_source);
  } catch (const std::exception& error) {
    throw RunLogError("run log '" + log.path +
                      "': the logged scenario no longer loads: " + error.what());
  }
}

std::vector<Time> logged_evaluation_grid(const RunLog& log, const Scenario& scenario) {
  std::vector<Time> grid = evaluation_grid(scenario);
  if (grid.empty()) {
    throw RunLogError("run log '" + log.path +
                      "': the logged scenario has no evaluation grid (evaluation.grid)");
  }
  return grid;
}

std::vector<Time> logged_evaluation_grid(const RunLog& log) {
  return logged_evaluation_grid(log, logged_scenario(log));
}

}  // namespace couplet::tools
