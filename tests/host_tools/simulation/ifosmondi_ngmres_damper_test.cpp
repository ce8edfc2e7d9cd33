// IFOSMONDI-JFM with N-GMRES (`solver: ngmres`) and the fixed point's iteration budget
// on the damper test case (scenarios/ifosmondi_damper.yaml), run as `couplet run`
// runs it; the fixed-point map has spectral radius √(D_SD/D_D) = √(1/D_D).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/algorithms/ifosmondi_algorithm.hpp"

namespace couplet::testing {
namespace {

const char* const kScenario = "ifosmondi_damper.yaml";

std::vector<std::string> case_of(const std::string& algorithm, double damping, double end = 10.0) {
  return {"algorithm={" + algorithm + ", step: 0.01, eps: 1.0e-4}",
          "slaves.plate.parameters.D_D=" + std::to_string(damping),
          "time.end=" + std::to_string(end)};
}

const std::string kFixedPoint = "type: ifosmondi";
const std::string kNewton = "type: ifosmondi_jfm, solver: newton";
const std::string kAnderson = "type: ifosmondi_jfm, solver: anderson";
const std::string kNgmres = "type: ifosmondi_jfm, solver: ngmres";
const std::string kNgmresPlain = "type: ifosmondi_jfm, solver: ngmres, line_search: false";

double counter(const nlohmann::json& summary, const std::string& name) {
  return summary.at("counters").at(name).get<double>();
}

/// Columns of signals.csv (time first, then the signals and their references).
std::vector<std::vector<double>> signal_columns(const std::string& directory) {
  std::istringstream text(read_file(directory + "/signals.csv"));
  std::string line;
  std::getline(text, line);  // header
  std::vector<std::vector<double>> columns;
  while (std::getline(text, line)) {
    std::istringstream cells(line);
    std::string cell;
    for (std::size_t k = 0; std::getline(cells, cell, ','); ++k) {
      if (columns.size() <= k) columns.emplace_back();
      columns[k].push_back(std::stod(cell));
    }
  }
  return columns;
}

/// The largest difference between two runs' simulated signals (not the references),
/// relative to each signal's range.
double largest_relative_difference(const std::string& a, const std::string& b) {
  const auto first = signal_columns(a), second = signal_columns(b);
  const std::size_t signals = (first.size() - 1) / 2;
  double worst = 0.0;
  for (std::size_t k = 1; k <= signals; ++k) {
    const auto [low, high] = std::minmax_element(first[k].begin(), first[k].end());
    for (std::size_t i = 0; i < first[k].size(); ++i) {
      worst = std::max(worst, std::abs(first[k][i] - second[k][i]) / (*high - *low));
    }
  }
  return worst;
}

// N-GMRES, with and without line search, reaches the solution Newton and Anderson
// reach (within the tolerance), contractant and not; the iterations are reported.
TEST(IfosmondiNgmresDamper, SameSolutionAsNewtonAndAnderson) {
  for (const double damping : {4.0, 0.64, 0.25}) {
    const std::string label = "D_D = " + std::to_string(damping);
    run(kScenario, case_of(kNewton, damping, 2.0), "ngmres-newton");
    run(kScenario, case_of(kAnderson, damping, 2.0), "ngmres-anderson");
    for (const std::string& ngmres : {kNgmres, kNgmresPlain}) {
      const auto summary = run(kScenario, case_of(ngmres, damping, 2.0), "ngmres-ngmres");
      const double steps = counter(summary, "converged_steps");
      std::printf("%s, %s: %.2f iterations, %.2f integrations per step\n", label.c_str(),
                  ngmres.c_str(), counter(summary, "iterations") / steps,
                  counter(summary, "integrations") / steps);
      EXPECT_EQ(counter(summary, "rejected_steps"), 0.0) << label << ", " << ngmres;
      EXPECT_EQ(steps, 200.0);
      EXPECT_LE(counter(summary, "iterations") / steps, 4.0) << label << ", " << ngmres;
      EXPECT_LT(largest_relative_difference(run_directory("ngmres-ngmres"),
                                            run_directory("ngmres-newton")),
                1e-4)
          << label << ", " << ngmres;
      EXPECT_LT(largest_relative_difference(run_directory("ngmres-ngmres"),
                                            run_directory("ngmres-anderson")),
                1e-4)
          << label << ", " << ngmres;
    }
  }
}

// Radius 10: the plain N-GMRES stagnates on the first step and fails cleanly; with
// line search it converges on every step (as in the IFOSMONDI-JFM paper, §5).
TEST(IfosmondiNgmresDamper, LineSearchConvergesWherePlainNgmresFails) {
  const auto summary = run(kScenario, case_of(kNgmres, 0.01, 2.0), "ngmres-radius-10");
  EXPECT_EQ(counter(summary, "rejected_steps"), 0.0);
  EXPECT_LT(nrmse(summary, "plate.x_c"), 0.01);
  try {
    run(kScenario, case_of(kNgmresPlain, 0.01, 2.0), "ngmres-plain-radius-10");
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    EXPECT_NE(std::string(failure.what()).find("50 N-GMRES iterations without convergence"),
              std::string::npos)
        << failure.what();
  }
}

// `couplet replay --verify` reproduces an N-GMRES run bit for bit: every slave call,
// every internal value and the decision hash.
TEST(IfosmondiNgmresDamper, ReplayReproducesTheRunBitForBit) {
  for (const std::string& ngmres : {kNgmres, kNgmresPlain}) {
    const std::string directory = fresh_directory("ngmres-replay").string();
    tools::run_scenario(load(kScenario, case_of(ngmres, 0.25, 1.0)), {directory, false});
    const tools::ReplayOutcome outcome =
        tools::replay_run_log(tools::read_run_log(directory + "/run.log"));
    EXPECT_TRUE(outcome.identical) << ngmres << ": " << outcome.divergence;
    EXPECT_TRUE(outcome.hash_compared) << ngmres;
    EXPECT_EQ(outcome.macro_steps, 100U) << ngmres;
  }
}

// D_D = 1.28: radius 0.884, a contraction that needs more than 50 fixed-point
// iterations on a step. The default budget follows the measured rate: it converges.
TEST(IfosmondiIterationBudgetDamper, SlowContractionConvergesWithDefaultSettings) {
  const auto summary = run(kScenario, case_of(kFixedPoint, 1.28, 1.0), "budget-default");
  EXPECT_EQ(counter(summary, "rejected_steps"), 0.0);
  EXPECT_EQ(counter(summary, "converged_steps"), 100.0);
  EXPECT_LT(nrmse(summary, "plate.x_c"), 0.01);
  EXPECT_GT(counter(summary, "iterations") / 100.0,
            50.0);  // more than the old fixed budget, on average
}

// With max_iterations given, the budget is fixed; the failure names the measured rate
// (the radius, 0.884) and the iterations reaching the tolerance needs.
TEST(IfosmondiIterationBudgetDamper, FixedBudgetFailureNamesRateAndNeededIterations) {
  try {
    run(kScenario, case_of(kFixedPoint + ", max_iterations: 50", 1.28, 1.0), "budget-fixed");
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    const std::string message = failure.what();
    const std::size_t rate = message.find("contraction rate 0.88");
    ASSERT_NE(rate, std::string::npos) << message;
    int needed = 0;
    const std::size_t about = message.find("needs about ", rate);
    ASSERT_NE(about, std::string::npos) << message;
    needed = std::stoi(message.substr(about + 12));
    EXPECT_GT(needed, 50) << message;
    EXPECT_LT(needed, 200) << message;
    EXPECT_NE(message.find("raise algorithm.max_iterations"), std::string::npos) << message;
  }
}

TEST(IfosmondiNgmresDamper, ConfigurationErrorsNameTheKey) {
  const auto message = [](const std::vector<std::string>& assignments) {
    try {
      tools::validate_scenario(load(kScenario, assignments));
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(
      message({"algorithm.solver=ngmres", "algorithm.anderson_depth=3"})
          .find("algorithm.anderson_depth: a KINSOL setting, which solver ngmres does not use"),
      std::string::npos);
  EXPECT_NE(message({"algorithm.ngmres_window=3"})
                .find("algorithm.ngmres_window: only for solver ngmres"),
            std::string::npos);
  EXPECT_NE(message({"algorithm.solver=ngmres", "algorithm.ngmres_window=31"})
                .find("algorithm.ngmres_window"),
            std::string::npos);
  EXPECT_NE(message({"algorithm.solver=ngmres", "algorithm.line_search=sometimes"})
                .find("algorithm.line_search: expected true or false"),
            std::string::npos);
  EXPECT_NE(
      message({"algorithm.type=ifosmondi", "algorithm.solver=null", "algorithm.line_search=true"})
          .find("algorithm.line_search: only for type ifosmondi_jfm"),
      std::string::npos);
  EXPECT_EQ(message({"algorithm.solver=ngmres", "algorithm.ngmres_window=8",
                     "algorithm.line_search=false"}),
            "(no error)");
}

}  // namespace
}  // namespace couplet::testing
