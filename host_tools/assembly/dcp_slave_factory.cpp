#include "host_tools/assembly/dcp_slave_factory.hpp"

#include <chrono>
#include <variant>

#include "drivers/dcp_slave.hpp"
#include "host_tools/assembly/dcp_description_reader.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/process/interrupt.hpp"

namespace couplet::tools {

namespace {

std::chrono::microseconds microseconds_of(double seconds) {
  return std::chrono::microseconds(static_cast<long>(seconds * 1e6));
}

}  // namespace

Time macro_step_of(const Scenario& scenario, const SlaveSpec& spec) {
  if (spec.capabilities.imposed_step > 0) return spec.capabilities.imposed_step;
  if (const auto* jacobi = std::get_if<JacobiSettings>(&scenario.algorithm.choice))
    return jacobi->fixed_step.step;
  if (const auto* gauss_seidel = std::get_if<GaussSeidelSettings>(&scenario.algorithm.choice))
    return gauss_seidel->fixed_step.step;
  return 0;
}

std::unique_ptr<Slave> make_dcp_slave_of(const Scenario& scenario, const SlaveSpec& spec) {
  const LinkSpec link = spec.link.value_or(LinkSpec{});
  drivers::DcpSlaveSettings settings;
  settings.slave_name = spec.name;
  settings.description = read_dcp_description(spec.dcp);
  settings.control = link.udp;
  settings.macro_step = macro_step_of(scenario, spec);
  settings.coupled_inputs = slave_settings(scenario, spec).coupled_inputs;
  settings.parameters.assign(spec.parameters.begin(), spec.parameters.end());
  settings.policy.retransmit_interval = microseconds_of(link.retransmit_timeout);
  settings.policy.peer_timeout = microseconds_of(link.timeout);
  settings.policy.max_step_time = microseconds_of(spec.max_step_time);
  settings.policy.interrupted = &InterruptGuard::requested;
  return drivers::make_dcp_slave(settings);
}

}  // namespace couplet::tools
