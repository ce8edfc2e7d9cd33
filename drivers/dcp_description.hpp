#pragma once
// A DCP slave description (DCPX: the XML file `dcpSlaveDescription` of DCP 1.0,
// docs/dcp.md) as typed values: what couplet needs to drive the slave — its
// identity and version, operating modes, time resolutions, UDP endpoints and
// variables. The host reads it from its file
// (host_tools/assembly/dcp_description_reader.hpp); the driver never sees XML.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocol/dcp_pdu.hpp"

namespace couplet::drivers {

struct DcpVariable {
  enum class Causality { input, output, parameter, structural_parameter };
  std::string name;
  std::uint64_t value_reference = 0;
  Causality causality = Causality::input;
  protocol::dcp::DataType type = protocol::dcp::DataType::float64;
  std::optional<double> start;  ///< numeric types: the (first) start value
  std::string unit;             ///< Float32/Float64: the unit attribute, if any
  /// Output: how many time-resolution ticks lie between two output PDUs
  /// (CFG_steps), its defaultSteps.
  std::uint32_t default_steps = 1;
  std::string where;  ///< "Variable 'x' (line 12)" for messages
};

/// A <Resolution>: numerator/denominator seconds per step.
struct DcpResolution {
  std::uint32_t numerator = 1;
  std::uint32_t denominator = 1000;
  bool fixed = true;
  bool recommended = false;
};

/// A <ResolutionRange>: numerator in [from, to] over one denominator.
struct DcpResolutionRange {
  std::uint32_t numerator_from = 1;
  std::uint32_t numerator_to = 1;
  std::uint32_t denominator = 1;
};

/// <NonRealTime>: the steps an STC_do_step may ask for.
struct DcpNonRealTime {
  std::uint32_t default_steps = 1;
  bool fixed_steps = true;
  std::optional<std::uint32_t> min_steps;
  std::optional<std::uint32_t> max_steps;
};

struct DcpPortRange {
  std::uint16_t from = 0;
  std::uint16_t to = 0;
};

struct DcpDescription {
  std::string file;  ///< for messages
  std::string slave_name;
  std::string uuid_text;
  protocol::dcp::Uuid uuid{};
  std::uint8_t major_version = 1;
  std::uint8_t minor_version = 0;
  bool hard_real_time = false;
  bool soft_real_time = false;
  std::optional<DcpNonRealTime> non_real_time;
  std::vector<DcpResolution> resolutions;
  std::vector<DcpResolutionRange> resolution_ranges;
  bool can_handle_variable_steps = false;
  std::string control_host;  ///< UDP_IPv4 <Control host port>
  std::uint16_t control_port = 0;
  std::string data_host;                 ///< <DAT_input_output host>; empty: the control host
  std::vector<DcpPortRange> data_ports;  ///< AvailablePortRange and AvailablePort
  std::uint32_t max_pdu_size = 65507;
  std::vector<DcpVariable> variables;
};

/// "Input", "Output", "Parameter", "StructuralParameter".
const char* to_string(DcpVariable::Causality causality);

}  // namespace couplet::drivers
