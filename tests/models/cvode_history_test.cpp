// CVODE keeping its history across macro steps (SolverSettings::history = keep,
// models/cvode_solver.cpp): with an unchanged input, many macro steps give what one
// long integration gives, for far fewer right-hand-side evaluations than a restart
// at every step; each attempt from a saved state (save_state, restore_state)
// continues a history of its own; the default restarts as before, and a
// rolled-back step then repeats bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/ode_slave.hpp"

// Heap-allocation counter (support/malloc_counter.hpp): every allocation of the
// process, SUNDIALS' included.
#include "support/malloc_counter.hpp"

namespace couplet::models {
namespace {

/// A damped oscillator with a cubic spring, ṗ = v, v̇ = −k p − κ p³ − c v + u:
/// nonlinear (no linear form, so CVODE's Jacobian comes from difference quotients,
/// which count too), smooth, and counting its right-hand-side evaluations.
class CountingOscillator final : public Model {
 public:
  CountingOscillator() {
    description_.name = "test.counting_oscillator";
    description_.inputs = {"force"};
    description_.outputs = {{"p", false}, {"v", false}};
    description_.states = {"p", "v"};
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override {
    x[0] = 0.5;
    x[1] = 0.0;
  }
  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    ++evaluations;
    dxdt[0] = x[1];
    dxdt[1] = -40.0 * x[0] - 10.0 * x[0] * x[0] * x[0] - 0.5 * x[1] + u[0];
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
    y[1] = x[1];
  }

  mutable long evaluations = 0;

