// Slave::linearize over a link (docs/links.md): the remote slave proxy sends
// Linearize, the target server answers with its slave's Linearization, and the
// values cross bit for bit, exactly once, whatever the link does. A slave that
// cannot linearize is refused on both ends; a malformed answer (wrong count,
// not finite, another time) is refused naming the slave and the link; after
// setup neither end allocates. The served slave is a hand-written linear one
// (ẋ = A x + B u, y = C x + D u, the size of the MISSILES linear benchmark: 2
// states, 1 input, 2 outputs), so that the test does not depend on how a model
// slave linearizes.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "couplet/errors.hpp"
#include "drivers/in_process_transport.hpp"
#include "drivers/remote_slave.hpp"
#include "models/catalog.hpp"
#include "models/ode_slave.hpp"
#include "models/slave_source.hpp"
#include "protocol/codec.hpp"
#include "protocol/wire_conversions.hpp"
#include "support/allocation_counter.hpp"
#include "support/served_target.hpp"
#include "targets/configuration.hpp"
#include "targets/target_server.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;
using Frame = std::vector<std::uint8_t>;

// A damped oscillator driven by u, with the acceleration as a feedthrough output.
constexpr double kA[2][2] = {{0.0, 1.0}, {-2.718281828, -0.31415926}};
constexpr double kB[2] = {0.0, 0.7071067811865476};
constexpr double kC[2][2] = {{1.0, 0.0}, {-2.718281828, -0.31415926}};
constexpr double kD[2] = {0.0, 0.7071067811865476};

struct LinearBehaviour {
  bool can_linearize = true;
  bool linearize_fails = false;  ///< linearize throws a SlaveError
  std::shared_ptr<std::atomic<int>> linearizations = std::make_shared<std::atomic<int>>(0);
};

class LinearSlave final : public Slave {
 public:
  LinearSlave(std::string name, LinearBehaviour behaviour)
      : name_(std::move(name)), behaviour_(std::move(behaviour)) {
    description_.inputs = {{"u", "N"}};
    description_.outputs = {{"x", false, "m"}, {"a", true, "m/s2"}};
    SlaveCapabilities& capabilities = description_.capabilities;
    capabilities.max_input_degree = Polynomial::kMaxDegree;
    capabilities.output_derivative_order = 0;
    capabilities.can_rollback = false;
    capabilities.can_linearize = behaviour_.can_linearize;
    capabilities.state_count = 2;
  }

  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override {
    time_ = start;
    x_[0] = 0.25;
    x_[1] = -0.5;
  }
  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    outputs(inputs[0].value(to_seconds(time_)), end_outputs);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    // Classical Runge-Kutta, ten substeps: any deterministic integrator will do.
    constexpr int kSubsteps = 10;
    const double h = to_seconds(request.end - request.start) / kSubsteps;
    const Polynomial& u = request.inputs[0];
    for (int k = 0; k < kSubsteps; ++k) {
      const double t = to_seconds(request.start) + k * h;
      const auto f = [&](const double(&x)[2], double time, double(&dx)[2]) {
        derivative(x, u.value(time), dx);
      };
      double k1[2], k2[2], k3[2], k4[2], y[2];
      f(x_, t, k1);
      for (int i = 0; i < 2; ++i) y[i] = x_[i] + 0.5 * h * k1[i];
      f(y, t + 0.5 * h, k2);
      for (int i = 0; i < 2; ++i) y[i] = x_[i] + 0.5 * h * k2[i];
      f(y, t + 0.5 * h, k3);
      for (int i = 0; i < 2; ++i) y[i] = x_[i] + h * k3[i];
      f(y, t + h, k4);
      for (int i = 0; i < 2; ++i) x_[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    time_ = request.end;
    outputs(u.value(to_seconds(time_)), result.end_outputs);
  }
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    if (behaviour_.linearize_fails)
      throw SlaveError("slave '" + name_ + "': the Jacobian could not be formed");
    ++*behaviour_.linearizations;
    const LinearizationLayout layout = LinearizationLayout::of(description_);
    double dx[2];
    derivative(x_, inputs[0].value(to_seconds(time_)), dx);
    for (std::size_t i = 0; i < 2; ++i) {
      linearization[layout.state_offset() + i] = x_[i];
      linearization[layout.derivative_offset() + i] = dx[i];
      linearization[layout.b_offset() + i] = kB[i];  // n×1
      linearization[layout.d_offset() + i] = kD[i];  // q×1
      for (std::size_t j = 0; j < 2; ++j) {
        linearization[layout.a_offset() + j * 2 + i] = kA[i][j];  // column-major
        linearization[layout.c_offset() + j * 2 + i] = kC[i][j];
      }
    }
  }

