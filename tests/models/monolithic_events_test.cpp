// The monolithic reference with models that have discrete behaviour as FMI model
// exchange has it (Model::start, event indicators, time events announced while
// running): small hand-written models against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/monolithic_reference.hpp"
#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

constexpr double kGravity = 9.81;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// As in monolithic_reference_test: a wide margin over CVODE's own global error.
const MonolithicSettings tight{.relative_tolerance = 1e-12, .absolute_tolerance = 1e-14};

std::vector<double> uniform_grid(double start, double end, int intervals) {
  std::vector<double> grid;
  for (int k = 0; k <= intervals; ++k) grid.push_back(start + (end - start) * k / intervals);
  grid.back() = end;
  return grid;
}

ModelDescription describe(std::vector<std::string> inputs, std::vector<std::string> outputs,
                          std::vector<std::string> states) {
  ModelDescription description;
  description.name = "test.events";
  description.inputs = std::move(inputs);
  for (auto& output : outputs) description.outputs.push_back({std::move(output), false});
  description.states = std::move(states);
  return description;
}

/// A ball dropped from rest at `height`: ḣ = v, v̇ = −g, y = (h, v). The ground is
/// the zero crossing of the indicator z = h; there v ← −e v. h ← max(h, 0) keeps
/// the located crossing (h slightly below zero) from crossing again at once.
class BouncingBall final : public Model {
 public:
  BouncingBall(double height, double restitution)
      : description_(describe({}, {"h", "v"}, {"h", "v"})),
        height_(height),
        restitution_(restitution) {}

  const ModelDescription& description() const override { return description_; }
  void start(double) const override { bounces_.clear(); }
  void initial_state(std::span<double> x) const override {
    x[0] = height_;
    x[1] = 0.0;
  }
  void derivatives(double, std::span<const double> x, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = -kGravity;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
    y[1] = x[1];
  }
  std::size_t event_indicator_count() const override { return 1; }
  void event_indicators(double, std::span<const double> x, std::span<const double>,
                        std::span<double> indicators) const override {
    indicators[0] = x[0];
  }
  bool handle_event(double t, std::span<double> x, std::span<const double>) const override {
    bounces_.push_back(t);
    x[0] = std::max(x[0], 0.0);
    x[1] = -restitution_ * x[1];
    return true;
  }

  const std::vector<double>& bounces() const { return bounces_; }

 private:
  ModelDescription description_;
  double height_, restitution_;
  mutable std::vector<double> bounces_;  // the discrete behaviour is const, as for an FMU
};

/// The bouncing ball in closed form: free fall to t₁ = √(2h₀/g), then parabolas
/// between bounces with take-off speeds wₖ = eᵏ g t₁, each lasting 2wₖ/g.
struct BallFlight {
  double height, restitution;

  /// The bounce times in (0, end].
  std::vector<double> bounces_until(double end) const {
    std::vector<double> bounces;
    double time = std::sqrt(2.0 * height / kGravity);
    double speed = restitution * kGravity * time;
    while (time <= end) {
      bounces.push_back(time);
      time += 2.0 * speed / kGravity;
      speed *= restitution;
    }
    return bounces;
  }

  /// (h, v) at t.
  std::pair<double, double> at(double t) const {
    const std::vector<double> bounces = bounces_until(t);
    if (bounces.empty()) return {height - 0.5 * kGravity * t * t, -kGravity * t};
    const double since = t - bounces.back();
    const double speed = std::pow(restitution, static_cast<double>(bounces.size())) * kGravity *
                         std::sqrt(2.0 * height / kGravity);
    return {speed * since - 0.5 * kGravity * since * since, speed - kGravity * since};
  }
};

