#include "models/fmi/fmu_description.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <pugixml.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet::models::fmi {

namespace {

// The XML spellings (FMI 2.0 §2.2.7), one table per enum: the parser and
// to_string read the same table, so they cannot disagree.
constexpr SpellingTable<Causality, 6> kCausalities{{
    {"parameter", Causality::parameter},
    {"calculatedParameter", Causality::calculated_parameter},
    {"input", Causality::input},
    {"output", Causality::output},
    {"local", Causality::local},
    {"independent", Causality::independent},
}};

// Element names of the type child of a ScalarVariable (§2.2.7).
constexpr SpellingTable<VariableType, 5> kVariableTypes{{
    {"Real", VariableType::real},
    {"Integer", VariableType::integer},
    {"Boolean", VariableType::boolean},
    {"String", VariableType::string},
    {"Enumeration", VariableType::enumeration},
}};

class DescriptionParser : XmlReader {
 public:
  using XmlReader::XmlReader;

  Description parse() {
    const pugi::xml_node root = load_root();
    Description description;
    description.file = file();
    parse_root_attributes(root, description);
    parse_interfaces(root, description);
    if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
      parse_default_experiment(experiment, description.default_experiment);
    }
    description.units = unit_definitions(root.child("UnitDefinitions"));
    parse_type_definitions(root.child("TypeDefinitions"));
    parse_variables(root.child("ModelVariables"), description);
    parse_model_structure(root.child("ModelStructure"), description);
    return description;
  }

 private:
  void parse_root_attributes(pugi::xml_node root, Description& description) const {
    const std::string where = element(root);
    description.fmi_version = required_text(root, "fmiVersion", where);
    // Checked first: an FMI 1.0 or 3.0 file fails every later check for reasons
    // that would only hide the real one.
    if (description.fmi_version != "2.0") {
      fail(where, "fmiVersion",
           "not FMI 2.0 but FMI " + single_quoted(description.fmi_version) +
               " (couplet reads FMI 2.0 and 3.0)");
    }
    description.model_name = std::string(attribute_text(root, "modelName").value_or(""));
    description.guid = required_text(root, "guid", where);
    if (description.guid.empty()) fail(where, "guid", "empty");
    description.generation_tool = std::string(attribute_text(root, "generationTool").value_or(""));
    description.number_of_event_indicators =
        optional_integer<std::size_t>(root, "numberOfEventIndicators", where).value_or(0);
  }

  void parse_interfaces(pugi::xml_node root, Description& description) const {
    if (const pugi::xml_node node = unique_child(root, "CoSimulation")) {
      const std::string where = element(node);
      CoSimulationInterface& cs = description.co_simulation.emplace();
      cs.model_identifier = model_identifier(node, where);
      cs.needs_execution_tool = flag(node, "needsExecutionTool", where);
      cs.can_handle_variable_communication_step_size =
          flag(node, "canHandleVariableCommunicationStepSize", where);
      cs.can_interpolate_inputs = flag(node, "canInterpolateInputs", where);
      const unsigned order =
          optional_integer<unsigned>(node, "maxOutputDerivativeOrder", where).value_or(0);
      if (order > static_cast<unsigned>(std::numeric_limits<int>::max())) {
        fail(where, "maxOutputDerivativeOrder", "too large: " + std::to_string(order));
      }
      cs.max_output_derivative_order = static_cast<int>(order);
      // "Asynchronuously" is the standard's spelling.
      cs.can_run_asynchronuously = flag(node, "canRunAsynchronuously", where);
      cs.can_be_instantiated_only_once_per_process =
          flag(node, "canBeInstantiatedOnlyOncePerProcess", where);
      cs.can_not_use_memory_management_functions =
          flag(node, "canNotUseMemoryManagementFunctions", where);
      cs.can_get_and_set_fmu_state = flag(node, "canGetAndSetFMUstate", where);
      cs.can_serialize_fmu_state = flag(node, "canSerializeFMUstate", where);
      cs.provides_directional_derivative = flag(node, "providesDirectionalDerivative", where);
    }
    if (const pugi::xml_node node = unique_child(root, "ModelExchange")) {
      const std::string where = element(node);
      ModelExchangeInterface& me = description.model_exchange.emplace();
      me.model_identifier = model_identifier(node, where);
      me.needs_execution_tool = flag(node, "needsExecutionTool", where);
      me.completed_integrator_step_not_needed =
          flag(node, "completedIntegratorStepNotNeeded", where);
      me.can_be_instantiated_only_once_per_process =
          flag(node, "canBeInstantiatedOnlyOncePerProcess", where);
      me.can_not_use_memory_management_functions =
          flag(node, "canNotUseMemoryManagementFunctions", where);
      me.can_get_and_set_fmu_state = flag(node, "canGetAndSetFMUstate", where);
      me.can_serialize_fmu_state = flag(node, "canSerializeFMUstate", where);
      me.provides_directional_derivative = flag(node, "providesDirectionalDerivative", where);
    }
    if (!description.co_simulation && !description.model_exchange) {
      fail(element(root),
           "neither a CoSimulation nor a ModelExchange element: the FMU offers "
           "no interface couplet can use");
    }
  }

