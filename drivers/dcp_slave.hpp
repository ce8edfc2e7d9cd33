#pragma once
// A DCP 1.0 slave driven by couplet's master in non-real-time mode (NRT,
// docs/dcp.md): a Slave whose every step is an exchange of DCP PDUs over UDP.
//
// setup() registers the slave, configures it — the time resolution, one data
// id for the inputs couplet sends and one for the outputs it receives, whose
// network information points at couplet's own socket, so that couplet sits
// between slaves and logs every value — prepares, configures, initializes
// (the initial outputs come with STC_send_outputs in INITIALIZED) and runs it
// to RUNNING. step() sends the inputs at the step start (degree 0: DCP
// values are held), STC_do_step with the step as a number of resolution ticks,
// and STC_send_outputs; the outputs of the DAT PDU are the step's result. The
// destructor stops and deregisters the slave, also after a failure.
//
// Requests go one at a time, each retransmitted with its sequence number
// until answered (a NACK INVALID_SEQUENCE_ID that expects the next number
// says that an earlier copy arrived); while the slave computes, INF_state
// asks after it, so that a slave silent for the link timeout is reported
// dead. DCP sends data once and unacknowledged: an output PDU that does not
// come fails the step; an input PDU lost on the way is not seen by the master.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "drivers/dcp_description.hpp"
#include "drivers/link_policy.hpp"
#include "drivers/linked_slave.hpp"

namespace couplet::drivers {

struct DcpSlaveSettings {
  std::string slave_name;
  DcpDescription description;
  /// "HOST:PORT" of the slave's control endpoint; empty: the description's.
  std::string control;
  /// The step the master will take (or the grid it keeps), for the time
  /// resolution when the slave does not fix one; 0: unknown.
  Time macro_step = 0;
  /// The inputs some connection drives; the others are not configured and
  /// keep the slave's own values. nullopt: all.
  std::optional<std::vector<std::string>> coupled_inputs;
  /// Numeric parameters set with CFG_parameter in CONFIGURATION.
  std::vector<std::pair<std::string, double>> parameters;
  /// Retransmission, peer timeout (dead slave), max step time, interrupt.
  LinkPolicy policy;
};

/// Opens the socket and checks the description (NonRealTime offered, a usable
/// time resolution, known parameters); the slave is registered in setup().
/// Throws ConfigurationError naming the slave and the DCPX file.
std::unique_ptr<LinkedSlave> make_dcp_slave(const DcpSlaveSettings& settings);

/// The time resolution couplet configures for `description` given the
/// master's step (see DcpSlaveSettings::macro_step), as numerator/denominator
/// seconds whose ticks are whole nanoseconds. Throws ConfigurationError.
std::pair<std::uint32_t, std::uint32_t> choose_time_resolution(const DcpDescription& description,
                                                               Time macro_step);

}  // namespace couplet::drivers
