#include "drivers/udp_impairment_proxy.hpp"

#include <poll.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <mutex>
#include <vector>

#include "drivers/endpoint.hpp"
#include "drivers/transport.hpp"
#include "couplet/errors.hpp"

namespace couplet::drivers {

namespace asio = boost::asio;
using asio::ip::udp;

namespace {

constexpr std::size_t kMaxDatagram = 65536;
constexpr std::size_t kInFlight = 256;
constexpr auto kStopCheck = std::chrono::milliseconds(50);

udp::endpoint numeric_endpoint(const std::string& text, const std::string& what) {
  const HostPort parsed = parse_host_port(text, what);
  boost::system::error_code error;
  const asio::ip::address address = asio::ip::make_address(parsed.host == "localhost" ? "127.0.0.1" : parsed.host, error);
  if (error) throw ConfigurationError(what + ": '" + parsed.host + "' is not a numeric address");
  return {address, parsed.port};
}

}  // namespace

struct UdpImpairmentProxy::State {
  struct Pending {
    bool used = false;
    bool to_client = false;
    Deadline due{};
    std::uint64_t order = 0;
    std::size_t size = 0;
    std::vector<std::uint8_t> bytes;
  };

  asio::io_context io;
  udp::socket listen_socket{io};
  udp::socket forward_socket{io};
  udp::endpoint forward;
  udp::endpoint client;
  bool has_client = false;
  FaultInjector to_forward;
  FaultInjector to_client;
  std::vector<Pending> pending;
  std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(kMaxDatagram);
  std::uint64_t next_order = 0;
  std::uint64_t overflow = 0;
  mutable std::mutex counters_mutex;

  State(const FaultSettings& faults, const FaultSettings& back) : to_forward(faults), to_client(back), pending(kInFlight) {
    for (Pending& slot : pending) slot.bytes.resize(kMaxDatagram);
  }

  void enqueue(std::size_t size, bool towards_client) {
    const std::lock_guard lock(counters_mutex);
    FaultInjector::Copies copies;
    FaultInjector& injector = towards_client ? to_client : to_forward;
    const std::size_t count = injector.decide(size, copies);
    const Deadline now = SteadyClock::now();
    for (std::size_t c = 0; c < count; ++c) {
      const auto slot = std::find_if(pending.begin(), pending.end(), [](const Pending& p) { return !p.used; });
      if (slot == pending.end()) {
        ++overflow;
        continue;
      }
      std::copy_n(buffer.begin(), size, slot->bytes.begin());
      if (copies[c].corrupt) slot->bytes[copies[c].bit / 8] ^= static_cast<std::uint8_t>(1U << (copies[c].bit % 8));
      slot->used = true;
      slot->to_client = towards_client;
      slot->due = now + copies[c].delay;
      slot->order = next_order++;
      slot->size = size;
    }
  }

  /// Sends every datagram that is due, oldest first; returns the next due time.
  Deadline release() {
    for (;;) {
      Pending* first = nullptr;
      for (Pending& slot : pending) {
        if (slot.used && (first == nullptr || slot.due < first->due || (slot.due == first->due && slot.order < first->order))) {
          first = &slot;
        }
      }
      if (first == nullptr) return Deadline::max();
      if (first->due > SteadyClock::now()) return first->due;
      boost::system::error_code error;
      if (first->to_client) {
        if (has_client) listen_socket.send_to(asio::buffer(first->bytes.data(), first->size), client, 0, error);
      } else {
        forward_socket.send_to(asio::buffer(first->bytes.data(), first->size), forward, 0, error);
      }
      first->used = false;  // a send error is one more loss
    }
  }

  void drain(udp::socket& socket, bool towards_client) {
    for (;;) {
      boost::system::error_code error;
      udp::endpoint sender;
      const std::size_t size = socket.receive_from(asio::buffer(buffer), sender, 0, error);
      if (error == asio::error::would_block || error == asio::error::try_again) return;
      if (error) continue;  // e.g. ICMP "unreachable" from the forward side: consumed
      if (towards_client) {
        if (sender != forward) continue;  // only the forward address speaks back
      } else {
        client = sender;
        has_client = true;
      }
      enqueue(size, towards_client);
    }
  }
};

UdpImpairmentProxy::UdpImpairmentProxy(const std::string& listen, const std::string& forward, const FaultSettings& faults) {
  FaultSettings back = faults;
  back.seed = faults.seed + 1;
  state_ = std::make_unique<State>(faults, back);
  const udp::endpoint listen_endpoint = numeric_endpoint(listen, "--listen");
  state_->forward = numeric_endpoint(forward, "--forward");
  boost::system::error_code error;
  state_->listen_socket.open(listen_endpoint.protocol(), error);
  if (!error) state_->listen_socket.bind(listen_endpoint, error);
  if (!error) state_->listen_socket.non_blocking(true, error);
  if (error) throw ConfigurationError("--listen " + listen + ": " + error.message());
  state_->forward_socket.open(state_->forward.protocol(), error);
  if (!error) state_->forward_socket.non_blocking(true, error);
  if (error) throw ConfigurationError("--forward " + forward + ": " + error.message());
}

UdpImpairmentProxy::~UdpImpairmentProxy() = default;

std::string UdpImpairmentProxy::listen_endpoint() const {
  boost::system::error_code error;
  const udp::endpoint local = state_->listen_socket.local_endpoint(error);
  return local.address().to_string() + ":" + std::to_string(local.port());
}

void UdpImpairmentProxy::run(const std::atomic<bool>& stop) {
  State& state = *state_;
  while (!stop.load(std::memory_order_relaxed)) {
    const Deadline next_due = state.release();
    const Deadline wake = std::min(next_due, SteadyClock::now() + kStopCheck);
    const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(wake - SteadyClock::now()).count();
    const long long nanoseconds = std::max<long long>(wait, 0);
    const timespec timeout{static_cast<time_t>(nanoseconds / 1'000'000'000), static_cast<long>(nanoseconds % 1'000'000'000)};
    pollfd descriptors[2] = {{state.listen_socket.native_handle(), POLLIN, 0},
                             {state.forward_socket.native_handle(), POLLIN, 0}};
    if (::ppoll(descriptors, 2, &timeout, nullptr) <= 0) continue;
    if (descriptors[0].revents != 0) state.drain(state.listen_socket, false);
    if (descriptors[1].revents != 0) state.drain(state.forward_socket, true);
  }
}

ImpairmentCounters UdpImpairmentProxy::counters() const {
  const std::lock_guard lock(state_->counters_mutex);
  return {state_->to_forward.counters(), state_->to_client.counters(), state_->overflow};
}

}  // namespace couplet::drivers