  void parse_default_experiment(pugi::xml_node node, DefaultExperiment& experiment) const {
    const std::string where = element(node);
    experiment.start_time = optional_double(node, "startTime", where);
    experiment.stop_time = optional_double(node, "stopTime", where);
    experiment.tolerance = optional_double(node, "tolerance", where);
    experiment.step_size = optional_double(node, "stepSize", where);
  }

  void parse_type_definitions(pugi::xml_node definitions) {
    for (const pugi::xml_node type : definitions.children("SimpleType")) {
      const std::string where = element(type);
      const std::string name = required_text(type, "name", where);
      const pugi::xml_node real = type.child("Real");
      const std::string unit = real ? std::string(real.attribute("unit").value()) : std::string();
      if (!simple_type_units_.emplace(name, unit).second) {
        fail(where, "name", "a second SimpleType called " + single_quoted(name));
      }
      if (const pugi::xml_node enumeration = type.child("Enumeration"))
        simple_type_items_[name] = enumeration_items(enumeration, where);
    }
  }

  std::vector<EnumerationItem> enumeration_items(pugi::xml_node enumeration,
                                                 const std::string& type_where) const {
    std::vector<EnumerationItem> items;
    for (const pugi::xml_node item : enumeration.children("Item")) {
      const std::string where = type_where + ": " + element(item);
      const std::string name = required_text(item, "name", where);
      const auto value = optional_integer<int>(item, "value", where);
      if (!value) fail(where, "value", "missing (required)");
      items.push_back({name, *value});
    }
    return items;
  }

  /// The one type element (Real, Integer, ...) of a ScalarVariable.
  pugi::xml_node type_element(pugi::xml_node scalar, const std::string& where) const {
    pugi::xml_node found;
    for (const pugi::xml_node child : scalar.children()) {
      if (child.type() != pugi::node_element || !value_of(kVariableTypes, child.name())) continue;
      if (found) {
        fail(where, "two type elements (" + std::string(found.name()) + " and " + child.name() +
                        "); a ScalarVariable has exactly one");
      }
      found = child;
    }
    if (!found) fail(where, "no type element (expected one of " + list_of(kVariableTypes) + ")");
    return found;
  }

  void parse_type(pugi::xml_node node, const std::string& variable_where,
                  Variable& variable) const {
    variable.type = *value_of(kVariableTypes, node.name());
    const std::string where = variable_where + ": " + node.name();
    std::string declared_unit;
    if (const auto declared_type = attribute_text(node, "declaredType")) {
      const auto type = simple_type_units_.find(*declared_type);
      if (type == simple_type_units_.end()) {
        fail(where, "declaredType",
             "no SimpleType " + single_quoted(*declared_type) + " in TypeDefinitions");
      }
      declared_unit = type->second;
      if (const auto items = simple_type_items_.find(*declared_type);
          items != simple_type_items_.end() && variable.type == VariableType::enumeration) {
        variable.items = items->second;
      }
    }
    switch (variable.type) {
      case VariableType::real:
        variable.start = optional_double(node, "start", where);
        variable.unit = std::string(attribute_text(node, "unit").value_or(declared_unit));
        variable.derivative = optional_integer<std::size_t>(node, "derivative", where);
        if (variable.derivative == std::size_t{0}) {
          fail(where, "derivative", "0 is not a ScalarVariable index (they start at 1)");
        }
        break;
      case VariableType::integer:
      case VariableType::enumeration:
        if (const auto start = optional_integer<int>(node, "start", where)) variable.start = *start;
        break;
      case VariableType::boolean:
        if (const auto text = attribute_text(node, "start")) {
          const auto start = parse_boolean(*text);
          if (!start) fail(where, "start", "not a boolean " + single_quoted(*text));
          variable.start = *start ? 1.0 : 0.0;
        }
        break;
      case VariableType::string:
        if (const auto text = attribute_text(node, "start"))
          variable.start_text = std::string(*text);
        break;
    }
  }

