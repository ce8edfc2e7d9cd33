#pragma once
// modelDescription.xml of an FMI 3.0 FMU, parsed into typed values (FMI 3.0
// standard, §2.4 "FMU Description Schema"): the three interfaces, every
// variable type, arrays with their dimensions (fixed, or held by a structural
// parameter), clocks, and the model structure. Variables are found by value
// reference, as FMI 3.0 does. Every error names the file, the element, its line
// and the attribute.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "couplet/unit.hpp"
#include "models/fmi/fmu_description.hpp"

namespace couplet::models::fmi3 {

using fmi::DefaultExperiment;
using fmi::EnumerationItem;
using fmi::Initial;
using fmi::Variability;

enum class Causality {
  parameter,
  calculated_parameter,
  input,
  output,
  local,
  independent,
  structural_parameter
};

/// The element names of <ModelVariables> (§2.4.7.4–§2.4.7.7).
enum class VariableType {
  float32,
  float64,
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  boolean,
  string,
  binary,
  enumeration,
  clock
};

/// How a clock's interval is known (§2.4.7.6 "Clock"): fixed in time
/// (periodic: constant, fixed, tunable), changing, countdown, or triggered
/// (aperiodic: only the FMU or the master knows when it ticks).
enum class IntervalVariability { constant, fixed, tunable, changing, countdown, triggered };

/// One <Dimension> of an array variable: a fixed extent, or the value
/// reference of the UInt64 structural parameter (or constant) that holds it.
struct Dimension {
  std::optional<std::uint64_t> start;
  std::optional<std::uint32_t> value_reference;
};

/// The attributes of a <Clock> (its declared <ClockType>'s, overridden by its own).
struct ClockProperties {
  IntervalVariability interval_variability = IntervalVariability::triggered;
  bool can_be_deactivated = false;
  bool supports_fraction = false;
  std::optional<std::uint32_t> priority;
  std::optional<double> interval_decimal, shift_decimal;
  std::optional<std::uint64_t> resolution, interval_counter, shift_counter;
};

struct Variable {
  std::string name;
  std::uint32_t value_reference = 0;
  Causality causality = Causality::local;
  Variability variability = Variability::continuous;
  Initial initial = Initial::none;
  VariableType type = VariableType::float64;
  std::string description;
  /// Start values as written: none, one (for every element of an array), or
  /// one per element in row-major order; each checked against the type.
  std::vector<std::string> start;
  std::string unit;  ///< Float32/Float64: declaredType's or own unit; may be empty
  std::optional<std::uint32_t> derivative;  ///< Float: value reference of its state
  std::vector<Dimension> dimensions;        ///< empty: a scalar
  std::vector<std::uint32_t> clocks;        ///< value references of the clocks it belongs to
  std::vector<EnumerationItem> items;       ///< Enumeration: its declaredType's items
  std::optional<ClockProperties> clock;     ///< type == clock
  std::vector<std::string> aliases;         ///< <Alias> names
};

/// What the three interfaces share (§2.4.5).
struct InterfaceCapabilities {
  std::string model_identifier;
  bool needs_execution_tool = false;
  bool can_be_instantiated_only_once_per_process = false;
  bool can_get_and_set_fmu_state = false;
  bool can_serialize_fmu_state = false;
  bool provides_directional_derivatives = false;
  bool provides_adjoint_derivatives = false;
  bool provides_per_element_dependencies = false;
};

/// <ModelExchange> (§3.3).
struct ModelExchangeInterface {
  InterfaceCapabilities capabilities;
  bool needs_completed_integrator_step = false;
  bool provides_evaluate_discrete_states = false;
};

/// <CoSimulation> (§4.3).
struct CoSimulationInterface {
  InterfaceCapabilities capabilities;
  bool can_handle_variable_communication_step_size = false;
  std::optional<double> fixed_internal_step_size;
  int max_output_derivative_order = 0;
  int recommended_intermediate_input_smoothness = 0;
  bool provides_intermediate_update = false;
  bool might_return_early_from_do_step = false;
  bool can_return_early_after_intermediate_update = false;
  bool has_event_mode = false;
  bool provides_evaluate_discrete_states = false;
};

/// <ScheduledExecution> (§5.3).
struct ScheduledExecutionInterface {
  InterfaceCapabilities capabilities;
};

/// One entry of <ModelStructure>: a variable (index into Description::variables)
/// and those it depends on; `dependencies` unset: the attribute is absent, it
/// may depend on every known (§2.4.8).
struct Unknown {
  std::size_t variable = 0;
  std::optional<std::vector<std::size_t>> dependencies;
};

struct Description {
  std::string file;  ///< where it was read from, for messages
  std::string fmi_version;
  std::string model_name;
  std::string instantiation_token;
  std::string generation_tool;
  std::optional<ModelExchangeInterface> model_exchange;
  std::optional<CoSimulationInterface> co_simulation;
  std::optional<ScheduledExecutionInterface> scheduled_execution;
  /// <UnitDefinitions>: the units that have a <BaseUnit>, by name.
  std::map<std::string, UnitDefinition, std::less<>> units;
  std::vector<Variable> variables;  ///< in file order
  std::vector<Unknown> outputs;     ///< <ModelStructure><Output>
  std::vector<Unknown> continuous_state_derivatives;
  std::vector<Unknown> clocked_states;
  std::vector<Unknown> initial_unknowns;
  std::vector<Unknown> event_indicators;
  DefaultExperiment default_experiment;

  /// Index of the variable called `name` (or with an alias of that name).
  std::optional<std::size_t> find(const std::string& name) const;
  /// Index of the variable with this value reference.
  std::optional<std::size_t> find(std::uint32_t value_reference) const;

  /// The extent of each dimension of `variable`: a Dimension's start, or the
  /// value of the structural parameter it names — from `structural_values`
  /// (by value reference) where given, else its start. Empty for a scalar.
  std::vector<std::uint64_t> extents(
      const Variable& variable,
      const std::map<std::uint32_t, std::uint64_t>& structural_values = {}) const;
};

/// Parses `xml` (the text of modelDescription.xml). `file` names it in messages.
/// Throws ConfigurationError "FILE: ELEMENT (line N): ATTRIBUTE: why" for
/// malformed XML, an fmiVersion other than 3.x, a missing instantiationToken or
/// model identifier, none of the three interfaces, a duplicate name or value
/// reference, a start value its type cannot hold or of the wrong count for the
/// array, a Dimension that names no UInt64 structural parameter, a clocks,
/// derivative or ModelStructure reference to no fitting variable.
Description parse_description(const std::string& xml, const std::string& file);

/// The fmiVersion of a modelDescription.xml, for choosing its parser. Throws
/// ConfigurationError for malformed XML, another root or no fmiVersion.
std::string declared_fmi_version(const std::string& xml, const std::string& file);

/// A Binary value written as text (a start value, a scenario parameter): its
/// bytes from pairs of hexadecimal digits; nullopt for anything else.
std::optional<std::vector<std::uint8_t>> binary_bytes(std::string_view text);

const char* to_string(Causality causality);
const char* to_string(VariableType type);
const char* to_string(IntervalVariability variability);

}  // namespace couplet::models::fmi3
