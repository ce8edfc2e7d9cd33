#include "models/fmi/fmi3_description.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <pugixml.hpp>
#include <string_view>
#include <utility>

#include "couplet/errors.hpp"
#include "models/fmi/xml_reader.hpp"

namespace couplet::models::fmi3 {
namespace {

using fmi::list_items;
using fmi::single_quoted;
using fmi::SpellingTable;

constexpr SpellingTable<Causality, 7> kCausalities{{
    {"parameter", Causality::parameter},
    {"calculatedParameter", Causality::calculated_parameter},
    {"input", Causality::input},
    {"output", Causality::output},
    {"local", Causality::local},
    {"independent", Causality::independent},
    {"structuralParameter", Causality::structural_parameter},
}};

constexpr SpellingTable<VariableType, 15> kVariableTypes{{
    {"Float32", VariableType::float32},
    {"Float64", VariableType::float64},
    {"Int8", VariableType::int8},
    {"UInt8", VariableType::uint8},
    {"Int16", VariableType::int16},
    {"UInt16", VariableType::uint16},
    {"Int32", VariableType::int32},
    {"UInt32", VariableType::uint32},
    {"Int64", VariableType::int64},
    {"UInt64", VariableType::uint64},
    {"Boolean", VariableType::boolean},
    {"String", VariableType::string},
    {"Binary", VariableType::binary},
    {"Enumeration", VariableType::enumeration},
    {"Clock", VariableType::clock},
}};

constexpr SpellingTable<IntervalVariability, 6> kIntervalVariabilities{{
    {"constant", IntervalVariability::constant},
    {"fixed", IntervalVariability::fixed},
    {"tunable", IntervalVariability::tunable},
    {"changing", IntervalVariability::changing},
    {"countdown", IntervalVariability::countdown},
    {"triggered", IntervalVariability::triggered},
}};

bool is_float(VariableType type) {
  return type == VariableType::float32 || type == VariableType::float64;
}

/// Does `text` hold a value of `type`? Floats: any xs:double (FMI 3.0 allows
/// INF and NaN, §2.4.7.5); integers: within the type's range; Binary: hex digits.
bool holds_value(VariableType type, std::string_view text) {
  switch (type) {
    case VariableType::float32:
    case VariableType::float64:
      return fmi::parse_finite_double(text) || text == "INF" || text == "-INF" || text == "NaN";
    case VariableType::int8:
      return fmi::parse_integer<std::int8_t>(text).has_value();
    case VariableType::uint8:
      return fmi::parse_integer<std::uint8_t>(text).has_value();
    case VariableType::int16:
      return fmi::parse_integer<std::int16_t>(text).has_value();
    case VariableType::uint16:
      return fmi::parse_integer<std::uint16_t>(text).has_value();
    case VariableType::int32:
      return fmi::parse_integer<std::int32_t>(text).has_value();
    case VariableType::uint32:
      return fmi::parse_integer<std::uint32_t>(text).has_value();
    case VariableType::int64:
    case VariableType::enumeration:
      return fmi::parse_integer<std::int64_t>(text).has_value();
    case VariableType::uint64:
      return fmi::parse_integer<std::uint64_t>(text).has_value();
    case VariableType::boolean:
      return fmi::parse_boolean(text).has_value();
    case VariableType::string:
      return true;
    case VariableType::binary:
      return binary_bytes(text).has_value();
    case VariableType::clock:
      return false;
  }
  return false;
}

/// The <TypeDefinitions> a variable's declaredType can name: Float32Type for a
/// Float32, and so on.
std::string type_definition_name(VariableType type) {
  return std::string(fmi::spelling_of(kVariableTypes, type)) + "Type";
}

class DescriptionParser : fmi::XmlReader {
 public:
  using XmlReader::XmlReader;

  Description parse() {
    const pugi::xml_node root = load_root();
    Description description;
    description.file = file();
    parse_root_attributes(root, description);
    parse_interfaces(root, description);
    if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
      const std::string where = element(experiment);
      DefaultExperiment& values = description.default_experiment;
      values.start_time = optional_double(experiment, "startTime", where);
      values.stop_time = optional_double(experiment, "stopTime", where);
      values.tolerance = optional_double(experiment, "tolerance", where);
      values.step_size = optional_double(experiment, "stepSize", where);
    }
    description.units = unit_definitions(root.child("UnitDefinitions"));
    parse_type_definitions(root.child("TypeDefinitions"));
    parse_variables(root.child("ModelVariables"), description);
    check_references(description);
    parse_model_structure(root.child("ModelStructure"), description);
    return description;
  }

