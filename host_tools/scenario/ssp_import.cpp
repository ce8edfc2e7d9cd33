#include "host_tools/scenario/ssp_import.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <string_view>
#include <vector>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "couplet/unit.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/scenario_limits.hpp"
#include "models/fmi/fmu_description.hpp"

namespace couplet::tools {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemStructure = "SystemStructure.ssd";
// Far above any real system description or parameter set, far below what
// would exhaust memory through pugixml's DOM (about 5x the text).
constexpr std::uintmax_t kMaxXmlBytes = 16u << 20;

using models::fmi::parse_boolean;
using models::fmi::parse_finite_double;

std::string in_quotes(std::string_view text) {
  return models::fmi::single_quoted(text);
}

/// SSP files qualify every element with a namespace prefix (ssd:, ssc:, ssv:),
/// whichever prefix the writer chose; couplet matches the local name.
std::string_view local_name(const pugi::xml_node& node) {
  const std::string_view name = node.name();
  const std::size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

std::vector<pugi::xml_node> children_named(const pugi::xml_node& parent, std::string_view name) {
  std::vector<pugi::xml_node> found;
  for (const pugi::xml_node child : parent.children()) {
    if (child.type() == pugi::node_element && local_name(child) == name) found.push_back(child);
  }
  return found;
}

pugi::xml_node child_named(const pugi::xml_node& parent, std::string_view name) {
  const std::vector<pugi::xml_node> found = children_named(parent, name);
  return found.empty() ? pugi::xml_node() : found.front();
}

/// One XML file of the package, parsed, with its lines for messages.
class XmlFile {
 public:
  XmlFile(const std::string& package, const fs::path& root, const std::string& inside)
      : package_(package), inside_(inside) {
    const fs::path path = root / inside;
    std::error_code error;
    if (!fs::is_regular_file(path, error)) fail_file("not in the package");
    const std::uintmax_t size = fs::file_size(path, error);
    if (error || size > kMaxXmlBytes)
      fail_file("larger than " + std::to_string(kMaxXmlBytes >> 20) + " MiB");
    std::ifstream stream(path, std::ios::binary);
    text_.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    if (!stream.good() && !stream.eof()) fail_file("cannot be read");
    const pugi::xml_parse_result result =
        document_.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_auto);
    if (!result) {
      fail_file("malformed XML at line " + std::to_string(line_of(result.offset)) + ": " +
                result.description());
    }
  }

  pugi::xml_node root() const { return document_.document_element(); }

  /// "SystemStructure.ssd:12: Component 'left'": how messages name an element.
  std::string where(const pugi::xml_node& node) const {
    std::string text = inside_ + ":" + std::to_string(line_of(node.offset_debug())) + ": " +
                       std::string(local_name(node));
    if (const pugi::xml_attribute name = node.attribute("name"))
      text += " " + in_quotes(name.value());
    return text;
  }

  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& why) const {
    throw ConfigurationError("SSP " + in_quotes(package_) + ": " + where(node) + ": " + why);
  }

  std::string required(const pugi::xml_node& node, const char* attribute) const {
    const pugi::xml_attribute found = node.attribute(attribute);
    if (!found || std::string_view(found.value()).empty())
      fail(node, std::string(attribute) + " missing (required)");
    return found.value();
  }

  std::optional<double> optional_number(const pugi::xml_node& node, const char* attribute) const {
    const pugi::xml_attribute found = node.attribute(attribute);
    if (!found) return std::nullopt;
    const std::optional<double> value = parse_finite_double(found.value());
    if (!value)
      fail(node, std::string(attribute) + ": not a finite number " + in_quotes(found.value()));
    return value;
  }

  const std::string& inside() const { return inside_; }

 private:
  [[noreturn]] void fail_file(const std::string& why) const {
    throw ConfigurationError("SSP " + in_quotes(package_) + ": " + inside_ + ": " + why);
  }

  std::size_t line_of(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto end =
        text_.begin() + std::min<std::ptrdiff_t>(offset, static_cast<std::ptrdiff_t>(text_.size()));
    return static_cast<std::size_t>(std::count(text_.begin(), end, '\n')) + 1;
  }

  std::string package_;
  std::string inside_;
  std::string text_;
  pugi::xml_document document_;
};

