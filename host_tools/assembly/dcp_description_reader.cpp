#include "host_tools/assembly/dcp_description_reader.hpp"

#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "couplet/errors.hpp"
#include "models/fmi/xml_reader.hpp"

namespace couplet::tools {

namespace dcp = protocol::dcp;
using drivers::DcpDescription;
using drivers::DcpNonRealTime;
using drivers::DcpPortRange;
using drivers::DcpResolution;
using drivers::DcpResolutionRange;
using drivers::DcpVariable;
using models::fmi::single_quoted;

namespace {

/// DCP's type element names are protocol::dcp::to_string's.
std::optional<dcp::DataType> data_type_of(std::string_view name) {
  for (std::uint8_t type = 0; type <= static_cast<std::uint8_t>(dcp::DataType::binary); ++type) {
    if (name == dcp::to_string(static_cast<dcp::DataType>(type)))
      return static_cast<dcp::DataType>(type);
  }
  return std::nullopt;
}

std::optional<DcpVariable::Causality> causality_of(std::string_view name) {
  for (const auto causality :
       {DcpVariable::Causality::input, DcpVariable::Causality::output,
        DcpVariable::Causality::parameter, DcpVariable::Causality::structural_parameter}) {
    if (name == drivers::to_string(causality)) return causality;
  }
  return std::nullopt;
}

class DcpxParser : public models::fmi::XmlReader {
 public:
  using XmlReader::XmlReader;

  DcpDescription parse() {
    const pugi::xml_node root = load_root("dcpSlaveDescription");
    const std::string where = element(root);
    DcpDescription description;
    description.file = file();
    description.slave_name = required_text(root, "dcpSlaveName", where);
    description.major_version = required_integer<std::uint8_t>(root, "dcpMajorVersion", where);
    description.minor_version = required_integer<std::uint8_t>(root, "dcpMinorVersion", where);
    if (description.major_version != 1) {
      fail(where, "dcpMajorVersion",
           "DCP " + std::to_string(description.major_version) +
               ".x: couplet speaks DCP 1.0 (dcpMajorVersion 1)");
    }
    description.uuid_text = required_text(root, "uuid", where);
    description.uuid = parse_uuid(description.uuid_text, where);
    read_op_modes(root, description);
    read_time_resolutions(root, description);
    read_transport(root, description);
    if (const pugi::xml_node flags = unique_child(root, "CapabilityFlags")) {
      description.can_handle_variable_steps = flag(flags, "canHandleVariableSteps", element(flags));
    }
    read_variables(root, description);
    return description;
  }

 private:
  template <typename Integer>
  Integer required_integer(pugi::xml_node node, const char* name, const std::string& where) const {
    const auto value = optional_integer<Integer>(node, name, where);
    if (!value) fail(where, name, "missing (required)");
    return *value;
  }

  bool flag_or(pugi::xml_node node, const char* name, bool absent, const std::string& where) const {
    return attribute_text(node, name) ? flag(node, name, where) : absent;
  }

  dcp::Uuid parse_uuid(const std::string& text, const std::string& where) const {
    dcp::Uuid uuid{};
    std::size_t digits = 0;
    for (const char c : text) {
      if (c == '-') continue;
      const int value = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (value < 0 || digits >= 32) {
        fail(where, "uuid", single_quoted(text) + " is not a UUID (32 hexadecimal digits)");
      }
      uuid[digits / 2] = static_cast<std::uint8_t>(uuid[digits / 2] * 16 + value);
      ++digits;
    }
    if (digits != 32)
      fail(where, "uuid", single_quoted(text) + " is not a UUID (32 hexadecimal digits)");
    return uuid;
  }

  void read_op_modes(pugi::xml_node root, DcpDescription& description) const {
    const pugi::xml_node modes = unique_child(root, "OpMode");
    if (!modes) fail(element(root), "no <OpMode>: a slave offers at least one mode");
    description.hard_real_time = static_cast<bool>(unique_child(modes, "HardRealTime"));
    description.soft_real_time = static_cast<bool>(unique_child(modes, "SoftRealTime"));
    if (const pugi::xml_node nrt = unique_child(modes, "NonRealTime")) {
      const std::string where = element(nrt);
      DcpNonRealTime mode;
      mode.default_steps = optional_integer<std::uint32_t>(nrt, "defaultSteps", where).value_or(1);
      mode.fixed_steps = flag_or(nrt, "fixedSteps", true, where);
      mode.min_steps = optional_integer<std::uint32_t>(nrt, "minSteps", where);
      mode.max_steps = optional_integer<std::uint32_t>(nrt, "maxSteps", where);
      if (mode.default_steps == 0) fail(where, "defaultSteps", "must be at least 1");
      description.non_real_time = mode;
    }
    if (!description.hard_real_time && !description.soft_real_time && !description.non_real_time) {
      fail(element(modes), "offers no mode (HardRealTime, SoftRealTime or NonRealTime)");
    }
  }

