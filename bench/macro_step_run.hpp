// What the benchmarks that time one macro step per iteration share
// (link_round_trip_bench, embedded_link_bench): the horizon their run needs and
// the step itself.
//
// The horizon follows from the number of steps rather than being "long enough":
// a fixed 100000 s at a 10 ms step broke the scenario limits (10^7 evaluation
// grid points, more than limits.grid_points) once they were added.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

#include "runtime/executor.hpp"

namespace couplet::bench {

/// The time.end (s, as a scenario override) for `macro_steps` steps of
/// `macro_step` s from t = 0, with as much again to spare: no step of these
/// runs is longer than algorithm.step, so the last one stays clear of time.end.
inline std::string horizon_for(benchmark::IterationCount macro_steps, double macro_step) {
  char end[32];
  std::snprintf(end, sizeof end, "%.17g", 2.0 * macro_step * static_cast<double>(macro_steps + 1));
  return end;
}

/// Advances until the communication frontier moves (one macro step). False, with
/// the benchmark stopped by an error, when the run ended first.
inline bool advance_one_macro_step(Executor& executor, benchmark::State& state) {
  const Time frontier = executor.frontier();
  while (executor.frontier() == frontier) {
    if (!executor.advance()) {
      state.SkipWithError("the run reached time.end before the last measured macro step");
      return false;
    }
  }
  return true;
}

}  // namespace couplet::bench