 private:
  static void derivative(const double (&x)[2], double u, double (&dx)[2]) {
    for (int i = 0; i < 2; ++i) dx[i] = kA[i][0] * x[0] + kA[i][1] * x[1] + kB[i] * u;
  }
  void outputs(double u, std::span<double> y) const {
    for (int i = 0; i < 2; ++i) y[i] = kC[i][0] * x_[0] + kC[i][1] * x_[1] + kD[i] * u;
  }

  std::string name_;
  LinearBehaviour behaviour_;
  SlaveDescription description_;
  Time time_ = 0;
  double x_[2] = {};
};

class LinearSource final : public models::SlaveSource {
 public:
  explicit LinearSource(LinearBehaviour behaviour) : behaviour_(std::move(behaviour)) {}
  std::string name() const override { return "test.linear"; }
  std::string identity() const override { return "test.linear"; }
  std::unique_ptr<Slave> make_slave(const models::SlaveSettings& settings) const override {
    return std::make_unique<LinearSlave>(settings.slave_name, behaviour_);
  }
  std::unique_ptr<models::Model> make_model(const models::SlaveSettings&) const override {
    throw ConfigurationError("test.linear has no equations for a monolithic reference");
  }
  std::string describe() const override { return "test.linear: a hand-written linear slave"; }

 private:
  LinearBehaviour behaviour_;
};

drivers::LinkPolicy fast_policy() {
  drivers::LinkPolicy policy;
  policy.retransmit_interval = 1ms;
  policy.peer_timeout = 2s;
  return policy;
}

constexpr std::size_t kLinearizationValues = 16;  // 2 + 2 + 2·2 + 2·1 + 2·2 + 2·1

std::vector<Polynomial> input_at(Time time, int k) {
  const double coefficients[3] = {std::sin(0.3 * k), 0.4, -0.07};
  return {Polynomial::from_coefficients(to_seconds(time), 0.05, coefficients)};
}

/// Linearizes both slaves before every step and at the end, comparing every bit.
void expect_same_linearizations(Slave& local, Slave& remote, int steps) {
  std::vector<double> local_values(kLinearizationValues);
  std::vector<double> remote_values(kLinearizationValues);
  std::vector<double> local_end(2);
  std::vector<double> remote_end(2);
  local.setup(0);
  remote.setup(0);
  const Time step = 50'000'000;
  for (int k = 0; k <= steps; ++k) {
    const Time start = k * step;
    const std::vector<Polynomial> inputs = input_at(start, k);
    local.linearize(inputs, local_values);
    remote.linearize(inputs, remote_values);
    ASSERT_EQ(std::memcmp(local_values.data(), remote_values.data(),
                          kLinearizationValues * sizeof(double)),
              0)
        << "linearization " << k;
    if (k == steps) break;
    local.step({start, start + step, inputs, {}}, {local_end, {}});
    remote.step({start, start + step, inputs, {}}, {remote_end, {}});
    ASSERT_EQ(std::memcmp(local_end.data(), remote_end.data(), local_end.size() * sizeof(double)),
              0)
        << "step " << k;
  }
}

