// CALL_LINEARIZE records of the run log (docs/run-log.md): a run whose algorithm
// linearizes its slaves, recorded by the real Recorder driven by the real
// Executor, reads back, shows in inspect, exports, and replays bit
// for bit; a linearization altered in the log is found at the step that used
// it; a replayed master that linearizes with other inputs diverges there; a
// malformed linearize record is refused naming its frame.
#include <gtest/gtest.h>
#include <pb_decode.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "protocol/run_log_frame.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"
#include "support/log_frames.hpp"

namespace couplet::testing {
namespace {

constexpr int kStates = 2;

/// A mass of 1 kg on a spring and damper, forced by its input f:
/// ẋ = A x + B f with x = (position, velocity), A = [0 1; -k -d], B = (0, 1);
/// outputs y = x (no feedthrough). Linear, so linearize() is exact; steps with
/// classical Runge-Kutta on ten substeps.
class SpringMassSlave final : public Slave {
 public:
  SpringMassSlave(double stiffness, double damping, double position)
      : stiffness_(stiffness), damping_(damping), initial_position_(position) {
    // The other mass's position drives f as a force (a unit stiffness): no
    // unit on f, so that x [m] connects to it.
    description_.inputs = {{"f", ""}};
    description_.outputs = {{"x", false, "m"}, {"v", false, "m/s"}};
    description_.capabilities.max_input_degree = 1;
    description_.capabilities.can_linearize = true;
    description_.capabilities.state_count = kStates;
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    time_ = start;
    state_ = {initial_position_, 0.0};
  }

