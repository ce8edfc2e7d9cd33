#pragma once
// Wall-clock runs (docs/links.md "Wall-clock runs"): what stands in for a
// slave's result that missed its deadline — its last values held, or
// extrapolated linearly from the last two — and when a run of misses ends the
// run. Shared by the slaves behind links (couplet's own targets, DCP slaves).
// Called on the stepping thread: nothing allocates unless the run ends.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "drivers/transport.hpp"

namespace couplet::drivers {

enum class LatePolicy : std::uint8_t { hold, extrapolate, abort };

struct WallClockPolicy {
  LatePolicy on_late = LatePolicy::hold;
  /// A run of consecutive missed results ends the run once it exceeds both:
  /// this many results and this much wall time.
  int max_consecutive_misses = 10;
  std::chrono::nanoseconds max_miss_time{500'000'000};
  std::chrono::nanoseconds tolerance{500'000};  ///< a result may come this long after its deadline
};

class MissedResults {
 public:
  /// For a slave of `outputs` Real outputs; allocates.
  void prepare(std::size_t outputs) {
    for (std::vector<double>& row : values_) row.assign(outputs, 0.0);
  }
  void set_policy(const WallClockPolicy& policy) { policy_ = policy; }
  const WallClockPolicy& policy() const { return policy_; }

  /// Forgets every value (a new run).
  void reset() {
    remembered_ = 0;
    consecutive_ = 0;
  }

  /// The slave's end outputs at `time` (Real, values only), remembered for a
  /// later miss; a second value at the same time replaces the first.
  void remember(Time time, std::span<const double> outputs);

  /// A result came in time: the run of misses is over.
  void result_came() { consecutive_ = 0; }

  /// No result for `request`'s end within its deadline: counts the miss.
  /// Returns false when the policy ends the run (then throw SlaveError with
  /// ending()); else writes the substitutes into `result`'s end outputs
  /// (derivatives 0) and samples, remembers them, and returns true. Discrete
  /// outputs are the caller's to hold (never extrapolated).
  bool substitute(const StepRequest& request, const OutputBuffers& result);

  /// "slave 'NAME' (LINK): no result for t = … s within its deadline (…)".
  std::string ending(Time end, const std::string& name, const std::string& link) const;

 private:
  WallClockPolicy policy_;
  int consecutive_ = 0;
  Deadline first_miss_at_{};  ///< when the current run of misses began
  Deadline last_miss_at_{};
  std::size_t remembered_ = 0;  ///< values remembered so far (0, 1 or 2)
  std::array<Time, 2> time_{};  ///< [0] newest
  std::array<std::vector<double>, 2> values_;
};

}  // namespace couplet::drivers