  std::string version() {
    const pugi::xml_node root = load_root();
    return required_text(root, "fmiVersion", element(root));
  }

 private:
  void parse_root_attributes(pugi::xml_node root, Description& description) const {
    const std::string where = element(root);
    description.fmi_version = required_text(root, "fmiVersion", where);
    if (description.fmi_version.rfind("3.", 0) != 0) {
      fail(where, "fmiVersion",
           "not FMI 3.0 but FMI " + single_quoted(description.fmi_version) +
               " (couplet reads FMI 2.0 and 3.0)");
    }
    description.model_name = required_text(root, "modelName", where);
    description.instantiation_token = required_text(root, "instantiationToken", where);
    if (description.instantiation_token.empty()) fail(where, "instantiationToken", "empty");
    description.generation_tool = std::string(attribute_text(root, "generationTool").value_or(""));
  }

  InterfaceCapabilities capabilities(pugi::xml_node node, const std::string& where) const {
    InterfaceCapabilities result;
    result.model_identifier = model_identifier(node, where);
    result.needs_execution_tool = flag(node, "needsExecutionTool", where);
    result.can_be_instantiated_only_once_per_process =
        flag(node, "canBeInstantiatedOnlyOncePerProcess", where);
    result.can_get_and_set_fmu_state = flag(node, "canGetAndSetFMUState", where);
    result.can_serialize_fmu_state = flag(node, "canSerializeFMUState", where);
    result.provides_directional_derivatives = flag(node, "providesDirectionalDerivatives", where);
    result.provides_adjoint_derivatives = flag(node, "providesAdjointDerivatives", where);
    result.provides_per_element_dependencies = flag(node, "providesPerElementDependencies", where);
    return result;
  }

  int small_count(pugi::xml_node node, const char* name, const std::string& where) const {
    const unsigned value = optional_integer<unsigned>(node, name, where).value_or(0);
    if (value > static_cast<unsigned>(std::numeric_limits<int>::max()))
      fail(where, name, "too large: " + std::to_string(value));
    return static_cast<int>(value);
  }

  void parse_interfaces(pugi::xml_node root, Description& description) const {
    if (const pugi::xml_node node = unique_child(root, "ModelExchange")) {
      const std::string where = element(node);
      ModelExchangeInterface& me = description.model_exchange.emplace();
      me.capabilities = capabilities(node, where);
      me.needs_completed_integrator_step = flag(node, "needsCompletedIntegratorStep", where);
      me.provides_evaluate_discrete_states = flag(node, "providesEvaluateDiscreteStates", where);
    }
    if (const pugi::xml_node node = unique_child(root, "CoSimulation")) {
      const std::string where = element(node);
      CoSimulationInterface& cs = description.co_simulation.emplace();
      cs.capabilities = capabilities(node, where);
      cs.can_handle_variable_communication_step_size =
          flag(node, "canHandleVariableCommunicationStepSize", where);
      cs.fixed_internal_step_size = optional_double(node, "fixedInternalStepSize", where);
      if (cs.fixed_internal_step_size && *cs.fixed_internal_step_size <= 0.0)
        fail(where, "fixedInternalStepSize", "not positive");
      cs.max_output_derivative_order = small_count(node, "maxOutputDerivativeOrder", where);
      cs.recommended_intermediate_input_smoothness =
          small_count(node, "recommendedIntermediateInputSmoothness", where);
      cs.provides_intermediate_update = flag(node, "providesIntermediateUpdate", where);
      cs.might_return_early_from_do_step = flag(node, "mightReturnEarlyFromDoStep", where);
      cs.can_return_early_after_intermediate_update =
          flag(node, "canReturnEarlyAfterIntermediateUpdate", where);
      cs.has_event_mode = flag(node, "hasEventMode", where);
      cs.provides_evaluate_discrete_states = flag(node, "providesEvaluateDiscreteStates", where);
    }
    if (const pugi::xml_node node = unique_child(root, "ScheduledExecution")) {
      description.scheduled_execution.emplace().capabilities = capabilities(node, element(node));
    }
    if (!description.model_exchange && !description.co_simulation &&
        !description.scheduled_execution) {
      fail(element(root),
           "none of ModelExchange, CoSimulation and ScheduledExecution: the FMU offers no "
           "interface");
    }
  }

