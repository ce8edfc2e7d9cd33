#include "host_tools/assembly/remote_slave_factory.hpp"

#include <cstdio>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "drivers/remote_slave.hpp"
#include "drivers/serial_transport.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/process/target_process.hpp"
#include "host_tools/scenario/scenario_file_path.hpp"
#include "protocol/frame_key.hpp"
#include "targets/configuration.hpp"
#include "targets/device_source.hpp"

namespace couplet::tools {

namespace {

// A spawned target needs a moment to load; a few seconds is generous.
constexpr auto kSpawnTimeout = std::chrono::seconds(10);

std::vector<std::string> target_arguments(const SlaveSpec& spec) {
  const LinkSpec& link = *spec.link;
  if (link.arguments) return *link.arguments;  // a program with a command line of its own
  std::vector<std::string> arguments;
  if (!spec.model.empty()) arguments = {"--model", spec.model};
  if (!spec.fmu.empty()) {
    arguments = {"--fmu", spec.fmu};
    if (spec.fmu_kind != models::FmuKind::automatic) {
      arguments.insert(arguments.end(),
                       {"--fmu-kind", spec.fmu_kind == models::FmuKind::co_simulation    ? "cs"
                                      : spec.fmu_kind == models::FmuKind::model_exchange ? "me"
                                                                                         : "se"});
    }
  }
  // A device's program checks its parameters when the Configure brings them,
  // and answers an error the master reports; others were checked on the host.
  if (spec.device.empty()) {
    for (const auto& [name, value] : spec.parameters)
      arguments.push_back("--param=" + name + "=" + exact_text(value));
  }
  if (link.is_udp()) {
    arguments.insert(arguments.end(), {"--udp", link.udp});
  } else {
    arguments.insert(arguments.end(), {"--serial", link.serial_device});
  }
  if (link.realtime) arguments.push_back("--realtime");
  if (!link.key_file.empty()) arguments.insert(arguments.end(), {"--key-file", link.key_file});
  if (link.is_udp() && link.busy_poll > 0.0)
    arguments.push_back("--busy-poll=" + exact_text(link.busy_poll));
  arguments.push_back("--once");
  return arguments;
}

drivers::LinkPolicy policy_of(const SlaveSpec& spec) {
  const LinkSpec& link = *spec.link;
  drivers::LinkPolicy policy;
  policy.retransmit_interval =
      std::chrono::microseconds(static_cast<long>(link.retransmit_timeout * 1e6));
  policy.peer_timeout = std::chrono::microseconds(static_cast<long>(link.timeout * 1e6));
  policy.max_step_time = std::chrono::microseconds(static_cast<long>(spec.max_step_time * 1e6));
  policy.interrupted = &InterruptGuard::requested;
  if (!link.key_file.empty()) {
    try {
      policy.key = protocol::read_frame_key(link.key_file);
    } catch (const ConfigurationError& error) {
      throw ConfigurationError(link.key_file_where + ": " + error.what());
    }
  }
  return policy;
}

}  // namespace

std::unique_ptr<Slave> make_remote_slave(const Scenario& scenario, const SlaveSpec& spec,
                                         const models::ModelCatalog& catalog) {
  const LinkSpec& link = *spec.link;
  // A device's program takes numbers only (its Configure skips text).
  for (const auto& [name, text] : spec.text_parameters) {
    if (spec.parameters.contains(name) || spec.device.empty()) continue;
    throw ConfigurationError(spec.where + ".parameters." + name + ": the text value \"" + text +
                             "\" cannot be sent to device '" + spec.device +
                             "': its program takes numbers only");
  }
  const models::SlaveSettings settings = slave_settings(scenario, spec);
  std::string identity = targets::device_identity(spec.device);
  if (spec.device.empty()) {
    // The host checks model and parameters itself: its messages name the scenario
    // element, and the monolithic reference needs the model anyway. A device's
    // program checks them (and its error names the slave).
    const std::unique_ptr<models::SlaveSource> source = open_source(spec, catalog);
    source->make_slave(settings);
    identity = source->identity();
  }
  targets::SlaveConfiguration configuration{
      spec.name,   identity,          spec.parameters,        spec.text_parameters,
      spec.solver, spec.capabilities, settings.coupled_inputs};
  auto configure = std::make_unique<couplet_wire_Configure>();
  targets::to_wire(configuration, *configure);

  std::shared_ptr<TargetProcess> process;
  std::string udp = link.udp;
  std::string device = link.serial_device;
  if (link.spawn) {
    // A name without a slash is looked up on PATH when it is started (an
    // installed emulator); a path must exist.
    if (link.program.find('/') != std::string::npos)
      require_existing_file(link.program, link.where + ".program");
    process = TargetProcess::spawn(link.program, target_arguments(spec), spec.name, kSpawnTimeout);
    (link.is_udp() ? udp : device) = process->address();
  }
  std::unique_ptr<drivers::Transport> transport;
  if (link.is_udp()) {
    auto socket = drivers::UdpTransport::connect(udp);
    socket->set_busy_poll(std::chrono::duration<double>(link.busy_poll));
    transport = std::move(socket);
  } else {
    transport = drivers::SerialTransport::open(device, link.baud);
  }
  return std::make_unique<drivers::RemoteSlave>(spec.name, std::move(transport), configure.get(),
                                                policy_of(spec), std::move(process));
}

}  // namespace couplet::tools
