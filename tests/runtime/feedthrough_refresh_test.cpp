// Consistent feedthrough outputs under Jacobi and Gauss–Seidel (issue 14): after
// every round of steps each feedthrough slave re-evaluates its outputs exactly
// once, level by level in dependency order, the slaves of one level in one plan
// (announced together, so that slaves behind links evaluate at the same time),
// and the outputs at every communication time satisfy the connection equations.
#include <gtest/gtest.h>

#include <algorithm>
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
constexpr double kEnd = 1.0;

/// "f3", "u0"... (appended, not prefix + std::to_string(): GCC 12 warns about that falsely).
std::string numbered(const char* prefix, std::size_t number) {
  std::string name(prefix);
  name += std::to_string(number);
  return name;
}

/// y = t², ẏ = 2t: no inputs, the source of every graph below. Not linear, so that
/// inputs extrapolated over a step (ZOH or Taylor of order 1) miss its new value.
class SquareSlave final : public Slave {
 public:
  SquareSlave() {
    description_.outputs = {{"y", false}};
    description_.capabilities.output_derivative_order = 1;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> out) override { write(out); }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    time_ = request.end;
    write(result.end_outputs);
  }

 private:
  void write(std::span<double> out) const {
    const double t = to_seconds(time_);
    out[0] = t * t;
    out[1] = 2.0 * t;
  }
  SlaveDescription description_;
  Time time_ = 0;
};

/// y = Σ uᵢ + offset (direct feedthrough), ẏ = Σ u̇ᵢ, at the current time. Also
/// `rate`, without feedthrough: the constant `offset` whose derivative is Σ uᵢ, as
/// a state's derivative follows the inputs through the dynamics. Counts its calls.
class OffsetSlave final : public Slave {
 public:
  OffsetSlave(std::size_t inputs, double offset) : offset_(offset) {
    for (std::size_t i = 0; i < inputs; ++i) description_.inputs.push_back({numbered("u", i)});
    description_.outputs = {{"y", true}, {"rate", false}};
    description_.capabilities.max_input_degree = 1;
    description_.capabilities.output_derivative_order = 1;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void announce_outputs(std::span<const Polynomial> inputs) override {
    EXPECT_FALSE(announced_) << "announced twice";
    ++announcements;
    announced_inputs_.assign(inputs.begin(), inputs.end());
    announced_ = true;
  }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override {
    ++evaluations;
    if (announced_) {
      EXPECT_TRUE(std::equal(inputs.begin(), inputs.end(), announced_inputs_.begin(),
                             announced_inputs_.end()))
          << "evaluated with other inputs than announced";
      announced_ = false;
    }
    write(inputs, out);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    time_ = request.end;
    write(request.inputs, result.end_outputs);
  }

  int evaluations = 0;
  int announcements = 0;

 private:
  void write(std::span<const Polynomial> inputs, std::span<double> out) const {
    const double t = to_seconds(time_);
    double sum = 0.0;
    double slope = 0.0;
    for (const Polynomial& input : inputs) {
      sum += input.value(t);
      slope += input.derivative(t);
    }
    out[0] = sum + offset_;  // y
    out[1] = offset_;        // rate
    out[2] = slope;          // ẏ
    out[3] = sum;            // d(rate)/dt
  }
  SlaveDescription description_;
  double offset_;
  Time time_ = 0;
  bool announced_ = false;
  std::vector<Polynomial> announced_inputs_;
};

/// The slaves evaluated by each plan of the run, in plan order.
class PlanObserver final : public ExecutorObserver {
 public:
  void slave_set_up(std::size_t, Time) override {}
  void step_began(std::size_t) override {}
  void slave_stepped(std::size_t, const StepRequest&, const OutputBuffers&,
                     const LinkStepReport&) override {}
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial>,
                         std::span<const double>) override {
    if (!plans.empty()) plans.back().push_back(slave);
  }
  void slave_linearized(std::size_t, std::span<const Polynomial>, std::span<const double>) override {}
  void state_saved(std::size_t) override {}
  void state_restored(std::size_t) override {}

  std::vector<std::vector<std::size_t>> plans;  ///< evaluated slaves, per plan of advance()
};

std::unique_ptr<FixedStepAlgorithm> make_algorithm(const std::string& name, int input_order) {
  const FixedStepSettings settings{to_ticks(kStep), input_order};
  if (name == "jacobi") return std::make_unique<Jacobi>(settings);
  return std::make_unique<GaussSeidel>(settings);
}

struct Graph {
  System system;
  std::vector<OffsetSlave*> feedthrough;  ///< in the order of `names`
  std::vector<std::string> names;