/// A component's parameters, by variable name, as the text of their values
/// (which the scenario parser reads back to the same double).
using ParameterValues = std::map<std::string, std::string, std::less<>>;

struct Component {
  std::string name;
  std::string fmu;       ///< absolute path inside the unpacked package
  std::string fmu_kind;  ///< "me", "cs", or empty for couplet's default
  ParameterValues parameters;
  std::string model;  ///< instead of an FMU: a built-in model (a connection's transformation)
};

/// A connection's LinearTransformation, as the text of its numbers.
struct LinearMap {
  std::string factor;
  std::string offset;
};

struct Connection {
  std::string from;
  std::string to;
};

/// The package's SystemStructure.ssd, read into components and connections.
class SystemStructureReader {
 public:
  SystemStructureReader(const std::string& package, const fs::path& root)
      : package_(package), root_(root), ssd_(package, root, kSystemStructure) {}

  void read() {
    const pugi::xml_node description = ssd_.root();
    if (local_name(description) != "SystemStructureDescription") {
      ssd_.fail(description, "the root element must be SystemStructureDescription");
    }
    const std::string version = ssd_.required(description, "version");
    if (version != "1.0" && version.rfind("1.0.", 0) != 0) {
      ssd_.fail(description,
                "SSP version " + in_quotes(version) + " is not supported (couplet reads SSP 1.0)");
    }
    name_ = ssd_.required(description, "name");
    read_units(child_named(description, "Units"));
    const pugi::xml_node system = child_named(description, "System");
    if (!system) ssd_.fail(description, "no System element");
    read_elements(system);
    read_connections(system);
    // System-level bindings come after the components' own: a higher level
    // takes precedence (SSP 1.0, ParameterBinding).
    read_bindings(system, nullptr);
    if (const pugi::xml_node experiment = child_named(description, "DefaultExperiment")) {
      start_ = ssd_.optional_number(experiment, "startTime");
      stop_ = ssd_.optional_number(experiment, "stopTime");
    }
  }

  const std::vector<std::string>& unit_conversions() const { return unit_conversions_; }

  YAML::Node scenario() const {
    YAML::Node root;
    root["name"] = name_;
    if (start_ || stop_) {
      YAML::Node time;
      if (start_) time["start"] = *start_;
      if (stop_) time["end"] = *stop_;
      root["time"] = time;
    }
    YAML::Node slaves;
    for (const Component& component : components_) {
      YAML::Node slave;
      if (component.model.empty()) {
        slave["fmu"] = component.fmu;
      } else {
        slave["model"] = component.model;
      }
      if (!component.fmu_kind.empty()) slave["fmu_kind"] = component.fmu_kind;
      if (!component.parameters.empty()) {
        YAML::Node parameters;
        for (const auto& [variable, value] : component.parameters) parameters[variable] = value;
        slave["parameters"] = parameters;
      }
      slaves[component.name] = slave;
    }
    root["slaves"] = slaves;
    YAML::Node connections(YAML::NodeType::Sequence);
    for (const Connection& connection : connections_) {
      YAML::Node entry;
      entry["from"] = connection.from;
      entry["to"] = connection.to;
      connections.push_back(entry);
    }
    root["connections"] = connections;
    return root;
  }

 private:
  void read_elements(const pugi::xml_node& system) {
    for (const pugi::xml_node child : system.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view kind = local_name(child);
      if (kind == "SignalDictionaries" && child.first_child()) {
        ssd_.fail(
            child,
            "signal dictionaries are not supported: connect the components' connectors directly");
      }
    }
    const pugi::xml_node elements = child_named(system, "Elements");
    if (!elements) ssd_.fail(system, "no Elements: a system without components has nothing to run");
    for (const pugi::xml_node element : elements.children()) {
      if (element.type() != pugi::node_element) continue;
      const std::string_view kind = local_name(element);
      if (kind == "System") {
        ssd_.fail(
            element,
            "sub-systems are not supported: flatten the system so that its components sit in " +
                in_quotes(system.attribute("name").value()));
      }
      if (kind != "Component") {
        ssd_.fail(element, "not supported (couplet runs FMU components)");
      }
      read_component(element);
    }
    if (components_.empty()) ssd_.fail(elements, "no components");
  }

