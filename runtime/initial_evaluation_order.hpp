#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "runtime/input_coupling.hpp"
#include "runtime/system.hpp"

namespace couplet {

/// The order in which one pass of initial output evaluations settles as much as
/// a pass can: first every slave without a direct-feedthrough output read
/// through its inputs (its outputs and their k-th derivatives follow from its
/// state and from its inputs' lower derivatives only), in slave order; then the
/// slaves with inputs and a feedthrough output, each after the feedthrough
/// slaves whose feedthrough outputs it reads (Kahn's topological sort, ties in
/// slave order). Linear in the slaves and connections. Empty when feedthrough
/// outputs depend on each other in a loop (an algebraic loop: no order settles
/// it; iterative algorithms only).
std::optional<std::vector<std::size_t>> initial_evaluation_order(const System& system,
                                                                 const InputSources& sources);

}  // namespace couplet