  OffsetSlave& add(const std::string& name, std::size_t inputs, double offset) {
    auto slave = std::make_unique<OffsetSlave>(inputs, offset);
    OffsetSlave& added = *slave;
    system.add_slave(name, std::move(slave));
    feedthrough.push_back(&added);
    names.push_back(name);
    return added;
  }
  const OffsetSlave& slave(const std::string& name) const {
    return *feedthrough[static_cast<std::size_t>(std::find(names.begin(), names.end(), name) -
                                                 names.begin())];
  }
  int evaluations() const {
    int total = 0;
    for (const OffsetSlave* slave : feedthrough) total += slave->evaluations;
    return total;
  }
};

/// source → f1 → f2 → … → f`length`, fᵢ adding i; added last first, so that the
/// scenario order is the reverse of the dependency order.
void build_chain(Graph& graph, std::size_t length) {
  for (std::size_t i = length; i >= 1; --i) graph.add(numbered("f", i), 1, static_cast<double>(i));
  graph.system.add_slave("source", std::make_unique<SquareSlave>());
  graph.system.connect("source.y", "f1.u0");
  for (std::size_t i = 2; i <= length; ++i) {
    graph.system.connect(numbered("f", i - 1) + ".y", numbered("f", i) + ".u0");
  }
}

/// The chain's consistent outputs at t: yₖ = ((t² + 1) + 2) + … + k, ẏₖ = 2t
/// (with Taylor inputs of order 1; ZOH inputs have no slope).
void expect_consistent_chain(std::span<const StepSlot> slots, std::size_t length, Time time,
                             int input_order) {
  const double t = to_seconds(time);
  double expected = t * t;
  // Slave fᵢ has index length - i.
  for (std::size_t i = 1; i <= length; ++i) {
    expected += static_cast<double>(i);
    const StepSlot& slot = slots[length - i];
    ASSERT_EQ(slot.output_time, time);
    EXPECT_DOUBLE_EQ(slot.output(0), expected) << "f" << i << " at t = " << t;
    EXPECT_DOUBLE_EQ(slot.output(0, 1), input_order > 0 ? 2.0 * t : 0.0)
        << "f" << i << " at t = " << t;
  }
}

/// Runs to kEnd; `after_plan` sees the executor after every plan.
template <typename AfterPlan>
void run(System& system, Algorithm& algorithm, PlanObserver& observer, AfterPlan after_plan) {
  Executor executor(system, algorithm, 0, to_ticks(kEnd), {});
  executor.set_observer(&observer);
  executor.initialize();
  observer.plans.emplace_back();
  while (executor.advance()) {
    after_plan(executor, observer.plans.back());
    observer.plans.emplace_back();
  }
}

class FeedthroughRefresh : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  std::string algorithm_name() const { return std::get<0>(GetParam()); }
  int input_order() const { return std::get<1>(GetParam()); }
};

TEST_P(FeedthroughRefresh, EachSlaveOfAChainIsEvaluatedOncePerMacroStep) {
  for (const std::size_t length : {1U, 4U, 16U}) {
    Graph graph;
    build_chain(graph, length);
    const auto algorithm = make_algorithm(algorithm_name(), input_order());
    Executor executor(graph.system, *algorithm, 0, to_ticks(kEnd), {});
    executor.initialize();
    const int evaluations_before_run = graph.evaluations();  // the initial outputs
    while (executor.advance()) {
    }
    const std::uint64_t macro_steps = executor.counters().macro_steps;
    ASSERT_EQ(macro_steps, 10U);
    const int per_macro_step =
        (graph.evaluations() - evaluations_before_run) / static_cast<int>(macro_steps);
    EXPECT_EQ(per_macro_step, static_cast<int>(length)) << "chain of " << length;
    RecordProperty("evaluations_per_macro_step_" + std::to_string(length), per_macro_step);
    // A level of a chain holds one slave: nothing to overlap, nothing announced.
    for (const OffsetSlave* slave : graph.feedthrough) EXPECT_EQ(slave->announcements, 0);
  }
}

TEST_P(FeedthroughRefresh, ChainOutputsAreConsistentAtEveryCommunicationTime) {
  constexpr std::size_t kLength = 16;
  Graph graph;
  build_chain(graph, kLength);
  const auto algorithm = make_algorithm(algorithm_name(), input_order());
  PlanObserver observer;
  int checked = 0;
  run(graph.system, *algorithm, observer,
      [&](const Executor& executor, const std::vector<std::size_t>& evaluated) {
        // One slave per level; f16 (index 0) is the last level.
        if (evaluated.empty()) return;
        ASSERT_EQ(evaluated.size(), 1U);
        if (evaluated.front() != 0) return;
        expect_consistent_chain(executor.slots(), kLength, executor.frontier(), input_order());
        ++checked;
      });
  EXPECT_EQ(checked, 10);
}

/// source → a; a → b, a → c; b, c → d. Scenario order d, c, source, b, a.
void build_diamond(Graph& graph) {
  graph.add("d", 2, 4.0);
  graph.add("c", 1, 3.0);
  graph.system.add_slave("source", std::make_unique<SquareSlave>());
  graph.add("b", 1, 2.0);
  graph.add("a", 1, 1.0);
  graph.system.connect("source.y", "a.u0");
  graph.system.connect("a.y", "b.u0");
  graph.system.connect("a.y", "c.u0");
  graph.system.connect("b.y", "d.u0");
  graph.system.connect("c.y", "d.u1");
}

