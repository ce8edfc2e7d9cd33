#pragma once
// Error studies of the co-simulation schemes on the oscillator chain of J. Kraft,
// B. Schweizer, "Reduction of Computation Time by Parallelization and
// Incorporating Co-Simulation Techniques" (§3.1, figs. 5–6): the chain of n_K
// bodies (models chain.segment / chain.coupling) cut into n equal segments,
// against the monolithic chain (one chain.segment with both walls) solved by
// CVODE at a tight tolerance.
//
// Local error of one macro step (docs/algorithms.md, "Convergence study"): the
// macro step [0, H] starts from the chain's initial state, which is the reference
// state at T_N = 0; the coupling forces at the past communication times
// −H, ..., −kH come from eq. 3 at the reference states there, found by
// integrating the monolithic chain backwards in time (ẏ = −f(y) forwards), and
// are given to the algorithm as its communication history (algorithm.history).
// One macro step of the real algorithm (Jacobi with extrapolated inputs: the
// explicit scheme; semi_implicit) then runs on the real slaves, and the
// positions and velocities of the coupling bodies at H are compared with the
// reference at H.
#include <string>

#include "models/catalog.hpp"
#include "models/ode_slave.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

enum class ChainScheme { explicit_jacobi, semi_implicit };

struct ChainStudy {
  int chain_bodies = 12;  ///< n_K
  int subsystems = 4;     ///< n (n_K a multiple of it)
  double step = 1e-5;     ///< H, seconds (a whole number of nanoseconds)
  int order = 0;          ///< k
  ChainScheme scheme = ChainScheme::explicit_jacobi;
  double tolerance = 1e-12;            ///< relative and absolute tolerance of the segments' CVODE
  double reference_tolerance = 1e-14;  ///< relative tolerance of the monolithic reference
  double perturbation = 1.0;           ///< Δλ (semi_implicit), N
};

/// Largest absolute errors over the coupling bodies (the end bodies of every
/// segment that has a neighbour).
struct ChainErrors {
  double position = 0.0;  ///< m
  double velocity = 0.0;  ///< m/s
};

/// Adds the couplings cpl1 .. cpl(n−1) (chain.coupling, eq. 3) between the
/// segments seg1 .. seg n already in `system`, cpl p between the last body of
/// seg p and the first of seg p + 1, named and wired as `couplet generate chain`
/// does it.
void add_chain_couplings(System& system, int subsystems, const models::ModelCatalog& catalog,
                         const models::SolverSettings& settings);

/// The local error of one macro step from the reference state (above).
ChainErrors chain_local_error(const ChainStudy& study);

/// The global error at `horizon` (seconds, a whole number of steps) of a run
/// from the initial state without history, against the monolithic chain.
ChainErrors chain_global_error(const ChainStudy& study, double horizon);

}  // namespace couplet::tools
