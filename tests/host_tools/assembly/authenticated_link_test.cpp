// Authenticated links (docs/links.md "Authenticated links"): a keyed run goes
// on undisturbed, with the decisions of the local run, while an attacker who
// sees every frame (they are not encrypted) and can send from the master's
// own address and port, and from the target's, tries what the issue measured
// on plain links: a spoofed Stop, forged answers, captured frames replayed, a
// client without the key holding the target, frames from an address --allow
// does not admit. A master with another key or none is refused, by name.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <regex>
#include <thread>
#include <vector>

#include "drivers/udp_transport.hpp"
#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"
#include "protocol/frame_key.hpp"
#include "protocol/sequence.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Frame = std::vector<std::uint8_t>;

std::string scenario_text(const std::string& link) {
  return R"(name: keyed
time: {start: 0, end: 2}
slaves:
  left:
    model: translational.mass
    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}
)" + link +
         R"(
  right:
    model: translational.coupled_mass
    parameters: {m: 1, c_wall: 1, d_wall: 0.1, c_coupling: 1, d_coupling: 0.2, x0: 0, v0: 0,
                 switch_time: 100, c_wall_after: 4, anchor_after: 1}
connections:
  - {from: left.x, to: right.x}
  - {from: left.v, to: right.v}
  - {from: right.f, to: left.f}
algorithm: {type: jacobi, step: 0.01, input_order: 0}
)";
}

/// What anyone on the path reads without the key: the payload of a sealed
/// frame is plain protobuf. Returns the message and the nonce.
std::unique_ptr<protocol::Envelope> read_cleartext(const Frame& sealed, std::uint64_t& nonce) {
  constexpr std::size_t kPayload = protocol::kFrameHeaderBytes + protocol::kFrameNonceBytes;
  const std::size_t payload =
      sealed.size() - kPayload - protocol::kFrameTagBytes - protocol::kFrameChecksumBytes;
  Frame plain(sealed.begin(), sealed.begin() + protocol::kFrameHeaderBytes);
  plain[1] = protocol::kFrameVersion;
  plain.insert(plain.end(), sealed.begin() + kPayload, sealed.begin() + kPayload + payload);
  const std::uint32_t crc = protocol::crc32(plain);
  for (int k = 0; k < 4; ++k) plain.push_back(static_cast<std::uint8_t>(crc >> (8 * k)));
  std::memcpy(&nonce, &sealed[protocol::kFrameHeaderBytes], sizeof nonce);
  auto message = std::make_unique<protocol::Envelope>();
  EXPECT_TRUE(protocol::decode_frame(plain, *message));
  return message;
}

Frame encode(const protocol::FrameCodec& codec, const protocol::Envelope& message,
             std::uint64_t nonce) {
  Frame frame(protocol::kMaxFrameBytes);
  frame.resize(codec.encode(message, nonce, frame).size);
  return frame;
}

/// A man in the middle between the master and the target: relays every frame
/// and, at the 50th step request, attacks from both ends' addresses before
/// relaying it.
class Attacker {
 public:
  Attacker(const std::string& target, const protocol::FrameKey& wrong_key)
      : front_(drivers::UdpTransport::bind("127.0.0.1:0")),
        back_(drivers::UdpTransport::connect(target)),
        wrong_key_(wrong_key),
        thread_([this] { relay(); }) {}
  ~Attacker() {
    stop_ = true;
    thread_.join();
  }
  std::string address() const { return front_->local_endpoint(); }
  bool attacked() const { return attacked_; }

 private:
  void relay() {
    Frame frame(protocol::kMaxFrameBytes);
    drivers::PeerAddress master;
    while (!stop_) {
      if (const std::size_t size = front_->receive(frame, drivers::SteadyClock::now() + 1ms)) {
        master = front_->last_sender();
        const Frame request(frame.begin(), frame.begin() + size);
        requests_.push_back(request);
        attack_before(request, master);
        back_->send(request);
      }
      if (const std::size_t size = back_->receive(frame, drivers::SteadyClock::now() + 1ms)) {
        answers_.emplace_back(frame.begin(), frame.begin() + size);
        front_->send_to(std::span(frame).first(size), master);
      }
    }
  }

