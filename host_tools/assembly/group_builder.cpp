#include "host_tools/assembly/group_builder.hpp"

#include <algorithm>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "models/ode_slave.hpp"
#include "runtime/composite_slave.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

namespace {

const SlaveSpec& spec_of(const Scenario& scenario, const std::string& name) {
  const auto spec = std::find_if(scenario.slaves.begin(), scenario.slaves.end(),
                                 [&](const SlaveSpec& slave) { return slave.name == name; });
  if (spec == scenario.slaves.end())
    throw std::logic_error("group member '" + name + "' is not a slave");
  return *spec;
}

std::unique_ptr<Slave> make_member(const SlaveSpec& spec, const GroupSpec& group,
                                   const models::ModelCatalog& catalog) {
  if (spec.link) {
    throw ConfigurationError(
        spec.where + ": slave '" + spec.name + "' is in group '" + group.name +
        "' but sits behind a link; remote slaves cannot roll back, which the group's "
        "iterative algorithm needs (leave it outside the group)");
  }
  if (!spec.fmu.empty()) {
    throw ConfigurationError(
        spec.where + ": slave '" + spec.name + "' is in group '" + group.name +
        "' but is an FMU; groups take built-in models only for now (leave it outside the group)");
  }
  try {
    return models::make_ode_slave(spec.name, catalog.create(spec.model, spec.parameters),
                                  spec.solver, spec.capabilities);
  } catch (const ConfigurationError& error) {
    throw ConfigurationError(spec.where + ": " + error.what());
  }
}

/// (slave index in scenario order, port index) of "slave.port".
std::pair<std::size_t, std::size_t> flat_port(const Scenario& scenario,
                                              const models::ModelCatalog& catalog,
                                              const std::string& endpoint, bool output) {
  const std::size_t dot = endpoint.find('.');
  const std::string slave = endpoint.substr(0, dot);
  const std::string port = dot == std::string::npos ? "" : endpoint.substr(dot + 1);
  for (std::size_t s = 0; s < scenario.slaves.size(); ++s) {
    if (scenario.slaves[s].name != slave) continue;
    const models::ModelDescription& model = catalog.find(scenario.slaves[s].model).description;
    if (output) {
      for (std::size_t j = 0; j < model.outputs.size(); ++j) {
        if (model.outputs[j].name == port) return {s, j};
      }
    } else {
      for (std::size_t i = 0; i < model.inputs.size(); ++i) {
        if (model.inputs[i] == port) return {s, i};
      }
    }
  }
  throw ConfigurationError(scenario.source + ": connection endpoint '" + endpoint + "' not found");
}

}  // namespace

std::unique_ptr<Slave> make_group_slave(const Scenario& scenario, const GroupSpec& group,
                                        const models::ModelCatalog& catalog) {
  std::unique_ptr<IfosmondiAlgorithm> algorithm = make_group_algorithm(group.algorithm);
  std::vector<CompositeMember> members;
  for (const std::string& name : group.members) {
    members.push_back({name, make_member(spec_of(scenario, name), group, catalog)});
  }
  std::vector<CompositeConnection> connections;
  for (const ConnectionSpec& connection : scenario.connections) {
    if (group_of(scenario, slave_of(connection.from)) == &group &&
        is_inside_group(scenario, connection)) {
      connections.push_back({connection.from, connection.to});
    }
  }
  try {
    return std::make_unique<CompositeSlave>(group.name, std::move(members), connections,
                                            std::move(algorithm));
  } catch (const ConfigurationError& error) {
    throw ConfigurationError(group.where + ": " + error.what());
  }
}

models::MonolithicSolution solve_grouped_reference(const Scenario& scenario,
                                                   const models::ModelCatalog& catalog,
                                                   const System& system,
                                                   const std::vector<Time>& grid) {
  std::vector<std::unique_ptr<models::Model>> owned;
  std::vector<models::MonolithicSubsystem> subsystems;
  for (const SlaveSpec& spec : scenario.slaves) {
    owned.push_back(catalog.create(spec.model, spec.parameters));
    subsystems.push_back({spec.name, owned.back().get()});
  }
  std::vector<models::MonolithicConnection> connections;
  for (const ConnectionSpec& connection : scenario.connections) {
    const auto [source, output] = flat_port(scenario, catalog, connection.from, true);
    const auto [target, input] = flat_port(scenario, catalog, connection.to, false);
    connections.push_back({source, output, target, input});
  }
  std::vector<double> grid_seconds;
  for (const Time t : grid) grid_seconds.push_back(to_seconds(t));
  const models::MonolithicSolution flat =
      models::solve_monolithic(subsystems, connections, scenario.start, scenario.end, grid_seconds);

  // Per slave of `system`: a plain slave's outputs, or its members' side by side.
  models::MonolithicSolution grouped;
  grouped.times = flat.times;
  const auto flat_index = [&](const std::string& name) {
    for (std::size_t s = 0; s < scenario.slaves.size(); ++s) {
      if (scenario.slaves[s].name == name) return s;
    }
    throw std::logic_error("slave '" + name + "' not in the scenario");
  };
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    std::vector<std::string> parts{system.slave_name(s)};
    const auto group =
        std::find_if(scenario.groups.begin(), scenario.groups.end(),
                     [&](const GroupSpec& g) { return g.name == system.slave_name(s); });
    if (group != scenario.groups.end()) parts = group->members;
    std::vector<double> values;
    values.reserve(grid.size() * system.description(s).outputs.size());
    for (std::size_t k = 0; k < grid.size(); ++k) {
      for (const std::string& part : parts) {
        const std::size_t index = flat_index(part);
        const std::size_t count = subsystems[index].model->output_count();
        const auto first = flat.outputs[index].begin() + static_cast<std::ptrdiff_t>(k * count);
        values.insert(values.end(), first, first + static_cast<std::ptrdiff_t>(count));
      }
    }
    grouped.outputs.push_back(std::move(values));
  }
  return grouped;
}

void add_group_counters(const System& system, nlohmann::json& summary) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const auto* group = dynamic_cast<const CompositeSlave*>(&system.slave(s));
    if (group == nullptr) continue;
    AlgorithmReport report;
    group->algorithm().report(report);
    nlohmann::json& counters = summary["groups"][group->name()];
    counters["algorithm"] = std::string(group->algorithm().name());
    for (const auto& [name, value] : report.counters) counters[name] = value;
    counters["slave_steps"] = group->inner_counters().slave_steps;
    counters["rollbacks"] = group->inner_counters().rollbacks;
    counters["decision_hash"] = hash_text(group->inner_decision_hash());  // not in the run log
  }
}

}  // namespace couplet::tools
