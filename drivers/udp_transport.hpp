#pragma once
// UDP transport (docs/links.md: one message per datagram), on Boost.Asio sockets in
// non-blocking mode waited on with poll (docs/architecture.md).
//
// A master connects to its target: the socket then only hears that peer, and an
// ICMP "port unreachable" from a dead target is consumed, not fatal (the session
// layer's timeout decides). A target binds; it answers each frame's sender
// (send_to), and sends its pushes to the peer its session loop set (the
// address that opened the session), else to whoever sent the last frame.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <memory>
#include <string>

#include "drivers/transport.hpp"

namespace couplet::drivers {

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
};

}  // namespace couplet::drivers
