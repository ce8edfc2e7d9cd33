#pragma once
// A link's transport: moves whole frames (protocol/codec.hpp) between the master
// and a target, unreliably — frames may be lost, duplicated, reordered or
// corrupted; the session layer (drivers/link_client.hpp, targets/) makes steps
// exactly-once on top (docs/links.md).
//
// Real-time rules (docs/architecture.md "Executor"): after construction, send and receive
// neither allocate nor block beyond the given deadline. Nothing here uses
// SO_RCVTIMEO (docs/architecture.md): waits are poll()s on non-blocking descriptors or
// condition variables with absolute steady-clock deadlines.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace couplet::drivers {

using SteadyClock = std::chrono::steady_clock;  // CLOCK_MONOTONIC on Linux
using Deadline = SteadyClock::time_point;

/// Where a frame came from on a transport that many peers can write to (a
/// bound UDP socket): the socket address, compared byte for byte. Empty on
/// point-to-point links (a serial line, a connected socket).
struct PeerAddress {
  std::array<std::uint8_t, 28> bytes{};  ///< a sockaddr_in or sockaddr_in6
  std::uint32_t size = 0;
  bool empty() const { return size == 0; }
  friend bool operator==(const PeerAddress& a, const PeerAddress& b) {
    return a.size == b.size && std::memcmp(a.bytes.data(), b.bytes.data(), a.size) == 0;
  }
};

class Transport {
 public:
  virtual ~Transport() = default;

  /// Sends one frame, or drops it silently when the link cannot take it now (a
  /// full socket buffer, an unreachable peer): links are lossy by nature.
  virtual void send(std::span<const std::uint8_t> frame) = 0;

  /// Waits until one frame has arrived or `deadline` has passed. Returns the
  /// frame's size (written to the front of `buffer`), or 0 at the deadline.
  virtual std::size_t receive(std::span<std::uint8_t> buffer, Deadline deadline) = 0;

  /// "udp 127.0.0.1:4000", "serial /dev/ttyUSB0": for messages.
  virtual std::string describe() const = 0;

  /// Who sent the frame last received (empty on point-to-point links).
  virtual PeerAddress last_sender() const { return {}; }
  /// Sends one frame to `peer` (from last_sender()); point-to-point links
  /// have one peer and send().
  virtual void send_to(std::span<const std::uint8_t> frame, const PeerAddress& peer) {
    (void)peer;
    send(frame);
  }
  /// From now on send() goes to `peer` (a target's session peer), whoever
  /// speaks meanwhile; empty: to whoever sent the last frame.
  virtual void set_peer(const PeerAddress& peer) { (void)peer; }
};

}  // namespace couplet::drivers
