#pragma once
// modelDescription.xml of an FMI 2.0 FMU, parsed into typed values (FMI 2.0
// standard §2.2). Parsed once, with pugixml, when an FMU is opened; every error
// names the file and the XML element or attribute.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "couplet/unit.hpp"
#include "models/fmi/xml_reader.hpp"

namespace couplet::models::fmi {

enum class Causality { parameter, calculated_parameter, input, output, local, independent };
enum class Variability { constant, fixed, tunable, discrete, continuous };
enum class Initial {
  exact,
  approx,
  calculated,
  none
};  ///< none: the attribute is absent and has no default

// Their XML spellings, the same in FMI 2.0 and 3.0.
inline constexpr SpellingTable<Variability, 5> kVariabilitySpellings{{
    {"constant", Variability::constant},
    {"fixed", Variability::fixed},
    {"tunable", Variability::tunable},
    {"discrete", Variability::discrete},
    {"continuous", Variability::continuous},
}};
inline constexpr SpellingTable<Initial, 3> kInitialSpellings{{
    {"exact", Initial::exact},
    {"approx", Initial::approx},
    {"calculated", Initial::calculated},
}};
enum class VariableType { real, integer, boolean, string, enumeration };

/// An <Item> of an Enumeration SimpleType.
struct EnumerationItem {
  std::string name;
  std::int64_t value = 0;
};

struct Variable {
  std::string name;
  unsigned value_reference = 0;
  Causality causality = Causality::local;
  Variability variability = Variability::continuous;
  Initial initial = Initial::none;
  VariableType type = VariableType::real;
  std::optional<double> start;            ///< Real, Integer, Boolean (0/1), Enumeration
  std::optional<std::string> start_text;  ///< String
  std::string unit;                       ///< Real: declaredType's or own unit; may be empty
  std::vector<EnumerationItem> items;     ///< Enumeration: its declaredType's items
  std::string description;
  std::optional<std::size_t>
      derivative;  ///< Real: 1-based index of the state it is the derivative of
};

/// <CoSimulation> (§4.3.1).
struct CoSimulationInterface {
  std::string model_identifier;
  bool needs_execution_tool = false;
  bool can_handle_variable_communication_step_size = false;
  bool can_interpolate_inputs = false;
  int max_output_derivative_order = 0;
  bool can_run_asynchronuously = false;
  bool can_be_instantiated_only_once_per_process = false;
  bool can_not_use_memory_management_functions = false;
  bool can_get_and_set_fmu_state = false;
  bool can_serialize_fmu_state = false;
  bool provides_directional_derivative = false;
};

/// <ModelExchange> (§3.3.1).
struct ModelExchangeInterface {
  std::string model_identifier;
  bool needs_execution_tool = false;
  bool completed_integrator_step_not_needed = false;
  bool can_be_instantiated_only_once_per_process = false;
  bool can_not_use_memory_management_functions = false;
  bool can_get_and_set_fmu_state = false;
  bool can_serialize_fmu_state = false;
  bool provides_directional_derivative = false;
};

/// One <Unknown> of <ModelStructure>: a variable index (0-based into
/// Description::variables) and the indices it depends on. `dependencies`
/// unset: the attribute is absent, i.e. it may depend on every known (§2.2.8).
struct Unknown {
  std::size_t variable = 0;
  std::optional<std::vector<std::size_t>> dependencies;
};

struct DefaultExperiment {
  std::optional<double> start_time, stop_time, tolerance, step_size;
};

struct Description {
  std::string file;  ///< where it was read from, for messages
  std::string fmi_version;
  std::string model_name;
  std::string guid;
  std::string generation_tool;
  std::size_t number_of_event_indicators = 0;
  std::optional<CoSimulationInterface> co_simulation;
  std::optional<ModelExchangeInterface> model_exchange;
  /// <UnitDefinitions>: the units that have a <BaseUnit>, by name.
  std::map<std::string, UnitDefinition, std::less<>> units;
  std::vector<Variable> variables;   ///< in file order; ScalarVariable index i+1 = variables[i]
  std::vector<Unknown> outputs;      ///< <ModelStructure><Outputs>
  std::vector<Unknown> derivatives;  ///< <ModelStructure><Derivatives>, in state order
  std::vector<Unknown> initial_unknowns;
  DefaultExperiment default_experiment;

  /// Index of the variable called `name`, if any.
  std::optional<std::size_t> find(const std::string& name) const;

  /// True when output `variable` (an index into variables) depends directly on
  /// some input (its dependencies list an input, or are absent): direct feedthrough.
  bool has_direct_feedthrough(std::size_t variable) const;

  /// The states of a model-exchange FMU: for each entry of `derivatives`, the
  /// index of the variable it is the derivative of, in state order.
  std::vector<std::size_t> states() const;
};

/// Parses `xml` (the text of modelDescription.xml). `file` names it in messages.
/// Throws ConfigurationError "FILE: ELEMENT: why" for malformed XML, an
/// fmiVersion other than 2.0, a missing GUID or model identifier, a bad value
/// reference, a duplicate variable name, a variable without a type element, an
/// unknown enum value, a ModelStructure index out of range, neither a
/// CoSimulation nor a ModelExchange element. Variables sharing a value reference
/// are aliases (§2.2.7) and are accepted.
Description parse_description(const std::string& xml, const std::string& file);

const char* to_string(Causality causality);
const char* to_string(Variability variability);
const char* to_string(VariableType type);

}  // namespace couplet::models::fmi
