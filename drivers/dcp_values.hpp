#pragma once
// The values of one DCP data id (DAT_input_output's payload, docs/dcp.md) and
// the slave's couplet ports: each position a Real or an Integer port, written
// in its type on the wire. Shared by the master's DCP slave and
// couplet-target --dcp. Neither packing nor unpacking allocates.
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/dcp_pdu.hpp"

namespace couplet::drivers {

/// One position of a data id.
struct DcpSlot {
  std::uint64_t value_reference = 0;
  protocol::dcp::DataType type = protocol::dcp::DataType::float64;  ///< on the wire
  bool discrete = false;  ///< an Integer (or Boolean) port, else a Real one
  std::size_t port = 0;   ///< among the Real or the discrete ports
};

/// The payload's length: the sizes of the slots' types.
std::size_t payload_bytes(std::span<const DcpSlot> slots);

/// Writes each slot's port value (`reals[port]` or `integers[port]`) in order;
/// returns the bytes written.
std::size_t pack_values(std::span<const DcpSlot> slots, std::span<const double> reals,
                        std::span<const std::int64_t> integers, std::span<std::uint8_t> out);

/// Reads `payload` (payload_bytes(slots) long) into the slots' ports.
void unpack_values(std::span<const DcpSlot> slots, std::span<const std::uint8_t> payload,
                   std::span<double> reals, std::span<std::int64_t> integers);

}  // namespace couplet::drivers