TEST(RemoteLinearize, BitIdenticalToTheLocalSlaveThroughALossyLinkExactlyOnce) {
  drivers::FaultSettings faults{0.25, 0.1, 0.1, 0.1, 0us, 3000us, 3};
  drivers::FaultSettings back = faults;
  back.seed = 4;
  drivers::InProcessLink link = drivers::make_in_process_link(faults, back, 16);
  LinearBehaviour behaviour;
  ServedTarget target(std::make_shared<LinearSource>(behaviour), std::move(link.target));
  drivers::RemoteSlave remote("plant", std::move(link.master), nullptr, fast_policy());
  const SlaveCapabilities& capabilities = remote.description().capabilities;
  EXPECT_TRUE(capabilities.can_linearize);
  EXPECT_EQ(capabilities.state_count, 2U);
  EXPECT_EQ(LinearizationLayout::of(remote.description()).size(), kLinearizationValues);

  LinearSlave local("plant", LinearBehaviour{});
  constexpr int kSteps = 150;
  expect_same_linearizations(local, remote, kSteps);
  EXPECT_GT(remote.counters().retransmissions, 20U);
  const targets::TargetCounters counters = target.counters();
  EXPECT_EQ(behaviour.linearizations->load(), kSteps + 1) << "each linearization carried out once";
  EXPECT_GT(counters.repeats, 5U) << "repeats answered from the cache";
}

// The same through a model slave on the target (translational.mass, an ODE
// slave with CVODE), configured as the master asks.
TEST(RemoteLinearize, AModelSlaveOnTheTargetLinearizesBitForBitAsLocally) {
  targets::SlaveConfiguration configuration;
  configuration.slave_name = "left";
  configuration.model = "translational.mass";
  configuration.parameters = {{"m", 10.0}, {"x0", 1.0}};
  configuration.solver.relative_tolerance = 1e-9;
  configuration.solver.absolute_tolerance = 1e-11;
  const std::unique_ptr<Slave> local = models::make_ode_slave(
      configuration.slave_name,
      models::ModelCatalog::builtin().create(configuration.model, configuration.parameters),
      configuration.solver, configuration.limits);
  if (!local->description().capabilities.can_linearize) {
    GTEST_SKIP() << "the local ODE slave of translational.mass does not linearize";
  }
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::move(link.target));
  couplet_wire_Configure configure;
  targets::to_wire(configuration, configure);
  drivers::RemoteSlave remote("left", std::move(link.master), &configure, fast_policy());
  ASSERT_TRUE(remote.description().capabilities.can_linearize);
  ASSERT_EQ(remote.description().capabilities.state_count,
            local->description().capabilities.state_count);
  const std::size_t size = LinearizationLayout::of(local->description()).size();
  std::vector<double> local_values(size);
  std::vector<double> remote_values(size);
  std::vector<double> local_end(2 *
                                (local->description().capabilities.output_derivative_order + 1));
  std::vector<double> remote_end(local_end.size());
  local->setup(0);
  remote.setup(0);
  const Time step = 50'000'000;
  for (int k = 0; k < 20; ++k) {
    const Time start = k * step;
    const std::vector<Polynomial> inputs = input_at(start, k);
    local->linearize(inputs, local_values);
    remote.linearize(inputs, remote_values);
    ASSERT_EQ(std::memcmp(local_values.data(), remote_values.data(), size * sizeof(double)), 0)
        << k;
    local->step({start, start + step, inputs, {}}, {local_end, {}});
    remote.step({start, start + step, inputs, {}}, {remote_end, {}});
  }
}

TEST(RemoteLinearize, AMasterDoesNotAskASlaveThatCannotLinearize) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  LinearBehaviour behaviour;
  behaviour.can_linearize = false;
  ServedTarget target(std::make_shared<LinearSource>(behaviour), std::move(link.target));
  drivers::RemoteSlave remote("plant", std::move(link.master), nullptr, fast_policy());
  EXPECT_FALSE(remote.description().capabilities.can_linearize);
  remote.setup(0);
  std::vector<double> values(kLinearizationValues);
  try {
    remote.linearize(input_at(0, 0), values);
    FAIL() << "linearize on a target that did not describe it";
  } catch (const ProtocolViolation& error) {
    EXPECT_NE(std::string(error.what()).find("slave 'plant'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("can_linearize"), std::string::npos) << error.what();
  }
  EXPECT_EQ(target.counters().executed, 2U) << "Hello and Initialize only: nothing was sent";
}

TEST(RemoteLinearize, TheSlavesFailureOnTheTargetReachesTheMasterNamingTheSlave) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  LinearBehaviour behaviour;
  behaviour.linearize_fails = true;
  ServedTarget target(std::make_shared<LinearSource>(behaviour), std::move(link.target));
  drivers::RemoteSlave remote("plant", std::move(link.master), nullptr, fast_policy());
  remote.setup(0);
  std::vector<double> values(kLinearizationValues);
  try {
    remote.linearize(input_at(0, 0), values);
    FAIL() << "no error from a failed linearization";
  } catch (const SlaveError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("slave 'plant' (in-process"), std::string::npos) << message;
    EXPECT_NE(message.find("linearize at t = 0 s failed on the target"), std::string::npos)
        << message;
    EXPECT_NE(message.find("the Jacobian could not be formed"), std::string::npos) << message;
  }
}

