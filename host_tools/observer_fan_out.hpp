#pragma once
// Passes every executor observer call on to several observers, in the order
// given (the run log's recorder first, then the checks): the executor has one
// observer slot. A fixed array, so that a call allocates nothing.
#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>

#include "runtime/executor.hpp"

namespace couplet::tools {

class ObserverFanOut final : public ExecutorObserver {
 public:
  static constexpr std::size_t kCapacity = 4;

  /// Null entries are left out.
  explicit ObserverFanOut(std::initializer_list<ExecutorObserver*> observers) {
    for (ExecutorObserver* observer : observers) {
      if (observer == nullptr) continue;
      if (count_ == kCapacity) throw std::logic_error("ObserverFanOut: more than 4 observers");
      observers_[count_++] = observer;
    }
  }

  /// What the executor should be given: null when there is no observer, the
  /// observer itself when there is one, this fan-out otherwise.
  ExecutorObserver* target() {
    if (count_ == 0) return nullptr;
    return count_ == 1 ? observers_[0] : this;
  }

  void slave_set_up(std::size_t slave, Time start) override {
    for (std::size_t k = 0; k < count_; ++k) observers_[k]->slave_set_up(slave, start);
  }
  void step_began(std::size_t slave) override {
    for (std::size_t k = 0; k < count_; ++k) observers_[k]->step_began(slave);
  }
  void slave_stepped(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                     const LinkStepReport& link) override {
    for (std::size_t k = 0; k < count_; ++k)
      observers_[k]->slave_stepped(slave, request, result, link);
  }
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                         std::span<const double> outputs) override {
    for (std::size_t k = 0; k < count_; ++k)
      observers_[k]->outputs_evaluated(slave, inputs, outputs);
  }
  void slave_linearized(std::size_t slave, std::span<const Polynomial> inputs,
                        std::span<const double> linearization) override {
    for (std::size_t k = 0; k < count_; ++k)
      observers_[k]->slave_linearized(slave, inputs, linearization);
  }
  void state_saved(std::size_t slave) override {
    for (std::size_t k = 0; k < count_; ++k) observers_[k]->state_saved(slave);
  }
  void state_restored(std::size_t slave) override {
    for (std::size_t k = 0; k < count_; ++k) observers_[k]->state_restored(slave);
  }

 private:
  std::array<ExecutorObserver*, kCapacity> observers_{};
  std::size_t count_ = 0;
};

}  // namespace couplet::tools