  void evaluate_outputs(std::span<const Polynomial>, std::span<double> end_outputs) override {
    end_outputs[0] = state_[0];
    end_outputs[1] = state_[1];
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    constexpr int kSubsteps = 10;
    const double t0 = to_seconds(request.start);
    const double h = (to_seconds(request.end) - t0) / kSubsteps;
    const Polynomial& force = request.inputs[0];
    for (int k = 0; k < kSubsteps; ++k) {
      const double t = t0 + k * h;
      const State k1 = derivative(state_, force.value(t));
      const State k2 = derivative(plus(state_, k1, h / 2), force.value(t + h / 2));
      const State k3 = derivative(plus(state_, k2, h / 2), force.value(t + h / 2));
      const State k4 = derivative(plus(state_, k3, h), force.value(t + h));
      for (std::size_t i = 0; i < state_.size(); ++i)
        state_[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    time_ = request.end;
    evaluate_outputs(request.inputs, result.end_outputs);
  }

  // x, ẋ, A, B, C = I, D = 0, matrices column-major (LinearizationLayout).
  void linearize(std::span<const Polynomial> inputs, std::span<double> out) override {
    const LinearizationLayout layout = LinearizationLayout::of(description_);
    const State slope = derivative(state_, inputs[0].value(to_seconds(time_)));
    std::fill(out.begin(), out.end(), 0.0);
    for (std::size_t i = 0; i < kStates; ++i) {
      out[layout.state_offset() + i] = state_[i];
      out[layout.derivative_offset() + i] = slope[i];
      out[layout.c_offset() + i * layout.outputs + i] = 1.0;
    }
    out[layout.a_offset() + 1] = -stiffness_;  // column 0: (0, -k)
    out[layout.a_offset() + 2] = 1.0;          // column 1: (1, -d)
    out[layout.a_offset() + 3] = -damping_;
    out[layout.b_offset() + 1] = 1.0;
  }

 private:
  using State = std::array<double, kStates>;

  State derivative(const State& x, double force) const {
    return {x[1], -stiffness_ * x[0] - damping_ * x[1] + force};
  }
  static State plus(const State& x, const State& slope, double h) {
    return {x[0] + h * slope[0], x[1] + h * slope[1]};
  }

  double stiffness_;
  double damping_;
  double initial_position_;
  SlaveDescription description_;
  Time time_ = 0;
  State state_{};
};

/// Jacobi with first-order inputs whose slopes come from the linearizations:
/// each macro step is two plans, first every slave linearized at its current
/// point (inputs held at the partner's latest outputs), then every slave
/// stepped with input u(t) = y_j + ẏ_j (t - T_k), where ẏ_j = C_j ẋ_j (+ D_j u̇,
/// zero here) is read from the partner's linearization. So the decisions depend
/// on the linearized values: a replay that answers with others diverges.
/// `linearize_offset` is added to the inputs of the linearize calls (0 for the
/// recorded master; another value makes a master that decides differently).
class LinearizedJacobi final : public Algorithm {
 public:
  explicit LinearizedJacobi(Time step, double linearize_offset = 0.0)
      : step_(step), linearize_offset_(linearize_offset) {}

  std::string_view name() const override { return "linearized_jacobi"; }

  AlgorithmRequirements requirements() const override {
    return {.algorithm_name = std::string(name()),
            .required_input_degree = 1,
            .needs_linearization = true};
  }

  void start(const RunSetup& setup, std::span<StepSlot> slots) override {
    time_ = setup.start;
    end_ = setup.end;
    sources_.clear();
    for (std::size_t s = 0; s < slots.size(); ++s)
      sources_.push_back(*setup.system.source_of({s, 0}));
    slopes_.assign(slots.size(), 0.0);
  }

  bool plan_next(std::span<StepSlot> slots, Plan& plan) override {
    if (time_ >= end_) return false;
    const double now = to_seconds(time_);
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const PortReference source = sources_[s];
      const double value = slots[source.slave].output(source.port);
      if (linearizing_) {
        slots[s].inputs[0] = Polynomial::constant(now, value + linearize_offset_);
        plan.add(s, SlaveAction::linearize);
      } else {
        const std::array<double, 2> taylor{value, slopes_[s]};
        slots[s].inputs[0] = Polynomial::taylor(now, taylor, to_seconds(step_));
        slots[s].start = time_;
        slots[s].end = time_ + step_;
        plan.add(s, SlaveAction::step);
      }
    }
    return true;
  }

  void accept(std::span<const StepSlot> slots, const Plan&) override {
    if (linearizing_) {
      for (std::size_t s = 0; s < slots.size(); ++s) slopes_[s] = output_slope(slots, sources_[s]);
    } else {
      time_ += step_;
    }
    linearizing_ = !linearizing_;
  }

  std::vector<std::string> internal_quantities() const override {
    return {"slope:left.f", "slope:right.f"};
  }
  void internal_values(std::span<double> values) const override {
    std::copy(slopes_.begin(), slopes_.end(), values.begin());
  }

 private:
  /// ẏ_p = Σ_k C(p, k) ẋ_k of the source's latest linearization.
  static double output_slope(std::span<const StepSlot> slots, PortReference source) {
    const std::vector<double>& linearization = slots[source.slave].linearization;
    const LinearizationLayout layout{kStates, 1, 2};
    double slope = 0.0;
    for (std::size_t k = 0; k < layout.states; ++k) {
      slope += linearization[layout.c_offset() + k * layout.outputs + source.port] *
               linearization[layout.derivative_offset() + k];
    }
    return slope;
  }

  Time step_;
  double linearize_offset_;
  Time time_ = 0;
  Time end_ = 0;
  bool linearizing_ = true;
  std::vector<PortReference> sources_;
  std::vector<double> slopes_;
};

// The scenario text in the header: the time span and evaluation grid of the
// replayed master (its algorithm is made by the test, not from this text).
constexpr const char* kScenarioText = R"(name: linearize_log
time: {start: 0, end: 1}
slaves:
  left: {model: translational.mass, parameters: {m: 1, c: 4, d: 0.2, x0: 1, v0: 0}}
  right: {model: translational.mass, parameters: {m: 1, c: 9, d: 0.1, x0: 0, v0: 0}}
connections:
  - {from: left.x, to: right.f}
  - {from: right.x, to: left.f}
algorithm: {type: jacobi, step: 0.05}
evaluation: {grid: 0.05}
)";

constexpr Time kStep = 50'000'000;  // 0.05 s
constexpr std::uint64_t kMacroSteps = 20;

std::filesystem::path work_directory() {
  return std::filesystem::temp_directory_path() /
         ("couplet-linearize-log-" + std::to_string(::getpid()));
}

/// Runs the two spring masses under LinearizedJacobi with the Recorder writing `path`.
void record_run(const std::string& path) {
  const tools::Scenario scenario = tools::parse_scenario(kScenarioText, "linearize_log.yaml");
  System system;
  system.add_slave("left", std::make_unique<SpringMassSlave>(4.0, 0.2, 1.0));
  system.add_slave("right", std::make_unique<SpringMassSlave>(9.0, 0.1, 0.0));
  system.connect("left.x", "right.f");
  system.connect("right.x", "left.f");
  LinearizedJacobi algorithm(kStep);
  const Time start = to_ticks(scenario.start);
  const Time end = to_ticks(scenario.end);
  Executor executor(system, algorithm, start, end, tools::evaluation_grid(scenario));
  Recorder recorder(path);
  executor.set_observer(&recorder);
  RunLogHeader header;
  header.scenario_source = scenario.source;
  header.scenario_text = scenario.text;
  header.start = start;
  header.end = end;
  header.algorithm = algorithm.name();
  recorder.begin(header, system);
  executor.initialize();
  recorder.algorithm_started(algorithm);
  while (executor.advance()) recorder.plan_finished(executor, algorithm);
  recorder.finish({true, "", executor.decision_hash(), executor.counters()});
}

tools::ReplayOutcome replay(const tools::RunLog& log, double linearize_offset = 0.0) {
  return tools::replay_run_log(log, [linearize_offset](const tools::Scenario&) {
    return std::make_unique<LinearizedJacobi>(kStep, linearize_offset);
  });
}

// --- Frames of a recorded log (support/log_frames.hpp) -----------------------

bool is_call(const protocol::LogRecord& record, couplet_wire_SlaveCallKind kind) {
  return record.which_body == couplet_wire_LogRecord_call_tag && record.body.call.kind == kind;
}

/// Index of the `nth` (from 0) frame holding a call of `kind`.
std::size_t call_frame(const Frames& frames, couplet_wire_SlaveCallKind kind, int nth = 0) {
  for (std::size_t k = 0; k < frames.size(); ++k) {
    if (is_call(*decode(frames[k]), kind) && nth-- == 0) return k;
  }
  ADD_FAILURE() << "no such call record";
  return 0;
}

std::size_t slave_frame(const Frames& frames, std::uint32_t slave) {
  for (std::size_t k = 0; k < frames.size(); ++k) {
    const auto record = decode(frames[k]);
    if (record->which_body == couplet_wire_LogRecord_slave_tag && record->body.slave.index == slave)
      return k;
  }
  ADD_FAILURE() << "no slave record " << slave;
  return 0;
}

void edit(Frames& frames, std::size_t index,
          const std::function<void(protocol::LogRecord&)>& change) {
  const auto record = decode(frames[index]);
  change(*record);
  frames[index] = encode(*record);
}

/// "frame N at byte offset X" of frame `index`.
std::string position(const Frames& frames, std::size_t index) {
  std::size_t offset = protocol::kLogMagicBytes;
  for (std::size_t k = 0; k < index; ++k) offset += frames[k].size();
  return "frame " + std::to_string(index + 1) + " at byte offset " + std::to_string(offset);
}

/// One recorded run shared by the tests.
class LinearizeLog : public ::testing::Test {
 protected:
  // A failure here would only skip the tests: it is kept and fails each one.
  static void SetUpTestSuite() {
    std::filesystem::create_directories(work_directory());
    try {
      record_run(path().string());
    } catch (const std::exception& error) {
      setup_error() = error.what();
    }
  }
  void SetUp() override { ASSERT_EQ(setup_error(), "") << "recording the shared run failed"; }
  static std::string& setup_error() {
    static std::string error;
    return error;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(work_directory()); }
  static std::filesystem::path path() { return work_directory() / "run.log"; }