  void read_time_resolutions(pugi::xml_node root, DcpDescription& description) const {
    const pugi::xml_node time_res = unique_child(root, "TimeRes");
    if (!time_res) return;  // any resolution
    for (const pugi::xml_node node : time_res.children("Resolution")) {
      const std::string where = element(node);
      DcpResolution resolution;
      resolution.numerator = optional_integer<std::uint32_t>(node, "numerator", where).value_or(1);
      resolution.denominator =
          optional_integer<std::uint32_t>(node, "denominator", where).value_or(1000);
      resolution.fixed = flag_or(node, "fixed", true, where);
      resolution.recommended = flag(node, "recommended", where);
      if (resolution.numerator == 0 || resolution.denominator == 0)
        fail(where, "a resolution of 0 or with denominator 0");
      description.resolutions.push_back(resolution);
    }
    for (const pugi::xml_node node : time_res.children("ResolutionRange")) {
      const std::string where = element(node);
      DcpResolutionRange range;
      range.numerator_from = required_integer<std::uint32_t>(node, "numeratorFrom", where);
      range.numerator_to = required_integer<std::uint32_t>(node, "numeratorTo", where);
      range.denominator = required_integer<std::uint32_t>(node, "denominator", where);
      if (range.numerator_from == 0 || range.numerator_from > range.numerator_to ||
          range.denominator == 0) {
        fail(where, "an empty range, or one with 0 in it");
      }
      description.resolution_ranges.push_back(range);
    }
  }

  void read_transport(pugi::xml_node root, DcpDescription& description) const {
    const pugi::xml_node protocols = unique_child(root, "TransportProtocols");
    const pugi::xml_node udp = protocols ? unique_child(protocols, "UDP_IPv4") : pugi::xml_node();
    if (!udp) {
      fail(element(protocols ? protocols : root),
           "no <UDP_IPv4> transport: couplet drives DCP slaves over UDP");
    }
    const std::string where = element(udp);
    description.max_pdu_size =
        optional_integer<std::uint32_t>(udp, "maxPduSize", where).value_or(65507);
    if (const pugi::xml_node control = unique_child(udp, "Control")) {
      const std::string control_where = element(control);
      description.control_host = std::string(attribute_text(control, "host").value_or(""));
      description.control_port =
          optional_integer<std::uint16_t>(control, "port", control_where).value_or(0);
    }
    if (const pugi::xml_node data = unique_child(udp, "DAT_input_output")) {
      description.data_host = std::string(attribute_text(data, "host").value_or(""));
      for (const pugi::xml_node range : data.children("AvailablePortRange")) {
        const std::string range_where = element(range);
        const auto from = required_integer<std::uint16_t>(range, "from", range_where);
        const auto to = required_integer<std::uint16_t>(range, "to", range_where);
        if (from > to) fail(range_where, "from is after to");
        description.data_ports.push_back({from, to});
      }
      for (const pugi::xml_node port : data.children("AvailablePort")) {
        const auto number = required_integer<std::uint16_t>(port, "port", element(port));
        description.data_ports.push_back({number, number});
      }
    }
  }

  void read_variables(pugi::xml_node root, DcpDescription& description) const {
    const pugi::xml_node variables = unique_child(root, "Variables");
    if (!variables) return;
    std::set<std::uint64_t> references;
    std::set<std::string, std::less<>> names;
    for (const pugi::xml_node node : variables.children("Variable")) {
      DcpVariable variable;
      const std::string where = element(node);
      variable.name = required_text(node, "name", where);
      variable.where = element(node, "Variable " + single_quoted(variable.name));
      variable.value_reference = required_integer<std::uint64_t>(node, "valueReference", where);
      if (!references.insert(variable.value_reference).second) {
        fail(variable.where, "valueReference",
             std::to_string(variable.value_reference) + " is used by another variable");
      }
      if (!names.insert(variable.name).second)
        fail(variable.where, "name", "another variable has this name");
      read_causality(node, variable);
      description.variables.push_back(variable);
    }
  }

