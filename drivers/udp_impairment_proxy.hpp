#pragma once
// The core of couplet-netem: a UDP proxy that impairs traffic in both
// directions with seeded loss, duplication, reordering, delay and corruption
// (kernel netem is not available where couplet is tested;
// drivers/fault_injector.hpp).
//
// It listens on one address; the first datagram there names the client, and
// everything from the client goes to the forward address, everything from the
// forward address back to the client. Direction client→forward uses the seed,
// the way back seed + 1: a test replays the same faults.
#include <atomic>
#include <memory>
#include <string>

#include "drivers/fault_injector.hpp"

namespace couplet::drivers {

struct ImpairmentCounters {
  FaultCounters to_forward;  ///< client → forward address
  FaultCounters to_client;   ///< forward address → client
  std::uint64_t overflow = 0;  ///< datagrams dropped because too many were in flight
};

class UdpImpairmentProxy {
 public:
  /// Binds `listen` (port 0: any) and a socket towards `forward`.
  UdpImpairmentProxy(const std::string& listen, const std::string& forward, const FaultSettings& faults);
  ~UdpImpairmentProxy();

  /// "127.0.0.1:45678": where clients should send.
  std::string listen_endpoint() const;

  /// Relays until `stop` becomes true (checked at least every 50 ms).
  void run(const std::atomic<bool>& stop);

  ImpairmentCounters counters() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace couplet::drivers
