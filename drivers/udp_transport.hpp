#pragma once
// UDP transport (docs/links.md: one message per datagram), on Boost.Asio sockets in
// non-blocking mode waited on with poll (docs/architecture.md).
//
// A master connects to its target: the socket then only hears that peer, and an
// ICMP "port unreachable" from a dead target is consumed, not fatal (the session
// layer's timeout decides). A target binds; it answers each frame's sender
// (send_to), and sends its pushes to the peer its session loop set (the
// address that opened the session), else to whoever sent the last frame.
//
// Busy polling (`link.busy_poll`, couplet-target --busy-poll): a receive that
// finds nothing asks the socket again, without sleeping, for up to the set
// window before it blocks in ppoll. An answer that comes within the window is
// taken without the scheduler's wake-up (tens of microseconds on a virtual
// machine), at the price of one core busy for the window (docs/links.md,
// "Busy polling").
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "drivers/transport.hpp"

namespace couplet::drivers {

/// The longest busy-polling window a link or target accepts, in seconds: past
/// it, a core is simply kept busy.
inline constexpr double kLongestBusyPollSeconds = 0.1;

/// "HOST:PORT" as a UDP endpoint: an address as written, else a name resolved
/// to its first IPv4 address. Throws ConfigurationError naming `what`.
boost::asio::ip::udp::endpoint resolve_udp_endpoint(boost::asio::io_context& io,
                                                    const std::string& host_port,
                                                    const std::string& what);

class UdpTransport final : public Transport {
 public:
  /// Master side: an ephemeral local port, connected to `host_port`.
  static std::unique_ptr<UdpTransport> connect(const std::string& host_port);
  /// Target side: bound to `host_port`; port 0 lets the system choose (local_port()).
  static std::unique_ptr<UdpTransport> bind(const std::string& host_port);

  void send(std::span<const std::uint8_t> frame) override;
  std::size_t receive(std::span<std::uint8_t> buffer, Deadline deadline) override;
  std::string describe() const override;
  PeerAddress last_sender() const override;
  void send_to(std::span<const std::uint8_t> frame, const PeerAddress& peer) override;
  void set_peer(const PeerAddress& peer) override;

  /// Receives ask again for up to `window` before sleeping (0: sleep at once).
  void set_busy_poll(std::chrono::duration<double> window) {
    busy_poll_ = std::chrono::duration_cast<std::chrono::nanoseconds>(window);
  }

  std::uint16_t local_port() const;
  /// "127.0.0.1:45678": the bound address, for the target's ready line.
  std::string local_endpoint() const;

  /// Frames that could not be sent (full buffer, unreachable peer) so far.
  std::uint64_t send_failures() const { return send_failures_; }

 private:
  UdpTransport();

  boost::asio::io_context io_;
  boost::asio::ip::udp::socket socket_;
  boost::asio::ip::udp::endpoint peer_;
  bool connected_ = false;   ///< master side
  bool has_peer_ = false;    ///< target side: some frame has arrived
  boost::asio::ip::udp::endpoint sender_;  ///< target side: of the frame last received
  bool peer_set_ = false;    ///< target side: peer_ was set, not taken from the last sender
  std::uint64_t send_failures_ = 0;
  std::chrono::nanoseconds busy_poll_{0};
};

}  // namespace couplet::drivers