// ---- the target's side, frame by frame ----

class TargetDriver {
 public:
  explicit TargetDriver(targets::TargetServer& server) : server_(server) {}

  Frame request(protocol::Sequence sequence, pb_size_t body,
                const std::function<void(protocol::Envelope&)>& fill = {}) {
    auto message = std::make_unique<protocol::Envelope>();
    message->session = kSession;
    message->sequence = sequence;
    message->which_body = body;
    if (body == couplet_wire_Envelope_hello_tag)
      message->body.hello.version = couplet_wire_Version_VERSION_CURRENT;
    if (fill) fill(*message);
    Frame bytes(protocol::kMaxFrameBytes);
    bytes.resize(protocol::encode_frame(*message, bytes).size);
    return bytes;
  }
  Frame linearize(protocol::Sequence sequence, double input) {
    return request(sequence, couplet_wire_Envelope_linearize_tag, [&](protocol::Envelope& message) {
      message.body.linearize.inputs_count = 1;
      wire::to_wire(Polynomial::constant(0.0, input), message.body.linearize.inputs[0]);
    });
  }
  Frame send(const Frame& frame) {
    Frame answer(protocol::kMaxFrameBytes);
    answer.resize(server_.handle(frame, answer, drivers::SteadyClock::now()));
    return answer;
  }
  std::unique_ptr<protocol::Envelope> decode(const Frame& frame) const {
    auto message = std::make_unique<protocol::Envelope>();
    EXPECT_TRUE(protocol::decode_frame(frame, *message));
    return message;
  }
  /// Hello (its Describe returned) and, when `initialize`, Initialize at t = 0.
  std::unique_ptr<protocol::Envelope> open(bool initialize = true) {
    auto described = decode(send(request(1, couplet_wire_Envelope_hello_tag)));
    if (initialize) {
      EXPECT_EQ(decode(send(request(2, couplet_wire_Envelope_initialize_tag)))->which_body,
                couplet_wire_Envelope_ack_tag);
    }
    return described;
  }

  static constexpr std::uint64_t kSession = 0x5eed;

 private:
  targets::TargetServer& server_;
};

std::string error_text(const protocol::Envelope& answer) {
  EXPECT_EQ(answer.which_body, couplet_wire_Envelope_error_tag);
  return answer.body.error.text;
}

TEST(TargetLinearize, AnswersOnceAndRepeatsFromTheCache) {
  LinearBehaviour behaviour;
  targets::TargetServer server(std::make_shared<LinearSource>(behaviour), {});
  TargetDriver driver(server);
  const auto described = driver.open();
  EXPECT_TRUE(described->body.describe.capabilities.can_linearize);
  EXPECT_EQ(described->body.describe.capabilities.state_count, 2U);

  const Frame request = driver.linearize(3, 1.5);
  const Frame first = driver.send(request);
  const Frame repeat = driver.send(request);
  EXPECT_EQ(first, repeat);
  EXPECT_EQ(behaviour.linearizations->load(), 1) << "a repeat is not carried out again";
  EXPECT_EQ(server.counters().repeats, 1U);

  const auto answer = driver.decode(first);
  ASSERT_EQ(answer->which_body, couplet_wire_Envelope_linearization_tag);
  EXPECT_EQ(answer->body.linearization.time_ns, 0);
  LinearSlave local("local", LinearBehaviour{});
  local.setup(0);
  std::vector<double> expected(kLinearizationValues);
  local.linearize(std::vector<Polynomial>{Polynomial::constant(0.0, 1.5)}, expected);
  ASSERT_EQ(answer->body.linearization.values_count, kLinearizationValues);
  EXPECT_EQ(std::memcmp(answer->body.linearization.values, expected.data(),
                        kLinearizationValues * sizeof(double)),
            0);
}

