#pragma once
// Port values to and from an FMI 3.0 instance, whatever the variables' types:
// couplet's Real ports are Float64 and Float32 variables, its discrete ports
// (int64 signals) the integer types, Enumeration (through fmi3Get/SetInt64,
// §2.2.6.2) and Boolean. A port is a scalar variable or one element of an
// array (fmi3_elements.hpp); an array moves whole, so the elements that are no
// port keep their start values when it is set. One fmi3Get/Set call per type
// present; buffers sized at construction, so exchanging does not allocate.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/fmi/fmi3_description.hpp"
#include "models/fmi/fmi3_elements.hpp"
#include "models/fmi/fmi3_package.hpp"

namespace couplet::models::fmi3 {

/// Are `variable`'s elements (or the scalar) Real ports?
bool is_real_port(const Variable& variable);
/// ... or discrete (Integer or Boolean) ones?
bool is_discrete_port(const Variable& variable);

/// Can `variable`'s type hold `value` (a scenario's parameter) exactly? An
/// integer type a whole number in range, Boolean 0 or 1, a Float any.
bool holds_exactly(const Variable& variable, double value);

class PortValues {
 public:
  /// `ports`: the ports' elements, in port order, of arrays sized by `layout`.
  /// The elements of their arrays that are no port keep the value in `given`
  /// (the scenario's parameters, by element name) or else their start value.
  /// Throws ConfigurationError "FMU 'PATH': missing function fmi3GetInt8
  /// (port 'x')" when the library lacks a function a port needs.
  PortValues(const Package& package, const ArrayLayout& layout, std::span<const Element> ports,
             const std::map<std::string, double, std::less<>>& given = {});
  PortValues(PortValues&&) noexcept;
  PortValues& operator=(PortValues&&) noexcept;
  ~PortValues();

  /// The first call that failed (not fmi3OK or fmi3Warning), for the caller's check.
  struct Failure {
    fmi3Status status;
    const char* call;
  };

  /// Real ports (one value per port). Float32 variables take the nearest float.
  std::optional<Failure> set(fmi3Instance instance, std::span<const double> values);
  std::optional<Failure> get(fmi3Instance instance, std::span<double> values);

  /// Discrete ports. Throws SlaveError "slave 'S': input 'x' takes UInt8 values
  /// 0 to 255, not 300" for a value its type cannot hold, and for a UInt64
  /// output beyond the int64 range of discrete signals.
  std::optional<Failure> set(fmi3Instance instance, std::span<const std::int64_t> values,
                             const std::string& slave_name);
  std::optional<Failure> get(fmi3Instance instance, std::span<std::int64_t> values,
                             const std::string& slave_name);

  /// The value reference of each variable the ports belong to, once.
  std::vector<fmi3ValueReference> references() const;

  /// Ports of any type from doubles their types hold exactly (holds_exactly):
  /// the scenario's start values and parameters, set before initialization.
  std::optional<Failure> set_exactly(fmi3Instance instance, std::span<const double> values);

 private:
  struct Groups;
  std::unique_ptr<Groups> groups_;
};

}  // namespace couplet::models::fmi3
