#include "runtime/system.hpp"

#include <algorithm>
#include <stdexcept>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

/// For a connection written backwards: ": 'f' is an input of that slave (a connection
/// runs from: an output, to: an input)"; empty when the name is not a port at all.
std::string other_direction(const SlaveDescription& desc, std::string_view variable, bool output) {
  const auto named = [&](const auto& port) { return port.name == variable; };
  const auto any_named = [&](const auto& ports) {
    return std::any_of(ports.begin(), ports.end(), named);
  };
  const bool other_way = output ? any_named(desc.inputs) || any_named(desc.discrete_inputs)
                                : any_named(desc.outputs) || any_named(desc.discrete_outputs);
  if (!other_way) return "";
  return ": '" + std::string(variable) + "' is an " + (output ? "input" : "output") +
         " of that slave (a connection runs from: an output, to: an input)";
}

/// "Real", "Integer" or "Boolean": a port's type in messages.
std::string type_name(const SlaveDescription& desc, const System::Port& port, bool output) {
  if (!port.discrete) return "Real";
  const auto& ports = output ? desc.discrete_outputs : desc.discrete_inputs;
  return to_string(ports[port.reference.port].type);
}

/// Two spellings of one known unit ("N.m", "N m"); unknown units are never the same.
bool same_unit(const std::optional<UnitDefinition>& from, const std::optional<UnitDefinition>& to) {
  return from && from == to;
}

/// Why two different units were not converted: ", and their SI bases differ
/// (m.s-1, K)", ", and couplet does not know 'furlong'", or nothing (they
/// would convert; the caller did not).
std::string why_not_converted(const std::string& from_unit,
                              const std::optional<UnitDefinition>& from, const std::string& to_unit,
                              const std::optional<UnitDefinition>& to) {
  if (!from || !to) {
    return ", and couplet does not know '" + (from ? to_unit : from_unit) +
           "' (neither the slave's unit definitions nor couplet's unit symbols, "
           "docs/units.md)";
  }
  if (from->exponents != to->exponents)
    return ", and their SI bases differ (" + base_text(*from) + ", " + base_text(*to) + ")";
  return "";
}

std::pair<std::string_view, std::string_view> split_qualified(std::string_view qualified) {
  const std::size_t dot = qualified.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == qualified.size()) {
    throw ConfigurationError("connection endpoint '" + std::string(qualified) +
                             "' must be written as slave.variable");
  }
  return {qualified.substr(0, dot), qualified.substr(dot + 1)};
}

}  // namespace

std::size_t System::add_slave(std::string name, std::unique_ptr<Slave> slave) {
  return insert_slave(slaves_.size(), std::move(name), std::move(slave));
}

std::size_t System::insert_slave(std::size_t position, std::string name,
                                 std::unique_ptr<Slave> slave) {
  if (name.empty() || name.find('.') != std::string::npos) {
    throw ConfigurationError("slave name '" + name + "' must be non-empty and contain no '.'");
  }
  if (find_slave(name)) throw ConfigurationError("slave '" + name + "' is defined twice");
  if (position > slaves_.size() ||
      (position < slaves_.size() &&
       (!connections_.empty() || !discrete_connections_.empty() || !rounded_connections_.empty() ||
        !integer_to_real_connections_.empty()))) {
    throw std::logic_error("System::insert_slave: position " + std::to_string(position) +
                           " out of range, or connections made already");
  }
  slaves_.insert(slaves_.begin() + static_cast<std::ptrdiff_t>(position),
                 Entry{std::move(name), std::move(slave), {}});
  return position;
}

void System::set_slave_origin(std::size_t index, std::string origin) {
  slaves_.at(index).origin = std::move(origin);
}

std::string System::located(std::size_t index, std::string_view message) const {
  const std::string& origin = slaves_.at(index).origin;
  return origin.empty() ? std::string(message) : origin + ": " + std::string(message);
}

std::unique_ptr<Slave> System::replace_slave(std::size_t index, std::unique_ptr<Slave> slave) {
  Entry& entry = slaves_.at(index);
  const SlaveDescription& before = entry.slave->description();
  const SlaveDescription& after = slave->description();
  if (before.inputs.size() != after.inputs.size() ||
      before.outputs.size() != after.outputs.size() ||
      before.discrete_inputs.size() != after.discrete_inputs.size() ||
      before.discrete_outputs.size() != after.discrete_outputs.size()) {
    throw ConfigurationError("slave '" + entry.name + "': a replacement must have the same ports");
  }
  std::swap(entry.slave, slave);
  return slave;
}

