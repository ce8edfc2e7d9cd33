// The F3ORNITS master on synthetic slaves: the order function in a run, degree
// reduction, C¹ smoothing on the polynomials actually sent, NI/NO/NINO slaves,
// no rollback, determinism, bad settings.
#include "runtime/algorithms/f3ornits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "runtime/executor.hpp"

namespace couplet {
namespace {

/// NI: one output y = f(t), no state, no inputs.
class FunctionSource final : public Slave {
 public:
  FunctionSource(std::function<double(double)> function, SlaveCapabilities capabilities = {})
      : function_(std::move(function)) {
    description_.outputs = {{"y", false}};
    description_.capabilities = capabilities;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> outputs) override {
    outputs[0] = function_(to_seconds(time_));
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    check_step_request("source", description_, time_, request);
    time_ = request.end;
    result.end_outputs[0] = function_(to_seconds(time_));
  }

 private:
  std::function<double(double)> function_;
  SlaveDescription description_;
  Time time_ = 0;
};

/// NO (or NINO with no inputs): records every step request it receives.
class RecordingSink final : public Slave {
 public:
  struct Request {
    Time start, end;
    std::vector<Polynomial> inputs;
  };
  RecordingSink(std::size_t inputs, SlaveCapabilities capabilities) {
    for (std::size_t i = 0; i < inputs; ++i) description_.inputs.push_back({std::string("u").append(std::to_string(i))});
    description_.capabilities = capabilities;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double>) override {}
  void step(const StepRequest& request, const OutputBuffers&) override {
    check_step_request("sink", description_, time_, request);
    time_ = request.end;
    requests.push_back({request.start, request.end, {request.inputs.begin(), request.inputs.end()}});
  }
  std::vector<Request> requests;

 private:
  SlaveDescription description_;
  Time time_ = 0;
};

SlaveCapabilities accepting(int degree, Time imposed_step = 0) {
  SlaveCapabilities capabilities;
  capabilities.max_input_degree = degree;
  capabilities.imposed_step = imposed_step;
  capabilities.variable_step = imposed_step == 0;
  return capabilities;
}

struct Bench {
  System system;
  RecordingSink* sink = nullptr;
  std::unique_ptr<F3ornits> algorithm;
  std::unique_ptr<Executor> executor;

