#pragma once
// System: slaves plus connections, validated before a run (docs/architecture.md).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "couplet/slave.hpp"
#include "runtime/rounding.hpp"

namespace couplet {

struct PortReference {
  std::size_t slave = 0;
  std::size_t port = 0;
  friend bool operator==(const PortReference&, const PortReference&) = default;
};

/// source output → target input. An output may feed several inputs; each input
/// has exactly one source.
struct Connection {
  PortReference source;
  PortReference target;
};

/// A Real output driving an Integer input through a declared rounding rule
/// (`source` indexes the Real outputs, `target` the discrete inputs).
struct RoundedConnection {
  PortReference source;
  PortReference target;
  Rounding rounding = Rounding::nearest;
};

/// What an algorithm needs from the system; validation checks it.
struct AlgorithmRequirements {
  std::string algorithm_name;
  int required_input_degree = 0;          ///< every slave must accept at least this degree
  int required_output_derivatives = 0;    ///< every source must report this many derivatives
  bool needs_rollback = false;            ///< every slave must save and restore its state
  bool resolves_algebraic_loops = false;  ///< feedthrough loops allowed (iterated or solved)
  bool needs_linearization = false;       ///< every slave must linearize (Slave::linearize)
  /// every Real input driven by a Real output: no Integer output may drive one
  bool real_sources_only = false;
};

/// What a Real port's unit means: the slave's own definition (an FMU's
/// UnitDefinitions), else the unit read by name (parse_unit); nullopt when
/// neither says.
template <typename PortDescription>
std::optional<UnitDefinition> unit_definition_of(const PortDescription& port) {
  return port.unit_definition ? port.unit_definition : parse_unit(port.unit);
}

class System {
 public:
  /// A connection endpoint: a Real port, or a discrete one.
  struct Port {
    PortReference reference;
    bool discrete = false;
  };

  /// Adds a slave; names are unique and contain no '.'.
  std::size_t add_slave(std::string name, std::unique_ptr<Slave> slave);
  /// Adds a slave before slave `position` (those from there on move up by
  /// one): only before the first connection, which would hold their indices.
  std::size_t insert_slave(std::size_t position, std::string name, std::unique_ptr<Slave> slave);

  /// Connects "slave.output" to "slave.input"; throws ConfigurationError naming the
  /// unknown slave or variable, the doubly driven input, both ends and their
  /// types (Real, Integer, Boolean) when they differ, or both ends and their
  /// units when both declare one and they differ (with their SI bases where
  /// known: a conversion is the caller's, docs/units.md). `origin` says where the
  /// connection was declared ("scenario.yaml:14: connections[2]"); validation
  /// errors about it begin with it. With `rounding`, a Real output drives an
  /// Integer input, rounded by that rule (and nothing else does). An Integer
  /// output drives a Real input as it is (held, never extrapolated).
  void connect(std::string_view source, std::string_view target, std::string origin = {},
               std::optional<Rounding> rounding = std::nullopt);

  /// Where slave `index` was declared ("scenario.yaml:12: slaves.left"): validation
  /// errors about the slave begin with it, so that they name the scenario line.
  void set_slave_origin(std::size_t index, std::string origin);
  /// `message` prefixed with slave `index`'s origin (unchanged when it has none).
  std::string located(std::size_t index, std::string_view message) const;

  std::size_t slave_count() const { return slaves_.size(); }
  Slave& slave(std::size_t index) { return *slaves_[index].slave; }
  const Slave& slave(std::size_t index) const { return *slaves_[index].slave; }
  const std::string& slave_name(std::size_t index) const { return slaves_[index].name; }
  const SlaveDescription& description(std::size_t index) const {
    return slaves_[index].slave->description();
  }
  std::optional<std::size_t> find_slave(std::string_view name) const;
  /// Puts `slave` in the place of slave `index` (same name and connections) and
  /// returns the one it replaces: how a distributed run (host_tools/mpi/mpi_dispatcher.hpp)
  /// puts a proxy in front of each slave. The replacement must have the same ports.
  std::unique_ptr<Slave> replace_slave(std::size_t index, std::unique_ptr<Slave> slave);
  std::span<const Connection> connections() const { return connections_; }
  /// Connections between discrete ports (port indices into discrete_outputs and
  /// discrete_inputs). A discrete input no connection drives holds its start value.
  std::span<const Connection> discrete_connections() const { return discrete_connections_; }

  /// Real outputs driving Integer inputs through a rounding rule.
  std::span<const RoundedConnection> rounded_connections() const { return rounded_connections_; }

  /// Integer outputs driving Real inputs, held as constants (`source` indexes
  /// the discrete outputs, `target` the Real inputs; docs/algorithms.md,
  /// "Integer to Real").
  std::span<const Connection> integer_to_real_connections() const {
    return integer_to_real_connections_;
  }

  /// The output feeding `input`, if connected.
  std::optional<PortReference> source_of(PortReference input) const;
  /// The discrete output feeding discrete `input`, if connected.
  std::optional<PortReference> discrete_source_of(PortReference input) const;
  /// The rounded Real output feeding discrete `input`, if connected so.
  std::optional<RoundedConnection> rounded_source_of(PortReference input) const;
  /// The Integer output feeding Real `input`, if connected so.
  std::optional<PortReference> integer_source_of(PortReference input) const;

  /// "slave.output" / "slave.input" for messages and signal names.
  std::string output_name(PortReference output) const;
  std::string input_name(PortReference input) const;
  std::string discrete_output_name(PortReference output) const;

  /// Rejects, naming the element: unconnected inputs, algebraic loops through
  /// direct-feedthrough ports under an algorithm that cannot resolve them, slaves
  /// that cannot roll back or linearize where the algorithm needs it, degrees or
  /// derivatives a slave cannot give.
  void validate(const AlgorithmRequirements& requirements) const;

 private:
  struct Entry {
    std::string name;
    std::unique_ptr<Slave> slave;
    std::string origin;  ///< where it was declared, or empty
  };
  Port resolve(std::string_view qualified, bool output) const;
  void connect_rounded(const Port& from, const Port& to, const std::string& ends,
                       Rounding rounding);
  void check_no_algebraic_loop() const;

  std::vector<Entry> slaves_;
  std::vector<Connection> connections_;
  std::vector<std::string> connection_origins_;  ///< parallel to connections_
  std::vector<Connection> discrete_connections_;
  std::vector<RoundedConnection> rounded_connections_;
  std::vector<Connection> integer_to_real_connections_;
  std::vector<std::string> integer_to_real_origins_;  ///< parallel to integer_to_real_connections_
};

}  // namespace couplet
