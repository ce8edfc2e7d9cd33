// CVODE keeping its history across macro steps (SolverSettings::history = keep,
// models/cvode_solver.cpp): with an unchanged input, many macro steps give what one
// long integration gives, for far fewer right-hand-side evaluations than a restart
// at every step; a rolled-back step repeats bit for bit (save_state and
// restore_state both restart); the default restarts as before.
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

TEST(CvodeHistory, RollbackRepeatsBitForBit) {
  const Time h = 2'000'000;
  auto slave = make_ode_slave("oscillator", std::make_unique<CountingOscillator>(),
                              settings(CvodeHistory::keep));
  slave->setup(0);
  for (int k = 0; k < 5; ++k) step_held(*slave, k * h, (k + 1) * h);  // a history exists
  slave->save_state();
  const std::vector<double> first = step_held(*slave, 5 * h, 6 * h);
  const std::vector<double> second = step_held(*slave, 6 * h, 7 * h);
  const std::vector<double> third = step_held(*slave, 7 * h, 8 * h);
  slave->restore_state();
  EXPECT_EQ(step_held(*slave, 5 * h, 6 * h), first);
  EXPECT_EQ(step_held(*slave, 6 * h, 7 * h), second);
  EXPECT_EQ(step_held(*slave, 7 * h, 8 * h), third);

  // Only the step right after a save restarts: without the save, the history
  // continues through 5 h and the bits differ.
  auto unsaved = make_ode_slave("oscillator", std::make_unique<CountingOscillator>(),
                                settings(CvodeHistory::keep));
  unsaved->setup(0);
  for (int k = 0; k < 5; ++k) step_held(*unsaved, k * h, (k + 1) * h);
  const std::vector<double> continued = step_held(*unsaved, 5 * h, 6 * h);
  EXPECT_NE(continued, first);
  EXPECT_NEAR(continued[0], first[0], 1e-6);
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