TEST(MonolithicEvents, BouncingBallBouncesAtTheClosedFormTimes) {
  const BallFlight flight{.height = 2.0, .restitution = 0.7};
  const BouncingBall ball(flight.height, flight.restitution);
  const std::vector<MonolithicSubsystem> subsystems{{"ball", &ball}};
  const auto grid = uniform_grid(0.0, 3.0, 3000);

  const auto solution = solve_monolithic(subsystems, {}, 0.0, 3.0, grid, tight);

  // Five bounces in [0, 3] s: 0.639, 1.532, 2.158, 2.596, 2.903 s.
  const std::vector<double> expected = flight.bounces_until(3.0);
  ASSERT_EQ(expected.size(), 5u);
  ASSERT_EQ(ball.bounces().size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_NEAR(ball.bounces()[k], expected[k], 1e-9) << "bounce " << k;
  }
  // Without state events the ball would fall through the ground; with a bounce
  // at the wrong time the parabolas after it would be off. CVODE locates the
  // bounces to about 1e-12 s here; 1e-9 leaves a wide margin and still fails
  // for a sloppy root location.
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const auto [height, speed] = flight.at(grid[k]);
    const double h = solution.outputs[0][2 * k];
    const double v = solution.outputs[0][2 * k + 1];
    EXPECT_GE(h, -1e-9) << "t = " << grid[k];
    EXPECT_NEAR(h, height, 1e-9) << "t = " << grid[k];
    EXPECT_NEAR(v, speed, 1e-9) << "t = " << grid[k];
  }
}

/// y = (a, ∫a dt) with a stepping from 0 to 1 at `jump`, a time event announced
/// through next_time_event (as an FMU announces nextEventTime) until it happened.
class AnnouncedStep final : public Model {
 public:
  explicit AnnouncedStep(double jump)
      : description_(describe({}, {"y", "integral"}, {"integral"})), jump_(jump) {}

  const ModelDescription& description() const override { return description_; }
  void start(double) const override {
    level_ = 0.0;
    events_.clear();
  }
  void initial_state(std::span<double> x) const override { x[0] = 0.0; }
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = level_;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = level_;
    y[1] = x[0];
  }
  double next_time_event() const override { return level_ == 0.0 ? jump_ : kInfinity; }
  bool handle_event(double t, std::span<double>, std::span<const double>) const override {
    events_.push_back(t);
    if (t >= jump_) level_ = 1.0;
    return false;
  }

  const std::vector<double>& events() const { return events_; }

 private:
  ModelDescription description_;
  double jump_;
  mutable double level_ = 0.0;
  mutable std::vector<double> events_;
};

/// ẋ = −x + u, y = x.
class Lag final : public Model {
 public:
  explicit Lag(double initial) : description_(describe({"u"}, {"y"}, {"x"})), initial_(initial) {}

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = initial_; }
  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = -x[0] + u[0];
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }

 private:
  ModelDescription description_;
  double initial_;
};

/// Sample and hold without states: samples its input at start + k·period, each
/// sample announcing the next; outputs the latest sample (0 before the first).
class Sampler final : public Model {
 public:
  explicit Sampler(double period) : description_(describe({"u"}, {"held"}, {})), period_(period) {}

  const ModelDescription& description() const override { return description_; }
  void start(double time) const override {
    start_ = time;
    held_ = 0.0;
    sample_times_.clear();
  }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double>) const override {}
  void outputs(double, std::span<const double>, std::span<const double>,
               std::span<double> y) const override {
    y[0] = held_;
  }
  double next_time_event() const override {
    return start_ + static_cast<double>(sample_times_.size() + 1) * period_;
  }
  bool handle_event(double t, std::span<double>, std::span<const double> u) const override {
    sample_times_.push_back(t);
    held_ = u[0];
    return false;
  }

  const std::vector<double>& sample_times() const { return sample_times_; }

 private:
  ModelDescription description_;
  double period_;
  mutable double start_ = 0.0, held_ = 0.0;
  mutable std::vector<double> sample_times_;
};