  /// <TypeDefinitions> (§2.4.4): Float64Type, EnumerationType, ClockType, ...;
  /// kept as nodes, read when a variable names one.
  void parse_type_definitions(pugi::xml_node definitions) {
    for (const pugi::xml_node type : definitions.children()) {
      if (type.type() != pugi::node_element) continue;
      const std::string where = element(type);
      const std::string name = required_text(type, "name", where);
      if (!type_definitions_.emplace(name, type).second)
        fail(where, "name", "a second type definition called " + single_quoted(name));
    }
  }

  std::vector<EnumerationItem> enumeration_items(pugi::xml_node type,
                                                 const std::string& type_where) const {
    std::vector<EnumerationItem> items;
    for (const pugi::xml_node item : type.children("Item")) {
      const std::string where = type_where + ": " + element(item);
      const std::string name = required_text(item, "name", where);
      const auto value = optional_integer<std::int64_t>(item, "value", where);
      if (!value) fail(where, "value", "missing (required)");
      items.push_back({name, *value});
    }
    return items;
  }

  /// Clock attributes of `node` over `base` (the declared type's).
  ClockProperties clock_properties(pugi::xml_node node, const std::string& where,
                                   ClockProperties base) const {
    if (const auto variability =
            optional_enum(node, "intervalVariability", kIntervalVariabilities, where))
      base.interval_variability = *variability;
    if (attribute_text(node, "canBeDeactivated"))
      base.can_be_deactivated = flag(node, "canBeDeactivated", where);
    if (attribute_text(node, "supportsFraction"))
      base.supports_fraction = flag(node, "supportsFraction", where);
    if (const auto value = optional_integer<std::uint32_t>(node, "priority", where))
      base.priority = value;
    if (const auto value = optional_double(node, "intervalDecimal", where)) {
      if (*value <= 0.0) fail(where, "intervalDecimal", "not positive");
      base.interval_decimal = value;
    }
    if (const auto value = optional_double(node, "shiftDecimal", where)) base.shift_decimal = value;
    if (const auto value = optional_integer<std::uint64_t>(node, "resolution", where))
      base.resolution = value;
    if (const auto value = optional_integer<std::uint64_t>(node, "intervalCounter", where))
      base.interval_counter = value;
    if (const auto value = optional_integer<std::uint64_t>(node, "shiftCounter", where))
      base.shift_counter = value;
    return base;
  }

  /// declaredType: the unit, items and clock attributes a variable inherits.
  void apply_declared_type(pugi::xml_node node, const std::string& where, Variable& variable) {
    const auto name = attribute_text(node, "declaredType");
    if (!name) return;
    const auto definition = type_definitions_.find(*name);
    if (definition == type_definitions_.end()) {
      fail(where, "declaredType",
           "no type definition " + single_quoted(*name) + " in TypeDefinitions");
    }
    const pugi::xml_node type = definition->second;
    const std::string expected = type_definition_name(variable.type);
    if (type.name() != expected) {
      fail(where, "declaredType",
           single_quoted(*name) + " is a " + type.name() + ", not a " + expected);
    }
    const std::string type_where = element(type);
    variable.unit = std::string(attribute_text(type, "unit").value_or(""));
    if (variable.type == VariableType::enumeration)
      variable.items = enumeration_items(type, type_where);
    if (variable.type == VariableType::clock)
      variable.clock = clock_properties(type, type_where, ClockProperties{});
  }

  /// Value references from a list attribute (clocks, dependencies).
  std::vector<std::uint32_t> references(pugi::xml_node node, const char* name,
                                        const std::string& where) const {
    std::vector<std::uint32_t> result;
    const auto text = attribute_text(node, name);
    if (!text) return result;
    for (const std::string_view item : list_items(*text)) {
      const auto reference = fmi::parse_integer<std::uint32_t>(item);
      if (!reference) fail(where, name, "not a value reference " + single_quoted(item));
      result.push_back(*reference);
    }
    return result;
  }

  void parse_start(pugi::xml_node node, const std::string& where, Variable& variable) const {
    if (variable.type == VariableType::string || variable.type == VariableType::binary) {
      for (const pugi::xml_node start : node.children("Start")) {
        variable.start.push_back(required_text(start, "value", where + ": " + element(start)));
      }
    } else if (const auto text = attribute_text(node, "start")) {
      if (variable.type == VariableType::clock) fail(where, "start", "a Clock has no start value");
      for (const std::string_view item : list_items(*text)) variable.start.emplace_back(item);
      if (variable.start.empty()) fail(where, "start", "empty");
    }
    for (const std::string& value : variable.start) {
      if (!holds_value(variable.type, value)) {
        fail(where, "start",
             single_quoted(value) + " is not a " + fmi::spelling_of(kVariableTypes, variable.type) +
                 (variable.type == VariableType::binary ? " (pairs of hexadecimal digits)" : ""));
      }
    }
  }

