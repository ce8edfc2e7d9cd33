#pragma once
// Accuracy metrics of DESIGN §6.
#include <span>

namespace couplet {

struct SignalError {
  double rmse = 0.0;       ///< RMS of (co-simulation − reference) on the grid
  double nrmse_pct = 0.0;  ///< rmse / (max − min of the reference) · 100
};

/// Both signals sampled on the same evaluation grid.
SignalError compare_to_reference(std::span<const double> cosimulation, std::span<const double> reference);

}  // namespace couplet
