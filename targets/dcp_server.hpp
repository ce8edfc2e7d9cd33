#pragma once
// couplet-target --dcp (docs/dcp.md, "couplet-target as a DCP slave"): a model,
// an FMU or a device served as a DCP 1.0 slave in NonRealTime, so that a
// third-party DCP master can drive it. One master at a time; every PDU
// through the program's one UDP socket.
//
// The slave is made when the master prepares it (with the command line's
// parameters), set up at STC_initialize (time 0), stepped by STC_do_step with
// its inputs held over the step, and its outputs sent with STC_send_outputs to
// each output data id's target. A slave that fails goes to ERROR_HANDLING and
// ERROR_RESOLVED; STC_reset or STC_deregister then start over.
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivers/dcp_values.hpp"
#include "drivers/transport.hpp"
#include "models/slave_source.hpp"
#include "protocol/dcp_pdu.hpp"
#include "targets/configuration.hpp"

namespace couplet::targets {

/// One variable of the served slave as DCP sees it.
struct DcpServedVariable {
  std::string name;
  std::uint64_t value_reference = 0;
  bool output = false;
  bool discrete = false;
  std::size_t port = 0;  ///< among the slave's Real or discrete inputs or outputs
  protocol::dcp::DataType type = protocol::dcp::DataType::float64;
  std::string unit;
};

struct DcpServerCounters {
  std::uint64_t datagrams = 0;
  std::uint64_t rejected = 0;  ///< undecodable
  std::uint64_t foreign = 0;   ///< not for this slave, or not from its master
  std::uint64_t nacks = 0;
  std::uint64_t steps = 0;
  std::uint64_t sessions = 0;  ///< ended by STC_deregister
};

class DcpServer {
 public:
  /// `name` is the slave's name in the description and in messages.
  DcpServer(std::shared_ptr<const models::SlaveSource> source, ParameterOverrides parameters,
            std::string name);
  ~DcpServer();

  /// The DCPX of what is served, its control endpoint `host`:`port`.
  std::string slave_description(const std::string& host, std::uint16_t port) const;

  /// Handles one datagram from `sender`, answering through `transport`, which
  /// listens on `own_port`.
  void handle(std::span<const std::uint8_t> datagram, const drivers::PeerAddress& sender,
              drivers::Transport& transport, std::uint16_t own_port);

  const DcpServerCounters& counters() const { return counters_; }
  const std::vector<DcpServedVariable>& variables() const { return variables_; }

 private:
  struct DataId {
    std::map<std::uint16_t, drivers::DcpSlot> positions;  ///< as configured
    std::vector<drivers::DcpSlot> slots;         ///< the positions in order, from STC_prepare on
    std::size_t bytes = 0;                       ///< the payload's length
    std::optional<drivers::PeerAddress> target;  ///< outputs: where they go
    bool source_configured = false;              ///< inputs
    protocol::dcp::Scope scope = protocol::dcp::Scope::initialization_and_run;
    std::uint16_t sequence = 0;  ///< outputs: the next data sequence
  };

  /// The error code that refuses `request` in this state, or 0.
  std::uint16_t check(const protocol::dcp::Request& request, std::uint16_t own_port) const;
  void configure(const protocol::dcp::Request& request);
  void carry_out(const protocol::dcp::Request& request);
  void take_inputs(const protocol::dcp::Request& request);
  void send_outputs(bool initialization);
  void enter(protocol::dcp::State state);
  void fail(const std::string& why);
  void clear_configuration();
  const DcpServedVariable* variable(std::uint64_t value_reference) const;
  /// A position for variable `value_reference` (known), written as `type`.
  drivers::DcpSlot slot_of(std::uint64_t value_reference, protocol::dcp::DataType type) const;

  std::shared_ptr<const models::SlaveSource> source_;
  ParameterOverrides parameters_;
  std::string name_;
  protocol::dcp::Uuid uuid_{};
  std::vector<DcpServedVariable> variables_;
  SlaveDescription slave_description_;

  protocol::dcp::State state_ = protocol::dcp::State::alive;
  std::uint8_t id_ = 0;
  drivers::PeerAddress master_;
  std::uint16_t last_sequence_ = 0;
  std::uint16_t register_sequence_ = 0;  ///< CFG_clear and STC_reset count on from it
  std::uint16_t error_code_ = 0;
  std::uint32_t numerator_ = 0;
  std::uint32_t denominator_ = 0;
  std::map<std::uint16_t, DataId> inputs_;
  std::map<std::uint16_t, DataId> outputs_;

  std::unique_ptr<Slave> slave_;
  Time time_ = 0;
  std::vector<double> input_values_;
  std::vector<std::int64_t> discrete_inputs_;
  std::vector<Polynomial> input_polynomials_;
  std::vector<double> end_outputs_;
  std::vector<std::int64_t> discrete_outputs_;

  drivers::Transport* transport_ = nullptr;  ///< during handle()
  DcpServerCounters counters_;
  std::array<std::uint8_t, protocol::dcp::kMaxPduBytes> buffer_{};
};

/// Serves `server` on `transport` (bound to `own_port`) until `stop` is set
/// or, with `once`, the first master has deregistered.
void serve_dcp(DcpServer& server, drivers::Transport& transport, std::uint16_t own_port, bool once,
               const std::atomic<bool>& stop);

}  // namespace couplet::targets
