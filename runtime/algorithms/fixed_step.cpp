#include "runtime/algorithms/fixed_step.hpp"

#include "runtime/errors.hpp"

namespace couplet {

FixedStepAlgorithm::FixedStepAlgorithm(const FixedStepSettings& settings) : settings_(settings) {
  if (settings.step <= 0) throw ConfigurationError("algorithm.step must be positive");
  if (settings.input_order < 0 || settings.input_order > Polynomial::kMaxDegree) {
    throw ConfigurationError("algorithm.input_order must be between 0 and " +
                             std::to_string(Polynomial::kMaxDegree));
  }
}

AlgorithmRequirements FixedStepAlgorithm::requirements() const {
  return {std::string(name()), false, settings_.input_order, settings_.input_order};
}

void FixedStepAlgorithm::start(const RunSetup& setup, std::span<StepSlot>) {
  sources_ = InputSources(setup.system);
  time_ = setup.start;
  end_ = setup.end;
  for (std::size_t s = 0; s < setup.system.slave_count(); ++s) {
    const Time imposed = setup.system.description(s).capabilities.imposed_step;
    if (imposed > 0 && (settings_.step % imposed != 0 || (end_ - time_) % imposed != 0)) {
      throw ConfigurationError("slave '" + setup.system.slave_name(s) + "' imposes a step of " +
                               std::to_string(to_seconds(imposed)) +
                               " s; algorithm.step and the time span must be multiples of it");
    }
  }
}

void FixedStepAlgorithm::prepare_step(std::size_t slave, std::span<StepSlot> slots, Time from,
                                      Time to) const {
  StepSlot& slot = slots[slave];
  slot.start = from;
  slot.end = to;
  assign_taylor_inputs(slave, sources_, slots, settings_.input_order, to_seconds(to - from));
}

}  // namespace couplet
