#include "runtime/initial_evaluation_order.hpp"

#include <algorithm>
#include <queue>

namespace couplet {

namespace {

bool has_feedthrough(const SlaveDescription& description) {
  return !description.inputs.empty() &&
         std::any_of(description.outputs.begin(), description.outputs.end(),
                     [](const OutputDescription& output) { return output.direct_feedthrough; });
}

}  // namespace

std::optional<std::vector<std::size_t>> initial_evaluation_order(const System& system,
                                                                 const InputSources& sources) {
  const std::size_t count = system.slave_count();
  std::vector<std::size_t> order;
  order.reserve(count);
  std::vector<bool> feedthrough(count, false);
  for (std::size_t s = 0; s < count; ++s) {
    feedthrough[s] = has_feedthrough(system.description(s));
    if (!feedthrough[s]) order.push_back(s);
  }
  // Edges source -> reader through a feedthrough output, between feedthrough slaves.
  std::vector<std::vector<std::size_t>> readers(count);
  std::vector<std::size_t> unsettled_sources(count, 0);
  for (std::size_t s = 0; s < count; ++s) {
    if (!feedthrough[s]) continue;
    for (std::size_t i = 0; i < sources.input_count(s); ++i) {
      // A held input's Integer value is set before the first evaluation.
      if (sources.held(s, i)) continue;
      const PortReference source = sources.source(s, i);
      if (!feedthrough[source.slave]) continue;
      if (!system.description(source.slave).outputs[source.port].direct_feedthrough) continue;
      readers[source.slave].push_back(s);
      ++unsettled_sources[s];
    }
  }
  // A min-heap keeps ties in slave order.
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t s = 0; s < count; ++s) {
    if (feedthrough[s] && unsettled_sources[s] == 0) ready.push(s);
  }
  while (!ready.empty()) {
    const std::size_t slave = ready.top();
    ready.pop();
    order.push_back(slave);
    for (const std::size_t reader : readers[slave]) {
      if (--unsettled_sources[reader] == 0) ready.push(reader);
    }
  }
  if (order.size() != count) return std::nullopt;
  return order;
}

}  // namespace couplet