std::optional<std::size_t> System::find_slave(std::string_view name) const {
  for (std::size_t i = 0; i < slaves_.size(); ++i) {
    if (slaves_[i].name == name) return i;
  }
  return std::nullopt;
}

System::Port System::resolve(std::string_view qualified, bool output) const {
  // Named, not a structured binding: clang 14 cannot capture those in a lambda.
  const auto parts = split_qualified(qualified);
  const std::string_view slave_name = parts.first;
  const std::string_view variable = parts.second;
  const std::optional<std::size_t> slave = find_slave(slave_name);
  if (!slave) {
    throw ConfigurationError("connection endpoint '" + std::string(qualified) +
                             "': unknown slave '" + std::string(slave_name) + "'");
  }
  const SlaveDescription& desc = description(*slave);
  std::string known;
  const auto find = [&](const auto& ports) -> std::optional<std::size_t> {
    for (std::size_t j = 0; j < ports.size(); ++j) {
      if (ports[j].name == variable) return j;
      known += (known.empty() ? "" : ", ") + ports[j].name;
    }
    return std::nullopt;
  };
  const std::optional<std::size_t> real = output ? find(desc.outputs) : find(desc.inputs);
  if (real) return {{*slave, *real}, false};
  if (const auto j = find(output ? desc.discrete_outputs : desc.discrete_inputs)) {
    return {{*slave, *j}, true};
  }
  throw ConfigurationError(
      "connection endpoint '" + std::string(qualified) + "': slave '" + std::string(slave_name) +
      "' has no " + (output ? "output" : "input") + " '" + std::string(variable) + "'" +
      other_direction(desc, variable, output) + "; its " + (output ? "outputs" : "inputs") + ": " +
      (known.empty() ? "none" : known));
}

void System::connect(std::string_view source, std::string_view target, std::string origin,
                     std::optional<Rounding> rounding) {
  const Port from = resolve(source, true);
  const Port to = resolve(target, false);
  std::optional<std::string> existing;
  if (!to.discrete) {
    if (const auto output = source_of(to.reference)) existing = output_name(*output);
    if (const auto output = integer_source_of(to.reference))
      existing = discrete_output_name(*output);
  } else if (const auto output = discrete_source_of(to.reference)) {
    existing = discrete_output_name(*output);
  } else if (const auto rounded = rounded_source_of(to.reference)) {
    existing = output_name(rounded->source);
  }
  if (existing) {
    throw ConfigurationError("input '" + std::string(target) + "' is driven twice: by '" +
                             *existing + "' and by '" + std::string(source) + "'");
  }
  const SlaveDescription& from_desc = description(from.reference.slave);
  const SlaveDescription& to_desc = description(to.reference.slave);
  const std::string from_type = type_name(from_desc, from, true);
  const std::string to_type = type_name(to_desc, to, false);
  // Appended, not "'" + std::string(...): g++ 12 warns falsely (-Wrestrict) on that.
  std::string ends = "'";
  ends.append(source).append("' (").append(from_type).append(") -> '");
  ends.append(target).append("' (").append(to_type).append(")");
  const bool real_to_integer = from_type == "Real" && to_type == "Integer";
  const bool integer_to_real = from_type == "Integer" && to_type == "Real";
  if (rounding && !real_to_integer) {
    throw ConfigurationError(ends +
                             ": rounding applies where a Real output drives an Integer "
                             "input; connect these without it");
  }
  if (from_type != to_type && !rounding && !integer_to_real) {
    throw ConfigurationError(
        ends + ": the types differ; a connection joins ports of one type" +
        (real_to_integer ? std::string(", or a Real output to an Integer input with a declared "
                                       "rounding (rounding: nearest, floor, ceil or truncate)")
                         : std::string(", or an Integer output to a Real input")));
  }
  if (rounding) {
    connect_rounded(from, to, ends, *rounding);
    return;
  }
  const std::string& from_unit = from.discrete
                                     ? from_desc.discrete_outputs[from.reference.port].unit
                                     : from_desc.outputs[from.reference.port].unit;
  const std::string& to_unit = to.discrete ? to_desc.discrete_inputs[to.reference.port].unit
                                           : to_desc.inputs[to.reference.port].unit;
  // A port without a unit connects to anything (generic models, undeclared
  // units); two spellings of one unit ("N.m", "N m") connect as they are.
  // The ends are of one type here, or an Integer output drives a Real input:
  // a Real input's unit may convert (the caller's, docs/units.md), a
  // discrete one's never does.
  const std::optional<UnitDefinition> from_definition =
      from.discrete ? parse_unit(from_unit)
                    : unit_definition_of(from_desc.outputs[from.reference.port]);
  const std::optional<UnitDefinition> to_definition =
      to.discrete ? std::nullopt : unit_definition_of(to_desc.inputs[to.reference.port]);
  const bool one_unit = from_unit.empty() || to_unit.empty() || from_unit == to_unit ||
                        (!to.discrete && same_unit(from_definition, to_definition));
  if (!one_unit) {
    const std::string why =
        to.discrete ? std::string()
                    : why_not_converted(from_unit, from_definition, to_unit, to_definition);
    throw ConfigurationError("'" + std::string(source) + "' [" + from_unit + "] -> '" +
                             std::string(target) + "' [" + to_unit + "]: the units differ" + why +
                             "; declare the conversion on the connection (factor, offset: to = "
                             "factor * from + offset) or give both ends one unit");
  }
  if (integer_to_real) {
    integer_to_real_connections_.push_back(Connection{from.reference, to.reference});
    integer_to_real_origins_.push_back(std::move(origin));
    return;
  }
  if (from.discrete) {
    discrete_connections_.push_back(Connection{from.reference, to.reference});
    return;
  }
  connections_.push_back(Connection{from.reference, to.reference});
  connection_origins_.push_back(std::move(origin));
}

