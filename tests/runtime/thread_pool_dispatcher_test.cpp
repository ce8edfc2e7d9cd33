// The thread-pool executor (docs/executors.md): the slave calls of a wave run
// concurrently, and still the decisions, every call the observer sees (in
// order, with its results, bit for bit) and the errors are those of the
// sequential executor. Also the wave rule itself: each slave at most once per
// wave, the plan's order kept. Built with ThreadSanitizer by ./build.sh sanitize.
#include "runtime/thread_pool_dispatcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "couplet/errors.hpp"
#include "ifosmondi_test_slaves.hpp"
#include "runtime/algorithms/ifosmondi.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/executor.hpp"

namespace couplet::testing {
namespace {

/// Every observer call as one line holding the call and the bits of what the
/// slave returned.
struct CallLog final : ExecutorObserver {
  std::vector<std::string> calls;

  static std::string bits(std::span<const double> values) {
    std::string text;
    for (const double value : values) {
      std::uint64_t word = 0;
      std::memcpy(&word, &value, sizeof word);
      text += ' ';
      text += std::to_string(word);
    }
    return text;
  }
  void slave_set_up(std::size_t slave, Time start) override {
    calls.push_back("setup " + std::to_string(slave) + " " + std::to_string(start));
  }
  void step_began(std::size_t) override {}
  void slave_stepped(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                     const LinkStepReport&) override {
    calls.push_back("step " + std::to_string(slave) + " " + std::to_string(request.start) + " " +
                    std::to_string(request.end) + bits(result.end_outputs) + " |" +
                    bits(result.samples));
  }
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial>,
                         std::span<const double> outputs) override {
    calls.push_back("evaluate " + std::to_string(slave) + bits(outputs));
  }
  void slave_linearized(std::size_t slave, std::span<const Polynomial>,
                        std::span<const double> values) override {
    calls.push_back("linearize " + std::to_string(slave) + bits(values));
  }
  void state_saved(std::size_t slave) override { calls.push_back("save " + std::to_string(slave)); }
  void state_restored(std::size_t slave) override {
    calls.push_back("restore " + std::to_string(slave));
  }
};

/// Passes the waves on to `inner` and checks the wave rule on the way.
class WaveChecker final : public ActionDispatcher {
 public:
  explicit WaveChecker(ActionDispatcher& inner) : inner_(inner) {}
  std::string_view name() const override { return "checked"; }
  void carry_out(std::span<const PlannedAction> wave, ActionCalls& calls) override {
    std::set<std::size_t> slaves;
    for (const PlannedAction& action : wave) {
      EXPECT_TRUE(slaves.insert(action.slave).second)
          << "slave " << action.slave << " twice in one wave";
    }
    largest_wave = std::max(largest_wave, wave.size());
    ++waves;
    inner_.carry_out(wave, calls);
  }
  std::size_t largest_wave = 0;
  std::size_t waves = 0;

 private:
  ActionDispatcher& inner_;
};

/// Throws from its step once the step starts at or after `when` (seconds).
class FailingSlave final : public Slave {
 public:
  FailingSlave(std::unique_ptr<Slave> inner, double when) : inner_(std::move(inner)), when_(when) {}
  const SlaveDescription& description() const override { return inner_->description(); }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override {
    inner_->evaluate_outputs(inputs, out);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    if (to_seconds(request.start) >= when_) {
      throw SlaveError("slave gave up at t = " + std::to_string(to_seconds(request.start)));
    }
    inner_->step(request, result);
  }
  void save_state() override { inner_->save_state(); }
  void restore_state() override { inner_->restore_state(); }

