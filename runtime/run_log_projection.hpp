#pragma once
// How large a run log will be, before the run (docs/run-log.md "Size"): the
// records a run must write, encoded as the recorder encodes them.
#include <cstddef>
#include <cstdint>

#include "couplet/time.hpp"
#include "runtime/system.hpp"

namespace couplet {

/// What the projection needs to know of the run beside the system.
struct RunLogRun {
  std::uint64_t macro_steps = 0;  ///< the fewest the run takes
  std::size_t grid_points = 0;    ///< evaluation grid points (each slave samples every one)
  Time end = 0;                   ///< the run's end (the largest time a record holds)
  /// The degree of the inputs the algorithm gives every slave at least
  /// (AlgorithmRequirements::required_input_degree).
  int input_degree = 0;
};

/// The fewest bytes a plain run log of `system` takes: per macro step one step
/// call of each slave — its inputs as polynomials of the required degree, its
/// end outputs with the derivatives it reports, its discrete ports, its timing —
/// and one plan record; per grid point a sample of every output; each as an
/// encoded frame. A lower bound: output evaluations, iterations, rollbacks and
/// more macro steps than the longest step allows only add to it
/// (docs/run-log.md "Size and budget" compares it with real logs).
std::uint64_t least_run_log_bytes(const System& system, const RunLogRun& run);

}  // namespace couplet
