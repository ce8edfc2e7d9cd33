#pragma once
// CRC-32 (IEEE 802.3, reflected, polynomial 0x04C11DB7; "123456789" → 0xCBF43926)
// over every frame (docs/links.md: serial framing with a CRC). UDP frames carry it
// too: the UDP checksum is optional and weak, and couplet-netem corrupts bits.
#include <cstdint>
#include <span>

namespace couplet::protocol {

std::uint32_t crc32(std::span<const std::uint8_t> bytes);

}  // namespace couplet::protocol
