// The roles and the algebra of the semi-implicit scheme
// (runtime/algorithms/semi_implicit_coupling.hpp): which slaves are coupling
// elements, eq. 4/5 with the D rows of their linearizations, and the refusals
// that name the slave.
#include "runtime/algorithms/semi_implicit_coupling.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "runtime/system.hpp"

namespace couplet {
namespace {

/// A subsystem: input force f, output position x (no feedthrough).
class Body final : public Slave {
 public:
  explicit Body(bool rollback) {
    description_.inputs = {{"f"}};
    description_.outputs = {{"x", false}};
    description_.capabilities.can_rollback = rollback;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override {}
  void evaluate_outputs(std::span<const Polynomial>, std::span<double>) override {}
  void step(const StepRequest&, const OutputBuffers&) override {}
  void save_state() override {}
  void restore_state() override {}

 private:
  SlaveDescription description_;
};

/// A spring between two bodies: λ = c (x_right − x_left), feedthrough.
class Spring final : public Slave {
 public:
  explicit Spring(bool linearize) {
    description_.inputs = {{"x_left"}, {"x_right"}};
    description_.outputs = {{"force", true}};
    description_.capabilities.can_linearize = linearize;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time) override {}
  void evaluate_outputs(std::span<const Polynomial>, std::span<double>) override {}
  void step(const StepRequest&, const OutputBuffers&) override {}

 private:
  SlaveDescription description_;
};

System two_bodies(bool spring_linearizes, bool bodies_roll_back) {
  System system;
  system.add_slave("left", std::make_unique<Body>(bodies_roll_back));
  system.add_slave("spring", std::make_unique<Spring>(spring_linearizes));
  system.add_slave("right", std::make_unique<Body>(bodies_roll_back));
  system.connect("left.x", "spring.x_left");
  system.connect("right.x", "spring.x_right");
  system.connect("spring.force", "left.f");
  system.connect("spring.force", "right.f");
  return system;
}

std::string refusal(const System& system) {
  try {
    SemiImplicitCoupling coupling(system, "semi_implicit");
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "no error";
}

TEST(SemiImplicitCoupling, SplitsSubsystemsAndCouplingElements) {
  const System system = two_bodies(true, true);
  const SemiImplicitCoupling coupling(system, "semi_implicit");
  EXPECT_EQ(std::vector<std::size_t>(coupling.subsystems().begin(), coupling.subsystems().end()),
            (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(std::vector<std::size_t>(coupling.couplings().begin(), coupling.couplings().end()),
            (std::vector<std::size_t>{1}));
  ASSERT_EQ(coupling.lambda_count(), 1U);
  EXPECT_EQ(coupling.lambda_of_input(0, 0), 0U);
  EXPECT_EQ(coupling.lambda_of_input(2, 0), 0U);
  EXPECT_EQ(coupling.coupling_input_count(), 2U);
}

// Eq. 5 for λ = c (x_R − x_L): J = c (∂x_R/∂λ − ∂x_L/∂λ) from the finite
// differences of eq. 4, and λ^c solves the linearized condition.
TEST(SemiImplicitCoupling, SlopeAndCorrectionFollowEquationsFourAndFive) {
  const System system = two_bodies(true, true);
  const SemiImplicitCoupling coupling(system, "semi_implicit");
  constexpr double c = 1e3;
  std::vector<StepSlot> slots(3);
  slots[1].linearization = {-c, c};  // no states: D = (∂λ/∂x_L, ∂λ/∂x_R)
  const std::vector<double> predicted = {0.10, 0.30};
  const std::vector<double> perturbed = {0.10 - 2e-6,
                                         0.30 + 3e-6};  // Δλ = 0.5: the left body recedes
  std::vector<double> slope(1);
  coupling.slopes(slots, predicted, perturbed, 0.5, slope);
  EXPECT_NEAR(slope[0], c * (6e-6 - (-4e-6)), 1e-12);
  // λ^p = 150, f(u^p) = c (0.30 − 0.10) = 200: λ^c − f(u(λ^c)) = 0 on the linearization.
  double corrected = 0.0;
  ASSERT_TRUE(solve_linearized_coupling(150.0, 200.0, slope[0], corrected));
  EXPECT_NEAR(corrected - (200.0 + slope[0] * (corrected - 150.0)), 0.0, 1e-12);
  EXPECT_FALSE(solve_linearized_coupling(150.0, 200.0, 1.0, corrected)) << "1 − J = 0: no solution";
}

TEST(SemiImplicitCoupling, CouplingElementThatCannotLinearizeIsRefusedByName) {
  const std::string message = refusal(two_bodies(false, true));
  EXPECT_NE(message.find("slave 'spring' is a coupling element"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot linearize"), std::string::npos) << message;
}

TEST(SemiImplicitCoupling, SubsystemThatCannotRollBackIsRefusedByName) {
  const std::string message = refusal(two_bodies(true, false));
  EXPECT_NE(message.find("slave 'left' is a subsystem"), std::string::npos) << message;
}

}  // namespace
}  // namespace couplet
