// UDP transport on the loopback interface (docs/links.md: one message per
// datagram; deadlines through poll, no SO_RCVTIMEO).
#include "drivers/udp_transport.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "couplet/errors.hpp"
#include "protocol/codec.hpp"

namespace couplet::drivers {
namespace {

using namespace std::chrono_literals;

std::vector<std::uint8_t> pattern(std::size_t size, std::uint8_t seed) {
  std::vector<std::uint8_t> bytes(size);
  std::iota(bytes.begin(), bytes.end(), seed);
  return bytes;
}

TEST(UdpTransport, ExchangesFramesOverLoopbackWithAnEphemeralPort) {
  const auto target = UdpTransport::bind("127.0.0.1:0");
  ASSERT_NE(target->local_port(), 0);
  const auto master = UdpTransport::connect(target->local_endpoint());
  std::vector<std::uint8_t> buffer(protocol::kMaxFrameBytes);

  const auto request = pattern(100, 1);
  master->send(request);
  const std::size_t received = target->receive(buffer, SteadyClock::now() + 1s);
  ASSERT_EQ(received, request.size());
  EXPECT_TRUE(std::equal(request.begin(), request.end(), buffer.begin()));

  // The target answers whoever spoke last; the largest frame fits one datagram.
  const auto answer = pattern(protocol::kMaxFrameBytes, 7);
  target->send(answer);
  ASSERT_EQ(master->receive(buffer, SteadyClock::now() + 1s), answer.size());
  EXPECT_TRUE(std::equal(answer.begin(), answer.end(), buffer.begin()));
}

TEST(UdpTransport, ReceiveReturnsAtTheDeadline) {
  const auto target = UdpTransport::bind("127.0.0.1:0");
  std::vector<std::uint8_t> buffer(64);
  const auto began = SteadyClock::now();
  EXPECT_EQ(target->receive(buffer, began + 30ms), 0U);
  const auto waited = SteadyClock::now() - began;
  EXPECT_GE(waited, 30ms);
  EXPECT_LT(waited, 300ms);
}

// Busy polling takes a frame that arrives within the window, and one that
// arrives after it (the receive then sleeps in ppoll); it never runs past the
// deadline, even when the window is longer.
TEST(UdpTransport, BusyPollingReceivesWithinAndAfterTheWindowAndKeepsTheDeadline) {
  const auto target = UdpTransport::bind("127.0.0.1:0");
  const auto master = UdpTransport::connect(target->local_endpoint());
  target->set_busy_poll(2ms);
  std::vector<std::uint8_t> buffer(64);
  for (const auto delay : {std::chrono::microseconds(300), std::chrono::microseconds(20'000)}) {
    std::thread sender([&] {
      std::this_thread::sleep_for(delay);
      master->send(pattern(10, 3));
    });
    const auto began = SteadyClock::now();
    EXPECT_EQ(target->receive(buffer, began + 2s), 10U) << "sent after " << delay.count() << " us";
    EXPECT_GE(SteadyClock::now() - began, delay);
    sender.join();
  }
  target->set_busy_poll(100ms);
  const auto began = SteadyClock::now();
  EXPECT_EQ(target->receive(buffer, began + 10ms), 0U);
  const auto waited = SteadyClock::now() - began;
  EXPECT_GE(waited, 10ms);
  EXPECT_LT(waited, 90ms);
}

// Sending to a port nobody listens on provokes ICMP "port unreachable": the
// master's socket must keep working and time out normally.
TEST(UdpTransport, AnUnreachablePeerOnlyTimesOut) {
  std::string endpoint;
  {
    const auto closed = UdpTransport::bind("127.0.0.1:0");
    endpoint = closed->local_endpoint();
  }
  const auto master = UdpTransport::connect(endpoint);
  std::vector<std::uint8_t> buffer(64);
  for (int attempt = 0; attempt < 3; ++attempt) {
    master->send(pattern(10, 0));
    const auto began = SteadyClock::now();
    EXPECT_EQ(master->receive(buffer, began + 20ms), 0U);
    EXPECT_GE(SteadyClock::now() - began, 20ms);
  }
}

TEST(UdpTransport, RejectsBadEndpoints) {
  EXPECT_THROW(UdpTransport::bind("127.0.0.1"), ConfigurationError);
  EXPECT_THROW(UdpTransport::bind("127.0.0.1:99999"), ConfigurationError);
  EXPECT_THROW(UdpTransport::connect(":5000"), ConfigurationError);
  EXPECT_THROW(UdpTransport::connect("no-such-host.invalid:5000"), ConfigurationError);
}

}  // namespace
}  // namespace couplet::drivers