TEST(TargetLinearize, ASlaveThatCannotLinearizeIsAnsweredBadRequest) {
  LinearBehaviour behaviour;
  behaviour.can_linearize = false;
  targets::TargetServer server(std::make_shared<LinearSource>(behaviour), {});
  TargetDriver driver(server);
  EXPECT_FALSE(driver.open()->body.describe.capabilities.can_linearize);
  const auto answer = driver.decode(driver.send(driver.linearize(3, 1.0)));
  EXPECT_EQ(answer->body.error.code, couplet_wire_ErrorCode_ERROR_BAD_REQUEST);
  EXPECT_NE(error_text(*answer).find("cannot linearize"), std::string::npos) << error_text(*answer);
  EXPECT_EQ(behaviour.linearizations->load(), 0);
}

TEST(TargetLinearize, ARealTimeTargetNeitherDescribesNorAnswersLinearization) {
  LinearBehaviour behaviour;
  targets::TargetOptions options;
  options.realtime = true;
  targets::TargetServer server(std::make_shared<LinearSource>(behaviour), options);
  TargetDriver driver(server);
  const auto described = driver.open();
  EXPECT_TRUE(described->body.describe.capabilities.realtime);
  EXPECT_FALSE(described->body.describe.capabilities.can_linearize);
  const auto answer = driver.decode(driver.send(driver.linearize(3, 1.0)));
  EXPECT_EQ(answer->body.error.code, couplet_wire_ErrorCode_ERROR_BAD_REQUEST);
  EXPECT_NE(error_text(*answer).find("real-time target cannot linearize"), std::string::npos);
  EXPECT_EQ(behaviour.linearizations->load(), 0);
}

TEST(TargetLinearize, ChecksTheRequestBeforeLinearizing) {
  LinearBehaviour behaviour;
  targets::TargetServer server(std::make_shared<LinearSource>(behaviour), {});
  TargetDriver driver(server);
  driver.open(false);
  auto answer = driver.decode(driver.send(driver.linearize(2, 1.0)));
  EXPECT_NE(error_text(*answer).find("linearize before initialize"), std::string::npos)
      << error_text(*answer);
  EXPECT_EQ(driver.decode(driver.send(driver.request(3, couplet_wire_Envelope_initialize_tag)))
                ->which_body,
            couplet_wire_Envelope_ack_tag);
  answer = driver.decode(driver.send(driver.request(4, couplet_wire_Envelope_linearize_tag)));
  EXPECT_NE(
      error_text(*answer).find("Linearize.inputs has 0 polynomial(s); the slave has 1 input(s)"),
      std::string::npos)
      << error_text(*answer);
  answer = driver.decode(driver.send(driver.linearize(5, std::numeric_limits<double>::infinity())));
  EXPECT_NE(error_text(*answer).find(
                "linearize: Linearize.inputs[0].coefficients[0] = inf is not finite"),
            std::string::npos)
      << error_text(*answer);
  EXPECT_EQ(behaviour.linearizations->load(), 0);
}

// ---- malformed answers: an honest target whose Linearization is tampered with ----

/// The target in the calling thread; every Linearization it answers passes
/// through `tamper` before the master sees it.
class TamperingTransport final : public drivers::Transport {
 public:
  TamperingTransport(std::shared_ptr<const models::SlaveSource> source,
                     std::function<void(couplet_wire_Linearization&)> tamper)
      : server_(std::move(source), {}), tamper_(std::move(tamper)) {}

  void send(std::span<const std::uint8_t> frame) override {
    Frame answer(protocol::kMaxFrameBytes);
    answer.resize(server_.handle(frame, answer, drivers::SteadyClock::now()));
    if (answer.empty()) return;
    if (protocol::decode_frame(answer, *envelope_) &&
        envelope_->which_body == couplet_wire_Envelope_linearization_tag) {
      tamper_(envelope_->body.linearization);
      answer.resize(protocol::kMaxFrameBytes);
      answer.resize(protocol::encode_frame(*envelope_, answer).size);
    }
    queue_.push_back(std::move(answer));
  }
  std::size_t receive(std::span<std::uint8_t> buffer, drivers::Deadline) override {
    if (queue_.empty()) return 0;
    const Frame frame = std::move(queue_.front());
    queue_.pop_front();
    std::copy(frame.begin(), frame.end(), buffer.begin());
    return frame.size();
  }
  std::string describe() const override { return "tampered link"; }