  void parse_variables(pugi::xml_node list, Description& description) {
    std::map<std::string, std::size_t, std::less<>> index_by_name;
    for (const pugi::xml_node scalar : list.children("ScalarVariable")) {
      Variable variable;
      variable.name = required_text(scalar, "name", element(scalar));
      const std::string where = element(scalar, "ScalarVariable " + single_quoted(variable.name));
      const auto [previous, inserted] =
          index_by_name.emplace(variable.name, description.variables.size());
      if (!inserted) {
        fail(where, "name",
             "duplicate: already the name of " +
                 element(variable_nodes_[previous->second],
                         "ScalarVariable " + std::to_string(previous->second + 1)));
      }
      const auto value_reference = optional_integer<unsigned>(scalar, "valueReference", where);
      if (!value_reference) fail(where, "valueReference", "missing (required)");
      variable.value_reference = *value_reference;
      variable.causality =
          optional_enum(scalar, "causality", kCausalities, where).value_or(Causality::local);
      variable.variability = optional_enum(scalar, "variability", kVariabilitySpellings, where)
                                 .value_or(Variability::continuous);
      variable.initial =
          optional_enum(scalar, "initial", kInitialSpellings, where).value_or(Initial::none);
      variable.description = std::string(attribute_text(scalar, "description").value_or(""));
      parse_type(type_element(scalar, where), where, variable);
      description.variables.push_back(std::move(variable));
      variable_nodes_.push_back(scalar);
    }
    // A derivative may name a variable declared after it: checked once all are read.
    for (std::size_t index = 0; index < description.variables.size(); ++index) {
      const Variable& variable = description.variables[index];
      if (!variable.derivative) continue;
      const std::string where = variable_where(index, description) + ": Real";
      const std::size_t state = *variable.derivative;
      if (state > description.variables.size()) {
        fail(where, "derivative",
             std::to_string(state) + " names no ScalarVariable (there are " +
                 std::to_string(description.variables.size()) + ")");
      }
      if (description.variables[state - 1].type != VariableType::real) {
        fail(where, "derivative",
             std::to_string(state) + " names " +
                 single_quoted(description.variables[state - 1].name) + ", which is not a Real");
      }
    }
  }

  std::string variable_where(std::size_t index, const Description& description) const {
    return element(variable_nodes_[index],
                   "ScalarVariable " + single_quoted(description.variables[index].name));
  }

  /// A 1-based ScalarVariable index from the file, as a 0-based index.
  std::size_t variable_index(std::string_view text, std::size_t count, const std::string& where,
                             const char* attribute) const {
    const auto index = parse_integer<std::size_t>(text);
    if (!index) fail(where, attribute, "not an unsigned integer " + single_quoted(text));
    if (*index < 1 || *index > count) {
      fail(where, attribute,
           std::to_string(*index) + " is out of range: ScalarVariable indices run from 1 to " +
               std::to_string(count));
    }
    return *index - 1;
  }

  std::vector<Unknown> parse_unknowns(pugi::xml_node list, std::string_view path,
                                      std::size_t count) const {
    std::vector<Unknown> unknowns;
    for (const pugi::xml_node node : list.children("Unknown")) {
      const std::string where = element(node, std::string(path) + "/Unknown");
      Unknown unknown;
      unknown.variable = variable_index(required_text(node, "index", where), count, where, "index");
      if (const auto text = attribute_text(node, "dependencies")) {
        std::vector<std::size_t>& dependencies = unknown.dependencies.emplace();
        for (const std::string_view item : list_items(*text))
          dependencies.push_back(variable_index(item, count, where, "dependencies"));
      }
      unknowns.push_back(std::move(unknown));
    }
    return unknowns;
  }

