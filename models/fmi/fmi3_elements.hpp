#pragma once
// The scalars couplet exchanges with an FMI 3.0 FMU: a scalar variable, or one
// element of an array variable (FMI 3.0 §2.4.7.4). An array's ports are named
// `name[i]`, i = 1 ... its element count, in row-major order for more than one
// dimension: `grid[4]` of a UInt8[2,3] is its element (2,1). An extent held by
// a structural parameter takes the parameter's start value unless the
// scenario sets it (`n: 5`), which fmi3_co_simulation_slave does in
// Configuration Mode before anything else.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/fmi/fmi3_description.hpp"

namespace couplet::models::fmi3 {

/// One scalar of the FMU: `index` (0-based, row-major) of variable `variable`
/// (an index into Description::variables); 0 for a scalar variable.
struct Element {
  std::size_t variable = 0;
  std::size_t index = 0;
  friend bool operator==(const Element&, const Element&) = default;
};

/// The most elements couplet makes ports of for one array: a bound on what a
/// structural parameter can make it allocate.
inline constexpr std::uint64_t kMaxArrayElements = 65536;

/// The arrays' extents for one instance: each structural parameter's value, by
/// value reference — the scenario's where it sets one, else the start value.
class ArrayLayout {
 public:
  /// `structural_values`: the scenario's values of structural parameters.
  ArrayLayout(const Description& description,
              std::map<std::uint32_t, std::uint64_t> structural_values = {});

  /// Elements of `variable`: 1 for a scalar, the product of its extents for an
  /// array. Throws ConfigurationError "FILE: 'y': N elements, more than the
  /// 65536 couplet makes ports of" beyond kMaxArrayElements.
  std::size_t element_count(const Variable& variable) const;

  /// "y" for a scalar, "y[2]" for element index 1 of an array.
  std::string name_of(const Element& element) const;

  /// "Float64[5]" for an array (as sized here), "Float64" for a scalar.
  std::string type_of(const Variable& variable) const;

  /// For a message on `name`, which is no element: "; 'u' is a Float64[3]:
  /// u[1] to u[3]" when it names an array or an element past its end, else "".
  std::string hint_for(const std::string& name) const;

  /// The element called `name` ("y", or "y[2]" of an array), if any.
  std::optional<Element> find(const std::string& name) const;

  /// The start value written for the element, if any (one for every element
  /// of an array, or one per element).
  const std::string* start_of(const Element& element) const;

  const Description& description() const { return *description_; }

 private:
  const Description* description_;
  std::map<std::uint32_t, std::uint64_t> structural_values_;
};

}  // namespace couplet::models::fmi3
