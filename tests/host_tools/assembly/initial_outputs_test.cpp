// Initial outputs (docs/defect-control.md: output derivatives at t0 are computed properly
// before the first exchange): through the rotational pair's feedthrough every
// derivative order the slaves report must be consistent with the monolithic
// system at t0; and computing them takes a few passes over the slaves, whatever
// their number.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/generators/chain_generator.hpp"
#include "host_tools/test_support.hpp"
#include "runtime/executor.hpp"

namespace couplet::testing {
namespace {

// The physical two-mass oscillator (states φ1, ω1, φ2, ω2; defaults of
// rotational.omega2tau / tau2omega), its coupling torque τ = ck(φ1−φ2) + dk(ω1−ω2)
// on mass 2, and ω2 = x[3]. Derivatives of order k: C A^k x0.
TEST(InitialOutputs, EveryDerivativeOrderIsConsistentThroughFeedthrough) {
  const double J1 = 10, c1 = 1, d1 = 1, ck = 1, dk = 2, J2 = 10, c2 = 1, d2 = 2;
  Eigen::Matrix4d A;
  A << 0, 1, 0, 0,                                         //
      -(c1 + ck) / J1, -(d1 + dk) / J1, ck / J1, dk / J1,  //
      0, 0, 0, 1,                                          //
      ck / J2, dk / J2, -(c2 + ck) / J2, -(d2 + dk) / J2;
  const Eigen::Vector4d x0(0.1, 0.1, 0.2, 0.1);
  const Eigen::RowVector4d torque(ck, dk, -ck, -dk), speed(0, 0, 0, 1);

  const tools::Scenario scenario = load("rotational_two_mass.yaml", {"time.end=1"});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
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

/// Counts the output evaluations of initialize().
class EvaluationCounter final : public ExecutorObserver {
 public:
  void slave_set_up(std::size_t, Time) override {}
  void step_began(std::size_t) override {}
  void slave_stepped(std::size_t, const StepRequest&, const OutputBuffers&,
                     const LinkStepReport&) override {}
  void outputs_evaluated(std::size_t, std::span<const Polynomial>,
                         std::span<const double>) override {
    ++evaluations;
  }
  void slave_linearized(std::size_t, std::span<const Polynomial>,
                        std::span<const double>) override {}
  void state_saved(std::size_t) override {}
  void state_restored(std::size_t) override {}
  std::size_t evaluations = 0;
};

struct Initialization {
  double evaluations_per_slave = 0;
  int highest_order = 0;  ///< of the output derivatives the slaves report
};

/// Initializes the chain of `segments` segments (4 bodies each, Jacobi):
/// segments, then the couplings reading them.
Initialization initialize_chain(int segments) {
  tools::ChainScenarioOptions options;
  options.bodies = 4 * segments;
  options.subsystems = segments;
  const tools::Scenario scenario =
      tools::parse_scenario(tools::chain_scenario_yaml(options), "chain.yaml", {});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, 0, to_ticks(scenario.end), {});
  EvaluationCounter counter;
  executor.set_observer(&counter);
  executor.initialize();
  Initialization result;
  result.evaluations_per_slave =
      static_cast<double>(counter.evaluations) / static_cast<double>(system.slave_count());
  for (const StepSlot& slot : executor.slots())
    result.highest_order = std::max(result.highest_order, slot.output_derivative_order);
  return result;
}

// Without an algebraic loop each pass in dependency order settles one more
// derivative order, and the passes stop at the first that changes nothing:
// (orders + 2) passes at most, however many slaves. Passes in slave order until
// every (output, order) pair must have settled took (orders + 1) × (outputs + 1)
// passes: hundreds for 255 slaves (10.5 M evaluations at 1023).
TEST(InitialOutputs, AChainTakesTheSameFewPassesWhateverItsLength) {
  const Initialization short_chain = initialize_chain(8);   // 15 slaves
  const Initialization long_chain = initialize_chain(128);  // 255 slaves
  EXPECT_EQ(short_chain.evaluations_per_slave, long_chain.evaluations_per_slave);
  EXPECT_LE(long_chain.evaluations_per_slave, long_chain.highest_order + 2.0);
  EXPECT_GE(long_chain.evaluations_per_slave, 1.0);
}

}  // namespace
}  // namespace couplet::testing
