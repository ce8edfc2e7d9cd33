// Extrapolated inputs of the fixed-step masters (Kraft & Schweizer's explicit
// co-simulation scheme, §2.3): each input is the Lagrange polynomial of order k
// through the source's last k + 1 communication values, the order reduced while
// fewer exist; `history` seeds values before the start.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "runtime/algorithms/gauss_seidel.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/executor.hpp"
#include "runtime/system.hpp"

namespace couplet {
namespace {

constexpr double kStep = 0.1;

/// y = t² − t: no inputs, no reported derivatives (extrapolated inputs need none).
class QuadraticSource final : public Slave {
 public:
  QuadraticSource() { description_.outputs = {{"y", false}}; }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> out) override {
    out[0] = value();
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    time_ = request.end;
    result.end_outputs[0] = value();
  }
  static double at(double t) { return t * t - t; }

 private:
  double value() const { return at(to_seconds(time_)); }
  SlaveDescription description_;
  Time time_ = 0;
};

/// Records the input polynomial of every step.
class InputRecorder final : public Slave {
 public:
  explicit InputRecorder(std::vector<Polynomial>& seen) : seen_(seen) {
    description_.inputs = {{"u"}};
    description_.outputs = {{"y", false}};
    description_.capabilities.max_input_degree = 7;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override {}
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> out) override {
    out[0] = 0.0;
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    seen_.push_back(request.inputs[0]);
    result.end_outputs[0] = 0.0;
  }

 private:
  std::vector<Polynomial>& seen_;
  SlaveDescription description_;
};

std::vector<Polynomial> run(FixedStepAlgorithm& algorithm, double end) {
  std::vector<Polynomial> seen;
  System system;
  system.add_slave("source", std::make_unique<QuadraticSource>());
  system.add_slave("sink", std::make_unique<InputRecorder>(seen));
  system.connect("source.y", "sink.u");
  Executor executor(system, algorithm, 0, to_ticks(end), {});
  executor.initialize();
  while (executor.advance()) {
  }
  return seen;
}

FixedStepSettings extrapolated(int order, std::vector<OutputHistorySeed> history = {}) {
  FixedStepSettings settings;
  settings.step = to_ticks(kStep);
  settings.input_order = order;
  settings.inputs = InputMode::extrapolated;
  settings.history = std::move(history);
  return settings;
}

TEST(ExtrapolatedInputs, OrderTwoReproducesAQuadraticSourceOnceThreeValuesExist) {
  Jacobi jacobi(extrapolated(2));
  const std::vector<Polynomial> seen = run(jacobi, 0.5);
  ASSERT_EQ(seen.size(), 5U);
  // Step 1: one value, ZOH at y(0); step 2: the line through y(0), y(0.1).
  EXPECT_EQ(seen[0].degree(), 0);
  EXPECT_DOUBLE_EQ(seen[0].value(0.1), QuadraticSource::at(0.0));
  EXPECT_EQ(seen[1].degree(), 1);
  EXPECT_NEAR(seen[1].value(0.2), 2 * QuadraticSource::at(0.1) - QuadraticSource::at(0.0), 1e-15);
  // From step 3 on: the source itself.
  for (std::size_t n = 2; n < seen.size(); ++n) {
    const double start = 0.1 * static_cast<double>(n);
    for (const double t : {start, start + 0.05, start + 0.1}) {
      EXPECT_NEAR(seen[n].value(t), QuadraticSource::at(t), 1e-14) << "step " << n << ", t = " << t;
    }
  }
}

TEST(ExtrapolatedInputs, GaussSeidelInterpolatesASourceThatAlreadyStepped) {
  GaussSeidel gauss_seidel(extrapolated(1));
  const std::vector<Polynomial> seen = run(gauss_seidel, 0.3);
  ASSERT_EQ(seen.size(), 3U);
  // The source stepped first: the sink's input is the chord over its own step.
  for (std::size_t n = 0; n < seen.size(); ++n) {
    const double start = 0.1 * static_cast<double>(n);
    EXPECT_NEAR(seen[n].value(start), QuadraticSource::at(start), 1e-15);
    EXPECT_NEAR(seen[n].value(start + 0.1), QuadraticSource::at(start + 0.1), 1e-15);
  }
}

TEST(ExtrapolatedInputs, SeededHistoryGivesTheFullOrderFromTheFirstStep) {
  Jacobi jacobi(
      extrapolated(2, {{"source.y", {QuadraticSource::at(-0.1), QuadraticSource::at(-0.2)}}}));
  const std::vector<Polynomial> seen = run(jacobi, 0.1);
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].degree(), 2);
  EXPECT_NEAR(seen[0].value(0.1), QuadraticSource::at(0.1), 1e-15);
}

TEST(ExtrapolatedInputs, SeedOfAnUnknownOutputIsRefusedByName) {
  Jacobi jacobi(extrapolated(1, {{"source.z", {1.0}}}));
  try {
    run(jacobi, 0.1);
    FAIL() << "no error";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("'source.z'"), std::string::npos) << error.what();
  }
}

TEST(ExtrapolatedInputs, TaylorInputsTakeNoHistory) {
  FixedStepSettings settings = extrapolated(1, {{"source.y", {1.0}}});
  settings.inputs = InputMode::taylor;
  EXPECT_THROW(Jacobi{settings}, ConfigurationError);
}

}  // namespace
}  // namespace couplet
