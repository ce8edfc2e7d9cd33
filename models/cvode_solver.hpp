#pragma once
// SUNDIALS CVODE (6.4) as an OdeSlave solver: BDF or Adams with Newton iterations
// on a dense linear solver, or a band one for a model declaring a banded ∂f/∂x
// (Model::jacobian_band), re-initialized at every segment start — or, with
// CvodeHistory::keep, continuing one history per attempt from a saved state
// (docs/models.md, "Keeping CVODE's history").
#include <memory>
#include <vector>

#include "models/model.hpp"
#include "models/ode_slave.hpp"
#include "models/solver.hpp"

namespace couplet::models {

/// What CVODE keeps from one segment to the next besides x and t. The inputs jump
/// at every communication time, so CVODE restarts there at order 1 (its Nordsieck
/// history is of the old right-hand side); what stays valid is the scale of the
/// solution and the Jacobian. This is state of the slave: the OdeSlave owns it and
/// saves and restores it with x, so that a step re-run after restore_state starts
/// from the same carry and repeats bit for bit.
struct CvodeCarry {
  /// The first internal step to try at the next segment start, seconds; 0 lets
  /// CVODE estimate it (cvHin).
  double initial_step = 0.0;
  /// ∂f/∂x, column-major n × n (band: the lower + upper + 1 band entries of each
  /// column, rows j − upper .. j + lower), as last evaluated (difference quotients, or the A
  /// of a linear form). The first Newton iterations after a restart use it when
  /// the segment has no linear form (with one, A is exact and free).
  std::vector<double> jacobian;
  bool jacobian_valid = false;  ///< whether `jacobian` holds an evaluation
};

/// Uses the settings' method, tolerances and max_internal_step. Everything CVODE
/// needs is allocated in Solver::setup (which also resets `carry`); integrate()
/// does not allocate. `carry` must outlive the solver.
std::unique_ptr<Solver> make_cvode_solver(const Model& model, const SolverSettings& settings,
                                          CvodeCarry& carry);

}  // namespace couplet::models