std::optional<PortReference> System::source_of(PortReference input) const {
  for (const Connection& connection : connections_) {
    if (connection.target == input) return connection.source;
  }
  return std::nullopt;
}

// Units are compared, not converted: a rounded value keeps the unit it had.
void System::connect_rounded(const Port& from, const Port& to, const std::string& ends,
                             Rounding rounding) {
  const OutputDescription& output = description(from.reference.slave).outputs[from.reference.port];
  const std::string& to_unit =
      description(to.reference.slave).discrete_inputs[to.reference.port].unit;
  if (!output.unit.empty() && !to_unit.empty() && output.unit != to_unit &&
      !same_unit(unit_definition_of(output), parse_unit(to_unit))) {
    throw ConfigurationError(ends + " [" + output.unit + ", " + to_unit +
                             "]: the units differ, and rounding does not convert them; give both "
                             "ends one unit, or convert first (factor, offset)");
  }
  rounded_connections_.push_back(RoundedConnection{from.reference, to.reference, rounding});
}

std::optional<RoundedConnection> System::rounded_source_of(PortReference input) const {
  for (const RoundedConnection& connection : rounded_connections_) {
    if (connection.target == input) return connection;
  }
  return std::nullopt;
}

std::optional<PortReference> System::discrete_source_of(PortReference input) const {
  for (const Connection& connection : discrete_connections_) {
    if (connection.target == input) return connection.source;
  }
  return std::nullopt;
}

std::optional<PortReference> System::integer_source_of(PortReference input) const {
  for (const Connection& connection : integer_to_real_connections_) {
    if (connection.target == input) return connection.source;
  }
  return std::nullopt;
}

std::string System::discrete_output_name(PortReference output) const {
  return slave_name(output.slave) + "." +
         description(output.slave).discrete_outputs[output.port].name;
}

std::string System::output_name(PortReference output) const {
  return slave_name(output.slave) + "." + description(output.slave).outputs[output.port].name;
}

std::string System::input_name(PortReference input) const {
  return slave_name(input.slave) + "." + description(input.slave).inputs[input.port].name;
}