  void parse_dimensions(pugi::xml_node node, const std::string& where, Variable& variable) const {
    for (const pugi::xml_node child : node.children("Dimension")) {
      const std::string dimension_where = where + ": " + element(child);
      Dimension dimension;
      dimension.start = optional_integer<std::uint64_t>(child, "start", dimension_where);
      dimension.value_reference =
          optional_integer<std::uint32_t>(child, "valueReference", dimension_where);
      if (dimension.start.has_value() == dimension.value_reference.has_value()) {
        fail(dimension_where,
             "needs exactly one of start (a fixed extent) and valueReference (a structural "
             "parameter)");
      }
      variable.dimensions.push_back(dimension);
    }
  }

  void parse_variables(pugi::xml_node list, Description& description) {
    std::map<std::string, std::size_t, std::less<>> index_by_name;
    std::map<std::uint32_t, std::size_t> index_by_reference;
    const auto claim_name = [&](const std::string& name, const std::string& where) {
      const auto [previous, inserted] = index_by_name.emplace(name, description.variables.size());
      if (!inserted) {
        fail(where, "name",
             single_quoted(name) + " is already the name of " +
                 element(variable_nodes_[previous->second]));
      }
    };
    for (const pugi::xml_node node : list.children()) {
      if (node.type() != pugi::node_element) continue;
      const auto type = fmi::value_of(kVariableTypes, node.name());
      if (!type) {
        fail(element(node),
             "not a variable type (expected one of " + fmi::list_of(kVariableTypes) + ")");
      }
      Variable variable;
      variable.type = *type;
      variable.name = required_text(node, "name", element(node));
      const std::string where =
          element(node, std::string(node.name()) + " " + single_quoted(variable.name));
      claim_name(variable.name, where);
      const auto reference = optional_integer<std::uint32_t>(node, "valueReference", where);
      if (!reference) fail(where, "valueReference", "missing (required)");
      variable.value_reference = *reference;
      if (const auto [previous, inserted] =
              index_by_reference.emplace(*reference, description.variables.size());
          !inserted) {
        fail(where, "valueReference",
             std::to_string(*reference) + " is already the value reference of " +
                 element(variable_nodes_[previous->second],
                         std::string(variable_nodes_[previous->second].name()) + " " +
                             single_quoted(description.variables[previous->second].name)));
      }
      variable.causality =
          optional_enum(node, "causality", kCausalities, where).value_or(Causality::local);
      variable.variability =
          optional_enum(node, "variability", fmi::kVariabilitySpellings, where)
              .value_or(is_float(variable.type) ? Variability::continuous : Variability::discrete);
      if (!is_float(variable.type) && variable.variability == Variability::continuous) {
        fail(where, "variability", "continuous, but only a Float32 or Float64 can be");
      }
      variable.initial =
          optional_enum(node, "initial", fmi::kInitialSpellings, where).value_or(Initial::none);
      variable.description = std::string(attribute_text(node, "description").value_or(""));
      apply_declared_type(node, where, variable);
      if (is_float(variable.type)) {
        if (const auto unit = attribute_text(node, "unit")) variable.unit = std::string(*unit);
        variable.derivative = optional_integer<std::uint32_t>(node, "derivative", where);
      }
      if (variable.type == VariableType::clock) {
        variable.clock = clock_properties(node, where, variable.clock.value_or(ClockProperties{}));
        if (!attribute_text(node, "intervalVariability") &&
            !attribute_text(type_definitions_node(node), "intervalVariability")) {
          fail(where, "intervalVariability", "missing (required for a Clock)");
        }
      }
      variable.clocks = references(node, "clocks", where);
      parse_start(node, where, variable);
      parse_dimensions(node, where, variable);
      if (variable.dimensions.empty() && variable.start.size() > 1) {
        fail(where, "start",
             std::to_string(variable.start.size()) + " values for a scalar (no Dimension)");
      }
      for (const pugi::xml_node alias : node.children("Alias")) {
        const std::string alias_where = where + ": " + element(alias);
        std::string name = required_text(alias, "name", alias_where);
        claim_name(name, alias_where);
        variable.aliases.push_back(std::move(name));
      }
      description.variables.push_back(std::move(variable));
      variable_nodes_.push_back(node);
    }
  }

