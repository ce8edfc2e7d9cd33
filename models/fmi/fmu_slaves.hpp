#pragma once
// FMUs as couplet slaves (FMI 2.0): a co-simulation FMU steps itself
// (fmi2DoStep); a model-exchange FMU is a Model that couplet integrates with its
// own solvers (models/ode_slave.hpp), which makes it a full-capability slave
// and lets it join the monolithic reference.
//
// Capability mapping (docs/fmi.md):
//   canInterpolateInputs             → input polynomials of degree d through
//                                      fmi2SetRealInputDerivatives (d from the
//                                      scenario, default 1)
//   maxOutputDerivativeOrder         → output derivatives (fmi2GetRealOutputDerivatives)
//   canGetAndSetFMUstate             → rollback
//   !canHandleVariableCommunicationStepSize → an imposed step (scenario, else
//                                      DefaultExperiment/stepSize)
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/fmi/fmu_package.hpp"
#include "models/model.hpp"
#include "models/ode_slave.hpp"
#include "couplet/slave.hpp"

namespace couplet::models::fmi {

struct FmuSettings {
  std::string slave_name;
  /// Start values by variable name: parameters, and constants for inputs that
  /// no connection drives.
  std::map<std::string, double, std::less<>> parameters;
  CapabilityLimits limits;
  /// The Real inputs couplet couples, by name; nullopt: every Real input. The
  /// others keep their start value (or the one in `parameters`).
  std::optional<std::vector<std::string>> coupled_inputs;
};

/// Highest input polynomial degree passed to an FMU that can interpolate inputs.
constexpr int kMaxFmuInputDegree = 3;
/// Highest output derivative order read from a co-simulation FMU.
constexpr int kMaxFmuOutputDerivativeOrder = 3;

/// A co-simulation slave; instantiates the FMU and sets the start values now, so
/// configuration errors surface before a run. Throws ConfigurationError naming
/// the slave, the FMU file and the setting (unknown variable, a degree the FMU
/// cannot take, rollback it lacks, no step for a fixed-step FMU).
std::unique_ptr<Slave> make_co_simulation_slave(std::shared_ptr<Package> package,
                                                const FmuSettings& settings);

/// A model-exchange FMU as a Model (fresh instance); wrap it with make_ode_slave.
std::unique_ptr<Model> make_model_exchange_model(std::shared_ptr<Package> package,
                                                 const FmuSettings& settings);

/// The ports of the slave `settings` would make: coupled Real inputs and Real
/// outputs with their direct-feedthrough flags. Throws ConfigurationError for
/// a coupled input that is not a Real input of the FMU.
struct FmuPorts {
  std::vector<std::size_t> inputs;   ///< variable indices
  std::vector<std::size_t> outputs;  ///< variable indices
  std::vector<OutputDescription> output_descriptions;
};
FmuPorts fmu_ports(const Package& package, const FmuSettings& settings);

/// A port's unit as its description carries it. Units label plots only: one
/// the wire protocol cannot carry (too long, control characters) is left out
/// rather than refusing the FMU.
std::string port_unit(const std::string& unit);

}  // namespace couplet::models::fmi
