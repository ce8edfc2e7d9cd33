#include "runtime/output_history.hpp"

#include <stdexcept>
#include <string>

namespace couplet {

void OutputHistory::push(Time time, double value) {
  if (size_ > 0 && time <= times_[newest_]) {
    throw std::invalid_argument("OutputHistory::push: time " + std::to_string(time) +
                                " ns does not follow the newest point at " +
                                std::to_string(times_[newest_]) + " ns");
  }
  newest_ = (newest_ + 1) % kCapacity;
  times_[newest_] = time;
  values_[newest_] = value;
  if (size_ < kCapacity) ++size_;
}

void OutputHistory::replace_newest(double value) {
  if (size_ == 0) throw std::invalid_argument("OutputHistory::replace_newest on an empty history");
  values_[newest_] = value;
}

void OutputHistory::points(std::size_t first_age, std::size_t count, std::span<double> times,
                           std::span<double> values) const {
  if (first_age + count > size_ || times.size() < count || values.size() < count) {
    throw std::invalid_argument("OutputHistory::points: asks for ages " + std::to_string(first_age) +
                                ".." + std::to_string(first_age + count) + " of " +
                                std::to_string(size_) + " points");
  }
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t age = first_age + count - 1 - k;  // oldest first
    times[k] = to_seconds(time(age));
    values[k] = value(age);
  }
}

}  // namespace couplet
