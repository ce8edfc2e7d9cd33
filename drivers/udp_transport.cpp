#include "drivers/udp_transport.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/udp.hpp>
#include <cstring>
#include <optional>

#include "couplet/errors.hpp"
#include "drivers/endpoint.hpp"
#include "drivers/poll_wait.hpp"

namespace couplet::drivers {

namespace asio = boost::asio;
using asio::ip::udp;

udp::endpoint resolve_udp_endpoint(asio::io_context& io, const std::string& text,
                                   const std::string& what) {
  const HostPort parsed = parse_host_port(text, what);
  boost::system::error_code error;
  const asio::ip::address address = asio::ip::make_address(parsed.host, error);
  if (!error) return {address, parsed.port};
  udp::resolver resolver(io);
  const auto results = resolver.resolve(udp::v4(), parsed.host, std::to_string(parsed.port), error);
  if (error || results.empty()) {
    throw ConfigurationError(what + ": cannot resolve host '" + parsed.host + "': " + error.message());
  }
  return *results.begin();
}

UdpTransport::UdpTransport() : socket_(io_) {}

std::unique_ptr<UdpTransport> UdpTransport::connect(const std::string& host_port) {
  std::unique_ptr<UdpTransport> transport(new UdpTransport());
  const udp::endpoint peer = resolve_udp_endpoint(transport->io_, host_port, "udp peer");
  boost::system::error_code error;
  transport->socket_.open(peer.protocol(), error);
  if (!error) transport->socket_.connect(peer, error);
  if (!error) transport->socket_.non_blocking(true, error);
  if (error) throw ConfigurationError("udp: cannot connect a socket to " + host_port + ": " + error.message());
  transport->peer_ = peer;
  transport->connected_ = true;
  return transport;
}

std::unique_ptr<UdpTransport> UdpTransport::bind(const std::string& host_port) {
  std::unique_ptr<UdpTransport> transport(new UdpTransport());
  const udp::endpoint local = resolve_udp_endpoint(transport->io_, host_port, "udp address");
  boost::system::error_code error;
  transport->socket_.open(local.protocol(), error);
  if (!error) transport->socket_.bind(local, error);
  if (!error) transport->socket_.non_blocking(true, error);
  if (error) throw ConfigurationError("udp: cannot bind " + host_port + ": " + error.message());
  return transport;
}

void UdpTransport::send(std::span<const std::uint8_t> frame) {
  boost::system::error_code error;
  if (connected_) {
    socket_.send(asio::buffer(frame.data(), frame.size()), 0, error);
  } else if (has_peer_) {
    socket_.send_to(asio::buffer(frame.data(), frame.size()), peer_, 0, error);
  } else {
    ++send_failures_;  // nobody has spoken to this target yet
    return;
  }
  if (error) ++send_failures_;
}

std::size_t UdpTransport::receive(std::span<std::uint8_t> buffer, Deadline deadline) {
  std::optional<Deadline> polling_ends;  // set at the first empty read
  for (;;) {
    boost::system::error_code error;
    udp::endpoint sender;
    const std::size_t size = socket_.receive_from(asio::buffer(buffer.data(), buffer.size()), sender, 0, error);
    if (!error) {
      if (size == 0) continue;  // an empty datagram carries no frame
      if (!connected_) {
        sender_ = sender;
        if (!peer_set_) peer_ = sender;
        has_peer_ = true;
      }
      return size;
    }
    // Would block: wait. A pending ICMP error (connection refused) has just been
    // consumed by the call: wait as well; the session layer's timeout decides.
    const Deadline now = SteadyClock::now();
    if (now >= deadline) return 0;
    if (!polling_ends) polling_ends = std::min(now + busy_poll_, deadline);
    if (now < *polling_ends) continue;  // busy polling: ask the socket again
    if (wait_for_descriptor(socket_.native_handle(), deadline) == PollOutcome::timeout) return 0;
  }
}

PeerAddress UdpTransport::last_sender() const {
  PeerAddress address;
  if (connected_ || !has_peer_ || sender_.size() > address.bytes.size()) return address;
  address.size = static_cast<std::uint32_t>(sender_.size());
  std::memcpy(address.bytes.data(), sender_.data(), sender_.size());
  return address;
}

namespace {

udp::endpoint endpoint_of(const PeerAddress& peer) {
  udp::endpoint endpoint;
  std::memcpy(endpoint.data(), peer.bytes.data(), peer.size);
  endpoint.resize(peer.size);
  return endpoint;
}

}  // namespace

void UdpTransport::send_to(std::span<const std::uint8_t> frame, const PeerAddress& peer) {
  if (connected_ || peer.empty()) {
    send(frame);
    return;
  }
  boost::system::error_code error;
  socket_.send_to(asio::buffer(frame.data(), frame.size()), endpoint_of(peer), 0, error);
  if (error) ++send_failures_;
}

void UdpTransport::set_peer(const PeerAddress& peer) {
  if (connected_) return;
  peer_set_ = !peer.empty();
  if (peer_set_) {
    peer_ = endpoint_of(peer);
    has_peer_ = true;
  }
}

std::string UdpTransport::describe() const {
  if (connected_) return "udp " + peer_.address().to_string() + ":" + std::to_string(peer_.port());
  return "udp " + local_endpoint();
}

std::uint16_t UdpTransport::local_port() const {
  boost::system::error_code error;
  return socket_.local_endpoint(error).port();
}

std::string UdpTransport::local_endpoint() const {
  boost::system::error_code error;
  const udp::endpoint local = socket_.local_endpoint(error);
  return local.address().to_string() + ":" + std::to_string(local.port());
}

}  // namespace couplet::drivers
