#pragma once
// The exact solution of a linear model under polynomial inputs, by the matrix
// exponential of an augmented system (one solve per segment between time events).
#include <memory>

#include "models/model.hpp"
#include "models/solver.hpp"

namespace couplet::models {

/// True when the model has a LinearForm of consistent sizes on every segment
/// between its time events (what the exact solver needs).
bool has_linear_form_everywhere(const Model& model);

/// Precondition: has_linear_form_everywhere(model). Unlike CVODE and Euler, this
/// solver allocates while stepping (Eigen matrices for the augmented system and
/// its exponential): it is a reference, not a real-time solver.
std::unique_ptr<Solver> make_exact_solver(const Model& model);

}  // namespace couplet::models
