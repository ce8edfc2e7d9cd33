#include "models/fmi/xml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <set>

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

std::string_view without_plus_sign(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') {
    text.remove_prefix(1);
  }
  return text;
}

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

std::vector<std::string_view> list_items(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  std::vector<std::string_view> items;
  std::size_t begin = 0;
  while ((begin = text.find_first_not_of(kSpace, begin)) != std::string_view::npos) {
    const std::size_t end = std::min(text.find_first_of(kSpace, begin), text.size());
    items.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return items;
}

bool is_plain_file_stem(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

XmlReader::XmlReader(const std::string& xml, const std::string& file) : xml_(xml), file_(file) {
  for (std::size_t offset = 0; offset < xml.size(); ++offset) {
    if (xml[offset] == '\n') newline_offsets_.push_back(offset);
  }
}

pugi::xml_node XmlReader::load_root(std::string_view root_name) {
  const pugi::xml_parse_result result =
      document_.load_buffer(xml_.data(), xml_.size(), pugi::parse_default, pugi::encoding_auto);
  if (!result) {
    throw ConfigurationError(file_ + ": malformed XML at line " +
                             std::to_string(line_of(result.offset)) + ": " + result.description());
  }
  const pugi::xml_node root = document_.document_element();
  if (std::string_view(root.name()) != root_name) {
    fail(element(root), "the root element must be " + std::string(root_name) + ", not " +
                            single_quoted(root.name()));
  }
  return root;
}

std::size_t XmlReader::line_of(std::ptrdiff_t offset) const {
  if (offset < 0) return 0;
  const auto newlines_before = std::lower_bound(newline_offsets_.begin(), newline_offsets_.end(),
                                                static_cast<std::size_t>(offset));
  return static_cast<std::size_t>(newlines_before - newline_offsets_.begin()) + 1;
}

std::string XmlReader::element(pugi::xml_node node, std::string_view label) const {
  return (label.empty() ? std::string(node.name()) : std::string(label)) + " (line " +
         std::to_string(line_of(node.offset_debug())) + ")";
}

void XmlReader::fail(const std::string& where, const std::string& why) const {
  throw ConfigurationError(file_ + ": " + where + ": " + why);
}

void XmlReader::fail(const std::string& where, const char* attribute,
                     const std::string& why) const {
  fail(where + ": " + attribute, why);
}

std::optional<std::string_view> XmlReader::attribute_text(pugi::xml_node node, const char* name) {
  const pugi::xml_attribute attribute = node.attribute(name);
  if (!attribute) return std::nullopt;
  return std::string_view(attribute.value());
}

std::string XmlReader::required_text(pugi::xml_node node, const char* name,
                                     const std::string& where) const {
  const auto text = attribute_text(node, name);
  if (!text) fail(where, name, "missing (required)");
  return std::string(*text);
}

std::optional<double> XmlReader::optional_double(pugi::xml_node node, const char* name,
                                                 const std::string& where) const {
  const auto text = attribute_text(node, name);
  if (!text) return std::nullopt;
  const auto value = parse_finite_double(*text);
  if (!value) fail(where, name, "not a finite number " + single_quoted(*text));
  return value;
}

bool XmlReader::flag(pugi::xml_node node, const char* name, const std::string& where) const {
  const auto text = attribute_text(node, name);
  if (!text) return false;
  const auto value = parse_boolean(*text);
  if (!value)
    fail(where, name, "not a boolean " + single_quoted(*text) + " (expected true or false)");
  return *value;
}

std::string XmlReader::model_identifier(pugi::xml_node node, const std::string& where) const {
  std::string identifier = required_text(node, "modelIdentifier", where);
  if (!is_plain_file_stem(identifier)) {
    fail(where, "modelIdentifier",
         single_quoted(identifier) +
             " is not a plain file name stem (letters, digits and '_' only): it names "
             "binaries/<platform>/<modelIdentifier>.so");
  }
  return identifier;
}

pugi::xml_node XmlReader::unique_child(pugi::xml_node parent, const char* name) const {
  pugi::xml_node found;
  for (const pugi::xml_node child : parent.children(name)) {
    if (found) fail(element(child), "a second " + std::string(name) + " element");
    found = child;
  }
  return found;
}

std::map<std::string, UnitDefinition, std::less<>> XmlReader::unit_definitions(
    pugi::xml_node definitions) const {
  std::map<std::string, UnitDefinition, std::less<>> units;
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
    units.emplace(name, definition);
  }
  return units;
}

}  // namespace couplet::models::fmi
