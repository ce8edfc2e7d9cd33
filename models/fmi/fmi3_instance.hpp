#pragma once
// What couplet's FMI 3.0 co-simulation slave and model-exchange model share:
// the instance's bounded log, the ports (scalar variables and array elements,
// fmi3_elements.hpp) with their couplet descriptions, the scenario's
// parameters set before initialization, and the status checks.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmi3_package.hpp"
#include "models/fmi/fmu_slaves.hpp"

namespace couplet::models::fmi3 {

const char* to_string(fmi3Status status);

/// The FMU's recent log lines, kept by its logger callback in a fixed ring
/// (the callback runs on the stepping thread: no allocation, no I/O).
struct LogRing {
  static constexpr std::size_t kLines = 8;
  static constexpr std::size_t kLength = 240;
  std::array<std::array<char, kLength>, kLines> lines{};
  std::size_t written = 0;
  /// The owner, for its other callbacks: the instance has one environment
  /// pointer (this ring) for all of them.
  void* context = nullptr;

  /// fmi3LogMessageCallback; `environment` is the ring.
  static void log(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category,
                  fmi3String message);

  /// "; FMU log: [fmi3Error logStatusError] why" for each line kept.
  std::string recent() const;
};

[[noreturn]] void configuration_error(const fmi::FmuSettings& settings, const Package& package,
                                      const std::string& why);

/// Throws for a status other than fmi3OK and fmi3Warning: ConfigurationError
/// "slave 'S': FMU 'P': CALL returned fmi3Error; FMU log: ..." while setting
/// up (`time` unset), SlaveError "... returned fmi3Error at t = T s ..." after.
void check_status(fmi3Status status, const char* call, std::optional<double> time,
                  const std::string& slave_name, const Package& package, const LogRing& log);

/// What an event iteration ended with.
struct EventOutcome {
  bool states_changed = false;       ///< valuesOfContinuousStatesChanged, at any call
  bool terminate = false;            ///< terminateSimulation
  std::optional<double> next_event;  ///< nextEventTime, when defined at the last call
};

/// Event Mode's iteration (§3.2.2; §4.2.5 for co-simulation): calls
/// fmi3UpdateDiscreteStates until the FMU settles or asks to terminate.
/// Throws SlaveError when it has not settled after 100 calls, naming the time.
EventOutcome update_discrete_states(const Functions& functions, fmi3Instance instance, double t,
                                    const std::string& slave_name, const Package& package,
                                    const LogRing& log);

/// The arrays as the scenario sizes them (its structural parameters). Throws
/// ConfigurationError for a structural parameter it cannot set.
ArrayLayout array_layout(const Package& package, const fmi::FmuSettings& settings);

/// The elements of each kind of port, in port order: every numeric input (the
/// coupled ones, when the settings list them) and output.
struct PortElements {
  std::vector<Element> inputs, outputs, discrete_inputs, discrete_outputs;
};

/// Throws ConfigurationError for a coupled input that is no numeric input.
PortElements port_elements(const Package& package, const fmi::FmuSettings& settings,
                           const ArrayLayout& layout);

/// The ports as couplet describes them: names, units, feedthrough, and the
/// discrete inputs' values while unconnected.
struct PortDescriptions {
  std::vector<InputDescription> inputs;
  std::vector<OutputDescription> outputs;
  std::vector<DiscretePortDescription> discrete_inputs, discrete_outputs;
};

PortDescriptions describe_ports(const Package& package, const ArrayLayout& layout,
                                const PortElements& ports, const fmi::FmuSettings& settings);

/// The scenario's parameters, on an instance that is Instantiated: structural
/// ones in Configuration Mode (they have sized `layout` already), then the
/// others, every element of a type in one call (an array moves whole). Throws
/// ConfigurationError naming the parameter or the failed call.
void set_start_values(const Package& package, fmi3Instance instance, const ArrayLayout& layout,
                      const fmi::FmuSettings& settings, const LogRing& log);

}  // namespace couplet::models::fmi3
