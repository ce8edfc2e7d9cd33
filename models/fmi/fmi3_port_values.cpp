#include "models/fmi/fmi3_port_values.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet::models::fmi3 {
namespace {

/// The ports of one variable type: where they sit among the ports and in a
/// buffer for one fmi3Get/Set call, which holds every element of each variable.
template <typename T>
struct Group {
  using GetFunction = fmi3Status(fmi3Instance, const fmi3ValueReference[], size_t, T[], size_t);
  using SetFunction = fmi3Status(fmi3Instance, const fmi3ValueReference[], size_t, const T[],
                                 size_t);
  GetFunction* get = nullptr;
  SetFunction* set = nullptr;
  const char* get_name = "";
  const char* set_name = "";
  std::vector<std::size_t> ports;    ///< port index of each of the group's ports
  std::vector<std::size_t> offsets;  ///< ... and its place in `values`
  std::vector<std::string> names;
  std::vector<fmi3ValueReference> references;  ///< each variable once
  std::vector<Element> firsts;                 ///< element 0 of each variable
  std::size_t count = 0;                       ///< elements of all variables
  std::unique_ptr<T[]> values;  ///< not std::vector: fmi3Boolean is bool

  bool empty() const { return ports.empty(); }

  void add(std::size_t port, const Element& element, const ArrayLayout& layout) {
    const Variable& variable = layout.description().variables[element.variable];
    std::size_t base = 0;
    std::size_t k = 0;
    for (; k < firsts.size() && firsts[k].variable != element.variable; ++k)
      base += layout.element_count(layout.description().variables[firsts[k].variable]);
    if (k == firsts.size()) {
      firsts.push_back({element.variable, 0});
      references.push_back(variable.value_reference);
      count += layout.element_count(variable);
    }
    ports.push_back(port);
    offsets.push_back(base + element.index);
    names.push_back(layout.name_of(element));
  }

  /// The buffer, holding each element's given or start value: what an array
  /// element that is no port keeps when the array is set.
  void allocate(const ArrayLayout& layout,
                const std::map<std::string, double, std::less<>>& given) {
    values = std::make_unique<T[]>(count);
    std::size_t offset = 0;
    for (const Element& first : firsts) {
      const Variable& variable = layout.description().variables[first.variable];
      const std::size_t elements = layout.element_count(variable);
      for (std::size_t k = 0; k < elements; ++k, ++offset) {
        const Element element{first.variable, k};
        const auto value = given.find(layout.name_of(element));
        values[offset] = value != given.end() && holds_exactly(variable, value->second)
                             ? exactly(value->second)
                             : start_value(layout.start_of(element));
      }
    }
  }

  /// `value` in T, which holds it exactly (holds_exactly).
  static T exactly(double value) {
    if constexpr (std::is_same_v<T, bool>)
      return value != 0.0;
    else
      return static_cast<T>(value);
  }

  static T start_value(const std::string* text) {
    if (text == nullptr) return T{};
    if constexpr (std::is_same_v<T, bool>) {
      return fmi::parse_boolean(*text).value_or(false);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(fmi::parse_finite_double(*text).value_or(0.0));
    } else {
      return fmi::parse_integer<T>(*text).value_or(T{});
    }
  }

  /// One fmi3Set/fmi3Get call for every variable of the group, from or into `values`.
  std::optional<PortValues::Failure> set_all(fmi3Instance instance) const {
    return failure_of(set(instance, references.data(), references.size(), values.get(), count),
                      set_name);
  }
  std::optional<PortValues::Failure> get_all(fmi3Instance instance) {
    return failure_of(get(instance, references.data(), references.size(), values.get(), count),
                      get_name);
  }

  static std::optional<PortValues::Failure> failure_of(fmi3Status status, const char* call) {
    if (status == fmi3OK || status == fmi3Warning) return std::nullopt;
    return PortValues::Failure{status, call};
  }
};

template <typename T>
Group<T> group(typename Group<T>::GetFunction* get, typename Group<T>::SetFunction* set,
               const char* get_name, const char* set_name) {
  Group<T> result;
  result.get = get;
  result.set = set;
  result.get_name = get_name;
  result.set_name = set_name;
  return result;
}

bool is_numeric(VariableType type) {
  switch (type) {
    case VariableType::string:
    case VariableType::binary:
    case VariableType::clock:
      return false;
    default:
      return true;
  }
}

}  // namespace

struct PortValues::Groups {
  Group<fmi3Float32> float32;
  Group<fmi3Float64> float64;
  Group<fmi3Int8> int8;
  Group<fmi3UInt8> uint8;
  Group<fmi3Int16> int16;
  Group<fmi3UInt16> uint16;
  Group<fmi3Int32> int32;
  Group<fmi3UInt32> uint32;
  Group<fmi3Int64> int64;  ///< also Enumeration (§2.2.6.2)
  Group<fmi3UInt64> uint64;
  Group<fmi3Boolean> boolean;

