// The semi-implicit co-simulation scheme (algorithm semi_implicit; Schweizer & Lu,
// Archive of Applied Mechanics 84(12), 2014, as used by Kraft & Schweizer) on the
// oscillator chain through the scenario path: accuracy against the monolithic
// reference, replay bit for bit, and the refusals that name the slave or key.
#include <gtest/gtest.h>

#include <string>

#include "couplet/errors.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

constexpr const char* kChain =
    "chain_semi_implicit.yaml";  // 12 bodies, 4 segments, H = 20 µs, k = 2

double worst_nrmse(const nlohmann::json& summary) {
  double worst = 0.0;
  for (const auto& [signal, errors] : summary["errors"].items())
    worst = std::max(worst, errors["nrmse_pct"].get<double>());
  return worst;
}

std::string error_of(const std::vector<std::string>& assignments, const char* scenario = kChain) {
  try {
    run(scenario, assignments, "semi-implicit-refused");
  } catch (const std::exception& error) {
    return error.what();
  }
  return "no error";
}

// Against the monolithic chain over 2 ms (global errors of order k + 1, the
// velocities' local order less one): measured worst NRMSE 7.8 %, 0.11 %,
// 0.0095 % for k = 0, 1, 2 at H = 20 µs.
TEST(SemiImplicit, ChainFollowsTheMonolithicReference) {
  const double bound[] = {10.0, 0.2, 0.015};
  double previous = 1e300;
  for (const int k : {0, 1, 2}) {
    const auto summary =
        run(kChain, {"algorithm.input_order=" + std::to_string(k)}, "semi-implicit-chain");
    EXPECT_EQ(summary["algorithm"], "semi_implicit");
    EXPECT_EQ(summary["counters"]["macro_steps"].get<double>(), 100.0);
    EXPECT_EQ(summary["counters"]["integrations"].get<double>(), 3 * 4 * 100.0)
        << "two predictors, one corrector";
    const double nrmse = worst_nrmse(summary);
    EXPECT_LT(nrmse, previous) << "k = " << k;
    EXPECT_LT(nrmse, bound[k]) << "k = " << k;
    previous = nrmse;
  }
}

/// Runs the chain with `overrides` and a run log, then replays the log.
tools::ReplayOutcome run_and_replay(const std::string& name,
                                    const std::vector<std::string>& overrides) {
  const std::string directory = fresh_directory(name).string();
  tools::run_scenario(load(kChain, overrides), {directory, true});
  return tools::replay_run_log(tools::read_run_log(directory + "/run.log"));
}

TEST(SemiImplicit, ReplayReproducesTheRunBitForBit) {
  const tools::ReplayOutcome outcome = run_and_replay("semi-implicit-replay", {});
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_TRUE(outcome.hash_compared);
  EXPECT_EQ(outcome.macro_steps, 100U);
}

// The explicit scheme (Jacobi, extrapolated inputs) on the same chain: its
// decisions depend on the recorded communication values only.
TEST(ExplicitChain, ReplayReproducesTheRunBitForBit) {
  const tools::ReplayOutcome outcome = run_and_replay(
      "explicit-replay",
      {"algorithm={type: jacobi, step: 2.0e-5, input_order: 2, inputs: extrapolated}"});
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_TRUE(outcome.hash_compared);
  EXPECT_EQ(outcome.macro_steps, 100U);
}

TEST(SemiImplicit, SubsystemFedByAnotherSubsystemIsRefusedByName) {
  // two_mass_switch: the right mass has state, so it is a subsystem, and its
  // force output feeds the left mass directly.
  const std::string message =
      error_of({"algorithm={type: semi_implicit, step: 0.01}"}, "two_mass_switch.yaml");
  EXPECT_NE(message.find("input 'left.f' of subsystem 'left' is fed by 'right.f'"),
            std::string::npos)
      << message;
}

TEST(SemiImplicit, SubsystemWithoutRollbackIsRefusedByName) {
  const std::string message = error_of({"slaves.seg2.capabilities.rollback=false"});
  EXPECT_NE(message.find("slave 'seg2' is a subsystem"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot save and restore"), std::string::npos) << message;
}

TEST(SemiImplicit, BadSettingsAreRefusedByKey) {
  EXPECT_NE(error_of({"algorithm.perturbation=0"}).find("algorithm.perturbation"),
            std::string::npos);
  EXPECT_NE(error_of({"algorithm.eps=1"}).find("algorithm"), std::string::npos);
  const std::string history = error_of({"algorithm.history={seg1.x_last: [0.1]}"});
  EXPECT_NE(history.find("'seg1.x_last' is not an output of a coupling element"), std::string::npos)
      << history;
  const std::string unknown = error_of({"algorithm.history={cpl9.force: [0.1]}"});
  EXPECT_NE(unknown.find("cpl9.force"), std::string::npos) << unknown;
}

}  // namespace
}  // namespace couplet::testing
