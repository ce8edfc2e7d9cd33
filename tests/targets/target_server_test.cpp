// The target's exactly-once session logic (docs/links.md): a repeated request is
// answered from the cache without executing again, stale sequence numbers and
// foreign sessions change nothing, sequence numbers wrap around.
#include "targets/target_server.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "models/catalog.hpp"
#include "models/slave_source.hpp"
#include "protocol/codec.hpp"
#include "protocol/crc32.hpp"
#include "protocol/wire_conversions.hpp"
#include "targets/target_program.hpp"
#include "test_fmus.hpp"

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
    if (body == couplet_wire_Envelope_hello_tag) message->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
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

  /// The answer as bytes (empty: no answer), received `now` (default: the clock's now).
  Frame send(const Frame& request, std::optional<drivers::Deadline> now = std::nullopt) {
    Frame answer(protocol::kMaxFrameBytes);
    answer.resize(server_.handle(request, answer, now.value_or(drivers::SteadyClock::now())));
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

TEST(TargetServer, AConfigurationKeepingCvodesHistoryIsRefusedBeforeSending) {
  // The Configure message has no field for it: dropping it would silently
  // restart where the scenario asked to keep.
  SlaveConfiguration configuration;
  configuration.slave_name = "right";
  configuration.model = "translational.mass";
  configuration.solver.history = models::CvodeHistory::keep;
  couplet_wire_Configure wire{};
  try {
    to_wire(configuration, wire);
    FAIL() << "accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_EQ(std::string(error.what()),
              "slave 'right': solver history 'keep' is not available on a remote slave");
  }
  configuration.solver.history = models::CvodeHistory::restart;
  EXPECT_NO_THROW(to_wire(configuration, wire));
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

// ---- sessions (the cases the embedded core's tests found) ----

TEST(TargetServer, SessionZeroIsNeverServedNotEvenOnAFreshTarget) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  // A fresh target's own session is 0: a frame of session 0 must not pass for one of it.
  EXPECT_TRUE(driver.send(driver.frame(0, 1, couplet_wire_Envelope_initialize_tag,
                                       [](protocol::Envelope& m) { m.body.initialize.start_ns = 0; }))
                  .empty());
  EXPECT_TRUE(driver.send(driver.step(0, 2, 0, kStep, 1.0)).empty());
  EXPECT_TRUE(driver.send(driver.frame(0, 3, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_TRUE(driver.send(driver.frame(0, 4, couplet_wire_Envelope_stop_tag)).empty());
  EXPECT_EQ(server.counters().executed, 0U);
  EXPECT_EQ(server.counters().steps, 0U);
  EXPECT_EQ(server.counters().foreign, 4U);
  EXPECT_FALSE(server.has_session());
  EXPECT_FALSE(server.session_stopped());
  // Nor while a session is open.
  driver.open(kSession, 10);
  EXPECT_TRUE(driver.send(driver.step(0, 12, 0, kStep, 1.0)).empty());
  EXPECT_EQ(server.counters().steps, 0U);
  EXPECT_EQ(server.counters().foreign, 5U);
  EXPECT_EQ(driver.decode(driver.send(driver.step(kSession, 12, 0, kStep, 1.0)))->which_body,
            couplet_wire_Envelope_step_result_tag);
}

TEST(TargetServer, AfterStopOnlyTheRepeatOfTheStopIsAnswered) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 20);  // hello 20, initialize 21
  ASSERT_EQ(driver.decode(driver.send(driver.step(kSession, 22, 0, kStep, 1.0)))->which_body,
            couplet_wire_Envelope_step_result_tag);
  const Frame stop = driver.frame(kSession, 23, couplet_wire_Envelope_stop_tag);
  const Frame ack = driver.send(stop);
  ASSERT_EQ(driver.decode(ack)->which_body, couplet_wire_Envelope_ack_tag);
  EXPECT_TRUE(server.session_stopped());
  EXPECT_EQ(driver.send(stop), ack) << "the Ack was lost: the repeated Stop gets it from the cache";
  const std::uint64_t stale = server.counters().stale;
  const std::uint64_t executed = server.counters().executed;
  // Newer requests of the stopped session: none runs, none is answered.
  EXPECT_TRUE(driver.send(driver.step(kSession, 24, kStep, 2 * kStep, 1.0)).empty());
  EXPECT_TRUE(driver.send(driver.frame(kSession, 25, couplet_wire_Envelope_initialize_tag,
                                       [](protocol::Envelope& m) { m.body.initialize.start_ns = 0; }))
                  .empty());
  EXPECT_TRUE(driver.send(driver.frame(kSession, 26, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_TRUE(driver.send(driver.frame(kSession, 0, couplet_wire_Envelope_heartbeat_tag)).empty());
  EXPECT_EQ(server.counters().executed, executed);
  EXPECT_EQ(server.counters().steps, 1U);
  EXPECT_EQ(server.counters().stale, stale + 4);
  EXPECT_TRUE(server.session_stopped());
  EXPECT_EQ(driver.send(stop), ack) << "still answered from the cache";
}

TEST(TargetServer, AHelloOfAnEndedSessionNeverReopensIt) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  const std::uint64_t a = 0xA0A0;
  const std::uint64_t b = 0xB0B0;
  driver.open(a, 1);
  driver.send(driver.frame(a, 3, couplet_wire_Envelope_stop_tag));
  // B takes over at once (A stopped).
  ASSERT_EQ(driver.decode(driver.send(driver.frame(b, 1, couplet_wire_Envelope_hello_tag)))->which_body,
            couplet_wire_Envelope_describe_tag);
  // A straggling Hello of A, old or new sequence: ignored, neither BUSY nor a Describe.
  std::uint64_t foreign = server.counters().foreign;
  EXPECT_TRUE(driver.send(driver.frame(a, 1, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_TRUE(driver.send(driver.frame(a, 4, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_EQ(server.counters().foreign, foreign + 2);
  EXPECT_EQ(server.counters().busy, 0U);
  // B stops: A's Hello still opens nothing.
  driver.send(driver.frame(b, 2, couplet_wire_Envelope_stop_tag));
  EXPECT_TRUE(driver.send(driver.frame(a, 5, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_TRUE(server.session_stopped());
  // The target remembers the last sessions that ended: eight more come and go,
  // each of their Hellos stays ignored, and a new session still opens.
  for (std::uint64_t session = 0xC000; session < 0xC000 + TargetServer::kEndedSessions - 2; ++session) {
    ASSERT_EQ(driver.decode(driver.send(driver.frame(session, 1, couplet_wire_Envelope_hello_tag)))->which_body,
              couplet_wire_Envelope_describe_tag);
    driver.send(driver.frame(session, 2, couplet_wire_Envelope_stop_tag));
  }
  foreign = server.counters().foreign;
  const std::uint64_t stale = server.counters().stale;  // the newest of them is still the target's session
  EXPECT_TRUE(driver.send(driver.frame(a, 6, couplet_wire_Envelope_hello_tag)).empty());
  EXPECT_TRUE(driver.send(driver.frame(b, 6, couplet_wire_Envelope_hello_tag)).empty());
  for (std::uint64_t session = 0xC000; session < 0xC000 + TargetServer::kEndedSessions - 2; ++session) {
    EXPECT_TRUE(driver.send(driver.frame(session, 7, couplet_wire_Envelope_hello_tag)).empty()) << session;
  }
  EXPECT_EQ(server.counters().foreign, foreign + TargetServer::kEndedSessions - 1);
  EXPECT_EQ(server.counters().stale, stale + 1);
  EXPECT_EQ(driver.decode(driver.send(driver.frame(0xD0D0, 1, couplet_wire_Envelope_hello_tag)))->which_body,
            couplet_wire_Envelope_describe_tag);
}

TEST(TargetServer, RefusesASessionTimeoutThatIsNotPositive) {
  for (const auto timeout : {std::chrono::milliseconds(0), std::chrono::milliseconds(-5)}) {
    TargetOptions options = mass_options();
    options.session_timeout = timeout;
    EXPECT_THROW(TargetServer(models::ModelCatalog::builtin(), options), ConfigurationError) << timeout.count();
  }
  // The command line: --session-timeout 0, negative or NaN is a configuration error (exit 2).
  for (const double seconds : {0.0, -1.0, std::nan(""), 1e6}) {
    TargetProgramSettings settings;
    settings.udp = "127.0.0.1:0";
    settings.session_timeout = seconds;
    bool opened = false;
    const int exit_code = run_target_program("couplet-target", settings, [&] {
      opened = true;
      return models::catalog_source(models::ModelCatalog::builtin(), "translational.mass");
    });
    EXPECT_EQ(exit_code, 2) << seconds;
    EXPECT_TRUE(opened);
  }
}

// ---- every request field is checked: ERROR_BAD_REQUEST naming the field ----

/// The error text of an answer that must be ERROR_BAD_REQUEST.
std::string bad_request_text(Driver& driver, const Frame& request) {
  const Frame answer = driver.send(request);
  if (answer.empty()) return "(no answer)";
  const auto message = driver.decode(answer);
  if (message->which_body != couplet_wire_Envelope_error_tag) return "(not an error)";
  if (message->body.error.code != couplet_wire_ErrorCode_ERROR_BAD_REQUEST) {
    return "(error code " + std::to_string(message->body.error.code) + ": " + message->body.error.text + ")";
  }
  return message->body.error.text;
}

#define EXPECT_BAD_REQUEST(driver, request, field)                                         \
  do {                                                                                     \
    const std::string text_ = bad_request_text(driver, request);                           \
    EXPECT_NE(text_.find(field), std::string::npos) << "expected '" << field << "' in: " << text_; \
  } while (false)

using Fill = std::function<void(protocol::Envelope&)>;

/// Stores any int32 in an enum field, as nanopb does when it decodes one.
template <typename Enum>
void set_raw(Enum& field, std::int32_t value) {
  static_assert(sizeof(Enum) == sizeof value);
  std::memcpy(&field, &value, sizeof value);
}

TEST(TargetServer, EveryMalformedStepRequestIsABadRequestNamingTheField) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  driver.open(kSession, 1);
  protocol::Sequence sequence = 2;
  const auto step = [&](const Fill& change) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_step_request_tag, [&](protocol::Envelope& m) {
      auto& request = m.body.step_request;
      request.start_ns = 0;
      request.end_ns = kStep;
      request.inputs_count = 1;
      wire::to_wire(Polynomial::constant(0.0, 1.0), request.inputs[0]);
      request.sample_times_ns_count = 2;
      request.sample_times_ns[0] = kStep / 2;
      request.sample_times_ns[1] = kStep;
      change(m);
    });
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  const Time limit = Time{1} << 61;
  struct Case {
    const char* label;
    Fill change;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"start not the slave's time", [](auto& m) { m.body.step_request.start_ns = 5; }, "StepRequest.start_ns"},
      {"start beyond 2^61", [&](auto& m) { m.body.step_request.start_ns = -limit; }, "2^61"},
      {"start INT64_MIN", [](auto& m) { m.body.step_request.start_ns = std::numeric_limits<Time>::min(); }, "2^61"},
      {"end at 2^61", [&](auto& m) { m.body.step_request.end_ns = limit; }, "end_ns"},
      {"end INT64_MAX", [](auto& m) { m.body.step_request.end_ns = std::numeric_limits<Time>::max(); }, "2^61"},
      {"empty step", [](auto& m) { m.body.step_request.end_ns = 0; m.body.step_request.sample_times_ns_count = 0; }, "StepRequest.end_ns"},
      {"backwards", [](auto& m) { m.body.step_request.end_ns = -kStep; m.body.step_request.sample_times_ns_count = 0; }, "StepRequest.end_ns"},
      {"no input", [](auto& m) { m.body.step_request.inputs_count = 0; }, "StepRequest.inputs has 0"},
      {"two inputs", [](auto& m) { m.body.step_request.inputs_count = 2; m.body.step_request.inputs[1] = m.body.step_request.inputs[0]; }, "StepRequest.inputs has 2"},
      {"scale 0", [](auto& m) { m.body.step_request.inputs[0].scale = 0.0; }, "StepRequest.inputs[0].scale"},
      {"scale negative", [](auto& m) { m.body.step_request.inputs[0].scale = -1.0; }, "StepRequest.inputs[0].scale"},
      {"scale NaN", [&](auto& m) { m.body.step_request.inputs[0].scale = nan; }, "StepRequest.inputs[0].scale"},
      {"scale infinite", [&](auto& m) { m.body.step_request.inputs[0].scale = infinity; }, "StepRequest.inputs[0].scale"},
      {"origin infinite", [&](auto& m) { m.body.step_request.inputs[0].origin = infinity; }, "StepRequest.inputs[0].origin"},
      {"origin NaN", [&](auto& m) { m.body.step_request.inputs[0].origin = nan; }, "StepRequest.inputs[0].origin"},
      {"coefficient NaN", [&](auto& m) { auto& p = m.body.step_request.inputs[0]; p.coefficients_count = 3; p.coefficients[1] = nan; }, "StepRequest.inputs[0].coefficients[1]"},
      {"coefficient -inf", [&](auto& m) { auto& p = m.body.step_request.inputs[0]; p.coefficients_count = 3; p.coefficients[1] = 0; p.coefficients[2] = -infinity; }, "StepRequest.inputs[0].coefficients[2]"},
      {"sample times decreasing", [](auto& m) { m.body.step_request.sample_times_ns[0] = kStep; m.body.step_request.sample_times_ns[1] = kStep / 2; }, "StepRequest.sample_times_ns[1]"},
      {"sample time repeated", [](auto& m) { m.body.step_request.sample_times_ns[0] = kStep; }, "StepRequest.sample_times_ns[1]"},
      {"sample time at the start", [](auto& m) { m.body.step_request.sample_times_ns[0] = 0; }, "StepRequest.sample_times_ns[0]"},
      {"sample time after the end", [](auto& m) { m.body.step_request.sample_times_ns[1] = kStep + 1; }, "StepRequest.sample_times_ns[1]"},
      {"sample time INT64_MIN", [](auto& m) { m.body.step_request.sample_times_ns[0] = std::numeric_limits<Time>::min(); }, "StepRequest.sample_times_ns[0]"},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.label);
    EXPECT_BAD_REQUEST(driver, step(bad.change), bad.field);
  }
  EXPECT_EQ(server.counters().steps, 0U);
  // The state survived: a good step runs.
  EXPECT_EQ(driver.decode(driver.send(step([](auto&) {})))->which_body, couplet_wire_Envelope_step_result_tag);
  EXPECT_EQ(server.counters().steps, 1U);
}

// Integer and Boolean ports (tests/fmus/tally.c: inputs increment, enable;
// outputs count, phase, odd): their start values in the Ack of Initialize, the
// inputs checked per step, the outputs at the step's end in its result.
TEST(TargetServer, DiscreteInputsAreCheckedAndDiscreteOutputsAnswered) {
  TargetServer server(models::fmu_source(COUPLET_TEST_FMU("tally"), models::FmuKind::co_simulation),
                      mass_options());
  Driver driver(server);
  ASSERT_EQ(driver.decode(driver.send(driver.frame(kSession, 1, couplet_wire_Envelope_hello_tag)))
                ->which_body,
            couplet_wire_Envelope_describe_tag);
  const auto ack =
      driver.decode(driver.send(driver.frame(kSession, 2, couplet_wire_Envelope_initialize_tag,
                                             [](auto& m) { m.body.initialize.start_ns = 0; })));
  ASSERT_EQ(ack->which_body, couplet_wire_Envelope_ack_tag);
  EXPECT_EQ(std::vector<std::int64_t>(
                ack->body.ack.discrete_outputs,
                ack->body.ack.discrete_outputs + ack->body.ack.discrete_outputs_count),
            (std::vector<std::int64_t>{0, 1, 0}));
  protocol::Sequence sequence = 2;
  const auto step = [&](std::vector<std::int64_t> discrete_inputs) {
    return driver.frame(
        kSession, ++sequence, couplet_wire_Envelope_step_request_tag, [&](protocol::Envelope& m) {
          auto& request = m.body.step_request;
          request.start_ns = 0;
          request.end_ns = 1'000'000'000;
          request.discrete_inputs_count = static_cast<pb_size_t>(discrete_inputs.size());
          std::copy(discrete_inputs.begin(), discrete_inputs.end(), request.discrete_inputs);
        });
  };
  EXPECT_BAD_REQUEST(driver, step({}),
                     "StepRequest.discrete_inputs has 0 value(s); the slave has 2");
  EXPECT_BAD_REQUEST(driver, step({3, 2}),
                     "StepRequest.discrete_inputs[1] = 2 for Boolean input 'enable'");
  EXPECT_EQ(server.counters().steps, 0U);
  const auto result = driver.decode(driver.send(step({3, 1})));
  ASSERT_EQ(result->which_body, couplet_wire_Envelope_step_result_tag);
  const auto& body = result->body.step_result;
  EXPECT_EQ(std::vector<std::int64_t>(body.discrete_outputs,
                                      body.discrete_outputs + body.discrete_outputs_count),
            (std::vector<std::int64_t>{3, 1, 1}))
      << "one tick at t = 1 s adds the increment 3: count 3 (phase low, odd)";
}

TEST(TargetServer, StepsOutsideTheConfiguredCapabilitiesAreBadRequests) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  ASSERT_EQ(driver.decode(driver.send(driver.frame(kSession, 1, couplet_wire_Envelope_hello_tag)))->which_body,
            couplet_wire_Envelope_describe_tag);
  // A device-like slave: ZOH only, a 10 ms grid, no intermediate samples.
  ASSERT_EQ(driver.decode(driver.send(driver.frame(kSession, 2, couplet_wire_Envelope_configure_tag, [](auto& m) {
                auto& limits = m.body.configure.limits;
                m.body.configure.has_limits = true;
                limits.has_max_input_degree = true;
                limits.max_input_degree = 0;
                limits.imposed_step_ns = kStep;
                limits.intermediate_samples = false;
              })))->which_body,
            couplet_wire_Envelope_describe_tag);
  driver.send(driver.frame(kSession, 3, couplet_wire_Envelope_initialize_tag));
  protocol::Sequence sequence = 3;
  const auto step = [&](Time end, int degree, int samples) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_step_request_tag, [&](protocol::Envelope& m) {
      auto& request = m.body.step_request;
      request.end_ns = end;
      request.inputs_count = 1;
      const double coefficients[3] = {1.0, 0.5, 0.25};
      wire::to_wire(Polynomial::from_coefficients(0.0, 1.0, std::span(coefficients, degree + 1)), request.inputs[0]);
      request.sample_times_ns_count = static_cast<pb_size_t>(samples);
      for (int k = 0; k < samples; ++k) request.sample_times_ns[k] = end * (k + 1) / samples;
    });
  };
  EXPECT_BAD_REQUEST(driver, step(kStep, 1, 0), "StepRequest.inputs[0] has degree 1");
  EXPECT_BAD_REQUEST(driver, step(kStep + 1, 0, 0), "imposed step");
  EXPECT_BAD_REQUEST(driver, step(kStep, 0, 1), "StepRequest.sample_times_ns");
  EXPECT_EQ(driver.decode(driver.send(step(2 * kStep, 0, 0)))->which_body, couplet_wire_Envelope_step_result_tag);
}

TEST(TargetServer, EveryMalformedRequestOfOtherKindsIsABadRequestNamingTheField) {
  TargetServer server(models::ModelCatalog::builtin(), mass_options());
  Driver driver(server);
  // Hello: only this protocol's version.
  const auto hello = [&](std::uint64_t session, std::uint32_t version) {
    return driver.frame(session, 1, couplet_wire_Envelope_hello_tag,
                        [&](auto& m) { m.body.hello.version = version; });
  };
  EXPECT_BAD_REQUEST(driver, hello(kSession, 2), "Hello.version = 2");
  EXPECT_BAD_REQUEST(driver, hello(kSession, 0), "Hello.version = 0");
  EXPECT_FALSE(server.has_session()) << "a refused Hello opens nothing";
  driver.open(kSession, 1);
  protocol::Sequence sequence = 2;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  const Time limit = Time{1} << 61;

  const auto initialize = [&](Time start) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_initialize_tag,
                        [&](auto& m) { m.body.initialize.start_ns = start; });
  };
  EXPECT_BAD_REQUEST(driver, initialize(limit), "Initialize.start_ns");
  EXPECT_BAD_REQUEST(driver, initialize(std::numeric_limits<Time>::min()), "Initialize.start_ns");

  const auto evaluate = [&](const Fill& change) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_evaluate_outputs_tag, [&](auto& m) {
      m.body.evaluate_outputs.inputs_count = 1;
      wire::to_wire(Polynomial::constant(0.0, 1.0), m.body.evaluate_outputs.inputs[0]);
      change(m);
    });
  };
  EXPECT_BAD_REQUEST(driver, evaluate([](auto& m) { m.body.evaluate_outputs.inputs_count = 0; }),
                     "EvaluateOutputs.inputs has 0");
  EXPECT_BAD_REQUEST(driver, evaluate([](auto& m) { m.body.evaluate_outputs.inputs[0].scale = 0.0; }),
                     "EvaluateOutputs.inputs[0].scale");
  EXPECT_BAD_REQUEST(driver, evaluate([&](auto& m) { m.body.evaluate_outputs.inputs[0].coefficients[0] = nan; }),
                     "EvaluateOutputs.inputs[0].coefficients[0]");

  // Configure: every field a master fills.
  const auto configure = [&](const Fill& change) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_configure_tag, [&](auto& m) {
      SlaveConfiguration configuration;
      configuration.slave_name = "right";
      configuration.model = "translational.mass";
      configuration.parameters = {{"m", 2.0}};
      to_wire(configuration, m.body.configure);
      change(m);
    });
  };
  struct Case {
    const char* label;
    Fill change;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"solver kind 7", [](auto& m) { set_raw(m.body.configure.solver.kind, 7); }, "Configure.solver.kind = 7"},
      {"solver kind -1", [](auto& m) { set_raw(m.body.configure.solver.kind, -1); }, "Configure.solver.kind = -1"},
      {"CVODE method 5", [](auto& m) { set_raw(m.body.configure.solver.method, 5); }, "Configure.solver.method = 5"},
      {"rtol NaN", [&](auto& m) { m.body.configure.solver.relative_tolerance = nan; }, "Configure.solver.relative_tolerance"},
      {"rtol 0", [](auto& m) { m.body.configure.solver.relative_tolerance = 0.0; }, "Configure.solver.relative_tolerance"},
      {"atol -1", [](auto& m) { m.body.configure.solver.absolute_tolerance = -1.0; }, "Configure.solver.absolute_tolerance"},
      {"atol inf", [&](auto& m) { m.body.configure.solver.absolute_tolerance = infinity; }, "Configure.solver.absolute_tolerance"},
      {"max step -1", [](auto& m) { m.body.configure.solver.max_internal_step = -1.0; }, "Configure.solver.max_internal_step"},
      {"max step inf", [&](auto& m) { m.body.configure.solver.max_internal_step = infinity; }, "Configure.solver.max_internal_step"},
      {"substeps 0", [](auto& m) { m.body.configure.solver.euler_substeps = 0; }, "Configure.solver.euler_substeps"},
      {"imposed step -1", [](auto& m) { m.body.configure.limits.imposed_step_ns = -1; }, "Configure.limits.imposed_step_ns"},
      {"imposed step 2^62", [](auto& m) { m.body.configure.limits.imposed_step_ns = Time{1} << 62; }, "Configure.limits.imposed_step_ns"},
      {"parameter NaN", [&](auto& m) { m.body.configure.parameters[0].value = nan; }, "Configure.parameters[0].value"},
      {"parameter -inf", [&](auto& m) { m.body.configure.parameters[0].value = -infinity; }, "Configure.parameters[0].value"},
      {"parameter unnamed", [](auto& m) { m.body.configure.parameters[0].name[0] = '\0'; }, "Configure.parameters[0].name"},
      {"parameter twice", [](auto& m) { m.body.configure.parameters_count = 2; m.body.configure.parameters[1] = m.body.configure.parameters[0]; }, "Configure.parameters[1].name 'm'"},
      {"control character", [](auto& m) { m.body.configure.slave_name[1] = '\n'; }, "Configure.slave_name"},
      {"coupled input twice", [](auto& m) {
         m.body.configure.coupled_inputs_listed = true;
         m.body.configure.coupled_inputs_count = 2;
         std::strcpy(m.body.configure.coupled_inputs[0], "f");
         std::strcpy(m.body.configure.coupled_inputs[1], "f");
       }, "Configure.coupled_inputs[1]"},
  };
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.label);
    EXPECT_BAD_REQUEST(driver, configure(bad.change), bad.field);
  }
  // A good Configure still works, and too many substeps is the target's refusal.
  EXPECT_EQ(driver.decode(driver.send(configure([](auto&) {})))->which_body, couplet_wire_Envelope_describe_tag);
  const auto refused = driver.decode(driver.send(configure([](auto& m) { m.body.configure.solver.euler_substeps = 2'000'000; })));
  ASSERT_EQ(refused->which_body, couplet_wire_Envelope_error_tag);
  EXPECT_EQ(refused->body.error.code, couplet_wire_ErrorCode_ERROR_REFUSED);
  EXPECT_NE(std::string(refused->body.error.text).find("euler_substeps"), std::string::npos);
}