// step (jump at 0.3 s) → lag (x₀ = 0.5) → sampler (every 0.125 s), on a grid of
// 0.025 s that holds the jump and every sample time exactly.
TEST(MonolithicEvents, AnnouncedTimeEventsSwitchExactlyAndSeeTheirInputs) {
  const double jump = 0.3, period = 0.125, initial = 0.5;
  const AnnouncedStep step(jump);
  const Lag lag(initial);
  const Sampler sampler(period);
  const std::vector<MonolithicSubsystem> subsystems{
      {"step", &step}, {"lag", &lag}, {"sampler", &sampler}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}, {1, 0, 2, 0}};
  const auto grid = uniform_grid(0.0, 1.0, 40);
  ASSERT_EQ(grid[12], jump);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 1.0, grid, tight);

  const auto lag_exact = [&](double t) {
    if (t < jump) return initial * std::exp(-t);
    const double at_jump = initial * std::exp(-jump);
    return 1.0 + (at_jump - 1.0) * std::exp(-(t - jump));
  };
  EXPECT_EQ(step.events(), std::vector<double>{jump});
  // An event at the end time lies beyond the solution, as a static one does.
  std::vector<double> samples;
  for (int k = 1; k <= 7; ++k) samples.push_back(k * period);
  EXPECT_EQ(sampler.sample_times(), samples);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double t = grid[k];
    // At the jump itself the new level holds (the grid point belongs after it).
    EXPECT_EQ(solution.outputs[0][2 * k], t >= jump ? 1.0 : 0.0) << "t = " << t;
    EXPECT_NEAR(solution.outputs[0][2 * k + 1], std::max(0.0, t - jump), 1e-9) << "t = " << t;
    EXPECT_NEAR(solution.outputs[1][k], lag_exact(t), 1e-9) << "t = " << t;
    const double latest_sample = std::min(std::floor(t / period), 7.0) * period;
    const double held = latest_sample == 0.0 ? 0.0 : lag_exact(latest_sample);
    EXPECT_NEAR(solution.outputs[2][k], held, 1e-9) << "t = " << t;
  }
}

/// ẋ = 0 with x₀ = the start time given to start(), y = x (the start time itself
/// without a state): NaN unless start() comes before initial_state. Logs both.
class StartWatcher final : public Model {
 public:
  StartWatcher(std::string name, bool has_state, std::vector<std::string>& log)
      : description_(
            describe({}, {"started"},
                     has_state ? std::vector<std::string>{"x"} : std::vector<std::string>{})),
        name_(std::move(name)),
        log_(log) {}

  const ModelDescription& description() const override { return description_; }
  void start(double time) const override {
    started_ = time;
    log_.push_back(name_ + ".start(" + std::to_string(time) + ")");
  }
  void initial_state(std::span<double> x) const override {
    log_.push_back(name_ + ".initial_state");
    std::fill(x.begin(), x.end(), started_);
  }
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double> dxdt) const override {
    std::fill(dxdt.begin(), dxdt.end(), 0.0);
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x.empty() ? started_ : x[0];
  }

 private:
  ModelDescription description_;
  std::string name_;
  std::vector<std::string>& log_;
  mutable double started_ = std::numeric_limits<double>::quiet_NaN();
};

TEST(MonolithicEvents, StartComesWithTheStartTimeBeforeInitialState) {
  std::vector<std::string> log;
  const StartWatcher stateful("stateful", true, log);
  const StartWatcher stateless("stateless", false, log);
  const std::vector<MonolithicSubsystem> subsystems{{"stateful", &stateful},
                                                    {"stateless", &stateless}};
  const auto grid = uniform_grid(0.25, 1.0, 3);

  const auto solution = solve_monolithic(subsystems, {}, 0.25, 1.0, grid, tight);

  const std::vector<std::string> expected{"stateful.start(0.250000)", "stateless.start(0.250000)",
                                          "stateful.initial_state", "stateless.initial_state"};
  EXPECT_EQ(log, expected);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    EXPECT_EQ(solution.outputs[0][k], 0.25);
    EXPECT_EQ(solution.outputs[1][k], 0.25);
  }

  // A system without states or events is not integrated at all; its models
  // still see start() then initial_state().
  log.clear();
  const std::vector<MonolithicSubsystem> alone{{"stateless", &stateless}};
  const auto algebraic = solve_monolithic(alone, {}, 0.5, 1.0, std::vector<double>{0.5, 1.0});
  EXPECT_EQ(log,
            (std::vector<std::string>{"stateless.start(0.500000)", "stateless.initial_state"}));
  EXPECT_EQ(algebraic.outputs[0], (std::vector<double>{0.5, 0.5}));
}