  void read_component(const pugi::xml_node& element) {
    Component component;
    component.name = ssd_.required(element, "name");
    if (component.name.find('.') != std::string::npos) {
      ssd_.fail(element,
                "a component name must not contain '.' (couplet names ports component.variable)");
    }
    if (find(component.name) != nullptr) ssd_.fail(element, "a second component of that name");
    const std::string type = element.attribute("type") ? element.attribute("type").value()
                                                       : "application/x-fmu-sharedlibrary";
    if (type != "application/x-fmu-sharedlibrary") {
      ssd_.fail(element,
                "type " + in_quotes(type) +
                    " is not supported (couplet runs FMUs: application/x-fmu-sharedlibrary)");
    }
    component.fmu = resolve(element, ssd_.required(element, "source"));
    const std::string implementation =
        element.attribute("implementation") ? element.attribute("implementation").value() : "any";
    if (implementation == "ModelExchange") {
      component.fmu_kind = "me";
    } else if (implementation == "CoSimulation") {
      component.fmu_kind = "cs";
    } else if (implementation != "any") {
      ssd_.fail(element, "implementation " + in_quotes(implementation) +
                             " is not supported (any, ModelExchange or CoSimulation)");
    }
    for (const pugi::xml_node connector :
         children_named(child_named(element, "Connectors"), "Connector")) {
      read_connector(component.name, connector);
    }
    components_.push_back(std::move(component));
    read_bindings(element, &components_.back());
  }

  /// Connector types and units, for the checks on connections.
  void read_connector(const std::string& component, const pugi::xml_node& connector) {
    const std::string name = ssd_.required(connector, "name");
    ConnectorType type;
    type.node = connector;
    for (const pugi::xml_node child : connector.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view kind = local_name(child);
      if (kind == "Real" || kind == "Integer" || kind == "Boolean" || kind == "String" ||
          kind == "Enumeration" || kind == "Binary") {
        type.kind = std::string(kind);
        type.unit = child.attribute("unit").value();
      }
    }
    // The type may also be given as an attribute (drafts of SSP 1.0 wrote type="Real").
    if (type.kind.empty() && connector.attribute("type"))
      type.kind = connector.attribute("type").value();
    connectors_[component + "." + name] = type;
  }

  /// A file of the package named by a relative URI against the SSD (SSP 1.0:
  /// "resources/model.fmu"); nothing outside the package, no other scheme.
  std::string resolve(const pugi::xml_node& element, const std::string& uri) const {
    const bool has_scheme = uri.find(':') != std::string::npos;
    const fs::path relative(uri);
    const bool escapes = std::any_of(relative.begin(), relative.end(),
                                     [](const fs::path& part) { return part == ".."; });
    if (has_scheme || relative.is_absolute() || escapes) {
      ssd_.fail(element, "source " + in_quotes(uri) +
                             ": couplet reads files inside the package only (a relative path such "
                             "as resources/model.fmu)");
    }
    const fs::path path = root_ / relative;
    std::error_code error;
    if (!fs::is_regular_file(path, error))
      ssd_.fail(element, "source " + in_quotes(uri) + ": not in the package");
    return path.string();
  }

  void read_connections(const pugi::xml_node& system) {
    for (const pugi::xml_node connection :
         children_named(child_named(system, "Connections"), "Connection")) {
      const std::string start_element = connection.attribute("startElement").value();
      const std::string end_element = connection.attribute("endElement").value();
      const std::string start = ssd_.required(connection, "startConnector");
      const std::string end = ssd_.required(connection, "endConnector");
      const std::string label = "Connection " + in_quotes(qualified(start_element, start)) +
                                " -> " + in_quotes(qualified(end_element, end));
      if (start_element.empty()) {
        fail_connection(connection, label,
                        "starts at the system's own connector " + in_quotes(start) +
                            ": couplet runs closed systems (no inputs from outside); drive " +
                            in_quotes(qualified(end_element, end)) +
                            " from a component, or bind it as a parameter");
      }
      if (end_element.empty())
        continue;  // a system output only shows a component's output: every output is recorded
      for (const std::string& component : {start_element, end_element}) {
        if (find(component) == nullptr)
          fail_connection(connection, label, "no component " + in_quotes(component));
      }
      std::optional<LinearMap> map = linear_transformation(connection, label);
      const std::string from = qualified(start_element, start);
      const std::string to = qualified(end_element, end);
      check_types(connection, label, from, to, map.has_value());
      if (units_differ(from, to)) {
        if (map && !suppresses_unit_conversion(connection)) {
          fail_connection(connection, label,
                          "a LinearTransformation between connectors of different units (" +
                              unit_pair(from, to) +
                              "): give both ends one unit, or suppressUnitConversion=\"true\" to "
                              "apply it to the value as it is");
        }
        // suppressUnitConversion: the value passes as it is between different
        // units; an identity converter keeps couplet from converting it by the
        // FMUs' units (docs/units.md).
        if (!map && suppresses_unit_conversion(connection)) {
          map = LinearMap{exact_text(1.0), exact_text(0.0)};
        } else if (!map && (map = unit_conversion(connection, label, from, to))) {
          note_conversion(connection, label, from, to, *map);
        }
      }
      if (!map) {
        connections_.push_back({from, to});
        continue;
      }
      // y = factor u + offset on the way: a stateless slave between the ends.
      const std::string transform = unused_name("transform_" + end_element + "_" + end);
      components_.push_back({transform,
                             "",
                             "",
                             {{"factor", map->factor}, {"offset", map->offset}},
                             "coupling.linear"});
      connections_.push_back({from, transform + ".u"});
      connections_.push_back({transform + ".y", to});
    }
  }

