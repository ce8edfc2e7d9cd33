#pragma once
// The oscillator chain of chain.cpp (docs/chain.md) assembled for the monolithic
// reference without a scenario: n segments in chain order, with the coupling
// element between each neighbour pair, in the slave order the scenario generator
// uses (seg1, cpl1, seg2, ..., seg<n>), so that the assembled state keeps the
// chain's banded Jacobian. For tests and the reference harness.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"

namespace couplet::models {

/// `bodies` split into `segments` parts as even as possible, the longer ones
/// first. Throws ConfigurationError unless 1 <= segments <= bodies.
std::vector<int> split_chain(int bodies, int segments);

struct ChainAssembly {
  std::vector<std::unique_ptr<Model>> models;  ///< own what `subsystems` point to
  std::vector<MonolithicSubsystem> subsystems;
  std::vector<MonolithicConnection> connections;
  std::vector<std::size_t> segment_index;  ///< subsystem index of each segment
};

/// Segments of the given sizes (a single one is the whole chain with both walls);
/// `overrides` (e.g. c_nl) apply to every segment and coupling element that has
/// the parameter.
ChainAssembly assemble_chain(const ModelCatalog& catalog, std::span<const int> sizes,
                             const ParameterValues& overrides = {});

}  // namespace couplet::models
