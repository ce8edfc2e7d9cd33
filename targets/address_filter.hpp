#pragma once
// Who may speak to a UDP target (`--allow ADDR[/PREFIX]`, docs/links.md
// "Authenticated links"): frames from any other address are dropped before
// they are decoded. A source address can be forged, so this narrows who can
// reach the target; only a key (--key-file) tells the master from others.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/transport.hpp"

namespace couplet::targets {

class AddressFilter {
 public:
  /// Admits everyone.
  AddressFilter() = default;
  /// Admits the networks given as "ADDR" or "ADDR/PREFIX", IPv4 or IPv6 (an
  /// IPv4 network also admits its IPv4-mapped IPv6 addresses). Throws
  /// ConfigurationError naming the text that is not one.
  explicit AddressFilter(const std::vector<std::string>& networks);

  bool admits_everyone() const { return networks_.empty(); }
  /// Whether a frame from `peer` (a sockaddr_in or sockaddr_in6) is admitted. Never allocates.
  bool admits(const drivers::PeerAddress& peer) const;

 private:
  struct Network {
    std::array<std::uint8_t, 16> bytes{};  ///< 4 used for IPv4
    unsigned prefix = 0;                   ///< leading bits that must match
    bool v4 = false;
  };
  std::vector<Network> networks_;
};

}  // namespace couplet::targets