  template <typename Visitor>
  void for_each(Visitor&& visit) {
    visit(float32), visit(float64), visit(int8), visit(uint8), visit(int16), visit(uint16);
    visit(int32), visit(uint32), visit(int64), visit(uint64), visit(boolean);
  }

  template <typename Visitor>
  void with(VariableType type, Visitor&& visit) {
    switch (type) {
      case VariableType::float32:
        return visit(float32);
      case VariableType::float64:
        return visit(float64);
      case VariableType::int8:
        return visit(int8);
      case VariableType::uint8:
        return visit(uint8);
      case VariableType::int16:
        return visit(int16);
      case VariableType::uint16:
        return visit(uint16);
      case VariableType::int32:
        return visit(int32);
      case VariableType::uint32:
        return visit(uint32);
      case VariableType::int64:
      case VariableType::enumeration:
        return visit(int64);
      case VariableType::uint64:
        return visit(uint64);
      case VariableType::boolean:
        return visit(boolean);
      case VariableType::string:
      case VariableType::binary:
      case VariableType::clock:
        break;
    }
    throw std::logic_error("PortValues: a variable type that is no port");
  }
};

bool is_real_port(const Variable& variable) {
  return variable.type == VariableType::float64 || variable.type == VariableType::float32;
}

bool is_discrete_port(const Variable& variable) {
  return is_numeric(variable.type) && !is_real_port(variable);
}

bool holds_exactly(const Variable& variable, double value) {
  if (is_real_port(variable)) return true;
  if (!is_discrete_port(variable) || !std::isfinite(value) || value != std::trunc(value))
    return false;
  if (variable.type == VariableType::boolean) return value == 0.0 || value == 1.0;
  // Within int64 (2^63 is a double; the comparison is exact), then within the type.
  if (value >= 9223372036854775808.0 || value < -9223372036854775808.0)
    return variable.type == VariableType::uint64 && value >= 0.0 && value < 18446744073709551616.0;
  const auto whole = static_cast<std::int64_t>(value);
  switch (variable.type) {
    case VariableType::int8:
      return std::in_range<fmi3Int8>(whole);
    case VariableType::uint8:
      return std::in_range<fmi3UInt8>(whole);
    case VariableType::int16:
      return std::in_range<fmi3Int16>(whole);
    case VariableType::uint16:
      return std::in_range<fmi3UInt16>(whole);
    case VariableType::int32:
      return std::in_range<fmi3Int32>(whole);
    case VariableType::uint32:
      return std::in_range<fmi3UInt32>(whole);
    case VariableType::uint64:
      return whole >= 0;
    default:
      return true;  // Int64, Enumeration
  }
}

PortValues::PortValues(const Package& package, const ArrayLayout& layout,
                       std::span<const Element> ports,
                       const std::map<std::string, double, std::less<>>& given)
    : groups_(std::make_unique<Groups>()) {
  // The package has loaded the library: a slave is being made.
  const Functions& f = package.loaded();
  Groups& g = *groups_;
  g.float32 = group<fmi3Float32>(f.GetFloat32, f.SetFloat32, "fmi3GetFloat32", "fmi3SetFloat32");
  g.float64 = group<fmi3Float64>(f.GetFloat64, f.SetFloat64, "fmi3GetFloat64", "fmi3SetFloat64");
  g.int8 = group<fmi3Int8>(f.GetInt8, f.SetInt8, "fmi3GetInt8", "fmi3SetInt8");
  g.uint8 = group<fmi3UInt8>(f.GetUInt8, f.SetUInt8, "fmi3GetUInt8", "fmi3SetUInt8");
  g.int16 = group<fmi3Int16>(f.GetInt16, f.SetInt16, "fmi3GetInt16", "fmi3SetInt16");
  g.uint16 = group<fmi3UInt16>(f.GetUInt16, f.SetUInt16, "fmi3GetUInt16", "fmi3SetUInt16");
  g.int32 = group<fmi3Int32>(f.GetInt32, f.SetInt32, "fmi3GetInt32", "fmi3SetInt32");
  g.uint32 = group<fmi3UInt32>(f.GetUInt32, f.SetUInt32, "fmi3GetUInt32", "fmi3SetUInt32");
  g.int64 = group<fmi3Int64>(f.GetInt64, f.SetInt64, "fmi3GetInt64", "fmi3SetInt64");
  g.uint64 = group<fmi3UInt64>(f.GetUInt64, f.SetUInt64, "fmi3GetUInt64", "fmi3SetUInt64");
  g.boolean = group<fmi3Boolean>(f.GetBoolean, f.SetBoolean, "fmi3GetBoolean", "fmi3SetBoolean");
  for (std::size_t port = 0; port < ports.size(); ++port) {
    const Variable& variable = layout.description().variables.at(ports[port].variable);
    g.with(variable.type, [&](auto& typed) {
      if (typed.get == nullptr || typed.set == nullptr) {
        throw ConfigurationError("FMU '" + package.path() + "': missing function " +
                                 (typed.get == nullptr ? typed.get_name : typed.set_name) +
                                 " (port " + fmi::single_quoted(layout.name_of(ports[port])) + ")");
      }
      typed.add(port, ports[port], layout);
    });
  }
  g.for_each([&](auto& typed) { typed.allocate(layout, given); });
}

