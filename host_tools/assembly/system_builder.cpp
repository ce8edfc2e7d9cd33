#include "host_tools/assembly/system_builder.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "couplet/errors.hpp"
#include "host_tools/assembly/connection_conversions.hpp"
#include "host_tools/assembly/dcp_slave_factory.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/remote_slave_factory.hpp"
#include "host_tools/scenario/scenario_file_path.hpp"

namespace couplet::tools {

namespace {

[[noreturn]] void rethrow_at(const SlaveSpec& spec, const ConfigurationError& error) {
  throw ConfigurationError(spec.where + ": " + error.what());
}

}  // namespace

std::unique_ptr<models::SlaveSource> open_source(const SlaveSpec& spec,
                                                 const models::ModelCatalog& catalog) {
  if (!spec.device.empty()) {
    throw ConfigurationError(spec.where + ": slave '" + spec.name + "' is device '" + spec.device +
                             "', whose behaviour lives in its own program: couplet has no "
                             "equations for it (no monolithic reference: use reference: none)");
  }
  if (!spec.dcp.empty()) {
    throw ConfigurationError(spec.where + ": slave '" + spec.name +
                             "' is a DCP slave, whose behaviour lives behind its protocol: "
                             "couplet has no equations for it (no monolithic reference)");
  }
  if (!spec.fmu.empty()) require_existing_file(spec.fmu, spec.where);
  try {
    if (!spec.fmu.empty()) return models::fmu_source(spec.fmu, spec.fmu_kind);
    if (spec.model == models::kTableStimulusName)
      return models::table_source(spec.table_file, spec.table_interpolation);
    return models::catalog_source(catalog, spec.model);
  } catch (const ConfigurationError& error) {
    rethrow_at(spec, error);
  }
}

models::SlaveSettings slave_settings(const Scenario& scenario, const SlaveSpec& spec) {
  models::SlaveSettings settings{.slave_name = spec.name,
                                 .parameters = spec.parameters,
                                 .solver = spec.solver,
                                 .limits = spec.capabilities,
                                 .coupled_inputs = std::nullopt,
                                 .text_parameters = spec.text_parameters};
  // FMUs, devices and DCP slaves leave unconnected inputs at their start
  // values or defaults.
  if (!spec.fmu.empty() || !spec.device.empty() || !spec.dcp.empty()) {
    settings.coupled_inputs.emplace();
    const std::string prefix = spec.name + ".";
    for (const ConnectionSpec& connection : scenario.connections) {
      if (connection.to.rfind(prefix, 0) == 0)
        settings.coupled_inputs->push_back(connection.to.substr(prefix.size()));
    }
  }
  return settings;
}

std::unique_ptr<Slave> make_slave_of(const Scenario& scenario, const SlaveSpec& spec,
                                     const models::ModelCatalog& catalog) {
  if (!spec.dcp.empty()) return make_dcp_slave_of(scenario, spec);
  if (spec.link) return make_remote_slave(scenario, spec, catalog);
  return open_source(spec, catalog)->make_slave(slave_settings(scenario, spec));
}

namespace {

/// Whether "slave.port" names an Integer or Boolean output (`output`) or input
/// of `system` (of that `type` only, when given).
bool is_discrete_port(const System& system, const std::string& qualified, bool output,
                      std::optional<DiscreteType> type = std::nullopt) {
  const std::size_t dot = qualified.find('.');
  const std::optional<std::size_t> slave = system.find_slave(qualified.substr(0, dot));
  if (!slave || dot == std::string::npos) return false;
  const SlaveDescription& description = system.description(*slave);
  const auto& ports = output ? description.discrete_outputs : description.discrete_inputs;
  return std::any_of(ports.begin(), ports.end(), [&](const DiscretePortDescription& port) {
    return port.name == qualified.substr(dot + 1) && (!type || port.type == *type);
  });
}

/// factor/offset convert through a coupling.linear slave: Real signals only
/// (an Integer output may feed it, the converted value may then be rounded to
/// an Integer input).
void check_conversion_is_real(const System& system, const ConnectionSpec& connection) {
  if (!connection.converted) return;
  for (const auto& [end, output] :
       {std::pair{connection.from, true}, std::pair{connection.to, false}}) {
    if (!output && connection.rounding) continue;
    if (output && is_discrete_port(system, end, output, DiscreteType::integer)) continue;
    if (is_discrete_port(system, end, output)) {
      throw ConfigurationError("factor/offset convert Real signals only, and '" + end +
                               "' is an Integer or " + "Boolean " + (output ? "output" : "input") +
                               ": connect it without factor and offset");
    }
  }
}

/// The connection out of converter `name` (its output y to the converted input).
const ConnectionSpec& converted_output(const Scenario& scenario, const std::string& name) {
  const auto output = std::find_if(
      scenario.connections.begin(), scenario.connections.end(),
      [&](const ConnectionSpec& connection) { return connection.from == name + ".y"; });
  if (output == scenario.connections.end())
    throw std::logic_error("converter '" + name + "' drives nothing");
  return *output;
}

}  // namespace

System build_system(const Scenario& scenario, const models::ModelCatalog& catalog) {
  System system;
  for (const SlaveSpec& spec : scenario.slaves) {
    try {
      // A group member lives inside its composite slave, which takes the place of
      // the group's first member (docs/iterative.md).
      if (const GroupSpec* group = group_of(scenario, spec.name)) {
        if (!system.find_slave(group->name)) {
          const std::size_t index =
              system.add_slave(group->name, make_group_slave(scenario, *group, catalog));
          system.set_slave_origin(index, group->where);
        }
        continue;
      }
      const std::size_t index = system.add_slave(spec.name, make_slave_of(scenario, spec, catalog));
      system.set_slave_origin(index, spec.where);
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      if (message.rfind(scenario.source, 0) == 0) throw;
      throw ConfigurationError(spec.where + ": " + message);
    }
  }
  // Units are known now: a connection between km/h and m/s gets its converter,
  // placed as the scenario's factor/offset converters are.
  const Scenario converted = with_unit_conversions(scenario, unit_conversions(scenario, system));
  for (const SlaveSpec& spec : converted.slaves) {
    if (system.find_slave(spec.name) || group_of(converted, spec.name)) continue;
    const ConnectionSpec& output = converted_output(converted, spec.name);
    const std::size_t index =
        system.insert_slave(*system.find_slave(slave_of(output.to)), spec.name,
                            make_slave_of(converted, spec, catalog));
    system.set_slave_origin(index, spec.where);
  }
  for (const ConnectionSpec& connection : converted.connections) {
    if (is_inside_group(converted, connection)) {  // inside its composite slave
      if (connection.rounding) {
        throw ConfigurationError(connection.where +
                                 ": rounding on a connection inside a group is not supported "
                                 "(its iteration couples Real signals): round outside the group");
      }
      continue;
    }
    try {
      check_conversion_is_real(system, connection);
      system.connect(outer_name(converted, connection.from), outer_name(converted, connection.to),
                     connection.where, connection.rounding);
    } catch (const ConfigurationError& error) {
      throw ConfigurationError(connection.where + ": " + error.what());
    }
  }
  return system;
}

namespace {

/// The index of output `name` among the Real outputs or the discrete ones.
std::optional<std::size_t> output_index(const SlaveDescription& description, std::string_view name,
                                        bool discrete) {
  const auto find = [&](const auto& ports) -> std::optional<std::size_t> {
    for (std::size_t j = 0; j < ports.size(); ++j) {
      if (ports[j].name == name) return j;
    }
    return std::nullopt;
  };
  return discrete ? find(description.discrete_outputs) : find(description.outputs);
}

/// The outputs evaluation.signals names, of the Real ports (`discrete` false)
/// or the discrete ones; every such output when it names none. A name that is
/// an output of neither kind is refused.
std::vector<PortReference> named_signals(const Scenario& scenario, const System& system,
                                         bool discrete) {
  std::vector<PortReference> signals;
  if (scenario.evaluation_signals.empty()) {
    for (std::size_t s = 0; s < system.slave_count(); ++s) {
      const SlaveDescription& description = system.description(s);
      const std::size_t count =
          discrete ? description.discrete_outputs.size() : description.outputs.size();
      for (std::size_t j = 0; j < count; ++j) signals.push_back({s, j});
    }
    return signals;
  }
  for (const std::string& written : scenario.evaluation_signals) {
    const std::string name =
        outer_name(scenario, written);  // a group member's: "group.member.output"
    const std::size_t dot = name.find('.');
    const auto slave =
        dot == std::string::npos ? std::nullopt : system.find_slave(name.substr(0, dot));
    const std::string port = dot == std::string::npos ? name : name.substr(dot + 1);
    if (slave) {
      const SlaveDescription& description = system.description(*slave);
      if (const auto j = output_index(description, port, discrete)) {
        signals.push_back({*slave, *j});
        continue;
      }
      if (output_index(description, port, !discrete)) continue;  // the other kind's
    }
    throw ConfigurationError(scenario.source + ": evaluation.signals: '" + name +
                             "' is not an output of any slave (write slave.output)");
  }
  return signals;
}

}  // namespace

std::vector<PortReference> resolve_signals(const Scenario& scenario, const System& system) {
  return named_signals(scenario, system, false);
}

std::vector<PortReference> resolve_discrete_signals(const Scenario& scenario,
                                                    const System& system) {
  return named_signals(scenario, system, true);
}

GridSpacing evaluation_grid_spacing(const Scenario& scenario) {
  const Time start = to_ticks(scenario.start);
  const Time end = to_ticks(scenario.end);
  const Time spacing = step_to_ticks(scenario.evaluation_grid);
  const std::size_t count = end < start ? 0 : static_cast<std::size_t>((end - start) / spacing + 1);
  return {start, spacing, count};
}

std::vector<Time> evaluation_grid(const Scenario& scenario) {
  const GridSpacing spacing = evaluation_grid_spacing(scenario);
  std::vector<Time> grid;
  grid.reserve(spacing.count);
  for (std::size_t k = 0; k < spacing.count; ++k) grid.push_back(spacing.at(k));
  return grid;
}

models::MonolithicSolution solve_reference(const Scenario& written,
                                           const models::ModelCatalog& catalog,
                                           const System& system, const std::vector<Time>& grid) {
  // The system's slaves in order: the scenario's, and the unit converters
  // build_system put between them.
  const Scenario scenario = with_unit_conversions(written, unit_conversions(written, system));
  // One Integer or Boolean connection, named in the refusal: "source", target slave.
  std::optional<std::pair<std::string, std::size_t>> discrete;
  if (!system.discrete_connections().empty()) {
    const Connection& first = system.discrete_connections().front();
    discrete = {system.discrete_output_name(first.source), first.target.slave};
  } else if (!system.rounded_connections().empty()) {
    const RoundedConnection& first = system.rounded_connections().front();
    discrete = {system.output_name(first.source), first.target.slave};
  } else if (!system.integer_to_real_connections().empty()) {
    const Connection& first = system.integer_to_real_connections().front();
    discrete = {system.discrete_output_name(first.source), first.target.slave};
  }
  if (discrete) {
    throw ConfigurationError(scenario.source +
                             ": the monolithic reference couples Real ports only, "
                             "and this system connects Integer or Boolean ones ('" +
                             discrete->first + "' -> slave '" +
                             system.slave_name(discrete->second) + "'): use reference: none");
  }
  if (!scenario.groups.empty()) return solve_grouped_reference(scenario, catalog, system, grid);
  std::vector<std::unique_ptr<models::Model>> owned;
  std::vector<models::MonolithicSubsystem> subsystems;
  for (const SlaveSpec& spec : scenario.slaves) {
    try {
      owned.push_back(open_source(spec, catalog)->make_model(slave_settings(scenario, spec)));
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      if (message.rfind(spec.where, 0) == 0) throw;
      rethrow_at(spec, error);
    }
    subsystems.push_back({spec.name, owned.back().get()});
  }
  std::vector<models::MonolithicConnection> connections;
  for (const Connection& connection : system.connections()) {
    connections.push_back({connection.source.slave, connection.source.port, connection.target.slave,
                           connection.target.port});
  }
  std::vector<double> grid_seconds;
  grid_seconds.reserve(grid.size());
  for (const Time t : grid) grid_seconds.push_back(to_seconds(t));
  return models::solve_monolithic(subsystems, connections, scenario.start, scenario.end,
                                  grid_seconds);
}

}  // namespace couplet::tools