  pugi::xml_node unknown_node(pugi::xml_node list, std::size_t position) const {
    auto unknowns = list.children("Unknown");
    auto node = unknowns.begin();
    std::advance(node, static_cast<std::ptrdiff_t>(position));
    return *node;
  }

  void parse_model_structure(pugi::xml_node structure, Description& description) const {
    const std::size_t count = description.variables.size();
    const pugi::xml_node outputs = structure.child("Outputs");
    const pugi::xml_node derivatives = structure.child("Derivatives");
    description.outputs = parse_unknowns(outputs, "ModelStructure/Outputs", count);
    description.derivatives = parse_unknowns(derivatives, "ModelStructure/Derivatives", count);
    description.initial_unknowns =
        parse_unknowns(structure.child("InitialUnknowns"), "ModelStructure/InitialUnknowns", count);

    for (std::size_t position = 0; position < description.outputs.size(); ++position) {
      const Variable& variable = description.variables[description.outputs[position].variable];
      if (variable.causality != Causality::output) {
        fail(element(unknown_node(outputs, position), "ModelStructure/Outputs/Unknown"), "index",
             "names " + single_quoted(variable.name) + ", whose causality is " +
                 to_string(variable.causality) + ", not output");
      }
    }
    for (std::size_t position = 0; position < description.derivatives.size(); ++position) {
      const Variable& variable = description.variables[description.derivatives[position].variable];
      if (variable.type != VariableType::real || !variable.derivative) {
        fail(element(unknown_node(derivatives, position), "ModelStructure/Derivatives/Unknown"),
             "index",
             "names " + single_quoted(variable.name) +
                 ", which is not a Real with a derivative attribute");
      }
    }
  }

  std::map<std::string, std::string, std::less<>>
      simple_type_units_;  ///< SimpleType name → Real unit
  std::map<std::string, std::vector<EnumerationItem>, std::less<>>
      simple_type_items_;                       ///< Enumeration SimpleType name → items
  std::vector<pugi::xml_node> variable_nodes_;  ///< parallel to Description::variables, for lines
};

}  // namespace

std::optional<std::size_t> Description::find(const std::string& name) const {
  const auto variable = std::find_if(variables.begin(), variables.end(),
                                     [&name](const Variable& v) { return v.name == name; });
  if (variable == variables.end()) return std::nullopt;
  return static_cast<std::size_t>(variable - variables.begin());
}

bool Description::has_direct_feedthrough(std::size_t variable) const {
  const auto is_input = [this](std::size_t index) {
    return index < variables.size() && variables[index].causality == Causality::input;
  };
  const auto output = std::find_if(outputs.begin(), outputs.end(),
                                   [variable](const Unknown& u) { return u.variable == variable; });
  // Absent dependencies (or an output missing from <Outputs>) mean "may depend on
  // every known" (§2.2.8): assume the worst, so a loop is never missed.
  if (output == outputs.end() || !output->dependencies) {
    return std::any_of(variables.begin(), variables.end(),
                       [](const Variable& v) { return v.causality == Causality::input; });
  }
  return std::any_of(output->dependencies->begin(), output->dependencies->end(), is_input);
}

std::vector<std::size_t> Description::states() const {
  std::vector<std::size_t> states;
  states.reserve(derivatives.size());
  for (const Unknown& derivative : derivatives) {
    const Variable& variable = variables.at(derivative.variable);
    if (!variable.derivative || *variable.derivative < 1 ||
        *variable.derivative > variables.size()) {
      // parse_description refuses such a file: only a hand-made Description gets here.
      throw std::logic_error("FMU description " + single_quoted(file) + ": derivative " +
                             single_quoted(variable.name) + " names no state variable");
    }
    states.push_back(*variable.derivative - 1);
  }
  return states;
}

Description parse_description(const std::string& xml, const std::string& file) {
  return DescriptionParser(xml, file).parse();
}

const char* to_string(Causality causality) {
  return spelling_of(kCausalities, causality);
}
const char* to_string(Variability variability) {
  return spelling_of(kVariabilitySpellings, variability);
}
const char* to_string(VariableType type) {
  return spelling_of(kVariableTypes, type);
}

}  // namespace couplet::models::fmi
