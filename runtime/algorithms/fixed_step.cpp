#include "runtime/algorithms/fixed_step.hpp"

#include <algorithm>

#include "couplet/errors.hpp"

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
  feedthrough_slaves_.clear();
  for (std::size_t s = 0; s < setup.system.slave_count(); ++s) {
    const SlaveDescription& description = setup.system.description(s);
    const bool feedthrough = std::any_of(description.outputs.begin(), description.outputs.end(),
                                         [](const OutputDescription& output) { return output.direct_feedthrough; });
    if (feedthrough && !description.inputs.empty()) feedthrough_slaves_.push_back(s);
  }
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

bool FixedStepAlgorithm::plan_output_refresh(std::span<StepSlot> slots, Plan& plan) {
  if (refresh_passes_left_ == 0) return false;
  --refresh_passes_left_;
  for (const std::size_t slave : feedthrough_slaves_) {
    assign_taylor_inputs(slave, sources_, slots, settings_.input_order, to_seconds(settings_.step));
    plan.add(slave, SlaveAction::evaluate_outputs);
  }
  return true;
}

}  // namespace couplet