  void read_causality(pugi::xml_node node, DcpVariable& variable) const {
    pugi::xml_node causality;
    for (const pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      const auto value = causality_of(child.name());
      if (!value) continue;  // e.g. an annotation element
      if (causality) fail(variable.where, "has more than one causality element");
      causality = child;
      variable.causality = *value;
    }
    if (!causality) {
      fail(variable.where,
           "has no causality element (expected one of Input, Output, Parameter, "
           "StructuralParameter)");
    }
    if (variable.causality == DcpVariable::Causality::output) {
      const std::string where = element(causality);
      variable.default_steps =
          optional_integer<std::uint32_t>(causality, "defaultSteps", where).value_or(1);
      if (variable.default_steps == 0) fail(where, "defaultSteps", "must be at least 1");
    }
    pugi::xml_node type_node;
    for (const pugi::xml_node child : causality.children()) {
      if (child.type() != pugi::node_element) continue;
      if (std::string_view(child.name()) == "Dimensions") {
        fail(variable.where, "is an array (Dimensions): couplet exchanges scalar DCP variables");
      }
      const auto type = data_type_of(child.name());
      if (!type) continue;
      type_node = child;
      variable.type = *type;
    }
    if (!type_node) {
      fail(element(causality),
           "no data type element (expected one of Uint8, Uint16, Uint32, Uint64, Int8, "
           "Int16, Int32, Int64, Float32, Float64, String, Binary)");
    }
    if (type_node.child("Dimensions"))
      fail(variable.where, "is an array (Dimensions): couplet exchanges scalar DCP variables");
    const std::string type_where = element(type_node);
    if (dcp::is_numeric(variable.type)) {
      if (const auto start = attribute_text(type_node, "start")) {
        const auto items = models::fmi::list_items(*start);
        if (items.empty()) fail(type_where, "start", "empty");
        const auto value = models::fmi::parse_finite_double(items.front());
        if (!value) fail(type_where, "start", "not a number " + single_quoted(items.front()));
        variable.start = value;
      }
    }
    variable.unit = std::string(attribute_text(type_node, "unit").value_or(""));
  }
};

std::string resolution_text(std::uint32_t numerator, std::uint32_t denominator) {
  return std::to_string(numerator) + "/" + std::to_string(denominator) + " s";
}

}  // namespace

DcpDescription parse_dcp_description(const std::string& xml, const std::string& file) {
  return DcpxParser(xml, file).parse();
}

DcpDescription read_dcp_description(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw ConfigurationError(path + ": cannot open the DCP slave description");
  const std::string xml((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  if (stream.bad()) throw ConfigurationError(path + ": cannot read the DCP slave description");
  return parse_dcp_description(xml, path);
}

std::string describe(const DcpDescription& description) {
  std::ostringstream text;
  text << "DCP slave '" << description.slave_name << "' (" << description.file << ")\n"
       << "  DCP " << int(description.major_version) << "." << int(description.minor_version)
       << ", uuid " << description.uuid_text << "\n  modes:";
  if (description.hard_real_time) text << " HardRealTime";
  if (description.soft_real_time) text << " SoftRealTime";
  if (const auto& nrt = description.non_real_time) {
    text << " NonRealTime (default steps " << nrt->default_steps
         << (nrt->fixed_steps ? ", fixed" : ", variable");
    if (nrt->min_steps) text << ", min " << *nrt->min_steps;
    if (nrt->max_steps) text << ", max " << *nrt->max_steps;
    text << ")";
  }
  text << "\n  time resolutions:";
  if (description.resolutions.empty() && description.resolution_ranges.empty()) text << " any";
  for (const DcpResolution& resolution : description.resolutions) {
    text << " " << resolution_text(resolution.numerator, resolution.denominator)
         << (resolution.fixed ? " (fixed)" : "")
         << (resolution.recommended ? " (recommended)" : "");
  }
  for (const DcpResolutionRange& range : description.resolution_ranges) {
    text << " " << range.numerator_from << ".." << range.numerator_to << "/" << range.denominator
         << " s";
  }
  text << "\n  variable steps: " << (description.can_handle_variable_steps ? "yes" : "no")
       << "\n  control: udp " << (description.control_host.empty() ? "?" : description.control_host)
       << ":" << description.control_port << "\n  data ports:";
  if (description.data_ports.empty()) text << " none declared";
  for (const DcpPortRange& range : description.data_ports) {
    text << " " << range.from;
    if (range.to != range.from) text << "-" << range.to;
  }
  text << "\n  variables:\n";
  for (const DcpVariable& variable : description.variables) {
    text << "    " << variable.name << "  " << drivers::to_string(variable.causality) << " "
         << dcp::to_string(variable.type) << ", vr " << variable.value_reference;
    if (variable.start) text << ", start " << *variable.start;
    if (!variable.unit.empty()) text << ", unit " << variable.unit;
    text << "\n";
  }
  return text.str();
}

}  // namespace couplet::tools
