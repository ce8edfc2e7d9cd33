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
#include <span>
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
  /// Start values given as text, by variable name: an FMI 3.0 String variable
  /// takes the text, a Binary one its pairs of hexadecimal digits. A quoted
  /// number is also in `parameters`, for a numeric variable of that name.
  std::map<std::string, std::string, std::less<>> text_parameters;
};

/// Highest input polynomial degree passed to an FMU that can interpolate inputs.
constexpr int kMaxFmuInputDegree = 3;
/// Highest output derivative order read from a co-simulation FMU.
constexpr int kMaxFmuOutputDerivativeOrder = 3;

/// What a co-simulation FMU declares about stepping, in FMI 2.0 and 3.0 alike.
struct CoSimulationOffer {
  int max_output_derivative_order = 0;
  bool can_get_and_set_fmu_state = false;
  bool can_handle_variable_communication_step_size = false;
  std::optional<double> default_step_size;  ///< DefaultExperiment/stepSize
};

/// The capabilities of a co-simulation FMU slave but its input degree (which
/// FMI 2.0 and 3.0 decide differently): output derivatives up to what the FMU
/// provides, rollback when it can save its state, the imposed step of one that
/// cannot vary its step (the scenario's, else the default experiment's).
/// Throws ConfigurationError "slave 'S': FMU 'PATH': why" for a setting the
/// FMU cannot honour.
SlaveCapabilities co_simulation_capabilities(const CoSimulationOffer& offer,
                                             const CapabilityLimits& limits,
                                             const std::string& slave_name,
                                             const std::string& fmu_path);

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
/// outputs with their direct-feedthrough flags; coupled Integer, Enumeration
/// (as Integer) and Boolean inputs and outputs as discrete ports. Throws
/// ConfigurationError for a coupled input that is not an input of the FMU.
struct FmuPorts {
  std::vector<std::size_t> inputs;   ///< variable indices
  std::vector<std::size_t> outputs;  ///< variable indices
  std::vector<OutputDescription> output_descriptions;
  std::vector<std::size_t> discrete_inputs;   ///< variable indices
  std::vector<std::size_t> discrete_outputs;  ///< variable indices
  std::vector<DiscretePortDescription> discrete_input_descriptions;
  std::vector<DiscretePortDescription> discrete_output_descriptions;
};
FmuPorts fmu_ports(const Package& package, const FmuSettings& settings);

class Instance;

/// Discrete ports' values to and from an FMU: fmi2Set/GetInteger for Integer
/// and Enumeration variables, fmi2Set/GetBoolean for Boolean ones, one call per
/// type. Buffers sized at construction: no allocation when exchanging.
class DiscreteExchange {
 public:
  /// `variables`: the ports' variable indices, in port order.
  DiscreteExchange(const Description& description, std::span<const std::size_t> variables);
  /// One value per port. Throws SlaveError for an Integer outside 32 bits.
  void set(const Instance& instance, std::span<const std::int64_t> values, double time);
  void get(const Instance& instance, std::span<std::int64_t> values, double time);

 private:
  std::vector<std::size_t> integer_ports_, boolean_ports_;
  std::vector<fmi2ValueReference> integer_references_, boolean_references_;
  std::vector<std::string> integer_names_;
  std::vector<fmi2Integer> integers_;
  std::vector<fmi2Boolean> booleans_;
};

/// A port's unit as its description carries it. Units label plots only: one
/// the wire protocol cannot carry (too long, control characters) is left out
/// rather than refusing the FMU.
std::string port_unit(const std::string& unit);

/// What the FMU's UnitDefinitions say `unit` is (its BaseUnit); nullopt when
/// they do not define it, or when port_unit leaves the unit out.
std::optional<UnitDefinition> unit_definition(const Description& description,
                                              const std::string& unit);

}  // namespace couplet::models::fmi