PortValues::PortValues(PortValues&&) noexcept = default;
PortValues& PortValues::operator=(PortValues&&) noexcept = default;
PortValues::~PortValues() = default;

std::optional<PortValues::Failure> PortValues::set(fmi3Instance instance,
                                                   std::span<const double> values) {
  std::optional<Failure> failure;
  groups_->for_each([&](auto& typed) {
    using T = std::remove_pointer_t<decltype(typed.values.get())>;
    if constexpr (std::is_floating_point_v<T>) {
      if (typed.empty() || failure) return;
      for (std::size_t i = 0; i < typed.ports.size(); ++i)
        typed.values[typed.offsets[i]] = static_cast<T>(values[typed.ports[i]]);
      failure = typed.set_all(instance);
    }
  });
  return failure;
}

std::optional<PortValues::Failure> PortValues::get(fmi3Instance instance,
                                                   std::span<double> values) {
  std::optional<Failure> failure;
  groups_->for_each([&](auto& typed) {
    using T = std::remove_pointer_t<decltype(typed.values.get())>;
    if constexpr (std::is_floating_point_v<T>) {
      if (typed.empty() || failure) return;
      failure = typed.get_all(instance);
      if (failure) return;
      for (std::size_t i = 0; i < typed.ports.size(); ++i)
        values[typed.ports[i]] = static_cast<double>(typed.values[typed.offsets[i]]);
    }
  });
  return failure;
}

std::optional<PortValues::Failure> PortValues::set(fmi3Instance instance,
                                                   std::span<const std::int64_t> values,
                                                   const std::string& slave_name) {
  std::optional<Failure> failure;
  groups_->for_each([&](auto& typed) {
    using T = std::remove_pointer_t<decltype(typed.values.get())>;
    if constexpr (!std::is_floating_point_v<T>) {
      if (typed.empty() || failure) return;
      for (std::size_t i = 0; i < typed.ports.size(); ++i) {
        const std::int64_t value = values[typed.ports[i]];
        if constexpr (std::is_same_v<T, bool>) {
          typed.values[typed.offsets[i]] = value != 0;
        } else {
          if (!std::in_range<T>(value)) {
            throw SlaveError(
                "slave '" + slave_name + "': input " + fmi::single_quoted(typed.names[i]) +
                " takes values " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                std::to_string(std::numeric_limits<T>::max()) + ", not " + std::to_string(value));
          }
          typed.values[typed.offsets[i]] = static_cast<T>(value);
        }
      }
      failure = typed.set_all(instance);
    }
  });
  return failure;
}

std::optional<PortValues::Failure> PortValues::get(fmi3Instance instance,
                                                   std::span<std::int64_t> values,
                                                   const std::string& slave_name) {
  std::optional<Failure> failure;
  groups_->for_each([&](auto& typed) {
    using T = std::remove_pointer_t<decltype(typed.values.get())>;
    if constexpr (!std::is_floating_point_v<T>) {
      if (typed.empty() || failure) return;
      failure = typed.get_all(instance);
      if (failure) return;
      for (std::size_t i = 0; i < typed.ports.size(); ++i) {
        const T value = typed.values[typed.offsets[i]];
        if constexpr (std::is_same_v<T, fmi3UInt64>) {
          if (!std::in_range<std::int64_t>(value)) {
            throw SlaveError("slave '" + slave_name + "': output " +
                             fmi::single_quoted(typed.names[i]) + " is " + std::to_string(value) +
                             ", beyond the int64 range of couplet's discrete signals");
          }
        }
        values[typed.ports[i]] = static_cast<std::int64_t>(value);
      }
    }
  });
  return failure;
}

std::vector<fmi3ValueReference> PortValues::references() const {
  std::vector<fmi3ValueReference> all;
  groups_->for_each([&all](const auto& typed) {
    all.insert(all.end(), typed.references.begin(), typed.references.end());
  });
  return all;
}

std::optional<PortValues::Failure> PortValues::set_exactly(fmi3Instance instance,
                                                           std::span<const double> values) {
  std::optional<Failure> failure;
  groups_->for_each([&](auto& typed) {
    if (typed.empty() || failure) return;
    // holds_exactly has checked each value: the conversions are exact (a
    // UInt64 above 2^63 included, which no int64 could carry).
    for (std::size_t i = 0; i < typed.ports.size(); ++i)
      typed.values[typed.offsets[i]] = typed.exactly(values[typed.ports[i]]);
    failure = typed.set_all(instance);
  });
  return failure;
}

}  // namespace couplet::models::fmi3
