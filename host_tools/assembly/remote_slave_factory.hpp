#pragma once
// A slave behind a link, from its scenario spec (docs/links.md):
// spawns couplet-target when asked, opens the transport, and hands the
// scenario's parameters, solver settings and capability limits to the target in
// a Configure, so that the target wraps the model exactly as the host would.
#include <memory>

#include "couplet/slave.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "models/catalog.hpp"

namespace couplet::tools {

/// `spec.link` must be set. Errors name the slave and its scenario element.
std::unique_ptr<Slave> make_remote_slave(const Scenario& scenario, const SlaveSpec& spec,
                                         const models::ModelCatalog& catalog);

}  // namespace couplet::tools
