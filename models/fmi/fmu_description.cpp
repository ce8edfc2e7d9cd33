#include "models/fmi/fmu_description.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet::models::fmi {

/// 'text'. Built by appending: `"'" + std::string(text)` trips GCC 12's false
/// -Wrestrict positive (GCC bug 105329).
std::string single_quoted(std::string_view text) {
  std::string result;
  result.reserve(text.size() + 2);
  result.append(1, '\'').append(text).append(1, '\'');
  return result;
}

namespace {

// The XML spellings (FMI 2.0 §2.2.7), one table per enum: the parser and
// to_string read the same table, so they cannot disagree.
constexpr std::array<std::pair<const char*, Causality>, 6> kCausalities{{
    {"parameter", Causality::parameter},
    {"calculatedParameter", Causality::calculated_parameter},
    {"input", Causality::input},
    {"output", Causality::output},
    {"local", Causality::local},
    {"independent", Causality::independent},
}};

constexpr std::array<std::pair<const char*, Variability>, 5> kVariabilities{{
    {"constant", Variability::constant},
    {"fixed", Variability::fixed},
    {"tunable", Variability::tunable},
    {"discrete", Variability::discrete},
    {"continuous", Variability::continuous},
}};

constexpr std::array<std::pair<const char*, Initial>, 3> kInitials{{
    {"exact", Initial::exact},
    {"approx", Initial::approx},
    {"calculated", Initial::calculated},
}};

// Element names of the type child of a ScalarVariable (§2.2.7).
constexpr std::array<std::pair<const char*, VariableType>, 5> kVariableTypes{{
    {"Real", VariableType::real},
    {"Integer", VariableType::integer},
    {"Boolean", VariableType::boolean},
    {"String", VariableType::string},
    {"Enumeration", VariableType::enumeration},
}};

template <typename Enum, std::size_t N>
const char* spelling_of(const std::array<std::pair<const char*, Enum>, N>& table, Enum value) {
  for (const auto& [spelling, entry] : table) {
    if (entry == value) return spelling;
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const std::array<std::pair<const char*, Enum>, N>& table,
                             std::string_view text) {
  for (const auto& [spelling, entry] : table) {
    if (text == spelling) return entry;
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string list_of(const std::array<std::pair<const char*, Enum>, N>& table) {
  std::string names;
  for (const auto& entry : table) names += (names.empty() ? "" : ", ") + std::string(entry.first);
  return names;
}

// The XML Schema types (xs:unsignedInt, xs:int, xs:double) allow a leading '+';
// from_chars does not, and accepts '-' for signed types only.
std::string_view without_plus_sign(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') {
    text.remove_prefix(1);
  }
  return text;
}

/// The whole of `text` as an integer of type Integer, or nothing (no spaces, no
/// trailing characters, no overflow).
template <typename Integer>
std::optional<Integer> parse_integer(std::string_view text) {
  text = without_plus_sign(text);
  Integer value{};
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

/// modelIdentifier names binaries/linux64/<modelIdentifier>.so: anything but a
/// plain file stem could point outside the unpacked FMU.
bool is_plain_file_stem(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

class DescriptionParser {
 public:
  DescriptionParser(const std::string& xml, const std::string& file) : xml_(xml), file_(file) {
    for (std::size_t offset = 0; offset < xml.size(); ++offset) {
      if (xml[offset] == '\n') newline_offsets_.push_back(offset);
    }
  }

  Description parse() {
    pugi::xml_document document;
    const pugi::xml_parse_result result =
        document.load_buffer(xml_.data(), xml_.size(), pugi::parse_default, pugi::encoding_auto);
    if (!result) {
      throw ConfigurationError(file_ + ": malformed XML at line " +
                               std::to_string(line_of(result.offset)) + ": " +
                               result.description());
    }
    const pugi::xml_node root = document.document_element();
    if (std::string_view(root.name()) != "fmiModelDescription") {
      fail(element(root),
           "the root element must be fmiModelDescription, not " + single_quoted(root.name()));
    }
    Description description;
    description.file = file_;
    parse_root_attributes(root, description);
    parse_interfaces(root, description);
    if (const pugi::xml_node experiment = root.child("DefaultExperiment")) {
      parse_default_experiment(experiment, description.default_experiment);
    }
    parse_unit_definitions(root.child("UnitDefinitions"), description);
    parse_type_definitions(root.child("TypeDefinitions"));
    parse_variables(root.child("ModelVariables"), description);
    parse_model_structure(root.child("ModelStructure"), description);
    return description;
  }

 private:
  std::size_t line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto newlines_before = std::lower_bound(newline_offsets_.begin(), newline_offsets_.end(),
                                                  static_cast<std::size_t>(offset));
    return static_cast<std::size_t>(newlines_before - newline_offsets_.begin()) + 1;
  }

  /// "CoSimulation (line 5)": how messages name an element.
  std::string element(pugi::xml_node node, std::string_view label = {}) const {
    return (label.empty() ? std::string(node.name()) : std::string(label)) + " (line " +
           std::to_string(line_of(node.offset_debug())) + ")";
  }

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw ConfigurationError(file_ + ": " + where + ": " + why);
  }

  [[noreturn]] void fail(const std::string& where, const char* attribute,
                         const std::string& why) const {
    fail(where + ": " + attribute, why);
  }

  static std::optional<std::string_view> attribute_text(pugi::xml_node node, const char* name) {
    const pugi::xml_attribute attribute = node.attribute(name);
    if (!attribute) return std::nullopt;
    return std::string_view(attribute.value());
  }

  std::string required_text(pugi::xml_node node, const char* name, const std::string& where) const {
    const auto text = attribute_text(node, name);
    if (!text) fail(where, name, "missing (required)");
    return std::string(*text);
  }

  template <typename Integer>
  std::optional<Integer> optional_integer(pugi::xml_node node, const char* name,
                                          const std::string& where) const {
    const auto text = attribute_text(node, name);
    if (!text) return std::nullopt;
    const auto value = parse_integer<Integer>(*text);
    if (!value) {
      fail(where, name,
           std::string(std::is_unsigned_v<Integer> ? "not an unsigned integer "
                                                   : "not an integer ") +
               single_quoted(*text));
    }
    return value;
  }

  std::optional<double> optional_double(pugi::xml_node node, const char* name,
                                        const std::string& where) const {
    const auto text = attribute_text(node, name);
    if (!text) return std::nullopt;
    const auto value = parse_finite_double(*text);
    if (!value) fail(where, name, "not a finite number " + single_quoted(*text));
    return value;
  }

  /// A capability flag; absent means false (§3.3.1, §4.3.1).
  bool flag(pugi::xml_node node, const char* name, const std::string& where) const {
    const auto text = attribute_text(node, name);
    if (!text) return false;
    const auto value = parse_boolean(*text);
    if (!value)
      fail(where, name, "not a boolean " + single_quoted(*text) + " (expected true or false)");
    return *value;
  }

  template <typename Enum, std::size_t N>
  std::optional<Enum> optional_enum(pugi::xml_node node, const char* name,
                                    const std::array<std::pair<const char*, Enum>, N>& table,
                                    const std::string& where) const {
    const auto text = attribute_text(node, name);
    if (!text) return std::nullopt;
    const auto value = value_of(table, *text);
    if (!value) {
      fail(where, name,
           "unknown value " + single_quoted(*text) + " (expected one of " + list_of(table) + ")");
    }
    return value;
  }

  void parse_root_attributes(pugi::xml_node root, Description& description) const {
    const std::string where = element(root);
    description.fmi_version = required_text(root, "fmiVersion", where);
    // Checked first: an FMI 1.0 or 3.0 file fails every later check for reasons
    // that would only hide the real one.
    if (description.fmi_version != "2.0") {
      fail(where, "fmiVersion",
           "couplet supports FMI 2.0 only; this FMU is FMI " +
               single_quoted(description.fmi_version));
    }
    description.model_name = std::string(attribute_text(root, "modelName").value_or(""));
    description.guid = required_text(root, "guid", where);
    if (description.guid.empty()) fail(where, "guid", "empty");
    description.generation_tool = std::string(attribute_text(root, "generationTool").value_or(""));
    description.number_of_event_indicators =
        optional_integer<std::size_t>(root, "numberOfEventIndicators", where).value_or(0);
  }

  std::string model_identifier(pugi::xml_node node, const std::string& where) const {
    std::string identifier = required_text(node, "modelIdentifier", where);
    if (!is_plain_file_stem(identifier)) {
      fail(where, "modelIdentifier",
           single_quoted(identifier) +
               " is not a plain file name stem (letters, digits and '_' only): it names "
               "binaries/linux64/<modelIdentifier>.so");
    }
    return identifier;
  }

  /// The single child called `name`, or a null node; two are an error.
  pugi::xml_node unique_child(pugi::xml_node parent, const char* name) const {
    pugi::xml_node found;
    for (const pugi::xml_node child : parent.children(name)) {
      if (found) fail(element(child), "a second " + std::string(name) + " element");
      found = child;
    }
    return found;
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

  /// <UnitDefinitions> (§2.2.2): the units with a <BaseUnit>, which say how
  /// they convert; a unit without one is a name only.
  void parse_unit_definitions(pugi::xml_node definitions, Description& description) const {
    std::set<std::string, std::less<>> names;
    for (const pugi::xml_node unit : definitions.children("Unit")) {
      const std::string where = element(unit);
      const std::string name = required_text(unit, "name", where);
      if (!names.insert(name).second)
        fail(where, "name", "a second Unit called " + single_quoted(name));
      const pugi::xml_node base = unit.child("BaseUnit");
      if (!base) continue;
      const std::string base_where = where + ": " + element(base);
      UnitDefinition definition;
      for (std::size_t k = 0; k < kSiBaseUnits.size(); ++k)
        definition.exponents[k] =
            optional_integer<int>(base, kSiBaseUnits[k], base_where).value_or(0);
      definition.factor = optional_double(base, "factor", base_where).value_or(1.0);
      definition.offset = optional_double(base, "offset", base_where).value_or(0.0);
      if (definition.factor == 0.0) fail(base_where, "factor", "0 (a unit's factor is never 0)");
      description.units.emplace(name, definition);
    }
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
      variable.variability = optional_enum(scalar, "variability", kVariabilities, where)
                                 .value_or(Variability::continuous);
      variable.initial = optional_enum(scalar, "initial", kInitials, where).value_or(Initial::none);
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
        std::size_t begin = 0;
        while ((begin = text->find_first_not_of(" \t\r\n", begin)) != std::string_view::npos) {
          const std::size_t end = std::min(text->find_first_of(" \t\r\n", begin), text->size());
          dependencies.push_back(
              variable_index(text->substr(begin, end - begin), count, where, "dependencies"));
          begin = end;
        }
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

  const std::string& xml_;
  const std::string& file_;
  std::vector<std::size_t> newline_offsets_;  ///< for line numbers in messages
  std::map<std::string, std::string, std::less<>>
      simple_type_units_;  ///< SimpleType name → Real unit
  std::map<std::string, std::vector<EnumerationItem>, std::less<>>
      simple_type_items_;                       ///< Enumeration SimpleType name → items
  std::vector<pugi::xml_node> variable_nodes_;  ///< parallel to Description::variables, for lines
};

}  // namespace

std::optional<double> parse_finite_double(std::string_view text) {
  text = without_plus_sign(text);
  double value = 0.0;
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<bool> parse_boolean(std::string_view text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return std::nullopt;
}

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
  return spelling_of(kVariabilities, variability);
}
const char* to_string(VariableType type) {
  return spelling_of(kVariableTypes, type);
}

}  // namespace couplet::models::fmi