 private:
  targets::TargetServer server_;
  std::function<void(couplet_wire_Linearization&)> tamper_;
  std::unique_ptr<protocol::Envelope> envelope_ = std::make_unique<protocol::Envelope>();
  std::deque<Frame> queue_;
};

/// The message of the error a linearization tampered by `tamper` ends with.
std::string refusal(std::function<void(couplet_wire_Linearization&)> tamper) {
  drivers::LinkPolicy policy = fast_policy();
  policy.peer_timeout = 200ms;
  drivers::RemoteSlave remote(
      "plant",
      std::make_unique<TamperingTransport>(std::make_shared<LinearSource>(LinearBehaviour{}),
                                           std::move(tamper)),
      nullptr, policy);
  remote.setup(0);
  std::vector<double> values(kLinearizationValues, -1.0);
  try {
    remote.linearize(input_at(0, 0), values);
  } catch (const SlaveError& error) {
    EXPECT_EQ(values, std::vector<double>(kLinearizationValues, -1.0))
        << "nothing of a refused answer is used";
    return error.what();
  }
  ADD_FAILURE() << "the tampered linearization was accepted";
  return {};
}

void expect_contains(const std::string& message, const std::string& part) {
  EXPECT_NE(message.find(part), std::string::npos) << message;
}

TEST(RemoteLinearize, RefusesAnAnswerWithTheWrongNumberOfValuesNamingThePeer) {
  const std::string message =
      refusal([](couplet_wire_Linearization& body) { --body.values_count; });
  expect_contains(message, "slave 'plant' (tampered link): the target's answer is inconsistent");
  expect_contains(
      message,
      "Linearization.values has 15 values, expected 16 (x, dx/dt, A, B, C, D of 2 state(s), "
      "1 input(s), 2 output(s))");
}

TEST(RemoteLinearize, RefusesANonFiniteValueNamingThePeerAndTheEntry) {
  // A(1,0), column-major after x and dx/dt: index 4 + 0·2 + 1.
  const std::string message = refusal([](couplet_wire_Linearization& body) {
    body.values[5] = std::numeric_limits<double>::quiet_NaN();
  });
  expect_contains(
      message,
      "slave 'plant' (tampered link): the target returned a non-finite linearization at t = 0 s");
  expect_contains(message, "Linearization.values[5] = nan, A(1,0)");
  const std::string in_d = refusal([](couplet_wire_Linearization& body) {
    body.values[15] = -std::numeric_limits<double>::infinity();
  });
  expect_contains(in_d, "Linearization.values[15] = -inf, D(1,0)");
}

TEST(RemoteLinearize, RefusesALinearizationAtAnotherTime) {
  const std::string message = refusal([](couplet_wire_Linearization& body) { body.time_ns += 1; });
  expect_contains(message, "slave 'plant' (tampered link)");
  expect_contains(
      message,
      "Linearization.time_ns = 1, expected the linearization at the current time t = 0 s (0 ns)");
}

// ---- capabilities on the wire ----

couplet_wire_Describe describe_linear(std::size_t states) {
  LinearSlave slave("plant", LinearBehaviour{});
  SlaveDescription description = slave.description();
  description.capabilities.state_count = states;
  couplet_wire_Describe wire{};
  wire::to_wire(description, "test.linear", wire);
  return wire;
}

TEST(LinearizationCapabilities, CrossTheWireBothWays) {
  const SlaveDescription description = wire::from_wire(describe_linear(2), "plant");
  EXPECT_TRUE(description.capabilities.can_linearize);
  EXPECT_EQ(description.capabilities.state_count, 2U);
}

