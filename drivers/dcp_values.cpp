#include "drivers/dcp_values.hpp"

namespace couplet::drivers {

namespace dcp = protocol::dcp;

std::size_t payload_bytes(std::span<const DcpSlot> slots) {
  std::size_t bytes = 0;
  for (const DcpSlot& slot : slots) bytes += dcp::value_size(slot.type);
  return bytes;
}

std::size_t pack_values(std::span<const DcpSlot> slots, std::span<const double> reals,
                        std::span<const std::int64_t> integers, std::span<std::uint8_t> out) {
  std::size_t offset = 0;
  for (const DcpSlot& slot : slots) {
    const double value =
        slot.discrete ? static_cast<double>(integers[slot.port]) : reals[slot.port];
    offset += dcp::write_value(out.subspan(offset), slot.type, value);
  }
  return offset;
}

void unpack_values(std::span<const DcpSlot> slots, std::span<const std::uint8_t> payload,
                   std::span<double> reals, std::span<std::int64_t> integers) {
  std::size_t offset = 0;
  for (const DcpSlot& slot : slots) {
    const auto bytes = payload.subspan(offset);
    if (slot.discrete)
      integers[slot.port] = dcp::read_integer(bytes, slot.type);
    else
      reals[slot.port] = dcp::read_value(bytes, slot.type);
    offset += dcp::value_size(slot.type);
  }
}

}  // namespace couplet::drivers