/// y = t, no states.
class Clock final : public Model {
 public:
  Clock() : description_(describe({}, {"t"}, {})) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double>) const override {}
  void outputs(double t, std::span<const double>, std::span<const double>,
               std::span<double> y) const override {
    y[0] = t;
  }

 private:
  ModelDescription description_;
};

/// No states; a state event when its input crosses `threshold` (the indicator
/// reads the input); y = number of crossings so far. Records the time and the
/// input it was given at each.
class Comparator final : public Model {
 public:
  explicit Comparator(double threshold)
      : description_(describe({"u"}, {"crossings"}, {})), threshold_(threshold) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double>) const override {}
  void outputs(double, std::span<const double>, std::span<const double>,
               std::span<double> y) const override {
    y[0] = static_cast<double>(times_.size());
  }
  std::size_t event_indicator_count() const override { return 1; }
  void event_indicators(double, std::span<const double>, std::span<const double> u,
                        std::span<double> indicators) const override {
    indicators[0] = u[0] - threshold_;
  }
  bool handle_event(double t, std::span<double>, std::span<const double> u) const override {
    times_.push_back(t);
    inputs_.push_back(u[0]);
    return false;
  }

  const std::vector<double>& times() const { return times_; }
  const std::vector<double>& inputs() const { return inputs_; }

 private:
  ModelDescription description_;
  double threshold_;
  mutable std::vector<double> times_, inputs_;
};

/// y = value, no states.
class Constant final : public Model {
 public:
  explicit Constant(double value) : description_(describe({}, {"y"}, {})), value_(value) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double>) const override {}
  void outputs(double, std::span<const double>, std::span<const double>,
               std::span<double> y) const override {
    y[0] = value_;
  }

 private:
  ModelDescription description_;
  double value_;
};

// zero → lag (x₀ = 1) → comparator at 0.5: y = e⁻ᵗ crosses 0.5 at ln 2.
TEST(MonolithicEvents, StateEventOnAConnectedInputIsLocated) {
  const Constant zero(0.0);
  const Lag lag(1.0);
  const Comparator comparator(0.5);
  const std::vector<MonolithicSubsystem> subsystems{
      {"zero", &zero}, {"lag", &lag}, {"comparator", &comparator}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}, {1, 0, 2, 0}};
  const auto grid = uniform_grid(0.0, 1.0, 100);

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 1.0, grid, tight);

  const double crossing = std::log(2.0);
  ASSERT_EQ(comparator.times().size(), 1u);
  EXPECT_NEAR(comparator.times()[0], crossing, 1e-9);
  // handle_event sees the input solved through the connection at the event.
  EXPECT_NEAR(comparator.inputs()[0], 0.5, 1e-9);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    EXPECT_EQ(solution.outputs[2][k], grid[k] < crossing ? 0.0 : 1.0) << "t = " << grid[k];
    EXPECT_NEAR(solution.outputs[1][k], std::exp(-grid[k]), 1e-9) << "t = " << grid[k];
  }
}

// clock → comparator at 0.6: no state at all, yet a state event to locate.
TEST(MonolithicEvents, StateEventInASystemWithoutStatesIsLocated) {
  const Clock clock;
  const Comparator comparator(0.6);
  const std::vector<MonolithicSubsystem> subsystems{{"clock", &clock}, {"comparator", &comparator}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}};
  const auto grid = uniform_grid(0.0, 1.0, 7);  // 0.6 is not on it

  const auto solution = solve_monolithic(subsystems, connections, 0.0, 1.0, grid, tight);

  ASSERT_EQ(comparator.times().size(), 1u);
  EXPECT_NEAR(comparator.times()[0], 0.6, 1e-9);
  EXPECT_NEAR(comparator.inputs()[0], 0.6, 1e-9);
  for (std::size_t k = 0; k < grid.size(); ++k) {
    EXPECT_EQ(solution.outputs[0][k], grid[k]);
    EXPECT_EQ(solution.outputs[1][k], grid[k] < 0.6 ? 0.0 : 1.0) << "t = " << grid[k];
  }
}

