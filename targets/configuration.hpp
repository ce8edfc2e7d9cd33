#pragma once
// The Configure message (protocol/couplet.proto) to and from the settings of a
// model slave (models/ode_slave.hpp): the scenario's parameters, solver settings
// and declared capability limits travel to couplet-target, which wraps the model
// exactly as the host would, so that results are bit-identical (DESIGN §8).
#include <map>
#include <optional>
#include <vector>
#include <string>

#include "models/ode_slave.hpp"
#include "protocol/couplet.pb.h"

namespace couplet::targets {

using ParameterOverrides = std::map<std::string, double, std::less<>>;

/// What a Configure carries, in host types.
struct SlaveConfiguration {
  std::string slave_name;
  std::string model;
  ParameterOverrides parameters;
  models::SolverSettings solver;
  models::CapabilityLimits limits;
  std::optional<std::vector<std::string>> coupled_inputs;  ///< nullopt: every input
};

/// Fills `wire` (all of it). Throws ConfigurationError when a name or the
/// parameter count exceeds the protocol's capacities.
void to_wire(const SlaveConfiguration& configuration, couplet_wire_Configure& wire);

/// The configuration a Configure describes. Throws ConfigurationError on
/// values no slave could take (e.g. a negative substep count).
SlaveConfiguration from_wire(const couplet_wire_Configure& wire);

}  // namespace couplet::targets