TEST(LinearizationCapabilities, FitOneLinearizationOrAreNotDescribed) {
  // 2n + n² ≤ 720 up to n = 25 without ports; 26 gives 728.
  EXPECT_TRUE(wire::linearization_fits(25, 0, 0));
  EXPECT_FALSE(wire::linearization_fits(26, 0, 0));
  // 16 inputs and outputs: 2n + n² + 32n + 256 ≤ 720 up to n = 10 (696); 11 gives 751.
  EXPECT_TRUE(wire::linearization_fits(10, 16, 16));
  EXPECT_FALSE(wire::linearization_fits(11, 16, 16));
  EXPECT_FALSE(wire::linearization_fits(std::numeric_limits<std::uint64_t>::max(), 1, 1))
      << "no overflow";
  // A slave whose linearization does not fit cannot linearize over the link.
  const couplet_wire_Describe too_large = describe_linear(30);
  EXPECT_FALSE(too_large.capabilities.can_linearize);
  EXPECT_EQ(too_large.capabilities.state_count, 0U);
}

TEST(LinearizationCapabilities, TheMasterRefusesAStateCountBeyondTheProtocolNamingTheSlave) {
  couplet_wire_Describe wire = describe_linear(2);
  wire.capabilities.state_count = 4'294'967'295U;
  try {
    wire::from_wire(wire, "plant");
    FAIL() << "a state count beyond the protocol was accepted";
  } catch (const SlaveError& error) {
    expect_contains(
        error.what(),
        "slave 'plant': invalid description from the target: "
        "Describe.capabilities.state_count = 4294967295 exceeds what the protocol carries");
    expect_contains(error.what(), "at most 720 values");
  }
  wire.capabilities.state_count = 2;
  wire.capabilities.realtime = true;
  try {
    wire::from_wire(wire, "plant");
    FAIL() << "a real-time target that linearizes was accepted";
  } catch (const SlaveError& error) {
    expect_contains(error.what(),
                    "Describe.capabilities.can_linearize is set on a real-time target");
  }
}

// The figure docs/links.md gives: a Linearization of the MISSILES linear
// benchmark's size (2 states, 1 input, 2 outputs: 16 values) at t = 1 s.
TEST(LinearizationCapabilities, AFrameOfTheLinearBenchmarksSize) {
  auto message = std::make_unique<protocol::Envelope>();
  message->session = 0x0123456789abcdefULL;
  message->sequence = 0x89abcdefU;
  message->which_body = couplet_wire_Envelope_linearization_tag;
  message->body.linearization.time_ns = 1'000'000'000;
  message->body.linearization.values_count = kLinearizationValues;
  for (std::size_t k = 0; k < kLinearizationValues; ++k)
    message->body.linearization.values[k] = 0.1 * static_cast<double>(k + 1);
  Frame frame(protocol::kMaxFrameBytes);
  const protocol::EncodeResult encoded = protocol::encode_frame(*message, frame);
  ASSERT_TRUE(encoded);
  // 128 bytes of doubles; session 9, sequence 5, body tag and length 4, time 6,
  // values tag and length 3; header 4 and CRC 4.
  EXPECT_EQ(encoded.size, 163U);
}

// ---- no allocation after setup ----

TEST(RemoteLinearize, NeitherEndAllocatesAfterTheFirstLinearization) {
  drivers::InProcessLink link = drivers::make_in_process_link();
  ServedTarget target(std::make_shared<LinearSource>(LinearBehaviour{}), std::move(link.target));
  drivers::RemoteSlave remote("plant", std::move(link.master), nullptr, drivers::LinkPolicy{});
  std::vector<double> values(kLinearizationValues);
  std::vector<double> end(2);
  const Time step = 10'000'000;
  std::vector<Polynomial> inputs = input_at(0, 0);
  remote.setup(0);
  remote.linearize(inputs, values);
  remote.step({0, step, inputs, {}}, {end, {}});
  const long before = allocations();
  for (int k = 1; k <= 200; ++k) {
    const Time start = k * step;
    inputs[0] = Polynomial::constant(to_seconds(start), 0.01 * k);
    remote.linearize(inputs, values);
    remote.step({start, start + step, inputs, {}}, {end, {}});
  }
  EXPECT_EQ(allocations() - before, 0);
  EXPECT_TRUE(std::isfinite(values[0]));
}

}  // namespace
}  // namespace couplet::testing