  /// `base`, or base_2, base_3, ...: a slave name no component has.
  std::string unused_name(const std::string& base) {
    std::string name = base;
    for (int suffix = 2; find(name) != nullptr; ++suffix)
      name = base + "_" + std::to_string(suffix);
    return name;
  }

  /// The connection's LinearTransformation (SSP 1.0: y = factor u + offset),
  /// or nothing when it has none or the identity.
  std::optional<LinearMap> linear_transformation(const pugi::xml_node& connection,
                                                 const std::string& label) const {
    std::optional<LinearMap> map;
    for (const pugi::xml_node child : connection.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view kind = local_name(child);
      if (kind == "LinearTransformation") {
        const double factor = ssd_.optional_number(child, "factor").value_or(1.0);
        const double offset = ssd_.optional_number(child, "offset").value_or(0.0);
        if (factor != 1.0 || offset != 0.0) map = LinearMap{exact_text(factor), exact_text(offset)};
      } else if (kind.size() > 14 && kind.substr(kind.size() - 14) == "Transformation") {
        fail_connection(connection, label,
                        std::string(kind) +
                            " is not supported (couplet transforms Real values only, by a "
                            "LinearTransformation)");
      }
    }
    return map;
  }

  /// Real, Integer (an Enumeration too) and Boolean connectors connect to
  /// their own type, and an Integer output to a Real input (held, as in a
  /// scenario); a transformation is Real only.
  void check_types(const pugi::xml_node& connection, const std::string& label,
                   const std::string& from, const std::string& to, bool transformed) const {
    std::string kinds[2];
    const std::string* ends[2] = {&from, &to};
    for (int k = 0; k < 2; ++k) {
      const auto found = connectors_.find(*ends[k]);
      if (found == connectors_.end() || found->second.kind.empty()) continue;
      const std::string& kind = found->second.kind;
      if (kind != "Real" && kind != "Integer" && kind != "Enumeration" && kind != "Boolean") {
        fail_connection(connection, label,
                        in_quotes(found->first) + " is " + kind +
                            ": couplet couples Real, Integer and Boolean connectors (an "
                            "Enumeration as Integer)");
      }
      kinds[k] = kind == "Enumeration" ? "Integer" : kind;
    }
    const bool integer_to_real = kinds[0] == "Integer" && kinds[1] == "Real";
    if (!kinds[0].empty() && !kinds[1].empty() && kinds[0] != kinds[1] && !integer_to_real) {
      fail_connection(connection, label,
                      in_quotes(from) + " is " + kinds[0] + " and " + in_quotes(to) + " is " +
                          kinds[1] +
                          ": a connection joins connectors of one type, or an Integer output "
                          "to a Real input");
    }
    for (const std::string& kind : kinds) {
      if (transformed && !kind.empty() && kind != "Real") {
        fail_connection(connection, label,
                        "a LinearTransformation on " + kind +
                            " connectors (couplet transforms Real values only)");
      }
    }
  }