void System::validate(const AlgorithmRequirements& requirements) const {
  if (slaves_.empty()) throw ConfigurationError("the system has no slaves");
  if (requirements.real_sources_only && !integer_to_real_connections_.empty()) {
    const Connection& first = integer_to_real_connections_.front();
    const std::string& origin = integer_to_real_origins_.front();
    throw ConfigurationError((origin.empty() ? std::string() : origin + ": ") + "'" +
                             discrete_output_name(first.source) + "' (Integer) -> '" +
                             input_name(first.target) + "' (Real): algorithm '" +
                             requirements.algorithm_name +
                             "' solves every Real input from Real outputs, and an Integer "
                             "output drives this one");
  }
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    const SlaveDescription& desc = description(s);
    for (std::size_t i = 0; i < desc.inputs.size(); ++i) {
      if (!source_of({s, i}) && !integer_source_of({s, i})) {
        throw ConfigurationError(located(
            s, "input '" + input_name({s, i}) + "' is not connected: add a connection to it"));
      }
    }
    if (requirements.needs_rollback && !desc.capabilities.can_rollback) {
      throw ConfigurationError(
          located(s, "slave '" + slave_name(s) + "' cannot roll back, but algorithm '" +
                         requirements.algorithm_name + "' is iterative and needs rollback"));
    }
    if (requirements.needs_linearization && !desc.capabilities.can_linearize) {
      throw ConfigurationError(located(s, "slave '" + slave_name(s) +
                                              "' cannot linearize (state and Jacobians), "
                                              "but algorithm '" +
                                              requirements.algorithm_name + "' needs it"));
    }
    if (!desc.inputs.empty() &&
        desc.capabilities.max_input_degree < requirements.required_input_degree) {
      throw ConfigurationError(
          located(s, "slave '" + slave_name(s) + "' accepts input polynomials of degree at most " +
                         std::to_string(desc.capabilities.max_input_degree) + ", but algorithm '" +
                         requirements.algorithm_name + "' sends degree " +
                         std::to_string(requirements.required_input_degree)));
    }
  }
  for (const Connection& connection : connections_) {
    const int reported = description(connection.source.slave).capabilities.output_derivative_order;
    if (reported < requirements.required_output_derivatives) {
      throw ConfigurationError(located(
          connection.source.slave,
          "output '" + output_name(connection.source) + "' reports " + std::to_string(reported) +
              " time derivative(s), but algorithm '" + requirements.algorithm_name + "' needs " +
              std::to_string(requirements.required_output_derivatives)));
    }
  }
  if (!requirements.resolves_algebraic_loops) check_no_algebraic_loop();
}

// Port graph: an edge runs from a source output to every direct-feedthrough output
// of the slave it feeds. A cycle is an algebraic loop, which a non-iterative master
// cannot resolve.
void System::check_no_algebraic_loop() const {
  std::vector<std::size_t> first_output(slaves_.size() + 1, 0);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    first_output[s + 1] = first_output[s] + description(s).outputs.size();
  }
  const std::size_t node_count = first_output.back();
  std::vector<std::vector<std::size_t>> successors(node_count);
  std::vector<PortReference> node_port(node_count);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    for (std::size_t j = 0; j < description(s).outputs.size(); ++j) {
      node_port[first_output[s] + j] = {s, j};
    }
  }
  // Each edge remembers the connection it goes through, whose origin names the loop.
  std::vector<std::vector<std::size_t>> edge_connection(node_count);
  for (std::size_t c = 0; c < connections_.size(); ++c) {
    const Connection& connection = connections_[c];
    const auto& outputs = description(connection.target.slave).outputs;
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      if (outputs[j].direct_feedthrough) {
        const std::size_t from = first_output[connection.source.slave] + connection.source.port;
        successors[from].push_back(first_output[connection.target.slave] + j);
        edge_connection[from].push_back(c);
      }
    }
  }
  enum class Mark { unvisited, active, done };
  std::vector<Mark> mark(node_count, Mark::unvisited);
  std::vector<std::size_t> path;
  const auto visit = [&](auto&& self, std::size_t node) -> void {
    mark[node] = Mark::active;
    path.push_back(node);
    for (std::size_t e = 0; e < successors[node].size(); ++e) {
      const std::size_t next = successors[node][e];
      if (mark[next] == Mark::active) {
        std::string cycle;
        const auto begin = std::find(path.begin(), path.end(), next);
        for (auto it = begin; it != path.end(); ++it) cycle += output_name(node_port[*it]) + " -> ";
        cycle += output_name(node_port[next]);
        const std::string& origin = connection_origins_[edge_connection[node][e]];
        throw ConfigurationError(
            (origin.empty() ? "" : origin + ": ") +
            "algebraic loop through direct-feedthrough outputs: " + cycle +
            "; a non-iterative algorithm cannot resolve it (break the loop "
            "or use an algorithm that resolves loops: ifosmondi, ifosmondi_jfm, "
            "missiles)");
      }
      if (mark[next] == Mark::unvisited) self(self, next);
    }
    path.pop_back();
    mark[node] = Mark::done;
  };
  for (std::size_t node = 0; node < node_count; ++node) {
    if (mark[node] == Mark::unvisited) visit(visit, node);
  }
}

}  // namespace couplet