  /// The recorded log with `change` made to frame `index`, written beside it.
  static std::string crafted(const std::string& name,
                             const std::function<std::size_t(Frames&)>& change,
                             std::string& where) {
    Frames frames = split_frames(read_bytes(path()));
    const std::size_t bad = change(frames);
    where = position(frames, bad);
    const auto crafted_path = work_directory() / (name + ".log");
    write_bytes(crafted_path, join(frames));
    return crafted_path.string();
  }
};

std::size_t count_calls(const tools::RunLog& log, tools::CallKind kind, std::size_t slave) {
  return static_cast<std::size_t>(std::count_if(
      log.calls.begin(), log.calls.end(),
      [&](const tools::LoggedCall& call) { return call.kind == kind && call.slave == slave; }));
}

TEST_F(LinearizeLog, ReadsBackWithTheSlavesLinearizations) {
  const tools::RunLog log = tools::read_run_log(path().string());
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_TRUE(log.end_record->completed());
  ASSERT_EQ(log.slaves.size(), 2U);
  for (std::size_t s = 0; s < 2; ++s) {
    EXPECT_TRUE(log.slaves[s].description.capabilities.can_linearize) << log.slaves[s].name;
    EXPECT_EQ(log.slaves[s].description.capabilities.state_count, 2U) << log.slaves[s].name;
    EXPECT_EQ(count_calls(log, tools::CallKind::linearize, s), kMacroSteps) << log.slaves[s].name;
    EXPECT_EQ(count_calls(log, tools::CallKind::step, s), kMacroSteps) << log.slaves[s].name;
  }
  // The first call after the setups and the initial outputs: left linearized at
  // x = (1, 0) with f = right.x = 0, so ẋ = (0, -4); A = [0 1; -4 -0.2].
  const auto first = std::find_if(log.calls.begin(), log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::linearize;
  });
  ASSERT_NE(first, log.calls.end());
  EXPECT_EQ(first->slave, 0U);
  EXPECT_EQ(first->plan, 0U) << "the first plan's calls carry plan index 0";
  ASSERT_EQ(first->inputs.size(), 1U);
  EXPECT_EQ(first->inputs[0].value(0.0), 0.0);
  const std::vector<double> expected{1, 0, 0, -4, 0, -4, 1, -0.2, 0, 1, 1, 0, 0, 1, 0, 0};
  EXPECT_EQ(first->linearization, expected);
  EXPECT_TRUE(first->end_outputs.empty());
}

TEST_F(LinearizeLog, ReplaysBitForBit) {
  const tools::RunLog log = tools::read_run_log(path().string());
  const tools::ReplayOutcome outcome = replay(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_TRUE(outcome.hash_compared) << outcome.note;
  EXPECT_EQ(outcome.macro_steps, kMacroSteps);
  EXPECT_EQ(outcome.plans, 2 * kMacroSteps);
  EXPECT_EQ(outcome.calls, log.calls.size());
  EXPECT_EQ(outcome.replayed_hash, log.end_record->decision_hash);
}

TEST_F(LinearizeLog, InspectCountsTheLinearizationsPerSlaveAndExportRuns) {
  const tools::RunLog log = tools::read_run_log(path().string());
  const std::string text = tools::inspect_text(log);
  EXPECT_NE(text.find("slave calls  40 steps, "), std::string::npos) << text;
  EXPECT_NE(text.find(" restores, 40 linearizations\n"), std::string::npos) << text;
  EXPECT_NE(text.find("linearized   left 20 times, right 20 times"), std::string::npos) << text;
  EXPECT_NE(text.find("linearizes (2 states)"), std::string::npos) << text;
  const std::string csv = tools::export_csv(log);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), kMacroSteps + 2)
      << "a header and one row per communication time: the start, then every macro step's end";
}