 private:
  std::unique_ptr<Slave> inner_;
  double when_;
};

/// "s<k><port>", built by appending (GCC 12 warns falsely about "s" + std::string).
std::string port(std::size_t k, const char* suffix = "") {
  std::string text = "s";
  text += std::to_string(k);
  text += suffix;
  return text;
}

/// A ring of `count` lag slaves, each driven by its left neighbour; every other one
/// feeds through (so that the fixed-step masters also plan output refreshes).
/// With `failing` < count, that slave throws from its first step at or after 1 s.
System ring(std::size_t count, std::size_t failing = ~std::size_t{0}) {
  System system;
  for (std::size_t k = 0; k < count; ++k) {
    const double rate = 1.0 + 0.1 * static_cast<double>(k);
    const double feedthrough = k % 2 == 0 ? 0.5 : 0.0;
    std::unique_ptr<Slave> slave = std::make_unique<LagSlave>(rate, 1.0, feedthrough, 1.0);
    if (k == failing) slave = std::make_unique<FailingSlave>(std::move(slave), 1.0);
    system.add_slave(port(k), std::move(slave));
  }
  for (std::size_t k = 0; k < count; ++k) {
    system.connect(port((k + count - 1) % count, ".y"), port(k, ".u"));
  }
  return system;
}

struct Outcome {
  std::uint64_t decision_hash = 0;
  RunCounters counters;
  std::vector<std::string> calls;
  std::string error;  ///< what the run threw, if it did
  std::size_t largest_wave = 0;
  std::size_t waves = 0;
};

/// Runs `algorithm` over `system` to `end` seconds with `dispatcher` (null: sequential).
Outcome run_with(System& system, Algorithm& algorithm, double end, ActionDispatcher* dispatcher) {
  SequentialDispatcher sequential;
  WaveChecker checker(dispatcher != nullptr ? *dispatcher : sequential);
  CallLog log;
  Executor executor(system, algorithm, 0, to_ticks(end), {});
  executor.set_observer(&log);
  executor.set_dispatcher(&checker);
  Outcome outcome;
  try {
    executor.initialize();
    while (executor.advance()) {
    }
  } catch (const SlaveError& error) {
    outcome.error = error.what();
  }
  outcome.decision_hash = executor.decision_hash();
  outcome.counters = executor.counters();
  outcome.calls = std::move(log.calls);
  outcome.largest_wave = checker.largest_wave;
  outcome.waves = checker.waves;
  return outcome;
}

Outcome jacobi_ring(std::size_t count, ActionDispatcher* dispatcher,
                    std::size_t failing = ~std::size_t{0}) {
  System system = ring(count, failing);
  Jacobi jacobi(FixedStepSettings{to_ticks(0.05), 1});
  return run_with(system, jacobi, 2.0, dispatcher);
}

Outcome ifosmondi_loop(ActionDispatcher* dispatcher) {
  System system = loop_of(std::make_unique<LagSlave>(1.0, 1.0, 5.0, 1.0),
                          std::make_unique<LagSlave>(1.0, 20.0, 0.0, 0.0));
  Ifosmondi algorithm(rejecting_step_settings());
  return run_with(system, algorithm, 1.0, dispatcher);
}

void expect_same(const Outcome& threaded, const Outcome& sequential) {
  EXPECT_EQ(threaded.decision_hash, sequential.decision_hash);
  EXPECT_EQ(threaded.counters.macro_steps, sequential.counters.macro_steps);
  EXPECT_EQ(threaded.counters.slave_steps, sequential.counters.slave_steps);
  EXPECT_EQ(threaded.counters.rollbacks, sequential.counters.rollbacks);
  EXPECT_EQ(threaded.error, sequential.error);
  ASSERT_EQ(threaded.calls.size(), sequential.calls.size());
  for (std::size_t k = 0; k < sequential.calls.size(); ++k) {
    ASSERT_EQ(threaded.calls[k], sequential.calls[k]) << "observer call " << k;
  }
}

TEST(ThreadPoolDispatcher, JacobiRingGivesTheSequentialCallsBitForBit) {
  const Outcome sequential = jacobi_ring(8, nullptr);
  ASSERT_TRUE(sequential.error.empty()) << sequential.error;
  EXPECT_EQ(sequential.largest_wave, 8U) << "a Jacobi step of all slaves is one wave";
  EXPECT_EQ(sequential.counters.slave_steps, 8U * 40U);
  for (const std::size_t threads : {1U, 2U, 4U}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ThreadPoolDispatcher pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    expect_same(jacobi_ring(8, &pool), sequential);
  }
}

// A restore and the step after it on the same slave in one batch: the step
// starts a new wave, so it runs after the restore even on the pool.
TEST(ThreadPoolDispatcher, IfosmondiRollbacksSplitWavesAndKeepTheDecisions) {
  const Outcome sequential = ifosmondi_loop(nullptr);
  ASSERT_TRUE(sequential.error.empty()) << sequential.error;
  ASSERT_GT(sequential.counters.rollbacks, 10U) << "the test needs rollbacks";
  EXPECT_LE(sequential.largest_wave, 2U);
  ThreadPoolDispatcher pool(2);
  const Outcome threaded = ifosmondi_loop(&pool);
  expect_same(threaded, sequential);
  EXPECT_EQ(threaded.waves, sequential.waves);
}

// The error of the failing slave, whichever thread made its call; the observer
// has seen exactly the calls before it in plan order (the run log ends alike).
TEST(ThreadPoolDispatcher, ASlaveFailingOnAWorkerThreadFailsTheRunAsSequentially) {
  const Outcome sequential = jacobi_ring(8, nullptr, 5);
  ASSERT_EQ(sequential.error, "slave gave up at t = 1.000000");
  for (const std::size_t threads : {2U, 4U}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    ThreadPoolDispatcher pool(threads);
    expect_same(jacobi_ring(8, &pool, 5), sequential);
  }
}

// One pool, many runs: a dispatcher outlives executors and takes any wave size.
TEST(ThreadPoolDispatcher, OnePoolServesSuccessiveRunsOfAnySize) {
  ThreadPoolDispatcher pool(3);
  for (const std::size_t count : {2U, 3U, 7U}) {
    SCOPED_TRACE("slaves " + std::to_string(count));
    expect_same(jacobi_ring(count, &pool), jacobi_ring(count, nullptr));
  }
}

/// Counts the calls of each action of the waves it is given, by position.
class CountingCalls final : public ActionCalls {
 public:
  void start(std::span<const PlannedAction> wave, std::span<std::atomic<int>> counts) {
    wave_ = wave;
    counts_ = counts;
  }
  void call(const PlannedAction& action) noexcept override {
    // Every seventh action takes a while, so that the workers that finished
    // early go to sleep and wake late into later waves.
    const auto position = static_cast<std::size_t>(&action - wave_.data());
    if (action.slave % 7 == 3) std::this_thread::sleep_for(std::chrono::microseconds(200));
    counts_[position].fetch_add(1, std::memory_order_relaxed);
  }
  ActionResults results(const PlannedAction&) const override { return {}; }
  void fail(const PlannedAction&, std::exception_ptr) noexcept override {}
  bool failed(const PlannedAction&) const noexcept override { return false; }