  /// The SSD's <Units> (SSP 1.0, as FMI 2.0 §2.2.2): each unit's SI base
  /// exponents, factor and offset, by name.
  void read_units(const pugi::xml_node& units) {
    for (const pugi::xml_node unit : children_named(units, "Unit")) {
      const std::string name = ssd_.required(unit, "name");
      const pugi::xml_node base = child_named(unit, "BaseUnit");
      if (!base) continue;  // a name only: read as couplet reads unit names
      UnitDefinition definition;
      for (std::size_t k = 0; k < kSiBaseUnits.size(); ++k) {
        const double exponent = ssd_.optional_number(base, kSiBaseUnits[k]).value_or(0.0);
        if (exponent != std::trunc(exponent) || std::abs(exponent) > 1000)
          ssd_.fail(base, std::string(kSiBaseUnits[k]) + ": not an integer exponent");
        definition.exponents[k] = static_cast<int>(exponent);
      }
      definition.factor = ssd_.optional_number(base, "factor").value_or(1.0);
      definition.offset = ssd_.optional_number(base, "offset").value_or(0.0);
      if (definition.factor == 0.0) ssd_.fail(base, "factor: 0 (a unit's factor is never 0)");
      if (!units_.emplace(name, definition).second) ssd_.fail(unit, "a second Unit of that name");
    }
  }

  /// A unit's meaning: the SSD's definition, else the name as couplet reads it.
  std::optional<UnitDefinition> definition_of(const std::string& unit) const {
    const auto found = units_.find(unit);
    return found != units_.end() ? std::optional(found->second) : parse_unit(unit);
  }

  /// The converter between connectors of different units of one SI base
  /// (y = (f₁/f₂)·x + (o₁ − o₂)/f₂), none for two spellings of one unit
  /// ("N.m", "N m"); other pairs are refused.
  std::optional<LinearMap> unit_conversion(const pugi::xml_node& connection,
                                           const std::string& label, const std::string& from,
                                           const std::string& to) const {
    const std::string& from_unit = connectors_.at(from).unit;
    const std::string& to_unit = connectors_.at(to).unit;
    const std::optional<UnitDefinition> source = definition_of(from_unit);
    const std::optional<UnitDefinition> target = definition_of(to_unit);
    for (const auto& [unit, definition] : {std::pair{from_unit, source}, {to_unit, target}}) {
      if (!definition) {
        fail_connection(connection, label,
                        "units differ (" + unit_pair(from, to) + "), and couplet does not know " +
                            in_quotes(unit) +
                            ": define it in the SSD's Units (ssc:Unit with ssc:BaseUnit), or "
                            "suppressUnitConversion=\"true\"");
      }
    }
    if (*source == *target) return std::nullopt;
    const std::optional<UnitConversion> conversion = conversion_between(*source, *target);
    if (!conversion) {
      fail_connection(connection, label,
                      "units differ (" + unit_pair(from, to) + "), and their SI bases differ (" +
                          base_text(*source) + ", " + base_text(*target) +
                          "): give both ends one unit, or suppressUnitConversion=\"true\"");
    }
    return LinearMap{exact_text(conversion->factor), exact_text(conversion->offset)};
  }

  /// For `couplet validate`: where the SSD asked for a conversion, and the rule.
  void note_conversion(const pugi::xml_node& connection, const std::string& label,
                       const std::string& from, const std::string& to, const LinearMap& map) {
    const std::string where = ssd_.where(connection);
    std::string rule = "to = " + map.factor + " * from";
    if (map.offset != exact_text(0.0)) rule += " + " + map.offset;
    unit_conversions_.push_back(where.substr(0, where.rfind(": ")) + ": " + label + " [" +
                                unit_pair(from, to) + "]: converted, " + rule + " (both " +
                                base_text(*definition_of(connectors_.at(from).unit)) + ")");
  }

  std::string unit_pair(const std::string& from, const std::string& to) const {
    return in_quotes(connectors_.at(from).unit) + ", " + in_quotes(connectors_.at(to).unit);
  }

  static bool suppresses_unit_conversion(const pugi::xml_node& connection) {
    return parse_boolean(connection.attribute("suppressUnitConversion").value()).value_or(false);
  }

  /// Both connectors declare a unit, and not the same.
  bool units_differ(const std::string& from, const std::string& to) const {
    const auto source = connectors_.find(from);
    const auto target = connectors_.find(to);
    if (source == connectors_.end() || target == connectors_.end()) return false;
    const std::string& from_unit = source->second.unit;
    const std::string& to_unit = target->second.unit;
    return !from_unit.empty() && !to_unit.empty() && from_unit != to_unit;
  }