TEST(TargetServer, MalformedRealTimeRequestsAreBadRequestsNamingTheField) {
  TargetOptions options = mass_options();
  options.realtime = true;
  TargetServer server(models::ModelCatalog::builtin(), options);
  Driver driver(server);
  driver.open(kSession, 1);
  protocol::Sequence sequence = 2;
  const auto start = [&](double factor) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_start_tag,
                        [&](auto& m) { m.body.start.realtime_factor = factor; });
  };
  for (const double factor : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(factor);
    EXPECT_BAD_REQUEST(driver, start(factor), "Start.realtime_factor");
  }
  ASSERT_EQ(driver.decode(driver.send(start(1e-300)))->which_body, couplet_wire_Envelope_ack_tag)
      << "tiny but valid: wall-clock arithmetic saturates instead of overflowing";
  const auto input = [&](Time from, Time to, double scale) {
    return driver.frame(kSession, ++sequence, couplet_wire_Envelope_step_request_tag, [&](auto& m) {
      m.body.step_request.start_ns = from;
      m.body.step_request.end_ns = to;
      m.body.step_request.inputs_count = 1;
      wire::to_wire(Polynomial::constant(0.0, 1.0), m.body.step_request.inputs[0]);
      m.body.step_request.inputs[0].scale = scale;
    });
  };
  EXPECT_BAD_REQUEST(driver, input(0, std::numeric_limits<Time>::max(), 1.0), "2^61");
  EXPECT_BAD_REQUEST(driver, input(std::numeric_limits<Time>::min(), 0, 1.0), "2^61");
  EXPECT_BAD_REQUEST(driver, input(kStep, kStep, 1.0), "StepRequest.end_ns");
  EXPECT_BAD_REQUEST(driver, input(0, kStep, 0.0), "StepRequest.inputs[0].scale");
  // A valid input update is taken silently (its answer is the next push).
  EXPECT_TRUE(driver.send(input(0, kStep, 1.0)).empty());
  ASSERT_TRUE(server.next_boundary().has_value());
  std::vector<std::uint8_t> push(protocol::kMaxFrameBytes);
  EXPECT_GT(server.advance_realtime(push, drivers::SteadyClock::now()), 0U);
}

