// Initial outputs (docs/defect-control.md: output derivatives at t0 are computed properly
// before the first exchange): through the rotational pair's feedthrough every
// derivative order the slaves report must be consistent with the monolithic
// system at t0.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "host_tools/algorithm_factory.hpp"
#include "host_tools/system_builder.hpp"
#include "runtime/executor.hpp"
#include "test_support.hpp"

namespace couplet::testing {
namespace {

// The physical two-mass oscillator (states φ1, ω1, φ2, ω2; defaults of
// rotational.omega2tau / tau2omega), its coupling torque τ = ck(φ1−φ2) + dk(ω1−ω2)
// on mass 2, and ω2 = x[3]. Derivatives of order k: C A^k x0.
TEST(InitialOutputs, EveryDerivativeOrderIsConsistentThroughFeedthrough) {
  const double J1 = 10, c1 = 1, d1 = 1, ck = 1, dk = 2, J2 = 10, c2 = 1, d2 = 2;
  Eigen::Matrix4d A;
  A << 0, 1, 0, 0,  //
      -(c1 + ck) / J1, -(d1 + dk) / J1, ck / J1, dk / J1,  //
      0, 0, 0, 1,  //
      ck / J2, dk / J2, -(c2 + ck) / J2, -(d2 + dk) / J2;
  const Eigen::Vector4d x0(0.1, 0.1, 0.2, 0.1);
  const Eigen::RowVector4d torque(ck, dk, -ck, -dk), speed(0, 0, 0, 1);

  const tools::Scenario scenario = load("rotational_two_mass.yaml", {"time.end=1"});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario);
  Executor executor(system, *algorithm, 0, to_ticks(1.0), {});
  executor.initialize();
  const StepSlot& tau2omega = executor.slots()[*system.find_slave("tau2omega")];
  const StepSlot& omega2tau = executor.slots()[*system.find_slave("omega2tau")];
  ASSERT_EQ(tau2omega.output_derivative_order, 3);
  Eigen::Vector4d derivative = x0;
  for (int order = 0; order <= 3; ++order) {
    EXPECT_NEAR(omega2tau.output(0, order), torque * derivative, 1e-14) << "tau, order " << order;
    EXPECT_NEAR(tau2omega.output(0, order), speed * derivative, 1e-14) << "omega, order " << order;
    derivative = A * derivative;
  }
}

}  // namespace
}  // namespace couplet::testing
