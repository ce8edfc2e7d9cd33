#include "models/chain_assembly.hpp"

#include <algorithm>
#include <numeric>

#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

ParameterValues applicable(const ModelEntry& entry, const ParameterValues& overrides) {
  ParameterValues values;
  // Not a structured binding: clang before 16 cannot capture one in a lambda
  // (./build.sh fuzz builds with clang 14).
  for (const auto& override_entry : overrides) {
    const auto& name = override_entry.first;
    const auto& parameters = entry.description.parameters;
    if (std::any_of(parameters.begin(), parameters.end(),
                    [&](const ParameterDescription& p) { return p.name == name; }))
      values.emplace(name, override_entry.second);
  }
  return values;
}

}  // namespace

std::vector<int> split_chain(int bodies, int segments) {
  if (bodies < 1 || segments < 1 || segments > bodies) {
    throw ConfigurationError("chain of " + std::to_string(bodies) + " bodies cannot be cut into " +
                             std::to_string(segments) + " segments: need 1 <= segments <= bodies");
  }
  std::vector<int> sizes(static_cast<std::size_t>(segments), bodies / segments);
  for (int i = 0; i < bodies % segments; ++i) ++sizes[static_cast<std::size_t>(i)];
  return sizes;
}

ChainAssembly assemble_chain(const ModelCatalog& catalog, std::span<const int> sizes,
                             const ParameterValues& overrides) {
  ChainAssembly chain;
  const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
  const std::size_t n = sizes.size();
  int first = 1;
  for (std::size_t i = 0; i < n; ++i) {
    ParameterValues values = applicable(catalog.find("chain.segment"), overrides);
    values["bodies"] = sizes[i];
    values["first_body"] = first;
    values["chain_bodies"] = total;
    values["wall_left"] = i == 0 ? 1.0 : 0.0;
    values["wall_right"] = i + 1 == n ? 1.0 : 0.0;
    first += sizes[i];
    chain.segment_index.push_back(chain.models.size());
    chain.models.push_back(catalog.create("chain.segment", values));
    chain.subsystems.push_back({"seg" + std::to_string(i + 1), chain.models.back().get()});
    if (i + 1 == n) break;
    chain.models.push_back(
        catalog.create("chain.coupling", applicable(catalog.find("chain.coupling"), overrides)));
    chain.subsystems.push_back({"cpl" + std::to_string(i + 1), chain.models.back().get()});
  }
  // Ports: a segment's inputs are (force_left?, force_right?), its outputs
  // (x_first, v_first)? then (x_last, v_last)?; the coupling's inputs x_left,
  // v_left, x_right, v_right and its one output force.
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t left = chain.segment_index[i];
    const std::size_t coupling = left + 1;
    const std::size_t right = chain.segment_index[i + 1];
    const std::size_t left_last = i == 0 ? 0 : 2;   // x_last after x_first, v_first
    const std::size_t left_force = i == 0 ? 0 : 1;  // force_right after force_left
    chain.connections.push_back({left, left_last, coupling, 0});
    chain.connections.push_back({left, left_last + 1, coupling, 1});
    chain.connections.push_back({right, 0, coupling, 2});
    chain.connections.push_back({right, 1, coupling, 3});
    chain.connections.push_back({coupling, 0, left, left_force});
    chain.connections.push_back({coupling, 0, right, 0});
  }
  return chain;
}

}  // namespace couplet::models