// Real-time mode with a scheduled-execution FMU (tests/fmus/sched3: fast every
// 10 ms, slow at 20 + 50 k ms adding u, a burst 3 ms after each slow tick, an
// output clock when fast_count reaches a multiple of 25). The target steps it
// from instant to instant as its wall clock reaches each — every tick, and an
// input's arrival, where a rise of the triggered clock kick activates it —
// instead of once per period, and its pushes carry what the virtual-time slave
// gives at the same communication times. The clock is driven by hand: each
// instant is taken 50 µs after it falls due.
TEST(TargetServer, RealTimeScheduledExecutionActivatesEachInstantOnTheWallClock) {
  TargetOptions options = mass_options();
  options.realtime = true;
  TargetServer server(
      models::fmu_source(COUPLET_TEST_FMU("sched3"), models::FmuKind::scheduled_execution),
      options);
  ASSERT_TRUE(server.steps_by_activation());
  Driver driver(server);
  driver.open(kSession, 1);
  protocol::Sequence sequence = 2;
  const drivers::Deadline anchor{std::chrono::seconds(1000)};
  const auto wall = [&](Time model) { return anchor + std::chrono::nanoseconds(model); };
  ASSERT_EQ(
      driver
          .decode(driver.send(driver.frame(kSession, ++sequence, couplet_wire_Envelope_start_tag,
                                           [](auto& m) { m.body.start.realtime_factor = 1.0; }),
                              wall(0)))
          ->which_body,
      couplet_wire_Envelope_ack_tag);
  constexpr Time kMs = 1'000'000;
  constexpr Time kPeriod = 100 * kMs;
  const auto late = std::chrono::microseconds(50);
  std::vector<std::uint8_t> push(protocol::kMaxFrameBytes);
  for (Time period = 0; period < 3; ++period) {
    SCOPED_TRACE(period);
    const Time start = period * kPeriod;
    const Frame input =
        driver.frame(kSession, ++sequence, couplet_wire_Envelope_step_request_tag, [&](auto& m) {
          m.body.step_request.start_ns = start;
          m.body.step_request.end_ns = start + kPeriod;
          m.body.step_request.inputs_count = 1;  // u = 1 into the slow partition
          wire::to_wire(Polynomial::constant(0.0, 1.0), m.body.step_request.inputs[0]);
          m.body.step_request.discrete_inputs_count = 1;  // kick: rises in period 1
          m.body.step_request.discrete_inputs[0] = period >= 1 ? 1 : 0;
        });
    EXPECT_TRUE(driver.send(input, wall(start + kMs)).empty());  // arrives 1 ms in
    std::vector<Time> instants;
    std::unique_ptr<protocol::Envelope> pushed;
    while (!pushed) {
      const std::optional<drivers::Deadline> due = server.next_boundary();
      ASSERT_TRUE(due.has_value());
      const std::size_t size = server.advance_realtime(push, *due + late);
      if (size == 0) {
        instants.push_back((*due - anchor).count());
        continue;
      }
      pushed = driver.decode(Frame(push.begin(), push.begin() + static_cast<std::ptrdiff_t>(size)));
    }
    std::vector<Time> expected;
    for (const Time ms : {0, 1, 10, 20, 23, 30, 40, 50, 60, 70, 73, 80, 90})
      expected.push_back(start + ms * kMs);
    EXPECT_EQ(instants, expected);
    ASSERT_EQ(pushed->which_body, couplet_wire_Envelope_step_result_tag);
    const auto& result = pushed->body.step_result;
    EXPECT_EQ(result.time_ns, start + kPeriod);
    EXPECT_EQ(result.status, couplet_wire_Status_STATUS_OK);
    const Time ticks = period + 1;           // periods done
    const Time kicks = period >= 1 ? 1 : 0;  // at the input's arrival in period 1, held since
    // fast_count, slow_seen_fast, kicks, bursts, activations, tick
    EXPECT_EQ(std::vector<std::int64_t>(result.discrete_outputs,
                                        result.discrete_outputs + result.discrete_outputs_count),
              (std::vector<std::int64_t>{10 * ticks, 10 * ticks - 3, kicks, 2 * ticks,
                                         14 * ticks + kicks, period == 2 ? 1 : 0}));
    ASSERT_EQ(result.end_outputs_count, 2U);  // slow_sum, burst_time
    EXPECT_EQ(result.end_outputs[0], 2.0 * static_cast<double>(ticks));
    EXPECT_EQ(result.end_outputs[1], to_seconds(start + 73 * kMs));
  }
  EXPECT_EQ(server.counters().activations, 36U);  // 12 instants a period tick
  EXPECT_EQ(server.counters().starved_periods, 0U);
  EXPECT_EQ(server.activation_lateness().min_ns(), 50'000);
  EXPECT_EQ(server.activation_lateness().max_ns(), 50'000);
}

// ---------------------------------------------------------------------------
// Authenticated sessions (docs/links.md "Authenticated links").

constexpr protocol::FrameKey kKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

TargetOptions keyed_mass_options() {
  TargetOptions options = mass_options();
  options.key = kKey;
  return options;
}

/// A master with a key (or another key) speaking sealed frames by hand.
class SealedDriver {
 public:
  SealedDriver(TargetServer& server, const protocol::FrameKey& key)
      : server_(server), codec_(key) {}

  Frame frame(std::uint64_t session, protocol::Sequence sequence, pb_size_t body,
              std::uint64_t nonce,
              const std::function<void(protocol::Envelope&)>& fill = {}) const {
    auto message = std::make_unique<protocol::Envelope>();
    *message = protocol::Envelope{};
    message->session = session;
    message->sequence = sequence;
    message->which_body = body;
    if (body == couplet_wire_Envelope_hello_tag)
      message->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
    if (fill) fill(*message);
    Frame bytes(protocol::kMaxFrameBytes);
    bytes.resize(codec_.encode(*message, nonce, bytes).size);
    return bytes;
  }
  Frame send(const Frame& request, drivers::Deadline now = drivers::SteadyClock::now()) {
    Frame answer(protocol::kMaxFrameBytes);
    answer.resize(server_.handle(request, answer, now));
    return answer;
  }
  /// Decodes a sealed answer; `nonce` receives its nonce.
  std::unique_ptr<protocol::Envelope> decode(const Frame& answer, std::uint64_t& nonce) const {
    auto message = std::make_unique<protocol::Envelope>();
    const protocol::DecodeResult result = codec_.decode(answer, *message, nonce);
    EXPECT_TRUE(result) << result.reason;
    return message;
  }
  /// Hello; returns the session's nonce from the Describe.
  std::uint64_t hello(std::uint64_t session, protocol::Sequence sequence) {
    std::uint64_t nonce = 0;
    const auto answer =
        decode(send(frame(session, sequence, couplet_wire_Envelope_hello_tag, 0)), nonce);
    EXPECT_EQ(answer->which_body, couplet_wire_Envelope_describe_tag);
    return nonce;
  }

 private:
  TargetServer& server_;
  protocol::FrameCodec codec_;
};

TEST(AuthenticatedTargetServer, EachSessionGetsItsOwnNonceThatItsFramesMustCarry) {
  TargetServer server(models::ModelCatalog::builtin(), keyed_mass_options());
  SealedDriver master(server, kKey);
  const std::uint64_t nonce = master.hello(kSession, 1);
  EXPECT_NE(nonce, 0U);
  const auto init = [](protocol::Envelope& m) { m.body.initialize.start_ns = 0; };
  // Without the nonce, or with another one (a frame recorded in another session): dropped.
  EXPECT_TRUE(master.send(master.frame(kSession, 2, couplet_wire_Envelope_initialize_tag, 0, init))
                  .empty());
  EXPECT_TRUE(
      master.send(master.frame(kSession, 2, couplet_wire_Envelope_initialize_tag, nonce + 1, init))
          .empty());
  EXPECT_EQ(server.counters().replayed, 2U);
  EXPECT_EQ(server.counters().executed, 1U) << "the Hello only";
  std::uint64_t answered = 0;
  EXPECT_EQ(master
                .decode(master.send(master.frame(kSession, 2, couplet_wire_Envelope_initialize_tag,
                                                 nonce, init)),
                        answered)
                ->which_body,
            couplet_wire_Envelope_ack_tag);
  EXPECT_EQ(answered, nonce);
  // A second session's nonce differs.
  master.send(master.frame(kSession, 3, couplet_wire_Envelope_stop_tag, nonce));
  EXPECT_NE(master.hello(kSession + 1, 1), nonce);
}

TEST(AuthenticatedTargetServer, DropsPlainForgedAndForeignKeyFramesAndTellsAPlainHelloWhy) {
  TargetServer server(models::ModelCatalog::builtin(), keyed_mass_options());
  SealedDriver master(server, kKey);
  const std::uint64_t nonce = master.hello(kSession, 1);
  // A spoofed Stop: plain, or sealed under another key, with the session's id, next sequence and
  // nonce.
  Driver plain(server);
  EXPECT_TRUE(plain.send(plain.frame(kSession, 2, couplet_wire_Envelope_stop_tag)).empty());
  protocol::FrameKey other = kKey;
  other[0] ^= 1;
  SealedDriver forger(server, other);
  EXPECT_TRUE(
      forger.send(forger.frame(kSession, 2, couplet_wire_Envelope_stop_tag, nonce)).empty());
  // A byte of a genuine frame changed, its CRC made right again: the tag still fails.
  Frame tampered = master.frame(kSession, 2, couplet_wire_Envelope_stop_tag, nonce);
  tampered[protocol::kFrameHeaderBytes + protocol::kFrameNonceBytes + 2] ^= 0x40;
  const std::size_t checked = tampered.size() - protocol::kFrameChecksumBytes;
  const std::uint32_t crc = protocol::crc32(std::span(tampered).first(checked));
  std::memcpy(&tampered[checked], &crc, sizeof crc);  // little endian, as on the wire (x86, ARM)
  EXPECT_TRUE(master.send(tampered).empty());
  EXPECT_EQ(server.counters().unauthenticated, 3U);
  EXPECT_FALSE(server.session_stopped());

  // A master without a key is told why, in a frame it can read.
  TargetServer fresh(models::ModelCatalog::builtin(), keyed_mass_options());
  Driver keyless(fresh);
  const auto refusal =
      keyless.decode(keyless.send(keyless.frame(kSession, 1, couplet_wire_Envelope_hello_tag)));
  ASSERT_EQ(refusal->which_body, couplet_wire_Envelope_error_tag);
  EXPECT_EQ(refusal->body.error.code, couplet_wire_ErrorCode_ERROR_BAD_REQUEST);
  EXPECT_STREQ(
      refusal->body.error.text,
      "this target requires authenticated frames: give the link the target's key (key_file)");
  EXPECT_FALSE(fresh.has_session());
}

TEST(AuthenticatedTargetServer, AReplayedHelloCannotHoldTheTarget) {
  TargetServer server(models::ModelCatalog::builtin(), keyed_mass_options());
  SealedDriver replayer(server, kKey);
  // A Hello recorded earlier opens a session, but nobody can go on with its nonce.
  const Frame recorded_hello = replayer.frame(kSession, 1, couplet_wire_Envelope_hello_tag, 0);
  EXPECT_FALSE(replayer.send(recorded_hello).empty());
  // Heartbeats recorded in its old run carry the old nonce: dropped.
  const auto beat = [](protocol::Envelope& m) { m.body.heartbeat.sender_time_ns = 1'000'000; };
  EXPECT_TRUE(
      replayer.send(replayer.frame(kSession, 0, couplet_wire_Envelope_heartbeat_tag, 77, beat))
          .empty());
  // The real master's Hello replaces the unconfirmed session instead of meeting BUSY.
  SealedDriver master(server, kKey);
  const std::uint64_t nonce = master.hello(kSession + 9, 40);
  EXPECT_EQ(server.session(), kSession + 9);
  EXPECT_EQ(server.counters().busy, 0U);
  // The replaced session has ended: its Hello never reopens it.
  EXPECT_TRUE(replayer.send(recorded_hello).empty());
  // Once confirmed by a frame with its nonce, the session holds: another recorded Hello meets BUSY
  // ...
  EXPECT_FALSE(
      master.send(master.frame(kSession + 9, 0, couplet_wire_Envelope_heartbeat_tag, nonce, beat))
          .empty());
  std::uint64_t answered = 0;
  const Frame other_hello = replayer.frame(kSession + 3, 5, couplet_wire_Envelope_hello_tag, 0);
  EXPECT_EQ(master.decode(master.send(other_hello), answered)->which_body,
            couplet_wire_Envelope_error_tag);
  EXPECT_EQ(answered, 0U) << "a refusal opens no session: no nonce";
  EXPECT_EQ(server.counters().busy, 1U);
  // ... and its own Hello, repeated now, is no sign of life; nor is a heartbeat that is not newer.
  const std::uint64_t replayed = server.counters().replayed;
  EXPECT_TRUE(
      master.send(master.frame(kSession + 9, 40, couplet_wire_Envelope_hello_tag, 0)).empty());
  EXPECT_TRUE(
      master.send(master.frame(kSession + 9, 0, couplet_wire_Envelope_heartbeat_tag, nonce, beat))
          .empty());
  EXPECT_EQ(server.counters().replayed, replayed + 2);
}

TEST(AuthenticatedTargetServer, ARepeatedRequestDoesNotKeepAGoneMastersSessionAlive) {
  TargetServer server(models::ModelCatalog::builtin(),
                      keyed_mass_options());  // session timeout 60 s
  SealedDriver master(server, kKey);
  const auto start = drivers::SteadyClock::now();
  const std::uint64_t nonce = master.hello(kSession, 1);
  const Frame initialize =
      master.frame(kSession, 2, couplet_wire_Envelope_initialize_tag, nonce,
                   [](protocol::Envelope& m) { m.body.initialize.start_ns = 0; });
  EXPECT_FALSE(master.send(initialize, start).empty());
  // Recorded and sent again 59 s later: answered from the cache, but no sign of life.
  EXPECT_FALSE(master.send(initialize, start + std::chrono::seconds(59)).empty());
  std::uint64_t answered = 0;
  const Frame next_hello = master.frame(kSession + 1, 1, couplet_wire_Envelope_hello_tag, 0);
  EXPECT_EQ(master.decode(master.send(next_hello, start + std::chrono::seconds(61)), answered)
                ->which_body,
            couplet_wire_Envelope_describe_tag)
      << "the session expired 60 s after its last new request";
}

}  // namespace
}  // namespace couplet::targets
