#include "targets/address_filter.hpp"

#include <netinet/in.h>
#include <sys/socket.h>

#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>
#include <cstring>

#include "couplet/errors.hpp"

namespace couplet::targets {

namespace {

/// Whether the first `prefix` bits of `a` and `b` agree.
bool same_prefix(const std::uint8_t* a, const std::uint8_t* b, unsigned prefix) {
  const unsigned whole = prefix / 8;
  if (std::memcmp(a, b, whole) != 0) return false;
  const unsigned rest = prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

AddressFilter::AddressFilter(const std::vector<std::string>& networks) {
  namespace ip = boost::asio::ip;
  for (const std::string& text : networks) {
    const std::string with_prefix =
        text.find('/') == std::string::npos
            ? text + (text.find(':') == std::string::npos ? "/32" : "/128")
            : text;
    boost::system::error_code error;
    Network network;
    if (const ip::network_v4 v4 = ip::make_network_v4(with_prefix, error); !error) {
      const auto bytes = v4.network().to_bytes();
      std::copy(bytes.begin(), bytes.end(), network.bytes.begin());
      network.prefix = v4.prefix_length();
      network.v4 = true;
    } else if (const ip::network_v6 v6 = ip::make_network_v6(with_prefix, error); !error) {
      network.bytes = v6.network().to_bytes();
      network.prefix = v6.prefix_length();
    } else {
      throw ConfigurationError(
          "--allow '" + text +
          "': not an address or network (ADDR or ADDR/PREFIX, e.g. 10.0.0.5 or 10.0.0.0/24)");
    }
    networks_.push_back(network);
  }
}

bool AddressFilter::admits(const drivers::PeerAddress& peer) const {
  if (networks_.empty()) return true;
  std::array<std::uint8_t, 16> address{};
  bool v4 = false;
  sa_family_t family = AF_UNSPEC;
  if (peer.size >= sizeof(sa_family_t)) std::memcpy(&family, peer.bytes.data(), sizeof family);
  if (family == AF_INET && peer.size >= sizeof(sockaddr_in)) {
    sockaddr_in in{};
    std::memcpy(&in, peer.bytes.data(), sizeof in);
    std::memcpy(address.data(), &in.sin_addr, 4);
    v4 = true;
  } else if (family == AF_INET6 && peer.size >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6{};
    std::memcpy(&in6, peer.bytes.data(), sizeof in6);
    std::memcpy(address.data(), &in6.sin6_addr, 16);
    static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (std::memcmp(address.data(), kMapped, sizeof kMapped) == 0) {  // ::ffff:a.b.c.d
      std::memmove(address.data(), address.data() + 12, 4);
      v4 = true;
    }
  } else {
    return false;  // no address to check (a serial line has none: --allow is refused there)
  }
  for (const Network& network : networks_) {
    if (network.v4 == v4 && same_prefix(network.bytes.data(), address.data(), network.prefix))
      return true;
  }
  return false;
}

}  // namespace couplet::targets
