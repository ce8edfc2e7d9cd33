#pragma once
// Reading an FMI modelDescription.xml with pugixml: what the FMI 2.0 and the
// FMI 3.0 parsers share. Every error is a ConfigurationError
// "FILE: ELEMENT (line N): ATTRIBUTE: why", so a user can find the culprit.
#include <array>
#include <charconv>
#include <cstddef>
#include <map>
#include <optional>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "couplet/unit.hpp"

namespace couplet::models::fmi {

/// 'text', for messages (shared by the loader's files and the SSP reader).
std::string single_quoted(std::string_view text);

/// XML Schema values, as FMI and SSP files write them: xs:double as a finite
/// double (the whole text, an optional '+'), or nothing.
std::optional<double> parse_finite_double(std::string_view text);
/// xs:boolean: "true", "false", "1", "0", or nothing.
std::optional<bool> parse_boolean(std::string_view text);

/// The XML Schema integer types allow a leading '+'; from_chars does not.
std::string_view without_plus_sign(std::string_view text);

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

/// The words of a whitespace-separated list (xs:list), as views into `text`.
std::vector<std::string_view> list_items(std::string_view text);

/// modelIdentifier names binaries/<platform>/<modelIdentifier>.so: anything but
/// a plain file stem could point outside the unpacked FMU.
bool is_plain_file_stem(std::string_view text);

// An enum's XML spellings as one table, read by the parser and by to_string
// alike, so that they cannot disagree.
template <typename Enum, std::size_t N>
using SpellingTable = std::array<std::pair<const char*, Enum>, N>;

template <typename Enum, std::size_t N>
const char* spelling_of(const SpellingTable<Enum, N>& table, Enum value) {
  for (const auto& [spelling, entry] : table) {
    if (entry == value) return spelling;
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_of(const SpellingTable<Enum, N>& table, std::string_view text) {
  for (const auto& [spelling, entry] : table) {
    if (text == spelling) return entry;
  }
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::string list_of(const SpellingTable<Enum, N>& table) {
  std::string names;
  for (const auto& entry : table) names += (names.empty() ? "" : ", ") + std::string(entry.first);
  return names;
}

/// The document and the line numbers of one modelDescription.xml; the
/// parsers derive from it for its attribute readers.
class XmlReader {
 public:
  /// `xml` and `file` must outlive the reader; `file` names it in messages.
  XmlReader(const std::string& xml, const std::string& file);

 protected:
  /// Parses the text and returns the root element, which must be `root_name`.
  /// Throws for malformed XML, naming the line.
  pugi::xml_node load_root(std::string_view root_name = "fmiModelDescription");

  std::size_t line_of(std::ptrdiff_t offset) const;

  /// "CoSimulation (line 5)": how messages name an element; `label` replaces
  /// the element's name ("ScalarVariable 'x'").
  std::string element(pugi::xml_node node, std::string_view label = {}) const;

  [[noreturn]] void fail(const std::string& where, const std::string& why) const;
  [[noreturn]] void fail(const std::string& where, const char* attribute,
                         const std::string& why) const;

  static std::optional<std::string_view> attribute_text(pugi::xml_node node, const char* name);
  std::string required_text(pugi::xml_node node, const char* name, const std::string& where) const;

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
                                        const std::string& where) const;

  /// A capability flag; absent means false.
  bool flag(pugi::xml_node node, const char* name, const std::string& where) const;

  template <typename Enum, std::size_t N>
  std::optional<Enum> optional_enum(pugi::xml_node node, const char* name,
                                    const SpellingTable<Enum, N>& table,
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

  /// The modelIdentifier attribute, a plain file name stem.
  std::string model_identifier(pugi::xml_node node, const std::string& where) const;

  /// The single child called `name`, or a null node; two are an error.
  pugi::xml_node unique_child(pugi::xml_node parent, const char* name) const;

  /// <UnitDefinitions> (the same in FMI 2.0 §2.2.2 and 3.0 §2.4.3): the units
  /// with a <BaseUnit>, which say how they convert; a unit without one is a
  /// name only.
  std::map<std::string, UnitDefinition, std::less<>> unit_definitions(
      pugi::xml_node definitions) const;

  const std::string& file() const { return file_; }

 private:
  const std::string& xml_;
  const std::string& file_;
  pugi::xml_document document_;
  std::vector<std::size_t> newline_offsets_;  ///< for line numbers in messages
};

}  // namespace couplet::models::fmi
