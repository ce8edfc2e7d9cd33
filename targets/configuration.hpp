#pragma once
// The Configure message (protocol/couplet.proto) to and from the settings of a
// model slave (models/ode_slave.hpp): the scenario's parameters, solver settings
// and declared capability limits travel to couplet-target, which wraps the model
// exactly as the host would, so that results are bit-identical (docs/links.md).
#include <cstdint>
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
  /// String and Binary parameters of an FMI 3.0 FMU (models::SlaveSettings).
  std::map<std::string, std::string, std::less<>> text_parameters;
  models::SolverSettings solver;
  models::CapabilityLimits limits;
  std::optional<std::vector<std::string>> coupled_inputs;  ///< nullopt: every input
};

/// Fills `wire` (all of it). Throws ConfigurationError when a name, a text
/// or the parameter count exceeds the protocol's capacities.
void to_wire(const SlaveConfiguration& configuration, couplet_wire_Configure& wire);

/// Most Euler substeps a target takes per macro step.
inline constexpr std::uint32_t kMaxEulerSubsteps = 1'000'000;

/// The configuration a Configure describes, every field checked first
/// (docs/links.md "What each side validates"). Throws ProtocolViolation (the
/// target answers ERROR_BAD_REQUEST), naming the field, on a message no master
/// sends: a name without its NUL, with control characters, empty (parameters,
/// text parameters, coupled inputs) or given twice; a parameter value that is
/// not finite; a text parameter's text without its NUL or with control characters; a
/// solver kind or CVODE method out of range; tolerances not finite and > 0;
/// max_internal_step not finite and >= 0; euler_substeps 0; imposed_step_ns
/// outside [0, 2^61). Throws ConfigurationError (ERROR_REFUSED) for more than
/// kMaxEulerSubsteps. Whether the model takes the values is the slave's
/// business (make_slave, also ConfigurationError).
SlaveConfiguration from_wire(const couplet_wire_Configure& wire);

}  // namespace couplet::targets
