#include "models/fmi/fmi3_elements.hpp"

#include <utility>
#include <vector>

#include "couplet/errors.hpp"

namespace couplet::models::fmi3 {

ArrayLayout::ArrayLayout(const Description& description,
                         std::map<std::uint32_t, std::uint64_t> structural_values)
    : description_(&description), structural_values_(std::move(structural_values)) {}

std::size_t ArrayLayout::element_count(const Variable& variable) const {
  const std::vector<std::uint64_t> extents = description_->extents(variable, structural_values_);
  std::uint64_t count = 1;
  for (const std::uint64_t extent : extents) {
    // Checked at every factor: the product of large extents must not wrap.
    if (extent != 0 && count > kMaxArrayElements / extent) {
      count = kMaxArrayElements + 1;
      break;
    }
    count *= extent;
  }
  if (count > kMaxArrayElements) {
    throw ConfigurationError(description_->file + ": " + fmi::single_quoted(variable.name) + ": " +
                             type_of(variable) + " has more than the " +
                             std::to_string(kMaxArrayElements) +
                             " elements couplet makes ports of");
  }
  return static_cast<std::size_t>(count);
}

std::string ArrayLayout::name_of(const Element& element) const {
  const Variable& variable = description_->variables.at(element.variable);
  if (variable.dimensions.empty()) return variable.name;
  return variable.name + "[" + std::to_string(element.index + 1) + "]";
}

std::optional<Element> ArrayLayout::find(const std::string& name) const {
  if (const auto scalar = description_->find(name)) {
    if (description_->variables[*scalar].dimensions.empty()) return Element{*scalar, 0};
    return std::nullopt;  // the whole array is no port
  }
  const std::size_t open = name.rfind('[');
  if (open == std::string::npos || name.back() != ']') return std::nullopt;
  const auto array = description_->find(name.substr(0, open));
  if (!array || description_->variables[*array].dimensions.empty()) return std::nullopt;
  const auto position = fmi::parse_integer<std::size_t>(
      std::string_view(name).substr(open + 1, name.size() - open - 2));
  if (!position || *position == 0 || *position > element_count(description_->variables[*array]))
    return std::nullopt;
  const Element element{*array, *position - 1};
  // One spelling per port: "y[+2]" and "y[02]" name none.
  if (name_of(element) != name) return std::nullopt;
  return element;
}

std::string ArrayLayout::type_of(const Variable& variable) const {
  std::string text = to_string(variable.type);
  const std::vector<std::uint64_t> extents = description_->extents(variable, structural_values_);
  for (std::size_t k = 0; k < extents.size(); ++k) {
    text += k == 0 ? '[' : ',';
    text += std::to_string(extents[k]);
  }
  return extents.empty() ? text : text + "]";
}

std::string ArrayLayout::hint_for(const std::string& name) const {
  const std::size_t open = name.rfind('[');
  const auto array = description_->find(open == std::string::npos ? name : name.substr(0, open));
  if (!array || description_->variables[*array].dimensions.empty()) return "";
  const Variable& variable = description_->variables[*array];
  const std::size_t count = element_count(variable);
  return "; " + fmi::single_quoted(variable.name) + " is a " + type_of(variable) +
         (count == 0 ? ", no elements"
                     : ": " + variable.name + "[1] to " + variable.name + "[" +
                           std::to_string(count) + "]");
}

const std::string* ArrayLayout::start_of(const Element& element) const {
  const std::vector<std::string>& start = description_->variables.at(element.variable).start;
  if (start.size() == 1) return &start.front();
  // A structural parameter set by the scenario may leave the written starts short.
  if (element.index < start.size()) return &start[element.index];
  return nullptr;
}

}  // namespace couplet::models::fmi3
