#include "drivers/missed_results.hpp"

#include <algorithm>

namespace couplet::drivers {

void MissedResults::remember(Time time, std::span<const double> outputs) {
  const std::size_t count = values_[0].size();
  if (remembered_ > 0 && time_[0] == time) {
    std::copy_n(outputs.begin(), count, values_[0].begin());  // re-evaluated at the same time
    return;
  }
  std::swap(values_[0], values_[1]);  // the vectors' buffers: no allocation
  time_[1] = time_[0];
  std::copy_n(outputs.begin(), count, values_[0].begin());
  time_[0] = time;
  remembered_ = std::min<std::size_t>(remembered_ + 1, 2);
}

// In wall time a late step is recorded as late and the run goes on under the
// declared policy. A run of misses is abandoned only when it is long in both
// count and wall time: a machine that stalls for 60 ms misses 60 results of a
// 1 kHz run, and should not end a run that a dead target would end anyway
// (its silence is the peer timeout's to judge).
bool MissedResults::substitute(const StepRequest& request, const OutputBuffers& result) {
  const Deadline now = SteadyClock::now();
  if (consecutive_++ == 0) first_miss_at_ = now;
  last_miss_at_ = now;
  if (policy_.on_late == LatePolicy::abort || (consecutive_ > policy_.max_consecutive_misses &&
                                               now - first_miss_at_ > policy_.max_miss_time)) {
    return false;
  }
  policy_.on_late == LatePolicy::abort
      ? std::string("the policy is on_late: abort")
      : "the policy allows " + std::to_string(policy_.max_consecutive_misses) + " and " +
            seconds_text(Time{policy_.max_miss_time.count()}) + " s";
  const std::size_t outputs = values_[0].size();
  const bool extrapolate =
      policy_.on_late == LatePolicy::extrapolate && remembered_ == 2 && time_[0] != time_[1];
  const auto value_at = [&](std::size_t j, Time t) {
    const double newest = values_[0][j];
    if (!extrapolate) return newest;
    const double slope = (newest - values_[1][j]) / to_seconds(time_[0] - time_[1]);
    return newest + slope * to_seconds(t - time_[0]);
  };
  std::fill(result.end_outputs.begin(), result.end_outputs.end(), 0.0);  // derivatives unknown: 0
  for (std::size_t j = 0; j < outputs; ++j) result.end_outputs[j] = value_at(j, request.end);
  for (std::size_t k = 0; k < request.sample_times.size(); ++k) {
    for (std::size_t j = 0; j < outputs; ++j)
      result.samples[k * outputs + j] = value_at(j, request.sample_times[k]);
  }
  remember(request.end, result.end_outputs);
  return true;
}

std::string MissedResults::ending(Time end, const std::string& name,
                                  const std::string& link) const {
  const std::string budget = policy_.on_late == LatePolicy::abort
                                 ? std::string("the policy is on_late: abort")
                                 : "the policy allows " +
                                       std::to_string(policy_.max_consecutive_misses) + " and " +
                                       seconds_text(Time{policy_.max_miss_time.count()}) + " s";
  const auto missing_for =
      std::chrono::duration_cast<std::chrono::nanoseconds>(last_miss_at_ - first_miss_at_);
  return "slave '" + name + "' (" + link + "): no result for t = " + seconds_text(end) +
         " s within its deadline (" + std::to_string(consecutive_) + " consecutive misses over " +
         seconds_text(Time{missing_for.count()}) + " s; " + budget + ")";
}

}  // namespace couplet::drivers
