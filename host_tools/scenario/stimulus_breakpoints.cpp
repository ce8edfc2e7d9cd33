#include "host_tools/scenario/stimulus_breakpoints.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"
#include "models/slave_source.hpp"

namespace couplet::tools {
namespace {

bool is_stimulus(const SlaveSpec& spec) {
  return spec.model.rfind("stimulus.", 0) == 0;
}

/// Appends the model's time events inside (start, end): its fixed list, then
/// those it announces one at a time (a pulse train) from `start` on.
void add_breakpoints(const models::Model& model, const Scenario& scenario, const SlaveSpec& spec,
                     std::vector<Time>& breakpoints) {
  const auto add = [&](double event) {
    const Time tick = to_ticks(event);
    if (tick <= to_ticks(scenario.start) || tick >= to_ticks(scenario.end)) return;
    if (breakpoints.size() == kMaxStimulusBreakpoints) {
      throw ConfigurationError(spec.where + ": more than " +
                               std::to_string(kMaxStimulusBreakpoints) +
                               " stimulus breakpoints within the run for the master to land on");
    }
    breakpoints.push_back(tick);
  };
  for (const double event : model.time_events()) add(event);
  // A stimulus has no state and no input: its events read neither.
  model.start(scenario.start);
  for (double event = model.next_time_event(); event < scenario.end;
       event = model.next_time_event()) {
    add(event);
    model.handle_event(event, {}, {});
  }
}

}  // namespace

std::vector<Time> stimulus_breakpoints(const Scenario& scenario) {
  std::vector<Time> breakpoints;
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  for (const SlaveSpec& spec : scenario.slaves) {
    if (!is_stimulus(spec)) continue;
    std::unique_ptr<models::Model> model;
    try {
      // A stimulus is a built-in model or a table: nothing of the system around it.
      const std::unique_ptr<models::SlaveSource> source =
          spec.model == models::kTableStimulusName
              ? models::table_source(spec.table_file, spec.table_interpolation)
              : models::catalog_source(catalog, spec.model);
      model = source->make_model(models::SlaveSettings{.slave_name = spec.name,
                                                       .parameters = spec.parameters,
                                                       .solver = spec.solver,
                                                       .limits = spec.capabilities});
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      if (message.rfind(scenario.source, 0) == 0) throw;
      throw ConfigurationError(spec.where + ": " + message);
    }
    add_breakpoints(*model, scenario, spec, breakpoints);
  }
  std::sort(breakpoints.begin(), breakpoints.end());
  breakpoints.erase(std::unique(breakpoints.begin(), breakpoints.end()), breakpoints.end());
  return breakpoints;
}

}  // namespace couplet::tools
