// The target's exactly-once session logic (DESIGN §8): a repeated request is
// answered from the cache without executing again, stale sequence numbers and
// foreign sessions change nothing, sequence numbers wrap around.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "protocol/wire_conversions.hpp"
#include "models/catalog.hpp"
#include "protocol/codec.hpp"
#include "targets/target_server.hpp"

namespace couplet::targets {
namespace {

using Frame = std::vector<std::uint8_t>;

/// Builds request frames and reads answers, as a master would, by hand.
class Driver {
 public:
  explicit Driver(TargetServer& server) : server_(server) {}

  Frame frame(std::uint64_t session, protocol::Sequence sequence, pb_size_t body,
              const std::function<void(protocol::Envelope&)>& fill = {}) const {
    auto message = std::make_unique<protocol::Envelope>();
    *message = protocol::Envelope{};
    message->session = session;
    message->sequence = sequence;
    message->which_body = body;
    if (fill) fill(*message);
    Frame bytes(protocol::kMaxFrameBytes);
    bytes.resize(protocol::encode_frame(*message, bytes).size);
    return bytes;
  }

  Frame step(std::uint64_t session, protocol::Sequence sequence, Time start, Time end, double input) const {
    return frame(session, sequence, couplet_wire_Envelope_step_request_tag, [&](protocol::Envelope& message) {
      auto& request = message.body.step_request;
      request.start_ns = start;
      request.end_ns = end;
      request.inputs_count = 1;
      wire::to_wire(Polynomial::constant(to_seconds(start), input), request.inputs[0]);
      request.sample_times_ns_count = 1;
      request.sample_times_ns[0] = start + (end - start) / 2;
    });
  }

  /// The answer as bytes (empty: no answer).
  Frame send(const Frame& request) {
    Frame answer(protocol::kMaxFrameBytes);
    answer.resize(server_.handle(request, answer, drivers::SteadyClock::now()));
    return answer;
  }

  std::unique_ptr<protocol::Envelope> decode(const Frame& answer) const {
    auto message = std::make_unique<protocol::Envelope>();
    EXPECT_TRUE(protocol::decode_frame(answer, *message));
    return message;
  }

  /// Opens a session and initializes at t = 0.
  void open(std::uint64_t session, protocol::Sequence first) {
    ASSERT_EQ(decode(send(frame(session, first, couplet_wire_Envelope_hello_tag)))->which_body,
              couplet_wire_Envelope_describe_tag);
    const Frame answer = send(frame(session, protocol::next_sequence(first), couplet_wire_Envelope_initialize_tag,
                                    [](protocol::Envelope& m) { m.body.initialize.start_ns = 0; }));
    ASSERT_EQ(decode(answer)->which_body, couplet_wire_Envelope_ack_tag);
  }

