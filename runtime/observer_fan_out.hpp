#pragma once
// Several ExecutorObservers behind the executor's one observer slot: the run
// log's recorder and whatever else a client of couplet::Simulation attached
// (checks, its own probes), called in the order they were added. Used only
// when there is more than one, so that a run with the recorder alone keeps
// its direct call.
#include <vector>

#include "runtime/executor.hpp"

namespace couplet {

class ObserverFanOut final : public ExecutorObserver {
 public:
  /// Before the run: the list is fixed once stepping starts.
  void add(ExecutorObserver& observer) { observers_.push_back(&observer); }
  bool empty() const { return observers_.empty(); }
  std::size_t size() const { return observers_.size(); }
  ExecutorObserver& front() const { return *observers_.front(); }

  void slave_set_up(std::size_t slave, Time start) override {
    for (ExecutorObserver* observer : observers_) observer->slave_set_up(slave, start);
  }
  void discrete_outputs_evaluated(std::size_t slave,
                                  std::span<const std::int64_t> values) override {
    for (ExecutorObserver* observer : observers_)
      observer->discrete_outputs_evaluated(slave, values);
  }
  void step_began(std::size_t slave) override {
    for (ExecutorObserver* observer : observers_) observer->step_began(slave);
  }
  void slave_stepped(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                     const LinkStepReport& link) override {
    for (ExecutorObserver* observer : observers_)
      observer->slave_stepped(slave, request, result, link);
  }
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                         std::span<const double> outputs) override {
    for (ExecutorObserver* observer : observers_)
      observer->outputs_evaluated(slave, inputs, outputs);
  }
  void slave_linearized(std::size_t slave, std::span<const Polynomial> inputs,
                        std::span<const double> linearization) override {
    for (ExecutorObserver* observer : observers_)
      observer->slave_linearized(slave, inputs, linearization);
  }
  void state_saved(std::size_t slave) override {
    for (ExecutorObserver* observer : observers_) observer->state_saved(slave);
  }
  void state_restored(std::size_t slave) override {
    for (ExecutorObserver* observer : observers_) observer->state_restored(slave);
  }

 private:
  std::vector<ExecutorObserver*> observers_;
};

}  // namespace couplet