  /// The declared type's node of a variable's element, or a null node.
  pugi::xml_node type_definitions_node(pugi::xml_node node) const {
    const auto name = attribute_text(node, "declaredType");
    if (!name) return {};
    const auto definition = type_definitions_.find(*name);
    return definition == type_definitions_.end() ? pugi::xml_node() : definition->second;
  }

  std::string variable_where(const Description& description, std::size_t index) const {
    return element(variable_nodes_[index], std::string(variable_nodes_[index].name()) + " " +
                                               single_quoted(description.variables[index].name));
  }

  /// What a value reference in `attribute` names, or a failure.
  const Variable& referenced(const Description& description, std::uint32_t reference,
                             const std::string& where, const char* attribute) const {
    const auto index = description.find(reference);
    if (!index) fail(where, attribute, std::to_string(reference) + " names no variable");
    return description.variables[*index];
  }

  /// References between variables, checked once all are read (a variable may
  /// name one declared after it), and the count of array start values.
  void check_references(const Description& description) const {
    for (std::size_t index = 0; index < description.variables.size(); ++index) {
      const Variable& variable = description.variables[index];
      const std::string where = variable_where(description, index);
      for (const Dimension& dimension : variable.dimensions) {
        if (!dimension.value_reference) continue;
        const Variable& size =
            referenced(description, *dimension.value_reference, where, "Dimension valueReference");
        const bool structural = size.causality == Causality::structural_parameter ||
                                size.variability == Variability::constant;
        if (size.type != VariableType::uint64 || !structural || size.start.size() != 1) {
          fail(where, "Dimension valueReference",
               std::to_string(*dimension.value_reference) + " names " + single_quoted(size.name) +
                   ", which is not a scalar UInt64 structural parameter or constant with a start "
                   "value");
        }
      }
      for (const std::uint32_t clock : variable.clocks) {
        if (referenced(description, clock, where, "clocks").type != VariableType::clock)
          fail(where, "clocks", std::to_string(clock) + " names a variable that is not a Clock");
      }
      if (variable.derivative &&
          !is_float(referenced(description, *variable.derivative, where, "derivative").type)) {
        fail(where, "derivative",
             std::to_string(*variable.derivative) + " names a variable that is not a Float");
      }
      if (variable.dimensions.empty() || variable.start.size() <= 1) continue;
      std::uint64_t elements = 1;
      for (const std::uint64_t extent : description.extents(variable)) {
        elements = extent != 0 && elements > std::numeric_limits<std::uint64_t>::max() / extent
                       ? std::numeric_limits<std::uint64_t>::max()
                       : elements * extent;
      }
      if (variable.start.size() != elements) {
        fail(where, "start",
             std::to_string(variable.start.size()) + " values for " + std::to_string(elements) +
                 " elements (give one for all, or one per element)");
      }
    }
  }

  std::vector<Unknown> parse_unknowns(pugi::xml_node structure, const char* name,
                                      const Description& description) const {
    std::vector<Unknown> unknowns;
    for (const pugi::xml_node node : structure.children(name)) {
      const std::string where = element(node, "ModelStructure/" + std::string(name));
      const auto reference = optional_integer<std::uint32_t>(node, "valueReference", where);
      if (!reference) fail(where, "valueReference", "missing (required)");
      const auto index = description.find(*reference);
      if (!index) fail(where, "valueReference", std::to_string(*reference) + " names no variable");
      Unknown unknown{*index, std::nullopt};
      if (attribute_text(node, "dependencies")) {
        std::vector<std::size_t>& dependencies = unknown.dependencies.emplace();
        for (const std::uint32_t dependency : references(node, "dependencies", where)) {
          const auto known = description.find(dependency);
          if (!known)
            fail(where, "dependencies", std::to_string(dependency) + " names no variable");
          dependencies.push_back(*known);
        }
      }
      unknowns.push_back(std::move(unknown));
    }
    return unknowns;
  }

