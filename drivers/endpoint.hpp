#pragma once
// "HOST:PORT" as written in scenarios and on command lines (docs/links.md).
#include <cstdint>
#include <string>

namespace couplet::drivers {

struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

/// Splits "HOST:PORT" ("127.0.0.1:5000", "localhost:0", "[::1]:5000"). Throws
/// ConfigurationError naming `what` (e.g. "link.udp") on anything else.
HostPort parse_host_port(const std::string& text, const std::string& what);

}  // namespace couplet::drivers
