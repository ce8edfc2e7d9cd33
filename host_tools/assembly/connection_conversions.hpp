#pragma once
// Conversions on connections: a coupling.linear slave between the two ends
// of a connection (to = factor · from + offset). A connection gets one when
// the scenario declares factor/offset on it (parsed with the scenario), or
// when its ends declare different units of one SI base, km/h and m/s say
// (decided when the system is built, once the slaves' units are known:
// docs/units.md).
#include <string>
#include <vector>

#include "couplet/unit.hpp"
#include "host_tools/scenario/connection_converter.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// A connection whose ends' units differ but share an SI base.
struct UnitConversionNeed {
  std::size_t connection = 0;  ///< index in Scenario::connections
  std::string from_unit, to_unit;
  std::string base;  ///< base_text of both
  UnitConversion conversion;
};

/// The connections of `scenario` (not those with factor/offset, not those
/// inside a group) whose Real ends in `system` declare different units of
/// one base. `system` holds the scenario's slaves, connected or not; ends
/// not found in it are left to System::connect to refuse.
std::vector<UnitConversionNeed> unit_conversions(const Scenario& scenario, const System& system);

/// `scenario` with a converter on each connection of `needs`.
Scenario with_unit_conversions(Scenario scenario, const std::vector<UnitConversionNeed>& needs);

/// "FILE:LINE: connections[2]: 'car.v' [m/s] -> 'meter.v' [km/h]: converted,
/// to = 3.6 * from (both m.s-1)": what `couplet validate` says of one.
std::string describe(const Scenario& scenario, const UnitConversionNeed& need);

}  // namespace couplet::tools