 private:
  ModelDescription description_;
};

constexpr double kTolerance = 1e-9;

SolverSettings settings(CvodeHistory history, double tolerance = kTolerance) {
  SolverSettings result;
  result.relative_tolerance = tolerance;
  result.absolute_tolerance = tolerance;
  result.history = history;
  return result;
}

struct Result {
  std::array<double, 2> end{};
  long evaluations = 0;
};

/// [0, steps · h] in `steps` macro steps under a constant force of 2 N.
Result run(CvodeHistory history, Time h, int steps, double tolerance = kTolerance) {
  auto model = std::make_unique<CountingOscillator>();
  const CountingOscillator& counter = *model;
  auto slave = make_ode_slave("oscillator", std::move(model), settings(history, tolerance));
  slave->setup(0);
  std::array<double, 2> outputs{};
  for (int k = 0; k < steps; ++k) {
    const std::array<Polynomial, 1> inputs{Polynomial::constant(to_seconds(k * h), 2.0)};
    slave->step({k * h, (k + 1) * h, inputs, {}}, {outputs, {}});
  }
  return {outputs, counter.evaluations};
}

double error(const Result& result, const Result& exact) {
  return std::max(std::abs(result.end[0] - exact.end[0]), std::abs(result.end[1] - exact.end[1]));
}

TEST(CvodeHistory, KeptHistoryMatchesOneLongIntegrationForFarFewerEvaluations) {
  const Time h = 1'000'000;  // 1 ms, 2 s in all: about 2 periods
  const int steps = 2000;
  const Result exact = run(CvodeHistory::restart, steps * h, 1, 1e-13);
  const Result once = run(CvodeHistory::restart, steps * h, 1);
  const Result kept = run(CvodeHistory::keep, h, steps);
  const Result restarted = run(CvodeHistory::restart, h, steps);
  std::printf("errors: once %.3g kept %.3g restarted %.3g; evaluations %ld %ld %ld\n",
              error(once, exact), error(kept, exact), error(restarted, exact), once.evaluations,
              kept.evaluations, restarted.evaluations);
  EXPECT_LT(error(kept, exact), 3.0 * error(once, exact));
  EXPECT_LT(error(kept, exact), error(restarted, exact));
  // A restart costs an order-1 start and its ramp-up at every step.
  EXPECT_LT(3 * kept.evaluations, restarted.evaluations)
      << kept.evaluations << " vs " << restarted.evaluations;
}

/// Steps with a force that jumps at every communication time (a zero-order hold).
std::vector<double> step_held(Slave& slave, Time start, Time end) {
  const std::array<Polynomial, 1> inputs{
      Polynomial::constant(to_seconds(start), 3.0 * std::sin(20.0 * to_seconds(start)))};
  std::vector<double> outputs(2, 0.0);
  slave.step({start, end, inputs, {}}, {outputs, {}});
  return outputs;
}

TEST(CvodeHistory, RestartingRollbackRepeatsBitForBit) {
  const Time h = 2'000'000;
  auto slave = make_ode_slave("oscillator", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::restart));
  slave->setup(0);
  for (int k = 0; k < 5; ++k) step_held(*slave, k * h, (k + 1) * h);
  slave->save_state();
  const std::vector<double> first = step_held(*slave, 5 * h, 6 * h);
  const std::vector<double> second = step_held(*slave, 6 * h, 7 * h);
  slave->restore_state();
  EXPECT_EQ(step_held(*slave, 5 * h, 6 * h), first);
  EXPECT_EQ(step_held(*slave, 6 * h, 7 * h), second);
}

/// One macro step as the semi-implicit scheme makes it: save, a predictor with
/// the held force f, restore, a perturbed predictor with f + 1, restore, and
/// the corrector with f + 0.01 (the accepted step), whose outputs it leaves.
void step_three_times_into(Slave& slave, Time start, Time end, std::span<double> outputs) {
  const double t = to_seconds(start);
  const double force = 3.0 * std::sin(20.0 * t);
  slave.save_state();
  for (const double change : {0.0, 1.0, 0.01}) {
    if (change != 0.0) slave.restore_state();
    const std::array<Polynomial, 1> inputs{Polynomial::constant(t, force + change)};
    slave.step({start, end, inputs, {}}, {outputs, {}});
  }
}

std::vector<double> step_three_times(Slave& slave, Time start, Time end) {
  std::vector<double> outputs(2, 0.0);
  step_three_times_into(slave, start, end, outputs);
  return outputs;
}

/// The corrector's force alone, for the reference.
std::vector<double> step_accepted(Slave& slave, Time start, Time end) {
  const double t = to_seconds(start);
  const std::array<Polynomial, 1> inputs{Polynomial::constant(t, 3.0 * std::sin(20.0 * t) + 0.01)};
  std::vector<double> outputs(2, 0.0);
  slave.step({start, end, inputs, {}}, {outputs, {}});
  return outputs;
}

TEST(CvodeHistory, EachAttemptFromASavedStateContinuesAHistoryOfItsOwn) {
  // Three integrations from every saved state. Restarting, each costs CVODE's
  // order-1 start; kept, each continues the history of its attempt's lane (the
  // predictor's, the perturbed predictor's, the corrector's), taken to the
  // restored state. The accepted solution stays within the tolerance of a far
  // tighter reference, and two slaves given the same calls agree bit for bit.
  const Time h = 2'000'000;
  const int steps = 300;
  auto exact = make_ode_slave("exact", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::restart, 1e-13));
  auto kept_model = std::make_unique<CountingOscillator>();
  const CountingOscillator& kept_counter = *kept_model;
  auto kept = make_ode_slave("kept", std::move(kept_model), settings(CvodeHistory::keep));
  auto again =
      make_ode_slave("again", std::make_unique<CountingOscillator>(), settings(CvodeHistory::keep));
  auto restarted_model = std::make_unique<CountingOscillator>();
  const CountingOscillator& restarted_counter = *restarted_model;
  auto restarted =
      make_ode_slave("restarted", std::move(restarted_model), settings(CvodeHistory::restart));
  for (Slave* slave : {exact.get(), kept.get(), again.get(), restarted.get()}) slave->setup(0);
  double kept_error = 0.0, restarted_error = 0.0;
  bool same_bits = true;
  for (int k = 0; k < steps; ++k) {
    const std::vector<double> x = step_accepted(*exact, k * h, (k + 1) * h);
    const std::vector<double> a = step_three_times(*kept, k * h, (k + 1) * h);
    same_bits = same_bits && step_three_times(*again, k * h, (k + 1) * h) == a;
    const std::vector<double> b = step_three_times(*restarted, k * h, (k + 1) * h);
    for (std::size_t i = 0; i < 2; ++i) {
      kept_error = std::max(kept_error, std::abs(a[i] - x[i]));
      restarted_error = std::max(restarted_error, std::abs(b[i] - x[i]));
    }
  }
  std::printf("largest errors: kept %.3g restarted %.3g; evaluations kept %ld restarted %ld\n",
              kept_error, restarted_error, kept_counter.evaluations, restarted_counter.evaluations);
  EXPECT_TRUE(same_bits);
  EXPECT_LT(kept_error, 1000.0 * kTolerance);
  EXPECT_LT(kept_error, 10.0 * restarted_error);
  EXPECT_LT(2 * kept_counter.evaluations, restarted_counter.evaluations)
      << kept_counter.evaluations << " vs " << restarted_counter.evaluations;
}

TEST(CvodeHistory, AReRunAfterARestoreContinuesAnotherLane) {
  // The re-run of a step with the same inputs continues the second lane's
  // history, not the first's: deterministic, within the tolerance of the first
  // run, but not its bits (a restarting solver repeats them).
  const Time h = 2'000'000;
  auto slave = make_ode_slave("oscillator", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::keep));
  slave->setup(0);
  for (int k = 0; k < 5; ++k) step_three_times(*slave, k * h, (k + 1) * h);
  slave->save_state();
  const std::vector<double> first = step_held(*slave, 5 * h, 6 * h);
  slave->restore_state();
  const std::vector<double> second = step_held(*slave, 5 * h, 6 * h);
  EXPECT_NE(second, first);
  EXPECT_NEAR(second[0], first[0], 1e-7);
  EXPECT_NEAR(second[1], first[1], 1e-6);
}