 private:
  std::span<const PlannedAction> wave_;
  std::span<std::atomic<int>> counts_;
};

// The stepping thread waits for a wave's calls, not for the workers: a worker
// asleep through several waves must never make a call of a wave that is over,
// nor one of the current wave twice.
TEST(ThreadPoolDispatcher, EveryActionOfEveryWaveIsCalledOnceBeforeTheWaveReturns) {
  ThreadPoolDispatcher pool(6);
  CountingCalls calls;
  constexpr std::size_t kWaves = 400;
  std::vector<std::vector<PlannedAction>> waves(kWaves);
  std::vector<std::unique_ptr<std::atomic<int>[]>> counts(kWaves);
  for (std::size_t w = 0; w < kWaves; ++w) {
    const std::size_t size = 1 + (w * 7919) % 13;  // 1 to 13 actions: fewer and more than threads
    for (std::size_t a = 0; a < size; ++a) waves[w].push_back({(w + a) % 29});
    counts[w] = std::make_unique<std::atomic<int>[]>(size);
    calls.start(waves[w], {counts[w].get(), size});
    pool.carry_out(waves[w], calls);
    for (std::size_t a = 0; a < size; ++a)
      ASSERT_EQ(counts[w][a].load(), 1) << "wave " << w << ", action " << a << " on return";
  }
  // Long enough for every worker to have woken from any wave it slept through.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (std::size_t w = 0; w < kWaves; ++w)
    for (std::size_t a = 0; a < waves[w].size(); ++a)
      ASSERT_EQ(counts[w][a].load(), 1) << "wave " << w << ", action " << a << " afterwards";
}

TEST(ThreadPoolDispatcher, RefusesZeroThreads) {
  EXPECT_THROW(ThreadPoolDispatcher(0), ConfigurationError);
}

}  // namespace
}  // namespace couplet::testing
