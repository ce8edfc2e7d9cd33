// Band against dense linear algebra for the oscillator chain (docs/chain.md;
// J. Kraft and B. Schweizer, "Reduction of Computation Time by Parallelization
// and Incorporating Co-Simulation Techniques"). Prints markdown tables for
// docs/results.md.
//
//   build-cc/bench/chain_harness reference [END [RTOL [MAX_DENSE_BODIES]]]
// The monolithic reference: wall time for growing n_K, the chain cut into 8
// segments (the assembled state in slave order), and the largest difference
// between the two solutions. Defaults: END = 0.01 s, RTOL = 1e-10 (ATOL =
// RTOL / 100), dense up to 1000 bodies.
//
//   build-cc/bench/chain_harness segment [STEPS]
// One chain.segment slave (both sides coupled, constant coupling forces) on
// CVODE (rtol = atol = 1e-8), STEPS macro steps of 5 µs (default 400): wall time
// per macro step with the band and the dense solver, and their largest
// difference in the outputs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "couplet/polynomial.hpp"
#include "couplet/time.hpp"
#include "models/catalog.hpp"
#include "models/chain_assembly.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"

namespace {

using namespace couplet::models;

struct Timed {
  MonolithicSolution solution;
  double seconds = 0.0;
};

Timed solve(int bodies, MonolithicLinearSolver solver, double end, double rtol) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const std::vector<int> sizes = split_chain(bodies, std::min(8, bodies));
  const ChainAssembly chain = assemble_chain(catalog, sizes);
  std::vector<double> grid;
  for (int k = 0; k <= 10; ++k) grid.push_back(end * k / 10.0);
  const MonolithicSettings settings{
      .relative_tolerance = rtol, .absolute_tolerance = rtol / 100.0, .linear_solver = solver};
  const auto began = std::chrono::steady_clock::now();
  Timed timed{solve_monolithic(chain.subsystems, chain.connections, 0.0, end, grid, settings), 0.0};
  timed.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return timed;
}

double largest_difference(const MonolithicSolution& a, const MonolithicSolution& b) {
  double largest = 0.0;
  for (std::size_t s = 0; s < a.outputs.size(); ++s) {
    for (std::size_t k = 0; k < a.outputs[s].size(); ++k) {
      largest = std::max(largest, std::abs(a.outputs[s][k] - b.outputs[s][k]));
    }
  }
  return largest;
}

struct SegmentRun {
  std::vector<double> outputs;
  double seconds_per_step = 0.0;
};

SegmentRun run_segment(int bodies, bool band, int steps) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  auto model = catalog.create("chain.segment", {{"bodies", bodies},
                                                {"first_body", 2},
                                                {"chain_bodies", bodies + 2},
                                                {"wall_left", 0},
                                                {"wall_right", 0}});
  couplet::models::SolverSettings settings;
  settings.relative_tolerance = settings.absolute_tolerance = 1e-8;
  settings.band_when_declared = band;
  auto slave = make_ode_slave("segment", std::move(model), settings);
  slave->setup(0);
  const couplet::Time step = couplet::to_ticks(5e-6);
  std::vector<couplet::Polynomial> inputs(2);
  SegmentRun run;
  run.outputs.assign(4 * 3, 0.0);  // values and two derivatives of 4 outputs
  const auto began = std::chrono::steady_clock::now();
  for (int k = 0; k < steps; ++k) {
    const couplet::Time start = step * k;
    inputs[0] = couplet::Polynomial::constant(couplet::to_seconds(start), 1.0e4);
    inputs[1] = couplet::Polynomial::constant(couplet::to_seconds(start), -2.0e4);
    couplet::StepRequest request;
    request.start = start;
    request.end = start + step;
    request.inputs = inputs;
    slave->step(request, {run.outputs, {}});
  }
  run.seconds_per_step =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() / steps;
  return run;
}

int segment_table(int steps) {
  std::printf("one chain.segment slave, %d macro steps of 5 us, CVODE rtol = atol = 1e-8\n\n",
              steps);
  std::printf(
      "| n_S | states | band [ms/step] | dense [ms/step] | dense / band | max |band - dense| |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const int bodies : {3, 6, 12, 25, 50, 125, 250}) {
    const SegmentRun band = run_segment(bodies, true, steps);
    const SegmentRun dense = run_segment(bodies, false, steps);
    double largest = 0.0;
    for (std::size_t k = 0; k < 4; ++k)
      largest = std::max(largest, std::abs(band.outputs[k] - dense.outputs[k]));
    std::printf("| %d | %d | %.4f | %.4f | %.1f | %.2e |\n", bodies, 2 * bodies,
                1e3 * band.seconds_per_step, 1e3 * dense.seconds_per_step,
                dense.seconds_per_step / band.seconds_per_step, largest);
    std::fflush(stdout);
  }
  return 0;
}

int reference_table(int argc, char** argv) {
  const double end = argc > 2 ? std::atof(argv[2]) : 0.01;
  const double rtol = argc > 3 ? std::atof(argv[3]) : 1e-10;
  const int max_dense = argc > 4 ? std::atoi(argv[4]) : 1000;
  std::printf("horizon %g s, rtol %g, atol %g, 8 segments\n\n", end, rtol, rtol / 100.0);
  std::printf(
      "| n_K | states | band (ml, mu) | band [s] | dense [s] | dense / band | max |band - dense| "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const int bodies : {64, 128, 256, 512, 1000, 2000, 4000, 8000}) {
    const Timed band = solve(bodies, MonolithicLinearSolver::automatic, end, rtol);
    std::printf("| %d | %d | %s (%zu, %zu) | %.3f |", bodies, 2 * bodies,
                band.solution.linear_algebra.banded ? "yes" : "no",
                band.solution.linear_algebra.lower_bandwidth,
                band.solution.linear_algebra.upper_bandwidth, band.seconds);
    if (bodies <= max_dense) {
      const Timed dense = solve(bodies, MonolithicLinearSolver::dense, end, rtol);
      std::printf(" %.3f | %.1f | %.2e |\n", dense.seconds, dense.seconds / band.seconds,
                  largest_difference(band.solution, dense.solution));
    } else {
      std::printf(" - | - | - |\n");
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "segment") == 0) {
    return segment_table(argc > 2 ? std::atoi(argv[2]) : 400);
  }
  if (argc > 1 && std::strcmp(argv[1], "reference") == 0) return reference_table(argc, argv);
  std::fprintf(stderr,
               "usage: chain_harness reference [END [RTOL [MAX_DENSE_BODIES]]]\n"
               "       chain_harness segment [STEPS]\n");
  return 2;
}