/// Announces a time event at `time` and never moves past it: handled there again
/// and again without time advancing.
class StuckTimeEvent final : public Model {
 public:
  explicit StuckTimeEvent(double time) : description_(describe({}, {"y"}, {"x"})), time_(time) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = 0.0; }
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = 1.0;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }
  double next_time_event() const override { return time_; }

 private:
  ModelDescription description_;
  double time_;
};

TEST(MonolithicEvents, TimeEventsThatNeverAdvanceAreNamedAsZeno) {
  const StuckTimeEvent stuck(0.5);
  const std::vector<MonolithicSubsystem> subsystems{{"stuck", &stuck}};
  try {
    solve_monolithic(subsystems, {}, 0.0, 1.0, uniform_grid(0.0, 1.0, 10));
    FAIL() << "expected a SlaveError";
  } catch (const SlaveError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'stuck'"), std::string::npos) << message;
    EXPECT_NE(message.find("t = 0.5"), std::string::npos) << message;
  }
}

/// Falls at unit speed; at the ground its event puts it back just above with the
/// same downward speed, so the next crossing follows at once (chattering).
class Chattering final : public Model {
 public:
  Chattering() : description_(describe({}, {"h"}, {"h"})) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = 0.25; }
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = -1.0;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }
  std::size_t event_indicator_count() const override { return 1; }
  void event_indicators(double, std::span<const double> x, std::span<const double>,
                        std::span<double> indicators) const override {
    indicators[0] = x[0];
  }
  bool handle_event(double, std::span<double> x, std::span<const double>) const override {
    x[0] = 1e-300;
    return true;
  }

 private:
  ModelDescription description_;
};

TEST(MonolithicEvents, StateEventsThatNeverLetTimeAdvanceAreNamedAsZeno) {
  const Chattering chattering;
  const std::vector<MonolithicSubsystem> subsystems{{"chattering", &chattering}};
  try {
    solve_monolithic(subsystems, {}, 0.0, 1.0, uniform_grid(0.0, 1.0, 10));
    FAIL() << "expected a SlaveError";
  } catch (const SlaveError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'chattering'"), std::string::npos) << message;
    EXPECT_NE(message.find("t = 0.25"), std::string::npos) << message;
  }
}

/// Throws from event_indicators (inside CVODE's root function) or from
/// handle_event (outside CVODE), as a failing FMU would.
class ThrowingEvents final : public Model {
 public:
  explicit ThrowingEvents(bool in_indicators)
      : description_(describe({}, {"h"}, {"h"})), in_indicators_(in_indicators) {}
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = 1.0; }
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = -1.0;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }
  std::size_t event_indicator_count() const override { return 1; }
  void event_indicators(double, std::span<const double> x, std::span<const double>,
                        std::span<double> indicators) const override {
    if (in_indicators_ && x[0] < 0.5) throw std::domain_error("indicator failed");
    indicators[0] = x[0] - 0.25;
  }
  bool handle_event(double, std::span<double>, std::span<const double>) const override {
    throw std::domain_error("event failed");
  }

 private:
  ModelDescription description_;
  bool in_indicators_;
};

TEST(MonolithicEvents, ModelExceptionsFromEventsPropagate) {
  const auto grid = uniform_grid(0.0, 1.0, 10);
  for (const bool in_indicators : {true, false}) {
    const ThrowingEvents model(in_indicators);
    const std::vector<MonolithicSubsystem> subsystems{{"thrower", &model}};
    try {
      solve_monolithic(subsystems, {}, 0.0, 1.0, grid);
      FAIL() << "expected the model's exception";
    } catch (const std::domain_error& error) {
      EXPECT_STREQ(error.what(), in_indicators ? "indicator failed" : "event failed");
    }
  }
}

}  // namespace
}  // namespace couplet::models
