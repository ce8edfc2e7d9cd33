#include "runtime/communication_history.hpp"

#include <algorithm>
#include <array>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

PortReference find_output(const System& system, const std::string& qualified) {
  const std::size_t dot = qualified.find('.');
  const std::optional<std::size_t> slave =
      dot == std::string::npos ? std::nullopt
                               : system.find_slave(std::string_view(qualified).substr(0, dot));
  if (slave) {
    const std::string_view port = std::string_view(qualified).substr(dot + 1);
    const std::vector<OutputDescription>& outputs = system.description(*slave).outputs;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o].name == port) return {*slave, o};
    }
  }
  throw ConfigurationError("algorithm.history: '" + qualified +
                           "' names no slave output (slave.output)");
}

}  // namespace

void CommunicationHistory::start(const System& system, std::span<const StepSlot> slots, Time start,
                                 Time step, std::span<const OutputHistorySeed> seeds) {
  histories_.assign(system.slave_count(), {});
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    histories_[s].assign(system.description(s).outputs.size(), OutputHistory{});
  }
  for (const OutputHistorySeed& seed : seeds) {
    const PortReference output = find_output(system, seed.output);
    if (seed.values.size() > static_cast<std::size_t>(kMaxOrder)) {
      throw ConfigurationError("algorithm.history: '" + seed.output + "' has " +
                               std::to_string(seed.values.size()) + " values; at most " +
                               std::to_string(kMaxOrder) + " are used");
    }
    OutputHistory& history = histories_[output.slave][output.port];
    history.clear();
    for (std::size_t j = seed.values.size(); j-- > 0;) {
      history.push(start - static_cast<Time>(j + 1) * step, seed.values[j]);
    }
  }
  for (std::size_t s = 0; s < slots.size(); ++s) {
    for (std::size_t o = 0; o < histories_[s].size(); ++o)
      histories_[s][o].push(start, slots[s].output(o));
  }
}

void CommunicationHistory::record(std::size_t slave, std::span<const StepSlot> slots) {
  const StepSlot& slot = slots[slave];
  for (std::size_t o = 0; o < histories_[slave].size(); ++o)
    histories_[slave][o].push(slot.output_time, slot.output(o));
}

void CommunicationHistory::refresh(std::size_t slave, std::span<const StepSlot> slots) {
  for (std::size_t o = 0; o < histories_[slave].size(); ++o)
    histories_[slave][o].replace_newest(slots[slave].output(o));
}

Polynomial CommunicationHistory::extrapolation(PortReference output, int order) const {
  const OutputHistory& history = of(output);
  const std::size_t count = std::min(history.size(), static_cast<std::size_t>(order) + 1);
  std::array<double, kMaxOrder + 1> times{};
  std::array<double, kMaxOrder + 1> values{};
  history.points(0, count, times, values);
  return Polynomial::extrapolation(std::span<const double>(times.data(), count),
                                   std::span<const double>(values.data(), count));
}

Polynomial CommunicationHistory::interpolation(PortReference output, int order, Time time,
                                               double value) const {
  const OutputHistory& history = of(output);
  // At most order + 1 points in all. The extrapolation of the same order through
  // the points kept passes through (time, its own value at time) as well, so with
  // that value this is the extrapolation itself: the corrector's family contains
  // the predictor. While the history is short the new point raises the degree by
  // one (a line through λ(T_0) and λ^c on the first step, not a constant).
  const std::size_t past = std::min(static_cast<std::size_t>(order), history.size());
  std::array<double, kMaxOrder + 1> times{};
  std::array<double, kMaxOrder + 1> values{};
  history.points(0, past, times, values);
  times[past] = to_seconds(time);
  values[past] = value;
  return Polynomial::extrapolation(std::span<const double>(times.data(), past + 1),
                                   std::span<const double>(values.data(), past + 1));
}

void assign_extrapolated_inputs(std::size_t target, const InputSources& sources,
                                const CommunicationHistory& history, std::span<StepSlot> slots,
                                int order) {
  StepSlot& slot = slots[target];
  for (std::size_t i = 0; i < sources.input_count(target); ++i) {
    if (sources.held(target, i)) continue;
    slot.inputs[i] = history.extrapolation(sources.source(target, i), order);
  }
}

}  // namespace couplet