  void attack_before(const Frame& request, const drivers::PeerAddress& master) {
    std::uint64_t nonce = 0;
    const auto message = read_cleartext(request, nonce);
    if (message->which_body != couplet_wire_Envelope_step_request_tag || ++steps_ != 50) return;
    const protocol::FrameCodec plain;
    const protocol::FrameCodec forger(wrong_key_);
    // To the target, from the master's address: a Stop of the session, with
    // the next sequence and the session's nonce, plain and under a guessed key.
    auto stop = std::make_unique<protocol::Envelope>();
    stop->session = message->session;
    stop->sequence = protocol::next_sequence(message->sequence);
    stop->which_body = couplet_wire_Envelope_stop_tag;
    back_->send(encode(plain, *stop, 0));
    back_->send(encode(forger, *stop, nonce));
    // Captured frames of this session again: the Hello and an old step.
    back_->send(requests_.front());
    back_->send(requests_[requests_.size() / 2]);
    // To the master, from the target's address: made-up results for this very
    // request, plain and under a guessed key, and an old genuine answer.
    auto forged = std::make_unique<protocol::Envelope>();
    forged->session = message->session;
    forged->sequence = message->sequence;
    forged->which_body = couplet_wire_Envelope_step_result_tag;
    forged->body.step_result.time_ns = message->body.step_request.end_ns;
    forged->body.step_result.end_outputs_count = 2;
    forged->body.step_result.end_outputs[0] = 1e6;
    forged->body.step_result.end_outputs[1] = -1e6;
    front_->send_to(encode(plain, *forged, 0), master);
    front_->send_to(encode(forger, *forged, nonce), master);
    front_->send_to(answers_[answers_.size() / 2], master);
    attacked_ = true;
  }

  std::unique_ptr<drivers::UdpTransport> front_;
  std::unique_ptr<drivers::UdpTransport> back_;
  protocol::FrameKey wrong_key_;
  std::vector<Frame> requests_;
  std::vector<Frame> answers_;
  int steps_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> attacked_{false};
  std::thread thread_;  // last: starts once everything above exists
};

/// A UDP socket bound to `local` (any port) that sends to `target` ("ADDR:PORT").
class RawSender {
 public:
  RawSender(const char* local, const std::string& target)
      : socket_(::socket(AF_INET, SOCK_DGRAM, 0)) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, local, &from.sin_addr);
    EXPECT_EQ(::bind(socket_, reinterpret_cast<const sockaddr*>(&from), sizeof from), 0);
    to_.sin_family = AF_INET;
    const std::size_t colon = target.rfind(':');
    ::inet_pton(AF_INET, target.substr(0, colon).c_str(), &to_.sin_addr);
    to_.sin_port = htons(static_cast<std::uint16_t>(std::stoi(target.substr(colon + 1))));
  }
  ~RawSender() { ::close(socket_); }
  RawSender(const RawSender&) = delete;
  RawSender& operator=(const RawSender&) = delete;
  void send(const Frame& frame) const {
    ::sendto(socket_, frame.data(), frame.size(), 0, reinterpret_cast<const sockaddr*>(&to_),
             sizeof to_);
  }

 private:
  int socket_;
  sockaddr_in to_{};
};

/// Without the key, tries to hold the target all along: a Hello, then a
/// heartbeat every 10 ms, from an address --allow admits and from one it does not.
class SessionHolder {
 public:
  explicit SessionHolder(const std::string& target)
      : admitted_("127.0.0.1", target),
        refused_("127.0.0.2", target),
        thread_([this] { hold(); }) {}
  ~SessionHolder() {
    stop_ = true;
    thread_.join();
  }

 private:
  void hold() {
    auto message = std::make_unique<protocol::Envelope>();
    message->session = 0x5E55'1011;
    const protocol::FrameCodec plain;
    for (std::uint64_t beat = 1; !stop_; ++beat) {
      if (beat == 1) {
        message->sequence = 1;
        message->which_body = couplet_wire_Envelope_hello_tag;
        message->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
      } else {
        message->sequence = 0;
        message->which_body = couplet_wire_Envelope_heartbeat_tag;
        message->body.heartbeat.sender_time_ns = beat;
      }
      const Frame frame = encode(plain, *message, 0);
      admitted_.send(frame);
      refused_.send(frame);
      std::this_thread::sleep_for(10ms);
    }
  }

  RawSender admitted_;
  RawSender refused_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: starts once everything above exists
};