  void run(const F3ornitsSettings& settings, double end_seconds,
           const std::function<void(const F3ornits&)>& after_each_plan = {}) {
    algorithm = std::make_unique<F3ornits>(settings);
    executor = std::make_unique<Executor>(system, *algorithm, 0, to_ticks(end_seconds), std::vector<Time>{});
    executor->initialize();
    while (executor->advance()) {
      if (after_each_plan) after_each_plan(*algorithm);
    }
  }
};

Bench source_and_sink(std::function<double(double)> function, int sink_degree, Time sink_step = 0) {
  Bench bench;
  bench.system.add_slave("source", std::make_unique<FunctionSource>(std::move(function)));
  auto sink = std::make_unique<RecordingSink>(1, accepting(sink_degree, sink_step));
  bench.sink = sink.get();
  bench.system.add_slave("sink", std::move(sink));
  bench.system.connect("source.y", "sink.u0");
  return bench;
}

F3ornitsSettings loose_settings() {
  F3ornitsSettings settings;
  settings.time_stepper.tol_rel = 1e-3;
  settings.time_stepper.tol_abs = 1e-6;
  return settings;
}

// The test on a synthetic slave: an output that is a polynomial of degree
// q ≤ M gets degree q from the order function, once enough points exist.
TEST(F3ornitsMaster, OrderFunctionFindsThePolynomialDegreeOfAnOutput) {
  const std::vector<std::function<double(double)>> outputs{
      [](double) { return 2.5; }, [](double t) { return 1.0 - 3.0 * t; },
      [](double t) { return 0.5 + t - 4.0 * t * t; }};
  for (int degree = 0; degree <= 2; ++degree) {
    Bench bench = source_and_sink(outputs[static_cast<std::size_t>(degree)], 7);
    int checked = 0;
    bench.run(loose_settings(), 2.0, [&](const F3ornits& algorithm) {
      const F3ornitsOutputRecord& record = algorithm.last_decision().output_records[algorithm.output_index(0, 0)];
      if (record.order.candidates > degree) {
        EXPECT_EQ(record.order.degree, degree) << "at " << record.time;
        ++checked;
      }
    });
    EXPECT_GT(checked, 5) << degree;
    // And the polynomial inputs sent then reproduce the output exactly.
    const RecordingSink::Request& last = bench.sink->requests.back();
    EXPECT_EQ(last.inputs[0].degree(), degree);
    EXPECT_NEAR(last.inputs[0].value(to_seconds(last.end)), outputs[static_cast<std::size_t>(degree)](to_seconds(last.end)),
                1e-9);
  }
}

// Eq. 16: a slave accepting degree 1 never receives more, and a ZOH-only one
// receives constants, whatever the order function chose.
TEST(F3ornitsMaster, InputDegreeIsReducedToWhatTheSlaveAccepts) {
  for (int accepted = 0; accepted <= 1; ++accepted) {
    Bench bench = source_and_sink([](double t) { return std::sin(3.0 * t); }, accepted);
    bench.run(loose_settings(), 3.0);
    ASSERT_GT(bench.sink->requests.size(), 10U);
    int highest = 0;
    for (const auto& request : bench.sink->requests) highest = std::max(highest, request.inputs[0].degree());
    EXPECT_EQ(highest, accepted);
    // Recalibrated, not truncated: the input starts at the source's value.
    const auto& request = bench.sink->requests.back();
    EXPECT_NEAR(request.inputs[0].value(to_seconds(request.start)), std::sin(3.0 * to_seconds(request.start)), 1e-12);
  }
}

// The time-stepper measures the error of what the target received: a ZOH-only
// target makes its source communicate far more often than a degree-2 one.
TEST(F3ornitsMaster, StepsSuitTheDegreeTheTargetReceived) {
  std::size_t requests[3] = {};
  for (int accepted = 0; accepted <= 2; ++accepted) {
    Bench bench = source_and_sink([](double t) { return std::sin(3.0 * t); }, accepted);
    bench.run(loose_settings(), 3.0);
    requests[accepted] = bench.sink->requests.size();
  }
  EXPECT_GT(requests[0], 3 * requests[1]);
  EXPECT_GT(requests[1], requests[2]);
}

// Smoothing makes inputs C¹ at every communication time, on the polynomials sent.
TEST(F3ornitsMaster, SmoothedInputsAreC1AtEveryCommunicationTime) {
  Bench bench = source_and_sink([](double t) { return std::sin(2.0 * t) + 0.3 * t; }, 3);
  F3ornitsSettings settings = loose_settings();
  settings.smoothing = true;
  bench.run(settings, 5.0);
  const auto& requests = bench.sink->requests;
  ASSERT_GT(requests.size(), 20U);
  for (std::size_t k = 1; k < requests.size(); ++k) {
    const double t = to_seconds(requests[k].start);
    ASSERT_EQ(requests[k].start, requests[k - 1].end);
    const Polynomial& before = requests[k - 1].inputs[0];
    const Polynomial& after = requests[k].inputs[0];
    EXPECT_EQ(after.degree(), 3);
    EXPECT_NEAR(after.value(t), before.value(t), 1e-12) << "at " << t;
    EXPECT_NEAR(after.derivative(t), before.derivative(t), 1e-9) << "at " << t;
  }
  // Without smoothing the raw inputs jump (so the check above can fail).
  Bench raw = source_and_sink([](double t) { return std::sin(2.0 * t) + 0.3 * t; }, 3);
  raw.run(loose_settings(), 5.0);
  double largest_slope_jump = 0.0;
  for (std::size_t k = 1; k < raw.sink->requests.size(); ++k) {
    const double t = to_seconds(raw.sink->requests[k].start);
    largest_slope_jump = std::max(largest_slope_jump, std::abs(raw.sink->requests[k].inputs[0].derivative(t) -
                                                               raw.sink->requests[k - 1].inputs[0].derivative(t)));
  }
  EXPECT_GT(largest_slope_jump, 1e-6);
}

TEST(F3ornitsMaster, SmoothingOnASlaveAcceptingLessThanDegreeThreeNamesIt) {
  Bench bench = source_and_sink([](double t) { return t; }, 2);
  F3ornitsSettings settings = loose_settings();
  settings.smoothing = true;
  try {
    bench.run(settings, 1.0);
    FAIL() << "accepted";
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'sink'"), std::string::npos) << message;
    EXPECT_NE(message.find("algorithm.smoothing"), std::string::npos) << message;
  }
}

// NI, NO and NINO slaves in one run, none able to roll back (the defaults of
// Slave throw on save/restore): the run ends at t_end, the NINO slave in one step.
TEST(F3ornitsMaster, SlavesWithoutInputsOrOutputsRunToTheEndWithoutRollback) {
  Bench bench = source_and_sink([](double t) { return std::cos(t); }, 2);
  auto lonely = std::make_unique<RecordingSink>(0, accepting(0));
  RecordingSink* nino = lonely.get();
  bench.system.add_slave("nino", std::move(lonely));
  bench.run(loose_settings(), 4.0);
  EXPECT_EQ(bench.executor->frontier(), to_ticks(4.0));
  EXPECT_EQ(bench.executor->counters().rollbacks, 0U);
  ASSERT_EQ(nino->requests.size(), 1U);  // eq. 39: it proposes t_end
  EXPECT_EQ(nino->requests[0].end, to_ticks(4.0));
  EXPECT_EQ(bench.sink->requests.back().end, to_ticks(4.0));
  // The sink (NO) is clipped by its source's communications only.
  const F3ornitsDecision& decision = bench.algorithm->last_decision();
  EXPECT_EQ(decision.slave_records[2].proposal, to_ticks(4.0));
}

TEST(F3ornitsMaster, StepsAreWholeTicksAndNeverPassTheEnd) {
  Bench bench = source_and_sink([](double t) { return std::exp(-t) * std::sin(7.0 * t); }, 2);
  bench.run(loose_settings(), 1.2345678901);
  Time previous = 0;
  for (const auto& request : bench.sink->requests) {
    EXPECT_EQ(request.start, previous);
    EXPECT_GT(request.end, request.start);
    previous = request.end;
  }
  EXPECT_EQ(previous, to_ticks(1.2345678901));
}

TEST(F3ornitsMaster, SameRunSameDecisions) {
  const auto hash = [](double tol) {
    Bench bench = source_and_sink([](double t) { return std::sin(t) * std::sin(5.0 * t); }, 3);
    F3ornitsSettings settings = loose_settings();
    settings.time_stepper.tol_rel = tol;
    bench.run(settings, 3.0);
    return bench.executor->decision_hash();
  };
  EXPECT_EQ(hash(1e-3), hash(1e-3));
  EXPECT_NE(hash(1e-3), hash(2e-3));
}

TEST(F3ornitsMaster, BadSettingsNameTheKey) {
  const auto message = [](auto change) {
    F3ornitsSettings settings;
    change(settings);
    try {
      F3ornits algorithm(settings);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message([](F3ornitsSettings& s) { s.max_degree = 8; }).find("algorithm.max_degree"), std::string::npos);
  EXPECT_NE(message([](F3ornitsSettings& s) { s.initial_step = 0.0; }).find("algorithm.initial_step"),
            std::string::npos);
  EXPECT_NE(message([](F3ornitsSettings& s) { s.time_stepper.rho_max = 0.5; }).find("algorithm.rho_max"),
            std::string::npos);
  EXPECT_EQ(message([](F3ornitsSettings&) {}), "accepted");
}

}  // namespace
}  // namespace couplet
