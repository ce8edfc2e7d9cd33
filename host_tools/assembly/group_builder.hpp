#pragma once
// Groups of a scenario (`groups:`, docs/iterative.md) into composite slaves
// (runtime/composite_slave.hpp), and the names and reference that go with them.
// Connections and evaluation signals name members as usual ("body.f_c"); a connection
// with both ends in one group lives inside its composite, the others are rewritten to
// the composite's ports ("group.body.f_c").
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/scenario/group_membership.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"
#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// The composite slave of `group`: its members (ODE slaves; a member behind a link is
/// a configuration error, as remote slaves cannot roll back), its internal
/// connections and its algorithm (ifosmondi or ifosmondi_jfm).
std::unique_ptr<Slave> make_group_slave(const Scenario& scenario, const GroupSpec& group,
                                        const models::ModelCatalog& catalog);

/// The monolithic reference of a scenario with groups: every model in one ODE (the
/// groups dissolved), outputs laid out per slave of `system` (a composite's outputs
/// are its members' outputs in order).
models::MonolithicSolution solve_grouped_reference(const Scenario& scenario,
                                                   const models::ModelCatalog& catalog,
                                                   const System& system,
                                                   const std::vector<Time>& grid);

/// For every composite slave of `system`: summary["groups"][name] = its inner
/// algorithm's counters plus the inner slave_steps and rollbacks.
void add_group_counters(const System& system, nlohmann::json& summary);

}  // namespace couplet::tools