TEST(AuthenticatedLink, AnAttackerOnThePathChangesNothingAndIsCounted) {
  const fs::path directory = fresh_directory("authenticated_link");
  fs::create_directories(directory);
  const std::string key = (directory / "lab.key").string();
  const std::string wrong_key = (directory / "guess.key").string();
  protocol::write_new_frame_key(key);
  protocol::write_new_frame_key(wrong_key);
  const std::string target_log = (directory / "target.err").string();
  ChildProcess target({binary_beside_couplet("couplet-target"), "--model", "translational.mass",
                       "--udp", "127.0.0.1:0", "--key-file", key, "--allow", "127.0.0.1/32"},
                      target_log);
  const std::string address = target.ready_address();

  const CoupletOutcome local =
      couplet_on_text("run", scenario_text(""), "authenticated_link_local");
  ASSERT_EQ(local.exit_code, 0) << local.output;

  CoupletOutcome attacked;
  {
    Attacker attacker(address, protocol::read_frame_key(wrong_key));
    const SessionHolder holder(address);
    const std::string link =
        "    link: {udp: \"" + attacker.address() + "\", key_file: " + key + "}";
    attacked = couplet_on_text("run", scenario_text(link), "authenticated_link_attacked");
    EXPECT_TRUE(attacker.attacked());
  }
  ASSERT_EQ(attacked.exit_code, 0) << attacked.output;
  EXPECT_EQ(hash_of(attacked.out), hash_of(local.out)) << "the decisions of the local run";
  const auto summary = nlohmann::json::parse(read_file(attacked.out / "summary.json"));
  EXPECT_EQ(summary.at("links").at("left").at("unauthenticated"), 2) << "the two made-up results";
  EXPECT_GE(summary.at("links").at("left").at("duplicates"), 1) << "the old genuine answer";

  // Another key, and none: refused, by name.
  const std::string guessed =
      "    link: {udp: \"" + address + "\", key_file: " + wrong_key + ", timeout: 0.3}";
  const CoupletOutcome wrong =
      couplet_on_text("run", scenario_text(guessed), "authenticated_link_wrong");
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.output.find("or the target has no key or another key than this link's key_file"),
            std::string::npos)
      << wrong.output;
  const CoupletOutcome keyless = couplet_on_text(
      "run", scenario_text("    link: {udp: \"" + address + "\"}"), "authenticated_link_keyless");
  EXPECT_NE(keyless.exit_code, 0);
  EXPECT_NE(keyless.output.find(
                "this target requires authenticated frames: give the link the target's key "
                "(key_file)"),
            std::string::npos)
      << keyless.output;

  target.signal(SIGTERM);
  ASSERT_EQ(target.wait_exit(5s), 0);
  const std::string report = read_file(target_log);
  std::smatch counts;
  ASSERT_TRUE(std::regex_search(
      report, counts,
      std::regex(R"(dropped (\d+) frames that failed authentication, (\d+) replayed or )"
                 R"(without their session's nonce, (\d+) from addresses --allow)")))
      << report;
  // Two spoofed Stops, the keyless holder's frames, the wrong-keyed master's and the keyless
  // master's Hello.
  EXPECT_GE(std::stoi(counts[1]), 4) << report;
  EXPECT_GE(std::stoi(counts[2]), 1) << "the captured Hello, replayed: " << report;
  EXPECT_GE(std::stoi(counts[3]), 1) << "frames from 127.0.0.2: " << report;
}

TEST(AuthenticatedLink, ABadKeyOrAllowListIsRefusedByName) {
  const fs::path directory = fresh_directory("authenticated_link_refusals");
  fs::create_directories(directory);
  const fs::path shared = directory / "shared.key";
  std::ofstream(shared) << "000102030405060708090a0b0c0d0e0f\n";
  fs::permissions(shared, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                              fs::perms::others_read);
  const std::string readable = "key file '" + shared.string() +
                               "': group or others may read or change it (mode 0644): chmod 600 it";

  // The scenario names the key's line.
  const CoupletOutcome run = couplet_on_text(
      "run",
      scenario_text("    link: {udp: \"127.0.0.1:9\",\n           key_file: " + shared.string() +
                    "}"),
      "authenticated_link_readable_key");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("scenario.yaml:8: slaves.left.link.key_file: " + readable),
            std::string::npos)
      << run.output;

  const std::string target =
      binary_beside_couplet("couplet-target") + " --model translational.mass ";
  int exit_code = -1;
  std::string output =
      command_output(target + "--udp 127.0.0.1:0 --key-file " + shared.string(), exit_code);
  EXPECT_EQ(exit_code, 2);
  EXPECT_NE(output.find(readable), std::string::npos) << output;
  output = command_output(target + "--udp 127.0.0.1:0 --allow 10.0.0.0/33", exit_code);
  EXPECT_EQ(exit_code, 2);
  EXPECT_NE(output.find("--allow '10.0.0.0/33': not an address or network"), std::string::npos)
      << output;
  output = command_output(target + "--serial pty --allow 10.0.0.1", exit_code);
  EXPECT_EQ(exit_code, 2);
  EXPECT_NE(output.find("--allow applies to UDP only: a serial line has no addresses"),
            std::string::npos)
      << output;
}

}  // namespace
}  // namespace couplet::testing