/// Field `column` of line `line` (0: the header) of `csv`.
std::string csv_field(const std::string& csv, std::size_t line, std::size_t column) {
  std::istringstream lines(csv);
  std::string text;
  for (std::size_t k = 0; k <= line; ++k) std::getline(lines, text);
  std::istringstream fields(text);
  std::string field;
  for (std::size_t k = 0; k <= column; ++k) std::getline(fields, field, ',');
  return field;
}

// Each row holds the outputs at its time: the start's row the initial ones (a
// linearization returns no outputs: the row is the initialization's, plan 0),
// the next row those the first steps returned, from the step plan after it.
TEST_F(LinearizeLog, ExportRowsHoldTheOutputsOfTheirPlan) {
  const tools::RunLog log = tools::read_run_log(path().string());
  const std::string csv = tools::export_csv(log);
  ASSERT_EQ(csv_field(csv, 0, 4), "left.x");
  EXPECT_EQ(csv_field(csv, 1, 0), "0");
  EXPECT_EQ(csv_field(csv, 1, 1), "0");
  EXPECT_EQ(std::stod(csv_field(csv, 1, 4)), 1.0) << "left's initial position";
  const auto first_step = std::find_if(log.calls.begin(), log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::step;
  });
  ASSERT_NE(first_step, log.calls.end());
  EXPECT_EQ(std::stod(csv_field(csv, 2, 0)), 0.05);
  EXPECT_EQ(csv_field(csv, 2, 1), "2");
  EXPECT_EQ(std::stod(csv_field(csv, 2, 4)), first_step->end_outputs[0]);
  EXPECT_NE(first_step->end_outputs[0], 1.0);
}

TEST_F(LinearizeLog, AnAlteredLinearizationIsFoundWhereTheMasterUsesIt) {
  std::string where;
  // The first linearization of right: ẋ₀ (its velocity, 0) becomes 1e-9, so the
  // slope of left's input in the next step, ẏ = C ẋ, is 1e-9 instead of 0: the
  // algorithm's internals after that first plan already differ.
  const std::string altered = crafted(
      "altered",
      [](Frames& frames) {
        const std::size_t index = call_frame(frames, couplet_wire_SlaveCallKind_CALL_LINEARIZE, 1);
        edit(frames, index,
             [](protocol::LogRecord& record) { record.body.call.linearization[kStates] = 1e-9; });
        return index;
      },
      where);
  const tools::ReplayOutcome outcome = replay(tools::read_run_log(altered));
  EXPECT_FALSE(outcome.identical);
  EXPECT_NE(outcome.divergence.find("(plan 1): algorithm internal 'slope:left.f': recorded 0 "
                                    "(0x0000000000000000), replayed 1.0000000000000001e-09"),
            std::string::npos)
      << outcome.divergence;
}

