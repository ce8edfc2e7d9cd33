#pragma once
// SUNDIALS CVODE (6.4) as an OdeSlave solver: BDF or Adams with Newton iterations
// on a dense linear solver, re-initialized at every segment start.
#include <memory>

#include "models/model.hpp"
#include "models/ode_slave.hpp"
#include "models/solver.hpp"

namespace couplet::models {

/// Uses the settings' method, tolerances and max_internal_step. Everything CVODE
/// needs is allocated in Solver::setup; integrate() does not allocate.
std::unique_ptr<Solver> make_cvode_solver(const Model& model, const SolverSettings& settings);

}  // namespace couplet::models
