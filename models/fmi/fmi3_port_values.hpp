#pragma once
// Port values to and from an FMI 3.0 instance, whatever the variables' types:
// couplet's Real ports are Float64 and Float32 variables, its discrete ports
// (int64 signals) the integer types, Enumeration (through fmi3Get/SetInt64,
// §2.2.6.2) and Boolean. One fmi3Get/Set call per type present; buffers sized
// at construction, so exchanging does not allocate.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/fmi/fmi3_description.hpp"
#include "models/fmi/fmi3_package.hpp"

namespace couplet::models::fmi3 {

/// Is `variable` a scalar couplet couples as a Real port?
bool is_real_port(const Variable& variable);
/// ... or as a discrete (Integer or Boolean) port?
bool is_discrete_port(const Variable& variable);

/// A value given as a double (a scenario's parameter) in `variable`'s type:
/// nothing when the type cannot hold it exactly (an integer type: a whole
/// number in range; Boolean: 0 or 1).
bool holds_exactly(const Variable& variable, double value);

class PortValues {
 public:
  /// `variables`: the ports' variable indices, in port order. Throws
  /// ConfigurationError "FMU 'PATH': missing function fmi3GetInt8 (port 'x')"
  /// when the library lacks a function a port needs.
  PortValues(const Package& package, std::span<const std::size_t> variables);
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

  /// Sets one variable of any numeric type before initialization (a start value).
  static std::optional<Failure> set_one(const Package& package, fmi3Instance instance,
                                        const Variable& variable, double value);

 private:
  struct Groups;
  std::unique_ptr<Groups> groups_;
};

}  // namespace couplet::models::fmi3