TEST_F(LinearizeLog, AMasterThatLinearizesWithOtherInputsDiverges) {
  const tools::ReplayOutcome outcome = replay(tools::read_run_log(path().string()), 1e-12);
  EXPECT_FALSE(outcome.identical);
  EXPECT_NE(
      outcome.divergence.find("linearize of slave 'left': input 'left.f' coefficient 0: "
                              "recorded 0 (0x0000000000000000), replayed 9.9999999999999998e-13"),
      std::string::npos)
      << outcome.divergence;
}

struct Malformed {
  const char* name;
  std::function<std::size_t(Frames&)> craft;
  const char* why;
};

std::vector<Malformed> malformed_cases() {
  using Record = protocol::LogRecord;
  const auto first_linearize = [](Frames& frames) {
    return call_frame(frames, couplet_wire_SlaveCallKind_CALL_LINEARIZE);
  };
  const auto edit_first_linearize = [first_linearize](std::function<void(Record&)> change) {
    return [first_linearize, change](Frames& frames) {
      const std::size_t index = first_linearize(frames);
      edit(frames, index, change);
      return index;
    };
  };
  return {
      {"too_few_values",
       edit_first_linearize([](Record& r) { r.body.call.linearization_count = 15; }),
       "a linearize call on slave 'left': 15 linearization values, not the 16 of x, ẋ, A, B, "
       "C, D for 2 states, 1 inputs and 2 outputs"},
      {"no_input", edit_first_linearize([](Record& r) { r.body.call.inputs_count = 0; }),
       "a linearize call on slave 'left': 0 input polynomials for the slave's 1 inputs"},
      {"nan_value", edit_first_linearize([](Record& r) {
         r.body.call.linearization[5] = std::numeric_limits<double>::quiet_NaN();
       }),
       "a linearize call on slave 'left': linearization value 5 is NaN"},
      {"infinite_value", edit_first_linearize([](Record& r) {
         r.body.call.linearization[0] = -std::numeric_limits<double>::infinity();
       }),
       "a linearize call on slave 'left': linearization value 0 is infinite"},
      {"end_outputs_on_a_linearization",
       edit_first_linearize([](Record& r) { r.body.call.end_outputs_count = 2; }),
       "a linearize call on slave 'left': it carries outputs, which this kind of call has not"},
      {"slave_that_cannot_linearize",
       [first_linearize](Frames& frames) {
         edit(frames, slave_frame(frames, 0),
              [](Record& r) { r.body.slave.description.capabilities.can_linearize = false; });
         return first_linearize(frames);
       },
       "a linearize call on slave 'left': the slave's logged description cannot linearize"},
      {"linearization_on_a_step",
       [](Frames& frames) {
         const std::size_t index = call_frame(frames, couplet_wire_SlaveCallKind_CALL_STEP);
         edit(frames, index, [](Record& r) { r.body.call.linearization_count = 16; });
         return index;
       },
       "a step call on slave 'left': it carries a linearization, which only a linearize call "
       "has"},
      {"too_many_states",
       [](Frames& frames) {
         const std::size_t index = slave_frame(frames, 1);
         edit(frames, index, [](Record& r) {
           r.body.slave.description.capabilities.state_count = 26;  // 2·26 + 26² + ... > 720
         });
         return index;
       },
       "slave 'right': invalid description from the target: Describe.capabilities.state_count = "
       "26"},
  };
}

class MalformedLinearizeRecord : public LinearizeLog,
                                 public ::testing::WithParamInterface<Malformed> {};

TEST_P(MalformedLinearizeRecord, IsRefusedNamingTheFrame) {
  const Malformed& malformed = GetParam();
  std::string where;
  const std::string crafted_path = crafted(malformed.name, malformed.craft, where);
  try {
    tools::read_run_log(crafted_path);
    ADD_FAILURE() << "read " << crafted_path;
  } catch (const tools::RunLogError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("run log '" + crafted_path + "': " + where + ": " + malformed.why),
              std::string::npos)
        << message << "\nexpected: " << where << ": " << malformed.why;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryClass, MalformedLinearizeRecord,
                         ::testing::ValuesIn(malformed_cases()),
                         [](const auto& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace couplet::testing
