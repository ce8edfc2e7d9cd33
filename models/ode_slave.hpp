#pragma once
// The ODE slave: a Model integrated by a Solver, seen by the master as a
// couplet::Slave that can roll back (docs/models.md).
//
// The slave splits every macro step at the model's time events, so that a solver
// only ever integrates one smooth segment of the equations; the solver is one of
// CVODE (BDF or Adams), forward Euler with k substeps (Glumac eq. 45), or the
// exact matrix-exponential solution of a linear model.
#include <memory>
#include <optional>
#include <string>

#include "models/model.hpp"
#include "couplet/slave.hpp"

namespace couplet::models {

enum class SolverKind { cvode, euler, exact };
enum class CvodeMethod { bdf, adams };
/// What CVODE does at a macro-step start that continues the previous step.
/// restart: re-initialize (order 1, a first step from the carry) at every segment
/// start. keep: continue the BDF/Adams history across the communication time when
/// nothing changed x in between (no restore_state, save_state, time event or
/// completed_step event); the input jump there is left to CVODE's error test.
enum class CvodeHistory { restart, keep };

struct SolverSettings {
  SolverKind kind = SolverKind::cvode;
  CvodeMethod method = CvodeMethod::bdf;
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 1e-10;
  double max_internal_step = 0.0;  ///< seconds, 0 = no limit (cvode)
  int euler_substeps = 1;          ///< k internal forward-Euler steps per macro step
  /// CVODE: take the band linear solver when the model declares a banded ∂f/∂x
  /// (Model::jacobian_band) and it pays; false keeps the dense one (for comparisons).
  bool band_when_declared = true;
  /// CVODE: restart (the default) or keep its history across macro steps.
  CvodeHistory history = CvodeHistory::restart;
};

/// Restrictions a scenario declares so that a model slave behaves like a device
/// (`capabilities` in docs/scenarios.md). They only ever remove
/// capabilities; step requests outside them are rejected as protocol violations.
struct CapabilityLimits {
  std::optional<int> max_input_degree;         ///< e.g. 0: a device that takes ZOH only
  std::optional<int> output_derivative_order;  ///< fewer derivatives than the model gives
  Time imposed_step = 0;                       ///< > 0: steps only on this grid (ticks)
  bool can_rollback = true;                    ///< false: rollback-less, as hardware is
  bool intermediate_samples = true;            ///< false: outputs at communication times only
};

/// A slave integrating `model` with the solver chosen by `settings`.
/// It can linearize (Slave::linearize, for MISSILES) unless the model reads input
/// derivatives (Model::input_derivative_order() > 0: u̇ has no place in
/// ẋ = A x + B u + e): exactly from the model's LinearForm on the current event
/// segment or from its exact Jacobians (Model::jacobians), else by central
/// differences of the model's f and g in each state and input, step ∛ε·max(1, |v|).
/// No allocation there after setup either.
/// A solver failure in step() throws SlaveError naming the slave, the time and the
/// reason (for CVODE its flag name); the state is then undefined until
/// restore_state(). Exceptions thrown by the model itself propagate unchanged.
/// CVODE and Euler do not allocate after setup(); the exact solver does (Eigen).
/// Throws ConfigurationError naming `name` when the model or the settings are
/// unusable (null model, bad tolerances, the exact solver on a nonlinear model...).
std::unique_ptr<Slave> make_ode_slave(std::string name, std::unique_ptr<Model> model,
                                      const SolverSettings& settings,
                                      const CapabilityLimits& limits = {});

}  // namespace couplet::models
