#pragma once
// From a scenario to the objects of a run: the System of ODE slaves, the signals
// to evaluate, the evaluation grid and the monolithic reference.
#include <vector>

#include "host_tools/scenario/scenario.hpp"
#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"
#include "models/slave_source.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// Where the slave of `spec` comes from: its catalog model or its FMU (opened
/// and checked now). Errors name the scenario element.
std::unique_ptr<models::SlaveSource> open_source(const SlaveSpec& spec,
                                                 const models::ModelCatalog& catalog);

/// The settings of the slave of `spec`; for an FMU, the inputs that some
/// connection of the scenario drives (the others keep their start values).
models::SlaveSettings slave_settings(const Scenario& scenario, const SlaveSpec& spec);

/// The slave of `spec` as build_system makes it outside a group: behind its
/// link when it has one, else from its model or FMU (couplet resim builds the
/// one slave it re-simulates with this, docs/run-log.md).
std::unique_ptr<Slave> make_slave_of(const Scenario& scenario, const SlaveSpec& spec,
                                     const models::ModelCatalog& catalog);

/// Slaves in scenario order, connected; errors name the scenario element.
System build_system(const Scenario& scenario, const models::ModelCatalog& catalog);

/// The Real outputs named by evaluation.signals (every Real output when empty).
std::vector<PortReference> resolve_signals(const Scenario& scenario, const System& system);
/// The discrete (Integer, Boolean) outputs named by evaluation.signals (every
/// one when empty); ports index SlaveDescription::discrete_outputs.
std::vector<PortReference> resolve_discrete_signals(const Scenario& scenario, const System& system);

/// The evaluation grid without its times (a day at 1 kHz has 86 million):
/// time k is start + k * spacing, for k < count.
struct GridSpacing {
  Time start = 0;
  Time spacing = 0;
  std::size_t count = 0;
  Time at(std::size_t k) const { return start + static_cast<Time>(k) * spacing; }
};
GridSpacing evaluation_grid_spacing(const Scenario& scenario);
/// start, start + grid, ... up to end, in ticks.
std::vector<Time> evaluation_grid(const Scenario& scenario);

/// The monolithic reference of the scenario's models on `grid`.
models::MonolithicSolution solve_reference(const Scenario& scenario,
                                           const models::ModelCatalog& catalog,
                                           const System& system, const std::vector<Time>& grid);

}  // namespace couplet::tools
