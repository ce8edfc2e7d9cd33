// A UDP target serves only the address and port that opened the session until
// the session ends (docs/links.md "Sessions"): frames of that session from
// elsewhere change nothing and get no answer, a Hello from elsewhere gets BUSY
// while the session lives, and opens a new session once it has stopped.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "drivers/udp_transport.hpp"
#include "models/catalog.hpp"
#include "protocol/codec.hpp"
#include "targets/serve.hpp"
#include "targets/target_server.hpp"

namespace couplet::targets {
namespace {

using namespace std::chrono_literals;

class Peer {
 public:
  explicit Peer(const std::string& target) : transport_(drivers::UdpTransport::connect(target)) {}

  /// Sends a request and returns the answer's body tag (0: no answer within 200 ms).
  pb_size_t ask(std::uint64_t session, protocol::Sequence sequence, pb_size_t body) {
    auto message = std::make_unique<protocol::Envelope>();
    message->session = session;
    message->sequence = sequence;
    message->which_body = body;
    if (body == couplet_wire_Envelope_hello_tag) message->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
    std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
    transport_->send(std::span(frame).first(protocol::encode_frame(*message, frame).size));
    const auto size = transport_->receive(frame, drivers::SteadyClock::now() + 200ms);
    if (size == 0 || !protocol::decode_frame(std::span(frame).first(size), *message)) return 0;
    last_error_code_ = message->which_body == couplet_wire_Envelope_error_tag ? message->body.error.code : -1;
    return message->which_body;
  }
  int last_error_code() const { return last_error_code_; }

 private:
  std::unique_ptr<drivers::UdpTransport> transport_;
  int last_error_code_ = -1;
};

class ServedUdpTarget {
 public:
  ServedUdpTarget()
      : server_(models::ModelCatalog::builtin(), options()), transport_(drivers::UdpTransport::bind("127.0.0.1:0")) {
    address_ = transport_->local_endpoint();
    thread_ = std::thread([this] { serve(server_, *transport_, {}, stop_); });
  }
  ~ServedUdpTarget() { halt(); }
  const std::string& address() const { return address_; }
  /// The serving thread writes the counters: read them after halt().
  const TargetCounters& counters() const { return server_.counters(); }
  void halt() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  static TargetOptions options() {
    TargetOptions target_options;
    target_options.model = "translational.mass";
    return target_options;
  }
  TargetServer server_;
  std::unique_ptr<drivers::UdpTransport> transport_;
  std::string address_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(UdpSessionPeer, OnlyTheOpenerIsServedUntilTheSessionEnds) {
  ServedUdpTarget target;
  Peer opener(target.address());
  Peer stranger(target.address());
  constexpr std::uint64_t kSession = 0x1234;
  ASSERT_EQ(opener.ask(kSession, 1, couplet_wire_Envelope_hello_tag), couplet_wire_Envelope_describe_tag);

  // The session's own id and the next sequence, from another port: ignored.
  EXPECT_EQ(stranger.ask(kSession, 2, couplet_wire_Envelope_stop_tag), 0);
  EXPECT_EQ(stranger.ask(kSession, 2, couplet_wire_Envelope_heartbeat_tag), 0);
  // Another session's Hello from elsewhere: BUSY while the session lives.
  EXPECT_EQ(stranger.ask(0x5678, 1, couplet_wire_Envelope_hello_tag), couplet_wire_Envelope_error_tag);
  EXPECT_EQ(stranger.last_error_code(), couplet_wire_ErrorCode_ERROR_BUSY);

  // The opener's session was not stopped by the stranger: its Stop (sequence 2) executes now.
  EXPECT_EQ(opener.ask(kSession, 2, couplet_wire_Envelope_stop_tag), couplet_wire_Envelope_ack_tag);
  // Ended: the stranger may open its own session, and is then the peer.
  EXPECT_EQ(stranger.ask(0x5678, 1, couplet_wire_Envelope_hello_tag), couplet_wire_Envelope_describe_tag);
  EXPECT_EQ(opener.ask(0x5678, 2, couplet_wire_Envelope_stop_tag), 0) << "now the former opener is the stranger";
  EXPECT_EQ(stranger.ask(0x5678, 2, couplet_wire_Envelope_stop_tag), couplet_wire_Envelope_ack_tag);
  target.halt();
  EXPECT_GE(target.counters().foreign, 3U);
}

}  // namespace
}  // namespace couplet::targets
