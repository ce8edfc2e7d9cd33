#pragma once
// A conversion on a connection (to = factor · from + offset) becomes a
// coupling.linear slave between its two ends: for a connection's declared
// factor/offset when the scenario is read, and for ends whose units differ
// when the system is built (assembly/connection_conversions.hpp, docs/units.md).
#include <cstddef>

#include "couplet/unit.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// Puts a coupling.linear slave between the ends of connection `index`,
/// named transform_<slave>_<input> and placed just before the target slave
/// (a Gauss–Seidel sweep then passes the converted value on at once). A
/// connection of a group member is refused, naming the connection: the
/// converter would sit outside the group.
void insert_converter(Scenario& scenario, std::size_t index, UnitConversion conversion);

}  // namespace couplet::tools