  void parse_model_structure(pugi::xml_node structure, Description& description) const {
    description.outputs = parse_unknowns(structure, "Output", description);
    description.continuous_state_derivatives =
        parse_unknowns(structure, "ContinuousStateDerivative", description);
    description.clocked_states = parse_unknowns(structure, "ClockedState", description);
    description.initial_unknowns = parse_unknowns(structure, "InitialUnknown", description);
    description.event_indicators = parse_unknowns(structure, "EventIndicator", description);
    const auto nodes = [&structure](const char* name) {
      std::vector<pugi::xml_node> result;
      for (const pugi::xml_node node : structure.children(name)) result.push_back(node);
      return result;
    };
    const std::vector<pugi::xml_node> outputs = nodes("Output");
    for (std::size_t k = 0; k < description.outputs.size(); ++k) {
      const Variable& variable = description.variables[description.outputs[k].variable];
      if (variable.causality != Causality::output) {
        fail(element(outputs[k], "ModelStructure/Output"), "valueReference",
             "names " + single_quoted(variable.name) + ", whose causality is " +
                 to_string(variable.causality) + ", not output");
      }
    }
    const std::vector<pugi::xml_node> derivatives = nodes("ContinuousStateDerivative");
    for (std::size_t k = 0; k < description.continuous_state_derivatives.size(); ++k) {
      const Variable& variable =
          description.variables[description.continuous_state_derivatives[k].variable];
      if (!is_float(variable.type) || !variable.derivative) {
        fail(element(derivatives[k], "ModelStructure/ContinuousStateDerivative"), "valueReference",
             "names " + single_quoted(variable.name) +
                 ", which is not a Float with a derivative attribute");
      }
    }
  }

  std::map<std::string, pugi::xml_node, std::less<>> type_definitions_;
  std::vector<pugi::xml_node> variable_nodes_;  ///< parallel to Description::variables
};

}  // namespace

std::optional<std::vector<std::uint8_t>> binary_bytes(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> bytes(text.size() / 2);
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    const char* pair = text.data() + 2 * k;
    // from_chars alone would take a sign or a 0x prefix; only digits are meant.
    if (!std::isxdigit(static_cast<unsigned char>(pair[0])) ||
        !std::isxdigit(static_cast<unsigned char>(pair[1])))
      return std::nullopt;
    std::from_chars(pair, pair + 2, bytes[k], 16);
  }
  return bytes;
}

std::optional<std::size_t> Description::find(const std::string& name) const {
  const auto variable =
      std::find_if(variables.begin(), variables.end(), [&name](const Variable& v) {
        return v.name == name ||
               std::find(v.aliases.begin(), v.aliases.end(), name) != v.aliases.end();
      });
  if (variable == variables.end()) return std::nullopt;
  return static_cast<std::size_t>(variable - variables.begin());
}

std::optional<std::size_t> Description::find(std::uint32_t value_reference) const {
  const auto variable = std::find_if(
      variables.begin(), variables.end(),
      [value_reference](const Variable& v) { return v.value_reference == value_reference; });
  if (variable == variables.end()) return std::nullopt;
  return static_cast<std::size_t>(variable - variables.begin());
}

std::vector<std::uint64_t> Description::extents(
    const Variable& variable,
    const std::map<std::uint32_t, std::uint64_t>& structural_values) const {
  std::vector<std::uint64_t> result;
  for (const Dimension& dimension : variable.dimensions) {
    if (dimension.start) {
      result.push_back(*dimension.start);
      continue;
    }
    if (const auto given = structural_values.find(*dimension.value_reference);
        given != structural_values.end()) {
      result.push_back(given->second);
      continue;
    }
    // parse_description has checked that the reference names a UInt64 with one start value.
    const auto index = find(*dimension.value_reference);
    const Variable* size = index ? &variables[*index] : nullptr;
    const auto extent = size && size->start.size() == 1
                            ? fmi::parse_integer<std::uint64_t>(size->start.front())
                            : std::nullopt;
    if (!extent) {
      throw ConfigurationError(file + ": " + single_quoted(variable.name) +
                               ": a Dimension names no UInt64 structural parameter with a start");
    }
    result.push_back(*extent);
  }
  return result;
}

Description parse_description(const std::string& xml, const std::string& file) {
  return DescriptionParser(xml, file).parse();
}

std::string declared_fmi_version(const std::string& xml, const std::string& file) {
  return DescriptionParser(xml, file).version();
}

const char* to_string(Causality causality) {
  return fmi::spelling_of(kCausalities, causality);
}
const char* to_string(VariableType type) {
  return fmi::spelling_of(kVariableTypes, type);
}
const char* to_string(IntervalVariability variability) {
  return fmi::spelling_of(kIntervalVariabilities, variability);
}

}  // namespace couplet::models::fmi3
