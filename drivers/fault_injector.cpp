#include "drivers/fault_injector.hpp"

#include <string>

#include "couplet/errors.hpp"

namespace couplet::drivers {

void FaultSettings::check() const {
  const auto probability = [](const char* name, double value) {
    if (!(value >= 0.0 && value <= 1.0)) {
      throw ConfigurationError(std::string("fault injection: ") + name + " must be a probability in [0, 1], got " +
                               std::to_string(value));
    }
  };
  probability("loss", loss);
  probability("duplicate", duplicate);
  probability("reorder", reorder);
  probability("corrupt", corrupt);
  if (delay.count() < 0 || reorder_gap.count() < 0) {
    throw ConfigurationError("fault injection: delays must be >= 0");
  }
}

FaultInjector::FaultInjector(const FaultSettings& settings) : settings_(settings), random_(settings.seed) {
  settings_.check();
}

// A uniform double in [0, 1) from the top 53 bits: the same on every platform,
// unlike std::uniform_real_distribution.
bool FaultInjector::happens(double probability) {
  const double uniform = static_cast<double>(random_() >> 11) * 0x1.0p-53;
  return uniform < probability;
}

FaultInjector::Copy FaultInjector::make_copy(std::size_t frame_bytes) {
  Copy copy;
  copy.delay = settings_.delay;
  if (happens(settings_.reorder)) {
    copy.delay += settings_.reorder_gap;
    ++counters_.reordered;
  }
  if (frame_bytes > 0 && happens(settings_.corrupt)) {
    copy.corrupt = true;
    copy.bit = static_cast<std::size_t>(random_() % (8U * frame_bytes));
    ++counters_.corrupted;
  }
  return copy;
}

std::size_t FaultInjector::decide(std::size_t frame_bytes, Copies& copies) {
  ++counters_.messages;
  if (happens(settings_.loss)) {
    ++counters_.lost;
    return 0;
  }
  copies[0] = make_copy(frame_bytes);
  if (!happens(settings_.duplicate)) return 1;
  ++counters_.duplicated;
  copies[1] = make_copy(frame_bytes);
  return 2;
}

}  // namespace couplet::drivers