TEST_P(FeedthroughRefresh, DiamondLevelsShareAPlanAndAreAnnounced) {
  Graph graph;
  build_diamond(graph);
  const std::size_t a = 4, b = 3, c = 1, d = 0;
  const auto algorithm = make_algorithm(algorithm_name(), input_order());
  PlanObserver observer;
  std::vector<std::vector<std::size_t>> refresh_plans;
  run(graph.system, *algorithm, observer,
      [&](const Executor& executor, const std::vector<std::size_t>& evaluated) {
        if (evaluated.empty()) return;
        refresh_plans.push_back(evaluated);
        std::sort(refresh_plans.back().begin(), refresh_plans.back().end());
        if (evaluated.front() != d) return;
        const double t = to_seconds(executor.frontier());
        const auto slots = executor.slots();
        const double ya = t * t + 1.0;
        EXPECT_DOUBLE_EQ(slots[a].output(0), ya);
        EXPECT_DOUBLE_EQ(slots[b].output(0), ya + 2.0);
        EXPECT_DOUBLE_EQ(slots[c].output(0), ya + 3.0);
        EXPECT_DOUBLE_EQ(slots[d].output(0), (ya + 2.0) + (ya + 3.0) + 4.0);
      });
  ASSERT_EQ(refresh_plans.size(), 30U);  // three levels after each of the 10 macro steps
  for (std::size_t k = 0; k < refresh_plans.size(); k += 3) {
    EXPECT_EQ(refresh_plans[k], std::vector<std::size_t>{a});
    EXPECT_EQ(refresh_plans[k + 1], (std::vector<std::size_t>{c, b}));
    EXPECT_EQ(refresh_plans[k + 2], std::vector<std::size_t>{d});
  }
  // The two evaluations of the middle level are announced before either is carried out.
  EXPECT_EQ(graph.slave("b").announcements, 10);
  EXPECT_EQ(graph.slave("c").announcements, 10);
  EXPECT_EQ(graph.slave("a").announcements, 0);
  EXPECT_EQ(graph.slave("d").announcements, 0);
}

// A slave reading the derivatives of its source's output without feedthrough still
// waits for the source's refresh: through the source's dynamics they follow its
// inputs (here d(rate)/dt = the source's input).
TEST_P(FeedthroughRefresh, DerivativesOfOutputsWithoutFeedthroughAreReadAfterTheirRefresh) {
  Graph graph;
  graph.add("reader", 1, 5.0);
  graph.system.add_slave("source", std::make_unique<SquareSlave>());
  graph.add("integrator", 1, 7.0);
  graph.system.connect("source.y", "integrator.u0");
  graph.system.connect("integrator.rate", "reader.u0");
  const auto algorithm = make_algorithm(algorithm_name(), input_order());
  PlanObserver observer;
  std::size_t refresh_plans = 0;
  run(graph.system, *algorithm, observer,
      [&](const Executor& executor, const std::vector<std::size_t>& evaluated) {
        if (evaluated.empty()) return;
        ++refresh_plans;
        if (evaluated.front() != 0) return;
        const double t = to_seconds(executor.frontier());
        EXPECT_DOUBLE_EQ(executor.slots()[0].output(0), 7.0 + 5.0);
        // ẏ of the reader is the slope of its input, d(rate)/dt, when it carries slopes.
        EXPECT_DOUBLE_EQ(executor.slots()[0].output(0, 1), input_order() > 0 ? t * t : 0.0);
      });
  // Without derivatives in the inputs the two are independent: one level.
  EXPECT_EQ(refresh_plans, input_order() > 0 ? 20U : 10U);
}

INSTANTIATE_TEST_SUITE_P(FixedStep, FeedthroughRefresh,
                         ::testing::Combine(::testing::Values("jacobi", "gauss_seidel"),
                                            ::testing::Values(0, 1)),
                         [](const auto& test) {
                           return std::get<0>(test.param) + "_order" +
                                  std::to_string(std::get<1>(test.param));
                         });

TEST(FeedthroughRefreshLevels, ALoopThroughFeedthroughOutputsIsRejectedNamingItsSlaves) {
  System system;
  system.add_slave("left", std::make_unique<OffsetSlave>(1, 1.0));
  system.add_slave("right", std::make_unique<OffsetSlave>(1, 2.0));
  system.connect("left.y", "right.u0");
  system.connect("right.y", "left.u0");
  Jacobi jacobi({to_ticks(kStep), 0});
  std::vector<StepSlot> slots(2);
  try {
    // System::validate rejects it first in a run; start() must not loop on it either.
    jacobi.start(RunSetup{system, 0, to_ticks(kEnd)}, slots);
    FAIL() << "no error";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("'left'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("'right'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace couplet
