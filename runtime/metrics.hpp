#pragma once
// Accuracy metrics against the monolithic reference (docs/models.md, "Monolithic
// reference"; the `errors` of summary.json in docs/cli.md).
#include <span>

namespace couplet {

struct SignalError {
  double rmse = 0.0;       ///< RMS of (co-simulation − reference) on the grid
  double nrmse_pct = 0.0;  ///< rmse / (max − min of the reference) · 100
};

/// Both signals sampled on the same evaluation grid.
SignalError compare_to_reference(std::span<const double> cosimulation, std::span<const double> reference);

}  // namespace couplet