  [[noreturn]] void fail_connection(const pugi::xml_node& connection, const std::string& label,
                                    const std::string& why) const {
    const std::string where = ssd_.where(connection);
    throw ConfigurationError("SSP " + in_quotes(package_) + ": " +
                             where.substr(0, where.rfind(": ")) + ": " + label + ": " + why);
  }

  /// The bindings of a component (`component` set) or of the system, whose
  /// names are hierarchical: "component.variable".
  void read_bindings(const pugi::xml_node& element, Component* component) {
    for (const pugi::xml_node binding :
         children_named(child_named(element, "ParameterBindings"), "ParameterBinding")) {
      const std::string type = binding.attribute("type") ? binding.attribute("type").value()
                                                         : "application/x-ssp-parameter-set";
      if (type != "application/x-ssp-parameter-set") {
        ssd_.fail(binding, "type " + in_quotes(type) +
                               " is not supported (application/x-ssp-parameter-set)");
      }
      if (child_named(binding, "ParameterMapping")) {
        ssd_.fail(
            child_named(binding, "ParameterMapping"),
            "parameter mappings are not supported: name the FMU's variables in the parameter set");
      }
      const std::string prefix = binding.attribute("prefix").value();
      if (const pugi::xml_attribute source = binding.attribute("source")) {
        if (std::string_view(binding.attribute("sourceBase").value()) == "component") {
          ssd_.fail(binding,
                    "sourceBase=\"component\" (a parameter set inside the FMU) is not supported");
        }
        const std::string path = resolve(binding, source.value());
        const XmlFile file(package_, root_, fs::relative(path, root_).string());
        const pugi::xml_node set = file.root();
        if (local_name(set) != "ParameterSet")
          file.fail(set, "the root element must be ParameterSet");
        read_parameter_set(file, set, prefix, component);
      } else {
        const pugi::xml_node set =
            child_named(child_named(binding, "ParameterValues"), "ParameterSet");
        if (!set) ssd_.fail(binding, "neither a source nor ParameterValues with a ParameterSet");
        read_parameter_set(ssd_, set, prefix, component);
      }
    }
  }

  void read_parameter_set(const XmlFile& file, const pugi::xml_node& set, const std::string& prefix,
                          Component* component) {
    for (const pugi::xml_node parameter :
         children_named(child_named(set, "Parameters"), "Parameter")) {
      const std::string name = prefix + file.required(parameter, "name");
      pugi::xml_node value;
      for (const pugi::xml_node child : parameter.children()) {
        if (child.type() == pugi::node_element && local_name(child) != "Unit") value = child;
      }
      if (!value) file.fail(parameter, "no value");
      const std::string_view kind = local_name(value);
      const std::string text = file.required(value, "value");
      std::string number;
      if (kind == "Real" || kind == "Integer") {
        if (!parse_finite_double(text)) file.fail(value, "not a finite number " + in_quotes(text));
        number = text;
      } else if (kind == "Boolean") {
        const std::optional<bool> flag = parse_boolean(text);
        if (!flag) file.fail(value, "not a boolean " + in_quotes(text));
        number = *flag ? "1" : "0";
      } else {
        file.fail(value,
                  std::string(kind) + " parameters are not supported (Real, Integer, Boolean)");
      }
      bind(file, parameter, name, number, component);
    }
  }

  void bind(const XmlFile& file, const pugi::xml_node& parameter, const std::string& name,
            const std::string& value, Component* component) {
    if (component != nullptr) {
      component->parameters[name] = value;
      return;
    }
    // A system's binding: "component.variable" (SSP 1.0 hierarchical names).
    const std::size_t dot = name.find('.');
    Component* const target = dot == std::string::npos ? nullptr : find(name.substr(0, dot));
    if (target == nullptr) {
      file.fail(parameter, "a system-level parameter must name a component: component.variable (" +
                               in_quotes(name) + " does not)");
    }
    target->parameters[name.substr(dot + 1)] = value;
  }

  Component* find(std::string_view name) {
    const auto found =
        std::find_if(components_.begin(), components_.end(),
                     [name](const Component& component) { return component.name == name; });
    return found == components_.end() ? nullptr : &*found;
  }
  const Component* find(std::string_view name) const {
    return const_cast<SystemStructureReader*>(this)->find(name);
  }

