#pragma once
// A DCP slave from its scenario spec (docs/dcp.md): reads its DCPX, chooses
// the time resolution from the slave's `capabilities.imposed_step` or the
// algorithm's fixed macro step, and opens the socket; the slave is registered
// when the run sets it up.
#include <memory>

#include "couplet/slave.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// `spec.dcp` must be set. Errors name the slave and its DCPX file.
std::unique_ptr<Slave> make_dcp_slave_of(const Scenario& scenario, const SlaveSpec& spec);

/// The step the master keeps for `spec`'s slave: its imposed step, else the
/// fixed step of a Jacobi or Gauss–Seidel master; 0 when the step varies.
Time macro_step_of(const Scenario& scenario, const SlaveSpec& spec);

}  // namespace couplet::tools
