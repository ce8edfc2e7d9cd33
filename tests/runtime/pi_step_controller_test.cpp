// The PI step-size controller of Glumac & Kovačić 2023, eq. 39, with anti-windup.
#include "runtime/algorithms/pi_step_controller.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

PiStepControllerSettings paper_settings(double tolerance = 1e-3, double initial_step = 1e-4) {
  PiStepControllerSettings settings;
  settings.tolerance = tolerance;
  settings.initial_step = initial_step;
  return settings;  // K_P = 0.13, K_I = 1/15, θ_max = 2 (eq. 50)
}

TEST(PiStepController, DefaultsAreThePapers) {
  const PiStepControllerSettings settings;
  EXPECT_EQ(settings.proportional_gain, 0.13);
  EXPECT_EQ(settings.integral_gain, 1.0 / 15.0);
  EXPECT_EQ(settings.max_growth, 2.0);
}

TEST(PiStepController, DefectAtToleranceKeepsTheStep) {
  PiStepController controller(paper_settings(1e-3, 0.01));
  EXPECT_DOUBLE_EQ(controller.integral(), std::log(0.01));  // I₀ = ln H₁
  for (int k = 0; k < 5; ++k) {
    const PiStepDecision decision = controller.next(1e-3, 0.01);
    EXPECT_DOUBLE_EQ(decision.error_log, 0.0);
    EXPECT_NEAR(decision.step, 0.01, 1e-15);
    EXPECT_FALSE(decision.limited);
  }
}

// One step of eq. 39 by hand: e = ln tol − ln ε, I = ln H₁ + K_I e, H = exp(I + K_P e).
TEST(PiStepController, OneStepFollowsEquation39) {
  PiStepController controller(paper_settings(1e-3, 0.01));
  const PiStepDecision decision = controller.next(4e-3, 0.01);
  const double error = std::log(1e-3) - std::log(4e-3);
  EXPECT_NEAR(decision.error_log, error, 1e-15);
  EXPECT_NEAR(decision.integral, std::log(0.01) + error / 15.0, 1e-14);
  EXPECT_NEAR(decision.step, std::exp(std::log(0.01) + error / 15.0 + 0.13 * error), 1e-16);
  EXPECT_LT(decision.step, 0.01);
  EXPECT_FALSE(decision.limited);
}

TEST(PiStepController, SmallDefectGrowsTheStepAtMostByThetaMax) {
  PiStepController controller(paper_settings(1e-3, 1e-4));
  double step = 1e-4;
  for (int k = 0; k < 10; ++k) {
    const PiStepDecision decision = controller.next(1e-9, step);
    EXPECT_GT(decision.unlimited_step, 2.0 * step);
    EXPECT_TRUE(decision.limited);
    EXPECT_NEAR(decision.step, 2.0 * step, 1e-18);
    // Anti-windup: ln H = I + K_P e holds for the step taken.
    EXPECT_NEAR(std::log(decision.step), decision.integral + 0.13 * decision.error_log, 1e-12);
    step = decision.step;
  }
}

TEST(PiStepController, ZeroDefectIsFinite) {
  PiStepController controller(paper_settings());
  const PiStepDecision decision = controller.next(0.0, 1e-4);
  EXPECT_NEAR(decision.error_log, std::log(1e-3) - std::log(1e-16), 1e-12);
  EXPECT_TRUE(std::isfinite(decision.integral));
  EXPECT_EQ(decision.step, 2e-4);
  const PiStepDecision huge = controller.next(std::numeric_limits<double>::infinity(), 2e-4);
  EXPECT_TRUE(std::isfinite(huge.integral));
  EXPECT_GT(huge.step, 0.0);
}

// Without anti-windup, a long stretch at H_max would pile up I, and a sudden large
// defect would leave the step at H_max for many steps. With it, the very next step
// shrinks.
TEST(PiStepController, AntiWindupLetsTheStepShrinkAtOnce) {
  PiStepControllerSettings settings = paper_settings(1e-3, 1e-4);
  settings.max_step = 0.01;
  PiStepController controller(settings);
  double step = 1e-4;
  for (int k = 0; k < 200; ++k) step = controller.next(1e-12, step).step;
  EXPECT_EQ(step, 0.01);
  EXPECT_NEAR(controller.integral(), std::log(0.01) - 0.13 * (std::log(1e-3) - std::log(1e-12)), 1e-9);
  const PiStepDecision decision = controller.next(1e-2, step);
  EXPECT_LT(decision.step, 0.005);
  EXPECT_FALSE(decision.limited);
}

TEST(PiStepController, BoundsHold) {
  PiStepControllerSettings settings = paper_settings(1e-3, 1e-3);
  settings.min_step = 5e-4;
  settings.max_step = 2e-3;
  PiStepController controller(settings);
  double step = 1e-3;
  for (const double defect : {1.0, 1.0, 1.0, 1e-12, 1e-12, 1e-12, 1e-12, 1.0}) {
    const PiStepDecision decision = controller.next(defect, step);
    EXPECT_GE(decision.step, 5e-4);
    EXPECT_LE(decision.step, 2e-3);
    step = decision.step;
  }
}

TEST(PiStepController, SameDefectsGiveBitIdenticalSteps) {
  const std::vector<double> defects{1e-2, 3e-4, 7e-3, 1e-3, 0.0, 2e-3, 5e-5};
  const auto run = [&] {
    PiStepController controller(paper_settings());
    std::vector<std::uint64_t> bits;
    double step = 1e-4;
    for (const double defect : defects) {
      step = controller.next(defect, step).step;
      bits.push_back(std::bit_cast<std::uint64_t>(step));
    }
    return bits;
  };
  EXPECT_EQ(run(), run());
}

void expect_rejected(PiStepControllerSettings settings, const std::string& key) {
  try {
    PiStepController controller(settings);
    ADD_FAILURE() << "accepted a bad " << key;
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("algorithm." + key), std::string::npos) << error.what();
  }
}

TEST(PiStepController, RejectsBadSettingsNamingTheKey) {
  PiStepControllerSettings settings = paper_settings();
  settings.tolerance = 0.0;
  expect_rejected(settings, "tol");
  settings.tolerance = -1e-3;
  expect_rejected(settings, "tol");
  settings = paper_settings();
  settings.initial_step = 0.0;
  expect_rejected(settings, "initial_step");
  settings = paper_settings();
  settings.min_step = 0.1;
  settings.max_step = 0.01;
  expect_rejected(settings, "min_step");
  settings = paper_settings();
  settings.max_growth = 0.5;
  expect_rejected(settings, "theta_max");
  settings = paper_settings();
  settings.integral_gain = -1.0;
  expect_rejected(settings, "k_i");
  settings = paper_settings();
  settings.proportional_gain = std::nan("");
  expect_rejected(settings, "k_p");
}

}  // namespace
}  // namespace couplet
