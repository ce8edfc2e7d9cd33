#pragma once
// Forward Euler with k equal substeps per macro step (Glumac eq. 45).
#include <memory>

#include "models/model.hpp"
#include "models/solver.hpp"

namespace couplet::models {

/// `substeps` = k >= 1 substeps per macro step; a segment cut by a time event gets
/// its share, rounded up, so that no substep straddles the event.
std::unique_ptr<Solver> make_euler_solver(const Model& model, int substeps);

}  // namespace couplet::models
