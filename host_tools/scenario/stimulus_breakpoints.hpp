#pragma once
// The breakpoints of a scenario's stimuli, for the masters that land on them
// (defect control, variable step: docs/defect-control.md). A stimulus's jump
// reaches the other slaves through the coupling, extrapolated over a whole
// macro step unless a communication time falls on it; a plant's own time events
// are handled inside its slave and need no such landing.
#include <vector>

#include "couplet/time.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// The most breakpoints one scenario may have (a pulse train's edges over the
/// horizon): a landing list of 8 MB.
inline constexpr std::size_t kMaxStimulusBreakpoints = 1'000'000;

/// The time events (fixed and announced) of the slaves whose model is a
/// stimulus (`stimulus.*`), strictly inside (start, end), in ticks, increasing,
/// without repeats. Throws ConfigurationError naming the slave for a bad
/// stimulus or more than kMaxStimulusBreakpoints.
std::vector<Time> stimulus_breakpoints(const Scenario& scenario);

}  // namespace couplet::tools
