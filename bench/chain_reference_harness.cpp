// The monolithic reference of the oscillator chain (docs/chain.md; J. Kraft and
// B. Schweizer, "Reduction of Computation Time by Parallelization and
// Incorporating Co-Simulation Techniques"), banded against dense CVODE: wall
// time for growing n_K, the chain cut into 8 segments (the assembled state in
// slave order), and the largest difference between the two solutions. Prints a
// markdown table for docs/results.md.
//   build/bench/chain_reference_harness [END [RTOL [MAX_DENSE_BODIES]]]
// defaults: END = 0.01 s, RTOL = 1e-10 (ATOL = RTOL / 100), dense up to 1000 bodies.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "models/catalog.hpp"
#include "models/chain_assembly.hpp"
#include "models/monolithic_reference.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  const double end = argc > 1 ? std::atof(argv[1]) : 0.01;
  const double rtol = argc > 2 ? std::atof(argv[2]) : 1e-10;
  const int max_dense = argc > 3 ? std::atoi(argv[3]) : 1000;
  std::printf("horizon %g s, rtol %g, atol %g, 8 segments\n\n", end, rtol, rtol / 100.0);
  std::printf("| n_K | states | band (ml, mu) | band [s] | dense [s] | dense / band | max |band − dense| |\n");
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
      std::printf(" — | — | — |\n");
    }
    std::fflush(stdout);
  }
  return 0;
}
