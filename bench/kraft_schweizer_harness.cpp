// Reproduction of the convergence analysis of J. Kraft, B. Schweizer, "Reduction of
// Computation Time by Parallelization and Incorporating Co-Simulation Techniques"
// (§3.1, figs. 5–6): the local error of one macro step of the coupling bodies'
// positions and velocities against h_mac, for the semi-implicit and the explicit
// scheme, k = 0, 1, 2, at subsystem tolerances 1e-12 and 1e-6. The procedure
// (one macro step from the reference state, the past coupling forces from the
// chain integrated backwards) is host_tools/generators/chain_convergence.hpp; docs/algorithms.md
// states it. Prints markdown tables with the observed orders between neighbouring
// steps.
//   build/bench/kraft_schweizer_harness [n_K n [tolerance ...]]
//   build/bench/kraft_schweizer_harness 144 48 1e-12 1e-6     (figs. 5–6, the default)
//   build/bench/kraft_schweizer_harness global [n_K n horizon]  (global errors, explicit vs
//   semi-implicit)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "host_tools/generators/chain_convergence.hpp"

namespace {

using couplet::tools::ChainErrors;
using couplet::tools::ChainScheme;
using couplet::tools::ChainStudy;

// Whole nanoseconds, halving from 1e-4 s to 3.125e-6 s, then 2e-6 and 1e-6 s.
const std::vector<double> kSteps = {1e-4, 5e-5, 2.5e-5, 1.25e-5, 6.25e-6, 3.125e-6, 2e-6, 1e-6};

void table(int bodies, int subsystems, double tolerance, ChainScheme scheme) {
  std::printf("\n### %s scheme, n_K = %d, n = %d, subsystem tolerance %g\n\n",
              scheme == ChainScheme::semi_implicit ? "Semi-implicit" : "Explicit", bodies,
              subsystems, tolerance);
  std::printf(
      "| h_mac s | k = 0: x | order | v | order | k = 1: x | order | v | order | k = 2: x | order "
      "| v | order |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<ChainErrors> previous(3);
  for (std::size_t s = 0; s < kSteps.size(); ++s) {
    std::printf("| %g |", kSteps[s]);
    for (int k = 0; k <= 2; ++k) {
      ChainStudy study;
      study.chain_bodies = bodies;
      study.subsystems = subsystems;
      study.step = kSteps[s];
      study.order = k;
      study.scheme = scheme;
      study.tolerance = tolerance;
      try {
        const ChainErrors errors = couplet::tools::chain_local_error(study);
        if (s == 0) {
          std::printf(" %.3e | | %.3e | |", errors.position, errors.velocity);
        } else {
          const double ratio = std::log(kSteps[s - 1] / kSteps[s]);
          std::printf(
              " %.3e | %.2f | %.3e | %.2f |", errors.position,
              std::log(previous[static_cast<std::size_t>(k)].position / errors.position) / ratio,
              errors.velocity,
              std::log(previous[static_cast<std::size_t>(k)].velocity / errors.velocity) / ratio);
        }
        previous[static_cast<std::size_t>(k)] = errors;
      } catch (const std::exception& error) {
        std::printf(" failed: %s | | | |", error.what());
      }
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

// Global error at a short horizon from the initial state (no history), positions
// of the coupling bodies: where the explicit scheme loses stability the
// semi-implicit one still converges.
void global_table(int bodies, int subsystems, double tolerance, double horizon) {
  std::printf(
      "\n### Global error at t = %g s, n_K = %d, n = %d, subsystem tolerance %g (max |x - x_ref| "
      "of the coupling bodies, m)\n\n",
      horizon, bodies, subsystems, tolerance);
  std::printf(
      "| h_mac s | explicit k = 0 | k = 1 | k = 2 | semi-implicit k = 0 | k = 1 | k = 2 |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const double step : {1e-4, 5e-5, 2.5e-5, 1e-5, 5e-6}) {
    std::printf("| %g |", step);
    for (const ChainScheme scheme : {ChainScheme::explicit_jacobi, ChainScheme::semi_implicit}) {
      for (int k = 0; k <= 2; ++k) {
        ChainStudy study;
        study.chain_bodies = bodies;
        study.subsystems = subsystems;
        study.step = step;
        study.order = k;
        study.scheme = scheme;
        study.tolerance = tolerance;
        try {
          std::printf(" %.3e |", couplet::tools::chain_global_error(study, horizon).position);
        } catch (const std::exception& error) {
          std::printf(" failed: %s |", error.what());
        }
      }
    }
    std::printf("\n");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "global") {
    const int bodies = argc > 2 ? std::atoi(argv[2]) : 144;
    const int subsystems = argc > 3 ? std::atoi(argv[3]) : 48;
    const double horizon = argc > 4 ? std::atof(argv[4]) : 2e-3;
    global_table(bodies, subsystems, 1e-10, horizon);
    return 0;
  }
  const int bodies = argc > 1 ? std::atoi(argv[1]) : 144;
  const int subsystems = argc > 2 ? std::atoi(argv[2]) : 48;
  std::vector<double> tolerances;
  for (int a = 3; a < argc; ++a) tolerances.push_back(std::atof(argv[a]));
  if (tolerances.empty()) tolerances = {1e-12, 1e-6};
  for (const double tolerance : tolerances) {
    table(bodies, subsystems, tolerance, ChainScheme::semi_implicit);
    table(bodies, subsystems, tolerance, ChainScheme::explicit_jacobi);
  }
  return 0;
}
