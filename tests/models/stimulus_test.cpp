// The stimuli of the catalog (models/stimulus.cpp, models/stimulus_table.cpp)
// against their closed forms: values and derivatives at and around their
// breakpoints (the new value holds from the breakpoint on), the time events they
// announce, their use as slaves with every solver and in the monolithic
// reference, the table's interpolation and its refused files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/polynomial.hpp"
#include "models/catalog.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"
#include "models/stimulus_table.hpp"

namespace couplet::models {
namespace {

constexpr double kJustAround = 1e-6;  // seconds: a thousand ticks off a breakpoint

std::unique_ptr<Model> stimulus(const std::string& name, const ParameterValues& overrides = {}) {
  return ModelCatalog::builtin().create(name, overrides);
}

double value_at(const Model& model, double t) {
  std::array<double, 1> y{};
  model.outputs(t, {}, {}, y);
  return y[0];
}

/// d^k y / dt^k for k = 1..3 at t.
std::array<double, 3> derivatives_at(const Model& model, double t) {
  std::array<double, 3> rows{};
  model.output_derivatives(t, {}, {}, 3, rows);
  return rows;
}

std::string refusal(const std::string& name, const ParameterValues& overrides) {
  try {
    stimulus(name, overrides);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(Stimulus, EveryStimulusHasOutputYAndNoInputOrState) {
  for (const char* name :
       {"stimulus.constant", "stimulus.step", "stimulus.ramp", "stimulus.sine", "stimulus.pulse"}) {
    const std::unique_ptr<Model> model = stimulus(name);
    ASSERT_EQ(model->output_count(), 1u) << name;
    EXPECT_EQ(model->description().outputs[0].name, "y") << name;
    EXPECT_FALSE(model->description().outputs[0].direct_feedthrough) << name;
    EXPECT_EQ(model->input_count(), 0u) << name;
    EXPECT_EQ(model->state_count(), 0u) << name;
    EXPECT_EQ(model->output_derivative_order(), 3) << name;
  }
}

TEST(Stimulus, ParameterNamesAndDefaultsAreTheInterface) {
  const std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> expected{
      {"stimulus.constant", {{"value", 1}}},
      {"stimulus.step", {{"time", 1}, {"initial", 0}, {"final", 1}}},
      {"stimulus.ramp", {{"start", 0}, {"stop", 1}, {"initial", 0}, {"final", 1}}},
      {"stimulus.sine", {{"amplitude", 1}, {"frequency", 1}, {"phase", 0}, {"offset", 0}}},
      {"stimulus.pulse", {{"period", 1}, {"width", 0.5}, {"low", 0}, {"high", 1}, {"start", 0}}},
  };
  const ModelCatalog catalog = ModelCatalog::builtin();
  for (const auto& [name, parameters] : expected) {
    std::vector<std::pair<std::string, double>> actual;
    for (const ParameterDescription& parameter : catalog.find(name).description.parameters)
      actual.emplace_back(parameter.name, parameter.default_value);
    EXPECT_EQ(actual, parameters) << name;
  }
}

TEST(Stimulus, ConstantIsItsValueWithZeroDerivatives) {
  const auto model = stimulus("stimulus.constant", {{"value", -2.5}});
  EXPECT_EQ(value_at(*model, 0.0), -2.5);
  EXPECT_EQ(value_at(*model, 1e6), -2.5);
  EXPECT_EQ(derivatives_at(*model, 3.0), (std::array<double, 3>{0, 0, 0}));
  EXPECT_TRUE(model->time_events().empty());
}

TEST(Stimulus, StepTakesTheFinalValueFromItsTimeOn) {
  const auto model = stimulus("stimulus.step", {{"time", 0.3}, {"initial", 2}, {"final", -5}});
  EXPECT_EQ(value_at(*model, 0.0), 2.0);
  EXPECT_EQ(value_at(*model, 0.3 - kJustAround), 2.0);
  EXPECT_EQ(value_at(*model, 0.3), -5.0);
  // The master's tick times: 0.3 s converted from 300 000 000 ns is the breakpoint.
  EXPECT_EQ(value_at(*model, to_seconds(300'000'000)), -5.0);
  EXPECT_EQ(value_at(*model, 0.3 - 1e-10), -5.0);  // within half a tick: the breakpoint
  EXPECT_EQ(value_at(*model, 0.3 + kJustAround), -5.0);
  EXPECT_EQ(derivatives_at(*model, 0.3), (std::array<double, 3>{0, 0, 0}));
  ASSERT_EQ(model->time_events().size(), 1u);
  EXPECT_EQ(model->time_events()[0], 0.3);
}

TEST(Stimulus, RampIsLinearBetweenStartAndStopWithItsSlopeAsDerivative) {
  const auto model =
      stimulus("stimulus.ramp", {{"start", 1}, {"stop", 3}, {"initial", 4}, {"final", 0}});
  const double slope = -2.0;
  EXPECT_EQ(value_at(*model, 1 - kJustAround), 4.0);
  EXPECT_EQ(derivatives_at(*model, 1 - kJustAround)[0], 0.0);
  EXPECT_EQ(value_at(*model, 1.0), 4.0);
  EXPECT_EQ(derivatives_at(*model, 1.0)[0], slope);  // the new segment from the breakpoint on
  EXPECT_DOUBLE_EQ(value_at(*model, 1.5), 3.0);
  EXPECT_DOUBLE_EQ(value_at(*model, 2.25), 1.5);
  EXPECT_EQ(derivatives_at(*model, 2.25), (std::array<double, 3>{slope, 0, 0}));
  EXPECT_NEAR(value_at(*model, 3 - kJustAround), 2 * kJustAround, 1e-12);
  EXPECT_EQ(derivatives_at(*model, 3 - kJustAround)[0], slope);
  EXPECT_EQ(value_at(*model, 3.0), 0.0);
  EXPECT_EQ(derivatives_at(*model, 3.0)[0], 0.0);
  EXPECT_EQ(value_at(*model, 30.0), 0.0);
  ASSERT_EQ(model->time_events().size(), 2u);
  EXPECT_EQ(model->time_events()[0], 1.0);
  EXPECT_EQ(model->time_events()[1], 3.0);
}

TEST(Stimulus, SineAndItsDerivativesFollowTheClosedForm) {
  const double amplitude = 1.5, frequency = 2.0, phase = 0.4, offset = -0.5;
  const auto model = stimulus(
      "stimulus.sine",
      {{"amplitude", amplitude}, {"frequency", frequency}, {"phase", phase}, {"offset", offset}});
  const double omega = 2 * std::numbers::pi * frequency;
  for (const double t : {0.0, 0.1, 0.37, 2.0, 10.125}) {
    const double angle = omega * t + phase;
    EXPECT_NEAR(value_at(*model, t), offset + amplitude * std::sin(angle), 1e-13) << t;
    const std::array<double, 3> d = derivatives_at(*model, t);
    EXPECT_NEAR(d[0], amplitude * omega * std::cos(angle), 1e-11) << t;
    EXPECT_NEAR(d[1], -amplitude * omega * omega * std::sin(angle), 1e-10) << t;
    EXPECT_NEAR(d[2], -amplitude * omega * omega * omega * std::cos(angle), 1e-8) << t;
  }
  EXPECT_TRUE(model->time_events().empty());
  EXPECT_EQ(value_at(*stimulus("stimulus.sine", {{"frequency", 0}, {"phase", 0.5}}), 7.0),
            std::sin(0.5));
}

TEST(Stimulus, PulseIsHighForWidthOfEveryPeriodFromStart) {
  const auto model =
      stimulus("stimulus.pulse",
               {{"period", 0.1}, {"width", 0.03}, {"low", -1}, {"high", 2}, {"start", 0.2}});
  EXPECT_EQ(value_at(*model, 0.0), -1.0);
  EXPECT_EQ(value_at(*model, 0.2 - kJustAround), -1.0);
  EXPECT_EQ(value_at(*model, 0.2), 2.0);
  EXPECT_EQ(value_at(*model, 0.23 - kJustAround), 2.0);
  EXPECT_EQ(value_at(*model, 0.23), -1.0);
  // 0.2 + 0.1 is 0.30000000000000004 in binary; 0.3 s from ticks is the same edge.
  EXPECT_EQ(value_at(*model, 0.3 - kJustAround), -1.0);
  EXPECT_EQ(value_at(*model, to_seconds(300'000'000)), 2.0);
  EXPECT_EQ(value_at(*model, to_seconds(330'000'000)), -1.0);
  // The thousandth period.
  EXPECT_EQ(value_at(*model, to_seconds(100'200'000'000) - kJustAround), -1.0);
  EXPECT_EQ(value_at(*model, to_seconds(100'200'000'000)), 2.0);
  EXPECT_EQ(value_at(*model, to_seconds(100'229'000'000)), 2.0);
  EXPECT_EQ(value_at(*model, to_seconds(100'230'000'000)), -1.0);
  EXPECT_EQ(derivatives_at(*model, 0.2), (std::array<double, 3>{0, 0, 0}));
}

TEST(Stimulus, PulseAnnouncesItsEdgesOneAtATime) {
  const auto model = stimulus("stimulus.pulse", {{"period", 0.1}, {"width", 0.03}, {"start", 0.2}});
  EXPECT_TRUE(model->time_events().empty());
  model->start(0.0);
  std::vector<double> edges;
  for (int k = 0; k < 5; ++k) {
    edges.push_back(model->next_time_event());
    model->handle_event(edges.back(), {}, {});
  }
  const std::vector<double> expected{0.2, 0.2 + 0.03, 0.2 + 0.1, 0.2 + 0.1 + 0.03, 0.2 + 2 * 0.1};
  EXPECT_EQ(edges, expected);
  // Started at an edge, the next one is announced; a rollback restores the announcement.
  model->start(0.3);
  EXPECT_EQ(model->next_time_event(), 0.2 + 0.1 + 0.03);
  model->save_discrete_state();
  model->handle_event(model->next_time_event(), {}, {});
  EXPECT_EQ(model->next_time_event(), 0.2 + 2 * 0.1);
  model->restore_discrete_state();
  EXPECT_EQ(model->next_time_event(), 0.2 + 0.1 + 0.03);
}

TEST(Stimulus, PulseOfFullWidthStaysHighAfterStart) {
  const auto model = stimulus("stimulus.pulse", {{"period", 1}, {"width", 1}, {"start", 0.5}});
  model->start(0.0);
  EXPECT_EQ(model->next_time_event(), 0.5);
  model->handle_event(0.5, {}, {});
  EXPECT_TRUE(std::isinf(model->next_time_event()));
  EXPECT_EQ(value_at(*model, 0.5 - kJustAround), 0.0);
  EXPECT_EQ(value_at(*model, 0.5), 1.0);
  EXPECT_EQ(value_at(*model, 7.0), 1.0);
}

TEST(Stimulus, BadParametersAreRefusedByName) {
  EXPECT_EQ(refusal("stimulus.ramp", {{"start", 2}, {"stop", 2}}),
            "parameter 'stop' of model 'stimulus.ramp' must be after 'start' (2 s), got 2");
  EXPECT_EQ(refusal("stimulus.sine", {{"frequency", -1}}),
            "parameter 'frequency' of model 'stimulus.sine' must be >= 0, got -1");
  EXPECT_EQ(refusal("stimulus.pulse", {{"period", 0}}),
            "parameter 'period' of model 'stimulus.pulse' must be > 0, got 0");
  EXPECT_EQ(
      refusal("stimulus.pulse", {{"period", 1}, {"width", 1.5}}),
      "parameter 'width' of model 'stimulus.pulse' must lie in (0, period] = (0, 1], got 1.5");
  EXPECT_EQ(refusal("stimulus.pulse", {{"width", 0}}),
            "parameter 'width' of model 'stimulus.pulse' must lie in (0, period] = (0, 1], got 0");
}

// --- as slaves ---------------------------------------------------------------

struct SlaveRun {
  std::vector<double> end_outputs;  ///< y and 3 derivatives at the step end
  std::vector<double> samples;      ///< y at the sample times
};

SlaveRun step_slave(Slave& slave, Time start, Time end, const std::vector<Time>& sample_times) {
  SlaveRun run{std::vector<double>(4), std::vector<double>(sample_times.size())};
  const StepRequest request{start, end, {}, sample_times};
  slave.step(request, OutputBuffers{run.end_outputs, run.samples});
  return run;
}

class StimulusSlave : public ::testing::TestWithParam<SolverKind> {};

TEST_P(StimulusSlave, StepsAcrossItsBreakpointsWithEverySolver) {
  SolverSettings solver;
  solver.kind = GetParam();
  const auto slave = make_ode_slave(
      "ramp", stimulus("stimulus.ramp", {{"start", 0.25}, {"stop", 0.75}, {"final", 2}}), solver,
      {});
  EXPECT_EQ(slave->description().capabilities.output_derivative_order, 3);
  slave->setup(0);
  const Time ms = 1'000'000;
  const SlaveRun first = step_slave(*slave, 0, 500 * ms, {250 * ms - 1, 250 * ms, 400 * ms});
  EXPECT_EQ(first.samples[0], 0.0);
  EXPECT_EQ(first.samples[1], 0.0);
  EXPECT_DOUBLE_EQ(first.samples[2], 0.6);
  EXPECT_DOUBLE_EQ(first.end_outputs[0], 1.0);
  EXPECT_EQ(first.end_outputs[1], 4.0);
  EXPECT_EQ(first.end_outputs[2], 0.0);
  const SlaveRun second = step_slave(*slave, 500 * ms, 1000 * ms, {750 * ms - 1, 750 * ms});
  EXPECT_NEAR(second.samples[0], 2.0 - 4e-9, 1e-15);
  EXPECT_EQ(second.samples[1], 2.0);
  EXPECT_EQ(second.end_outputs[0], 2.0);
  EXPECT_EQ(second.end_outputs[1], 0.0);
}

TEST_P(StimulusSlave, APulseSlaveRollsBackAndRepeatsBitForBit) {
  SolverSettings solver;
  solver.kind = GetParam();
  CapabilityLimits limits;
  limits.can_rollback = true;
  const auto slave = make_ode_slave(
      "pulse", stimulus("stimulus.pulse", {{"period", 0.1}, {"width", 0.05}}), solver, limits);
  ASSERT_TRUE(slave->description().capabilities.can_rollback);
  slave->setup(0);
  const Time ms = 1'000'000;
  step_slave(*slave, 0, 120 * ms, {});
  slave->save_state();
  const SlaveRun first = step_slave(*slave, 120 * ms, 260 * ms, {149 * ms, 150 * ms, 200 * ms});
  slave->restore_state();
  const SlaveRun again = step_slave(*slave, 120 * ms, 260 * ms, {149 * ms, 150 * ms, 200 * ms});
  EXPECT_EQ(first.samples, (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(again.samples, first.samples);
  EXPECT_EQ(again.end_outputs, first.end_outputs);
  EXPECT_EQ(first.end_outputs[0], 0.0);  // 0.26 s: low since 0.25 s
}

INSTANTIATE_TEST_SUITE_P(EverySolver, StimulusSlave,
                         ::testing::Values(SolverKind::cvode, SolverKind::euler, SolverKind::exact),
                         [](const ::testing::TestParamInfo<SolverKind>& solver) {
                           switch (solver.param) {
                             case SolverKind::cvode:
                               return std::string("cvode");
                             case SolverKind::euler:
                               return std::string("euler");
                             default:
                               return std::string("exact");
                           }
                         });

// --- in the monolithic reference ---------------------------------------------

TEST(StimulusReference, AStepForceOnAFreeMassGivesTheClosedForm) {
  // m = 1, no spring, no damper, at rest: from the step at 0.5 s on, v = t − 0.5
  // and x = (t − 0.5)² / 2. The reference stops at the step (a time event).
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto force = catalog.create("stimulus.step", {{"time", 0.5}, {"final", 1}});
  const auto mass =
      catalog.create("translational.mass", {{"m", 1}, {"c", 0}, {"d", 0}, {"x0", 0}, {"v0", 0}});
  const std::vector<MonolithicSubsystem> subsystems{{"force", force.get()}, {"mass", mass.get()}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}};
  const std::vector<double> grid{0.25, 0.5, 0.75, 1.0};
  const MonolithicSolution solution = solve_monolithic(subsystems, connections, 0.0, 1.0, grid);
  const std::vector<double>& mass_outputs = solution.outputs[1];  // [point][x, v]
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const double since = std::max(0.0, grid[k] - 0.5);
    EXPECT_NEAR(mass_outputs[2 * k], since * since / 2, 1e-9) << grid[k];
    EXPECT_NEAR(mass_outputs[2 * k + 1], since, 1e-9) << grid[k];
    EXPECT_EQ(solution.outputs[0][k], grid[k] >= 0.5 ? 1.0 : 0.0) << grid[k];
  }
}

TEST(StimulusReference, AStatelessSystemOfAPulseThroughACouplingIsExact) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto pulse = catalog.create("stimulus.pulse", {{"period", 0.2}, {"width", 0.1}});
  const auto gain = catalog.create("coupling.linear", {{"factor", 3}});
  const std::vector<MonolithicSubsystem> subsystems{{"pulse", pulse.get()}, {"gain", gain.get()}};
  const std::vector<MonolithicConnection> connections{{0, 0, 1, 0}};
  const std::vector<double> grid{0.05, 0.1, 0.15, 0.2, 0.3, 0.4};
  const MonolithicSolution solution = solve_monolithic(subsystems, connections, 0.0, 0.4, grid);
  EXPECT_EQ(solution.outputs[1], (std::vector<double>{3, 0, 0, 3, 0, 3}));
}

// --- stimulus.table ----------------------------------------------------------

class StimulusTableFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("couplet-stimulus-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (directory_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::string refusal(const std::string& text) const {
    const std::string path = write("bad.csv", text);
    try {
      read_stimulus_table(path);
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      // The message starts with the file's path; the test compares what follows.
      EXPECT_EQ(message.rfind(path, 0), 0u) << message;
      return message.substr(path.size());
    }
    return "accepted";
  }

  std::filesystem::path directory_;
};

constexpr const char* kTable =
    "# a comment, then the header\n"
    "force, time, angle\n"
    "0, 0.5, 10\n"
    "\n"
    "4, 1.5, 20\n"
    "-2, 2.0, 20\n";

TEST_F(StimulusTableFile, ReadsColumnsByNameWithTimeAnywhere) {
  const StimulusTable table = read_stimulus_table(write("t.csv", kTable));
  EXPECT_EQ(table.outputs, (std::vector<std::string>{"force", "angle"}));
  EXPECT_EQ(table.times, (std::vector<double>{0.5, 1.5, 2.0}));
  EXPECT_EQ(table.values, (std::vector<double>{0, 10, 4, 20, -2, 20}));
}

TEST_F(StimulusTableFile, LinearInterpolatesBetweenRowsAndHoldsOutside) {
  const auto model =
      make_table_stimulus(read_stimulus_table(write("t.csv", kTable)), TableInterpolation::linear);
  ASSERT_EQ(model->output_count(), 2u);
  EXPECT_EQ(model->description().outputs[1].name, "angle");
  EXPECT_EQ(std::vector<double>(model->time_events().begin(), model->time_events().end()),
            (std::vector<double>{0.5, 1.5, 2.0}));
  const auto at = [&](double t) {
    std::array<double, 2> y{};
    model->outputs(t, {}, {}, y);
    return y;
  };
  const auto slope_at = [&](double t) {
    std::array<double, 6> rows{};
    model->output_derivatives(t, {}, {}, 3, rows);
    return rows;
  };
  EXPECT_EQ(at(0.0), (std::array<double, 2>{0, 10}));  // before the first row: the first
  EXPECT_EQ(slope_at(0.5 - kJustAround), (std::array<double, 6>{}));
  EXPECT_EQ(at(0.5), (std::array<double, 2>{0, 10}));
  EXPECT_EQ(slope_at(0.5), (std::array<double, 6>{4, 10, 0, 0, 0, 0}));
  EXPECT_EQ(at(1.0), (std::array<double, 2>{2, 15}));
  EXPECT_EQ(at(1.5), (std::array<double, 2>{4, 20}));
  EXPECT_EQ(slope_at(1.5), (std::array<double, 6>{-12, 0, 0, 0, 0, 0}));
  EXPECT_EQ(at(1.75), (std::array<double, 2>{1, 20}));
  EXPECT_EQ(at(2.0), (std::array<double, 2>{-2, 20}));
  EXPECT_EQ(slope_at(2.0), (std::array<double, 6>{}));  // after the last row: held
  EXPECT_EQ(at(9.0), (std::array<double, 2>{-2, 20}));
}

TEST_F(StimulusTableFile, HoldKeepsEachRowUntilTheNext) {
  const auto model =
      make_table_stimulus(read_stimulus_table(write("t.csv", kTable)), TableInterpolation::hold);
  const auto at = [&](double t) {
    std::array<double, 2> y{};
    model->outputs(t, {}, {}, y);
    return y;
  };
  EXPECT_EQ(at(0.0), (std::array<double, 2>{0, 10}));
  EXPECT_EQ(at(1.5 - kJustAround), (std::array<double, 2>{0, 10}));
  EXPECT_EQ(at(1.5), (std::array<double, 2>{4, 20}));
  EXPECT_EQ(at(to_seconds(1'500'000'000)), (std::array<double, 2>{4, 20}));
  EXPECT_EQ(at(1.99), (std::array<double, 2>{4, 20}));
  EXPECT_EQ(at(2.0), (std::array<double, 2>{-2, 20}));
  EXPECT_EQ(at(20.0), (std::array<double, 2>{-2, 20}));
  std::array<double, 2> slope{};
  model->output_derivatives(1.0, {}, {}, 1, slope);
  EXPECT_EQ(slope, (std::array<double, 2>{0, 0}));
}

TEST_F(StimulusTableFile, BadTablesAreRefusedWithFileAndLine) {
  EXPECT_EQ(refusal("time,y\n0,1\n0.5,abc\n"), ":3: column 'y': 'abc' is not a finite number");
  EXPECT_EQ(refusal("time,y\n0,1\n1e999,2\n"), ":3: column 'time': '1e999' is not a finite number");
  EXPECT_EQ(refusal("time,y\n0,1\n1,2\n1,3\n"),
            ":4: time 1 is not after the previous row's 1 (rows must be at least 1 ns apart)");
  EXPECT_EQ(refusal("time,y\n0,1\n-1,3\n"),
            ":3: time -1 is not after the previous row's 0 (rows must be at least 1 ns apart)");
  EXPECT_EQ(refusal("# header next\nt,y\n0,1\n"), ":2: no 'time' column in the header");
  EXPECT_EQ(refusal("time\n0\n"), ":1: no output column besides 'time'");
  EXPECT_EQ(refusal("time,y,y\n0,1,2\n"), ":1: column 'y' appears twice");
  EXPECT_EQ(refusal("time,a.b\n0,1\n"),
            ":1: column name 'a.b' contains '.', which separates slave and port names");
  EXPECT_EQ(refusal("time,y\n0,1,2\n"), ":2: 3 cells, but the header has 2");
  EXPECT_EQ(refusal("time,y\n0,\n"), ":2: column 'y': '' is not a finite number");
  EXPECT_EQ(refusal("time,y\n"), ": no data row after the header");
  EXPECT_EQ(refusal(""), ": empty: expected a header row with 'time' and the output names");
  const std::string missing = (directory_ / "missing.csv").string();
  try {
    read_stimulus_table(missing);
    ADD_FAILURE() << "a missing file was read";
  } catch (const ConfigurationError& error) {
    EXPECT_EQ(std::string(error.what()), missing + ": cannot be read");
  }
}

}  // namespace
}  // namespace couplet::models