 private:
  TargetServer& server_;
};

TargetOptions mass_options() {
  TargetOptions options;
  options.model = "translational.mass";  // input f, outputs x and v
  options.session_timeout = std::chrono::milliseconds(60'000);
  return options;
}

/// Outputs and samples of a step answer.
std::vector<double> results(const protocol::Envelope& answer) {
  EXPECT_EQ(answer.which_body, couplet_wire_Envelope_step_result_tag);
  const auto& result = answer.body.step_result;
  std::vector<double> values(result.end_outputs, result.end_outputs + result.end_outputs_count);
  values.insert(values.end(), result.samples, result.samples + result.samples_count);
  return values;
}

constexpr std::uint64_t kSession = 0x5E55'1011;
constexpr Time kStep = 10'000'000;

TEST(TargetServer, ARepeatIsAnsweredFromTheCacheWithoutExecutingAgain) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 100);
  const Frame request = driver.step(kSession, 102, 0, kStep, 1.0);
  const Frame first = driver.send(request);
  const Frame repeat = driver.send(request);
  EXPECT_EQ(repeat, first) << "byte for byte, timing included: not recomputed";
  EXPECT_EQ(server.counters().steps, 1U);
  EXPECT_EQ(server.counters().repeats, 1U);
}

// A control server sees only the legitimate requests; the other also sees a
// step from a foreign session and a stale step with different inputs. Their
// later results must agree bit for bit.
TEST(TargetServer, ForeignSessionsAndStaleSequencesChangeNothing) {
  TargetServer control(models::ModelCatalog::builtin(), mass_options());
  TargetServer probed(models::ModelCatalog::builtin(), mass_options());
  Driver control_driver(control);
  Driver probed_driver(probed);
  control_driver.open(kSession, 7);
  probed_driver.open(kSession, 7);
  const Frame first_step = control_driver.step(kSession, 9, 0, kStep, 1.0);
  control_driver.send(first_step);
  probed_driver.send(first_step);

  EXPECT_TRUE(probed_driver.send(probed_driver.step(kSession + 1, 10, kStep, 2 * kStep, 50.0)).empty());
  EXPECT_TRUE(probed_driver.send(probed_driver.step(kSession, 8, kStep, 2 * kStep, -50.0)).empty());
  EXPECT_TRUE(probed_driver.send(probed_driver.frame(kSession + 1, 11, couplet_wire_Envelope_stop_tag)).empty());
  EXPECT_EQ(probed.counters().foreign, 2U);
  EXPECT_EQ(probed.counters().stale, 1U);
  EXPECT_FALSE(probed.session_stopped());

  const Frame second_step = control_driver.step(kSession, 10, kStep, 2 * kStep, 3.0);
  const auto expected = control_driver.decode(control_driver.send(second_step));
  const auto actual = probed_driver.decode(probed_driver.send(second_step));
  const std::vector<double> expected_values = results(*expected);
  const std::vector<double> actual_values = results(*actual);
  ASSERT_EQ(actual_values.size(), expected_values.size());
  EXPECT_EQ(std::memcmp(actual_values.data(), expected_values.data(), expected_values.size() * sizeof(double)), 0);
  EXPECT_EQ(probed.counters().steps, 2U);
}

TEST(TargetServer, SequenceNumbersWrapAround) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 0xFFFF'FFFDU);  // hello ...FD, initialize ...FE
  Time time = 0;
  protocol::Sequence sequence = 0xFFFF'FFFEU;
  for (int k = 0; k < 4; ++k) {  // ...FF, 1, 2, 3: 0 is skipped
    sequence = protocol::next_sequence(sequence);
    const auto answer = driver.decode(driver.send(driver.step(kSession, sequence, time, time + kStep, 1.0)));
    EXPECT_EQ(answer->which_body, couplet_wire_Envelope_step_result_tag) << "sequence " << sequence;
    EXPECT_EQ(answer->sequence, sequence);
    time += kStep;
  }
  EXPECT_EQ(server.counters().steps, 4U);
  EXPECT_TRUE(driver.send(driver.step(kSession, 0xFFFF'FFFFU, time, time + kStep, 1.0)).empty())
      << "before the wrap: stale";
  EXPECT_EQ(server.counters().stale, 1U);
}

TEST(TargetServer, AnotherSessionIsRefusedUntilTheFirstStops) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 1);
  const auto busy = driver.decode(driver.send(driver.frame(kSession + 5, 1, couplet_wire_Envelope_hello_tag)));
  ASSERT_EQ(busy->which_body, couplet_wire_Envelope_error_tag);
  EXPECT_EQ(busy->body.error.code, couplet_wire_ErrorCode_ERROR_BUSY);
  EXPECT_EQ(busy->session, kSession + 5) << "the refusal goes to the one who asked";
  driver.send(driver.frame(kSession, 3, couplet_wire_Envelope_stop_tag));
  EXPECT_TRUE(server.session_stopped());
  const auto welcome = driver.decode(driver.send(driver.frame(kSession + 5, 1, couplet_wire_Envelope_hello_tag)));
  EXPECT_EQ(welcome->which_body, couplet_wire_Envelope_describe_tag);
}

TEST(TargetServer, RefusesAConfigurationForAnotherModel) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 1);
  const auto answer = driver.decode(driver.send(driver.frame(kSession, 3, couplet_wire_Envelope_configure_tag, [](protocol::Envelope& m) {
    std::strcpy(m.body.configure.model, "rotational.tau2omega");
  })));
  ASSERT_EQ(answer->which_body, couplet_wire_Envelope_error_tag);
  EXPECT_EQ(answer->body.error.code, couplet_wire_ErrorCode_ERROR_REFUSED);
  EXPECT_NE(std::string(answer->body.error.text).find("translational.mass"), std::string::npos);
}

TEST(TargetServer, ReportsARequestOutsideTheCapabilities) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 1);
  // A step that does not start at the slave's current time.
  const auto answer = driver.decode(driver.send(driver.step(kSession, 3, kStep, 2 * kStep, 1.0)));
  ASSERT_EQ(answer->which_body, couplet_wire_Envelope_error_tag);
  EXPECT_EQ(answer->body.error.code, couplet_wire_ErrorCode_ERROR_BAD_REQUEST);
}

TEST(TargetServer, IgnoresDamagedFrames) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  Frame hello = driver.frame(kSession, 1, couplet_wire_Envelope_hello_tag);
  hello[hello.size() / 2] ^= 0x04;
  EXPECT_TRUE(driver.send(hello).empty());
  EXPECT_EQ(server.counters().rejected, 1U);
  EXPECT_FALSE(server.has_session());
}

}  // namespace
}  // namespace couplet::targets
