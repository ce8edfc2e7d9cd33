#pragma once
// `couplet generate chain`: writes the scenario of the Kraft–Schweizer oscillator
// chain (docs/chain.md) for n_K bodies cut into n subsystems, so that neither is
// hand-written YAML of hundreds of slaves.
//
// Slaves, in this order (the Gauss–Seidel order, and the state order of the
// monolithic reference, which keeps the assembled Jacobian banded):
//   seg1, cpl1, seg2, cpl2, ..., seg<n>
// seg<i> is a chain.segment, cpl<i> the chain.coupling between seg<i> and seg<i+1>.
#include <optional>
#include <string>
#include <vector>

namespace couplet::tools {

struct ChainScenarioOptions {
  int bodies = 0;                 ///< n_K, the chain's bodies
  int subsystems = 0;             ///< n, the segments
  double end = 0.01;              ///< horizon, seconds (start 0)
  double step = 1e-5;             ///< macro step H, seconds
  std::string scheme = "jacobi";  ///< jacobi | explicit | semi-implicit
  int order = 0;                  ///< k: Taylor order (jacobi) or extrapolation order
  double tolerance = 1e-8;        ///< CVODE rtol = atol of every segment
  int threads = 0;                ///< > 0: executor {type: threads, threads: N}
  double perturbation = 1.0e3;    ///< Δλ of the semi-implicit scheme, newtons
  std::optional<double> grid;     ///< evaluation grid, seconds (default: end / 100)
  bool reference = true;          ///< reference: monolithic
  /// CVODE history of every segment: restart | keep (solver `history`).
  std::string solver_history = "restart";
};

/// Bodies per segment: `bodies` split into `subsystems` parts as even as possible,
/// the longer ones first (sizes differ by at most one). Throws ConfigurationError
/// unless 1 <= subsystems <= bodies.
std::vector<int> split_chain(int bodies, int subsystems);

/// The scenario YAML. Throws ConfigurationError naming the bad option.
std::string chain_scenario_yaml(const ChainScenarioOptions& options);

}  // namespace couplet::tools
