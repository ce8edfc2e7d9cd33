// The F3ORNITS time-stepper: normalizations (eqs. 33–36), ratio (eqs. 32, 37) and
// proposal (eq. 38, Remark 1).
#include "runtime/algorithms/f3ornits_time_stepper.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

TimeStepperSettings settings_with(Normalization normalization) {
  TimeStepperSettings settings;
  settings.normalization = normalization;
  settings.tol_rel = 1e-2;
  settings.tol_abs = 1e-3;
  return settings;
}

TEST(F3ornitsTimeStepper, MagnitudeNormalizesByTheNewValue) {
  OutputRange range;
  range.start(1.0);
  range.add(-4.0, 0.1, 0.05);
  const OutputError error = measure_output(-4.0, -4.2, 1, range, settings_with(Normalization::magnitude));
  EXPECT_NEAR(error.error, 0.2, 1e-15);
  EXPECT_NEAR(error.scale, 1e-3 + 1e-2 * 4.0, 1e-15);  // eq. 33 with |y|
  EXPECT_NEAR(error.normalized, 0.2 / 0.041, 1e-12);
  EXPECT_NEAR(error.ratio, std::pow(0.041 / 0.2, 0.5), 1e-12);  // eq. 32, p = 1
}

TEST(F3ornitsTimeStepper, AmplitudeRemembersEveryExtreme) {
  OutputRange range;
  range.start(10.0);
  for (double value : {-10.0, 0.1, 0.2, 0.1}) range.add(value, 1.0, 0.05);
  EXPECT_DOUBLE_EQ(range.amplitude(), 20.0);  // eq. 34
  const OutputError error = measure_output(0.1, 0.1, 0, range, settings_with(Normalization::amplitude));
  EXPECT_EQ(error.normalized, 0.0);
  EXPECT_EQ(error.ratio, 1.05);  // err = 0 ⇒ ρ_max
}

// Eq. 36 by hand: the bounds move towards each other by ν δt/2 of the amplitude.
TEST(F3ornitsTimeStepper, DampedAmplitudeRecursion) {
  OutputRange range;
  range.start(1.0);
  range.add(-1.0, 0.5, 0.1);  // α⁽⁰⁾ = 0: max = 1, min = −1
  EXPECT_DOUBLE_EQ(range.damped_max(), 1.0);
  EXPECT_DOUBLE_EQ(range.damped_min(), -1.0);
  range.add(0.0, 2.0, 0.1);  // shrink = 0.1 · 2 / 2 · 2 = 0.2 on each side
  EXPECT_DOUBLE_EQ(range.damped_max(), 0.8);
  EXPECT_DOUBLE_EQ(range.damped_min(), -0.8);
  range.add(0.9, 1.0, 0.1);  // a new value above the damped max lifts it
  EXPECT_DOUBLE_EQ(range.damped_max(), 0.9);
  EXPECT_NEAR(range.damped_min(), -0.8 + 0.05 * 1.6, 1e-15);
  EXPECT_DOUBLE_EQ(range.amplitude(), 2.0);  // the plain amplitude never forgets
  const OutputError error = measure_output(0.9, 0.8, 2, range, settings_with(Normalization::damped_amplitude));
  EXPECT_NEAR(error.scale, 1e-3 + 1e-2 * range.damped_amplitude(), 1e-15);  // eq. 35
}

TEST(F3ornitsTimeStepper, ZeroDampingIsThePlainAmplitude) {
  OutputRange range;
  range.start(3.0);
  for (double value : {-2.0, 1.0, 0.5, 0.7}) range.add(value, 0.3, 0.0);
  EXPECT_DOUBLE_EQ(range.damped_amplitude(), range.amplitude());
}

TEST(F3ornitsTimeStepper, DampingNeverCrossesTheBounds) {
  OutputRange range;
  range.start(1.0);
  range.add(-1.0, 1.0, 0.05);
  range.add(0.0, 1000.0, 0.05);  // ν δt = 50: capped, the bounds meet at the value
  EXPECT_LE(range.damped_min(), range.damped_max());
  EXPECT_DOUBLE_EQ(range.damped_max(), 0.0);
  EXPECT_DOUBLE_EQ(range.damped_min(), 0.0);
}

TEST(F3ornitsTimeStepper, ProposalIsEquation38WithinTheRatioBounds) {
  TimeStepperSettings settings;  // ρ ∈ [0.1, 1.05]
  EXPECT_DOUBLE_EQ(propose_step(0.5, 0.2, 0.2, settings).step, 0.1);
  EXPECT_DOUBLE_EQ(propose_step(3.0, 0.2, 0.2, settings).step, 0.2 * 1.05);
  EXPECT_TRUE(propose_step(3.0, 0.2, 0.2, settings).limited);
  EXPECT_DOUBLE_EQ(propose_step(0.01, 0.2, 0.2, settings).step, 0.2 * 0.1);
  EXPECT_FALSE(propose_step(0.5, 0.2, 0.2, settings).limited);
  settings.min_step = 0.05;
  settings.max_step = 0.15;
  EXPECT_DOUBLE_EQ(propose_step(0.01, 0.2, 0.2, settings).step, 0.05);
  EXPECT_DOUBLE_EQ(propose_step(3.0, 0.2, 0.2, settings).step, 0.15);
}

// Ours: a step shortened by the scheduler does not shrink the next proposal by itself.
TEST(F3ornitsTimeStepper, ShortenedStepKeepsTheProposedStepAsReference) {
  TimeStepperSettings settings;
  // Proposed 0.2, the scheduler cut it to 0.01; the error allows 50 times that step.
  EXPECT_DOUBLE_EQ(propose_step(50.0, 0.01, 0.2, settings).step, 0.2 * 1.05);
  // A large error still shrinks: ρ · actual, but not below ρ_min of the reference.
  EXPECT_DOUBLE_EQ(propose_step(0.5, 0.01, 0.2, settings).step, 0.2 * 0.1);
}

TEST(F3ornitsTimeStepper, BadSettingsNameTheKey) {
  const auto message = [](auto change) {
    TimeStepperSettings settings;
    change(settings);
    try {
      check_time_stepper_settings(settings);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message([](TimeStepperSettings& s) { s.tol_rel = 0.0; }).find("algorithm.tol_rel"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) { s.tol_abs = -1.0; }).find("algorithm.tol_abs"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) {
              s.normalization = Normalization::magnitude;
              s.tol_abs = 0.0;
            }).find("algorithm.tol_abs"),
            std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) { s.damping = -0.1; }).find("algorithm.damping"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) { s.rho_min = 0.0; }).find("algorithm.rho_min"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) { s.rho_max = 0.9; }).find("algorithm.rho_max"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) { s.min_step = -1.0; }).find("algorithm.min_step"), std::string::npos);
  EXPECT_NE(message([](TimeStepperSettings& s) {
              s.min_step = 1.0;
              s.max_step = 0.5;
            }).find("algorithm.max_step"),
            std::string::npos);
  EXPECT_EQ(message([](TimeStepperSettings&) {}), "accepted");
}

}  // namespace
}  // namespace couplet
