#pragma once
// The monolithic reference (docs/models.md): all models of a scenario assembled into
// one ODE, the connection equations u_target = y_source solved exactly at every
// right-hand-side evaluation, integrated by CVODE with tight tolerances and
// stopped at every model time event. Models with discrete behaviour (FMI model
// exchange: Model::start, event indicators, announced time events) join it like
// the built-in ones. Co-simulation errors are measured against it.
#include <cstddef>
#include <span>
#include <string>
#include <optional>
#include <vector>

#include "models/model.hpp"

namespace couplet::models {

struct MonolithicSubsystem {
  std::string name;    ///< used in error messages ("name.input")
  const Model* model;  ///< not owned; must outlive the solve
};

/// y_source → u_target, by subsystem index and port index.
struct MonolithicConnection {
  std::size_t source_subsystem, source_output, target_subsystem, target_input;
};

/// The linear solver of CVODE's Newton iterations. `automatic` probes the
/// sparsity of the assembled ∂f/∂x once at the start (difference quotients in
/// every state, at the initial state and at a slightly shifted one) and takes
/// the band solver when lower + upper bandwidth + 1 <= n / 4: a chain of
/// segments in slave order, each with its state interleaved (x, v), is banded
/// however long, and the band solver then needs ml + mu + 1 right-hand sides per
/// Jacobian instead of n and O(n) instead of O(n³) per factorization.
enum class MonolithicLinearSolver { automatic, dense, band };

struct MonolithicSettings {
  double relative_tolerance = 1e-10;
  double absolute_tolerance = 1e-12;
  MonolithicLinearSolver linear_solver = MonolithicLinearSolver::automatic;
};

/// Which linear solver ran, with the probed bandwidths (0 when not probed:
/// forced dense, or a system without states).
struct MonolithicLinearAlgebra {
  bool banded = false;
  std::size_t lower_bandwidth = 0, upper_bandwidth = 0;
};

struct MonolithicSolution {
  std::vector<double> times;                 ///< the requested grid, up to a stop request
  std::optional<double> stopped_at;          ///< a model asked to end the simulation there
  std::vector<std::vector<double>> outputs;  ///< per subsystem: row-major [grid point][output]
  MonolithicLinearAlgebra linear_algebra;
};

/// Solves the assembled system on [start, end] and reports every output at the
/// grid times (increasing, inside [start, end]). At an event time the new
/// equations hold: a static time event, a time event a model announced
/// (next_time_event) or a state event (an indicator's zero crossing, located by
/// CVODE), the last two handled by the model's handle_event before the grid
/// point is recorded. Throws ConfigurationError for an input connected zero or
/// several times, a bad index or a bad grid; std::runtime_error (SlaveError)
/// when CVODE or an algebraic loop fails, or when a model asks for more than 100
/// events at one time (Zeno), naming the time. A model's own exceptions pass through.
MonolithicSolution solve_monolithic(std::span<const MonolithicSubsystem> subsystems,
                                    std::span<const MonolithicConnection> connections, double start,
                                    double end, std::span<const double> grid,
                                    const MonolithicSettings& settings = {});

}  // namespace couplet::models