  static std::string qualified(const std::string& element, const std::string& connector) {
    return element.empty() ? connector : element + "." + connector;
  }

  struct ConnectorType {
    pugi::xml_node node;
    std::string kind;  ///< Real, Integer, ...; empty when the SSD leaves it to the FMU
    std::string unit;
  };

  std::string package_;
  fs::path root_;
  XmlFile ssd_;
  std::string name_;
  std::optional<double> start_;
  std::optional<double> stop_;
  std::vector<Component> components_;
  std::vector<Connection> connections_;
  std::vector<std::string> unit_conversions_;
  std::map<std::string, ConnectorType, std::less<>> connectors_;
  std::map<std::string, UnitDefinition, std::less<>> units_;
};

bool is_component(const YAML::Node& slaves, const std::string& name) {
  return slaves[name].IsDefined();  // const: a lookup that adds nothing
}

/// The settings file's keys over the package's: couplet settings, and per
/// component its FMU kind, solver, capabilities, link and extra parameters.
/// The structure (components, their FMUs, connections) stays the package's.
void merge_settings(YAML::Node& root, const std::string& settings_path) {
  const std::string text = read_scenario_file(settings_path);
  YAML::Node settings;
  try {
    settings =
        YAML::Load("\n" + text);  // one line first: marks are the file's lines (see locate())
  } catch (const YAML::ParserException& error) {
    throw ConfigurationError(settings_path + ":" + std::to_string(error.mark.line) +
                             ": not valid YAML: " + error.msg);
  }
  if (settings.IsNull()) return;
  if (!settings.IsMap())
    throw ConfigurationError(settings_path + ": the settings must be a YAML map");
  check_yaml_structure(settings, settings_path);
  check_keys(settings, settings_path, "",
             {"name", "time", "slaves", "algorithm", "groups", "reference", "evaluation", "clock",
              "limits"});
  for (const auto& entry : settings) {
    const std::string key = entry.first.as<std::string>();
    if (key != "slaves") {
      root[key] = entry.second;
      continue;
    }
    if (!entry.second.IsMap())
      throw ConfigurationError(locate(settings_path, entry.second, "slaves") + ": expected a map");
    for (const auto& slave : entry.second) {
      const std::string name = slave.first.as<std::string>();
      const std::string path = "slaves." + name;
      if (!is_component(root["slaves"], name)) {
        throw ConfigurationError(locate(settings_path, slave.first, path) +
                                 ": no component of that name in the package");
      }
      check_keys(slave.second, settings_path, path,
                 {"fmu_kind", "parameters", "solver", "capabilities", "link"});
      YAML::Node target = root["slaves"][name];
      for (const auto& setting : slave.second) {
        const std::string setting_key = setting.first.as<std::string>();
        if (setting_key == "parameters" && setting.second.IsMap()) {
          for (const auto& parameter : setting.second)
            target["parameters"][parameter.first.as<std::string>()] = parameter.second;
        } else {
          target[setting_key] = setting.second;
        }
      }
    }
  }
}

}  // namespace

bool is_ssp_path(const std::string& path) {
  return fs::path(path).extension() == ".ssp";
}

std::string ssp_settings_path(const std::string& ssp_path) {
  fs::path path(ssp_path);
  return path.replace_extension(".couplet.yaml").string();
}

SystemStructure read_system_structure(const std::string& package,
                                      const std::filesystem::path& root) {
  SystemStructureReader reader(package, root);
  reader.read();
  return {reader.scenario(), reader.unit_conversions()};
}

SspScenario import_ssp(const std::string& ssp_path) {
  SspScenario result;
  result.package =
      std::make_shared<const models::fmi::Archive>(models::fmi::Archive::unpack(ssp_path, "SSP"));
  SystemStructure structure = read_system_structure(ssp_path, result.package->directory());
  result.root = std::move(structure.root);
  result.unit_conversions = std::move(structure.unit_conversions);
  const std::string settings = ssp_settings_path(ssp_path);
  std::error_code error;
  if (fs::exists(settings, error)) {
    merge_settings(result.root, settings);
    result.settings_path = settings;
  }
  return result;
}

}  // namespace couplet::tools
