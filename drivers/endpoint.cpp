#include "drivers/endpoint.hpp"

#include <charconv>

#include "couplet/errors.hpp"

namespace couplet::drivers {

HostPort parse_host_port(const std::string& text, const std::string& what) {
  const auto fail = [&]() -> HostPort {
    throw ConfigurationError(what + ": '" + text + "' is not HOST:PORT (e.g. 127.0.0.1:5000)");
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return fail();
  std::string host = text.substr(0, colon);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, port);
  if (error != std::errc() || end != last || port > 65535 || host.empty()) return fail();
  return {host, static_cast<std::uint16_t>(port)};
}

}  // namespace couplet::drivers
