#pragma once
// The step below which a variable-step run stops (`algorithm.abort_below_step`,
// docs/defect-control.md, docs/f3ornits.md). A controller that cannot meet its
// tolerance shrinks the step towards nothing: without a floor such a run goes on
// for hours at microsecond steps, writing gigabytes of log. The run stops when
// kCollapsedSteps steps in a row fall below the floor. The default floor is
// a millionth of the horizon, but never below a microsecond: a run whose steps
// all sat at the floor would still end after a million macro steps, while no run
// that meets its tolerance comes near it (the papers' steps are 1e-4 of the
// horizon and above).
#include <algorithm>
#include <cstdint>
#include <optional>

#include "couplet/time.hpp"

namespace couplet {

inline constexpr double kAbortStepFraction = 1e-6;  ///< of the horizon
inline constexpr double kAbortStepMinimum = 1e-6;   ///< seconds

/// The floor in seconds for a run on [start, end]: `setting` when given (0: no
/// floor), else max(kAbortStepMinimum, kAbortStepFraction × horizon).
inline double abort_step(const std::optional<double>& setting, Time start, Time end) {
  if (setting) return *setting;
  return std::max(kAbortStepMinimum, kAbortStepFraction * to_seconds(end - start));
}

/// Steps in a row below the floor that stop a run: a dip at an event (F3ORNITS
/// cuts a step tenfold at once and grows it back by 5 % per step) lasts tens of
/// steps; a controller that cannot meet its tolerance stays there.
inline constexpr std::uint32_t kCollapsedSteps = 1000;

/// Counts the steps in a row below the floor.
class CollapseWatch {
 public:
  /// True when `step` is the kCollapsedSteps-th step in a row below `floor` (0: no floor).
  bool collapsed(double step, double floor) {
    below_ = floor > 0.0 && step < floor ? below_ + 1 : 0;
    return below_ >= kCollapsedSteps;
  }

 private:
  std::uint32_t below_ = 0;
};

}  // namespace couplet