TEST(CvodeHistory, KeptHistoryFollowsAJumpingInputAsAccuratelyAsARestart) {
  // The held force jumps at every communication time: CVODE continues with its
  // first history column reloaded (renew_slope). Against a restarting run at a
  // far tighter tolerance, it is no less accurate than restarting.
  const Time h = 2'000'000;
  auto exact = make_ode_slave("exact", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::restart, 1e-13));
  auto kept =
      make_ode_slave("kept", std::make_unique<CountingOscillator>(), settings(CvodeHistory::keep));
  auto restarted = make_ode_slave("restarted", std::make_unique<CountingOscillator>(),
                                  settings(CvodeHistory::restart));
  exact->setup(0);
  kept->setup(0);
  restarted->setup(0);
  double kept_error = 0.0, restarted_error = 0.0;
  for (int k = 0; k < 500; ++k) {
    const std::vector<double> x = step_held(*exact, k * h, (k + 1) * h);
    const std::vector<double> a = step_held(*kept, k * h, (k + 1) * h);
    const std::vector<double> b = step_held(*restarted, k * h, (k + 1) * h);
    for (std::size_t i = 0; i < 2; ++i) {
      kept_error = std::max(kept_error, std::abs(a[i] - x[i]));
      restarted_error = std::max(restarted_error, std::abs(b[i] - x[i]));
    }
  }
  std::printf("largest errors: kept %.3g restarted %.3g\n", kept_error, restarted_error);
  EXPECT_LT(kept_error, restarted_error);
  EXPECT_LT(kept_error, 1000.0 * kTolerance);
}

TEST(CvodeHistory, ContinuedStepsDoNotAllocate) {
  const Time h = 2'000'000;
  auto slave = make_ode_slave("oscillator", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::keep));
  slave->setup(0);
  std::array<double, 2> outputs{};
  const std::array<Polynomial, 1> inputs{Polynomial::constant(0.0, 1.0)};
  slave->step({0, h, inputs, {}}, {outputs, {}});
  couplet::testing::malloc_count = 0;
  couplet::testing::counting_mallocs = true;
  for (Time t = h; t < 100 * h; t += h) slave->step({t, t + h, inputs, {}}, {outputs, {}});
  // Every lane continuing after a save and restores (all of them made in setup).
  for (Time t = 100 * h; t < 200 * h; t += h) step_three_times_into(*slave, t, t + h, outputs);
  couplet::testing::counting_mallocs = false;
  EXPECT_EQ(couplet::testing::malloc_count.load(), 0);
}

/// The counting oscillator with bounces: at each announced time event the
/// velocity reverses (handle_event changes x).
class BouncingOscillator final : public Model {
 public:
  explicit BouncingOscillator(std::vector<double> bounces) : bounces_(std::move(bounces)) {
    description_ = inner_.description();
    description_.name = "test.bouncing_oscillator";
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { inner_.initial_state(x); }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    inner_.derivatives(t, x, u, dxdt);
  }
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    inner_.outputs(t, x, u, y);
  }
  double next_time_event() const override {
    return next_ < bounces_.size() ? bounces_[next_] : std::numeric_limits<double>::infinity();
  }
  bool handle_event(double, std::span<double> x, std::span<const double>) const override {
    ++next_;
    x[1] = -x[1];
    return true;
  }

 private:
  CountingOscillator inner_;
  std::vector<double> bounces_;
  mutable std::size_t next_ = 0;
  ModelDescription description_;
};

TEST(CvodeHistory, TimeEventsThatChangeTheStateRestart) {
  // One bounce at a communication time (10 h), one inside a step (15.5 h): the
  // kept history must restart after both, or CVODE would step on from the
  // velocity before the reversal.
  const Time h = 2'000'000;
  const std::vector<double> bounces{to_seconds(10 * h), to_seconds(31 * h / 2)};
  auto kept = make_ode_slave("kept", std::make_unique<BouncingOscillator>(bounces),
                             settings(CvodeHistory::keep));
  auto restarted = make_ode_slave("restarted", std::make_unique<BouncingOscillator>(bounces),
                                  settings(CvodeHistory::restart));
  kept->setup(0);
  restarted->setup(0);
  double largest = 0.0;
  for (int k = 0; k < 40; ++k) {
    const std::vector<double> a = step_held(*kept, k * h, (k + 1) * h);
    const std::vector<double> b = step_held(*restarted, k * h, (k + 1) * h);
    for (std::size_t i = 0; i < 2; ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  }
  EXPECT_LT(largest, 1e-6);
}

TEST(CvodeHistory, RestartIsTheDefault) {
  EXPECT_EQ(SolverSettings{}.history, CvodeHistory::restart);
}

}  // namespace
}  // namespace couplet::models
