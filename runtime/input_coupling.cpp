#include "runtime/input_coupling.hpp"

#include <algorithm>
#include <array>

#include "couplet/errors.hpp"

namespace couplet {

InputSources::InputSources(const System& system) : sources_(system.slave_count()) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const std::size_t count = system.description(s).inputs.size();
    sources_[s].resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (const auto source = system.source_of({s, i})) {
        sources_[s][i] = {*source, false};
      } else if (const auto integer = system.integer_source_of({s, i})) {
        sources_[s][i] = {*integer, true};
      } else {
        throw ConfigurationError("input '" + system.input_name({s, i}) + "' is not connected");
      }
    }
  }
}

Polynomial taylor_from_outputs(const StepSlot& source, std::size_t output, int order, double scale) {
  const int degree = std::min(order, source.output_derivative_order);
  std::array<double, Polynomial::kMaxDegree + 1> derivatives{};
  for (int d = 0; d <= degree; ++d) derivatives[static_cast<std::size_t>(d)] = source.output(output, d);
  return Polynomial::taylor(to_seconds(source.output_time),
                            std::span<const double>(derivatives.data(), static_cast<std::size_t>(degree + 1)),
                            scale);
}

void assign_taylor_inputs(std::size_t target, const InputSources& sources,
                          std::span<StepSlot> slots, int order, double scale) {
  StepSlot& slot = slots[target];
  for (std::size_t i = 0; i < sources.input_count(target); ++i) {
    if (sources.held(target, i)) continue;
    const PortReference source = sources.source(target, i);
    slot.inputs[i] = taylor_from_outputs(slots[source.slave], source.port, order, scale);
  }
}

}  // namespace couplet
