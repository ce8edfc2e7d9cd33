// IFOSMONDI and IFOSMONDI-JFM on the damper test case (issue 7; IFOSMONDI-JFM paper
// §5, docs/references.md), run through scenarios/ifosmondi_damper.yaml as `couplet run`
// runs it. The fixed-point map has spectral radius √(D_SD/D_D) = √(1/D_D).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"
#include "models/ode_slave.hpp"
#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/executor.hpp"
#include "runtime/ifosmondi_test_slaves.hpp"

namespace couplet::testing {
namespace {

const char* const kScenario = "ifosmondi_damper.yaml";

std::vector<std::string> case_of(const std::string& algorithm, double damping, double step = 0.01) {
  return {"algorithm={" + algorithm + ", step: " + std::to_string(step) + ", eps: 1.0e-4}",
          "slaves.plate.parameters.D_D=" + std::to_string(damping)};
}

const std::string kFixedPoint = "type: ifosmondi";
const std::string kNewton = "type: ifosmondi_jfm, solver: newton";
const std::string kAnderson = "type: ifosmondi_jfm, solver: anderson";

double worst_nrmse(const nlohmann::json& summary) {
  double worst = 0.0;
  for (const auto& [signal, error] : summary.at("errors").items())
    worst = std::max(worst, error.at("nrmse_pct").get<double>());
  return worst;
}

double counter(const nlohmann::json& summary, const std::string& name) {
  return summary.at("counters").at(name).get<double>();
}

// Newton and Anderson converge on the non-contractant cases, down to radius 10, with
// dt_ref = 0.01 and 0.1 (the whole sweep is bench/ifosmondi_harness).
TEST(IfosmondiDamper, NewtonAndAndersonConvergeAboveRadiusOne) {
  for (const double step : {0.01, 0.1}) {
    for (const double damping : {0.64, 0.01}) {
      for (const std::string& method : {kNewton, kAnderson}) {
        const auto summary = run(kScenario, case_of(method, damping, step), "ifosmondi-jfm");
        EXPECT_LT(worst_nrmse(summary), 1.0)
            << method << ", D_D = " << damping << ", dt_ref = " << step;
        EXPECT_EQ(counter(summary, "rejected_steps"), 0.0) << method << ", D_D = " << damping;
        EXPECT_EQ(summary.at("end_time").get<double>(), 10.0);
      }
    }
  }
}

// Below radius 1 the fixed point converges, and Anderson needs fewer integrations.
TEST(IfosmondiDamper, FixedPointConvergesBelowRadiusOneAndAndersonNeedsFewerIntegrations) {
  const auto fixed_point = run(kScenario, case_of(kFixedPoint, 4.0), "ifosmondi-fp");
  const auto anderson = run(kScenario, case_of(kAnderson, 4.0), "ifosmondi-aa");
  EXPECT_LT(worst_nrmse(fixed_point), 1.0);
  EXPECT_EQ(counter(fixed_point, "iterations"),
            counter(fixed_point, "integrations"));  // the paper's count
  EXPECT_LT(counter(anderson, "integrations"), counter(fixed_point, "integrations"));
  // Every integration steps both slaves once.
  EXPECT_EQ(fixed_point.at("slave_steps").get<double>(),
            2.0 * counter(fixed_point, "integrations"));
}

// Fixed point, D_D = 0.64 (radius 1.25): a clean failure naming the step and ‖γ‖,
// and a non-zero exit of `couplet run` with that message.
TEST(IfosmondiDamper, FixedPointFailsCleanlyAboveRadiusOne) {
  try {
    run(kScenario, case_of(kFixedPoint, 0.64), "ifosmondi-fp-fails");
    FAIL() << "expected a CouplingFailure";
  } catch (const CouplingFailure& failure) {
    const std::string message = failure.what();
    EXPECT_NE(message.find("no convergence on the step [0, "), std::string::npos) << message;
    EXPECT_NE(message.find("residual |gamma|"), std::string::npos) << message;
  }
  const std::string directory = fresh_directory("ifosmondi-cli").string();
  const std::string command =
      std::string(COUPLET_BINARY) + " run " + scenario_path(kScenario) + " -o " + directory +
      " --set algorithm.type=ifosmondi --set algorithm.solver=null 2> " + directory + ".err";
  const int status = std::system(command.c_str());
  EXPECT_NE(status, 0);
  std::ifstream error(directory + ".err");
  const std::string text((std::istreambuf_iterator<char>(error)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("couplet: run failed: ifosmondi: no convergence on the step"),
            std::string::npos)
      << text;
}

// The fixed point contracts the residual by the spectral radius √(1/D_D) per
// iteration; the Jacobian's eigenvalues ±i ρ make the two-iteration ratio ρ².
TEST(IfosmondiDamper, FixedPointContractionMatchesTheSpectralRadius) {
  for (const double damping : {4.0, 2.0}) {
    tools::Scenario scenario = load(
        kScenario,
        case_of(kFixedPoint + ", eps_abs: 1.0e-9, eps_rel: 1.0e-9, max_iterations: 200", damping));
    scenario.end = 0.2;
    const models::ModelCatalog catalog = models::ModelCatalog::builtin();
    System system = tools::build_system(scenario, catalog);
    const std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
    RecordingObserver observer;
    dynamic_cast<IfosmondiAlgorithm&>(*algorithm).set_observer(&observer);
    run(system, *algorithm, scenario.end);
    double ratio_sum = 0.0;
    int ratios = 0;
    for (std::size_t m = 4; m + 2 < observer.evaluations.size(); ++m) {
      const IfosmondiStepRecord& now = observer.evaluations[m];
      const IfosmondiStepRecord& later = observer.evaluations[m + 2];
      if (later.start != now.start || now.integrations < 5 || later.residual < 1e-8) continue;
      ratio_sum += std::sqrt(later.residual / now.residual);
      ++ratios;
    }
    ASSERT_GT(ratios, 50);
    EXPECT_NEAR(ratio_sum / ratios, std::sqrt(1.0 / damping), 0.03) << "D_D = " << damping;
  }
}

// decision_hash with KINSOL in the loop: identical across runs, different per method.
TEST(IfosmondiDamper, DecisionHashIsReproducibleWithKinsol) {
  const auto first = run(kScenario, case_of(kNewton, 0.25), "ifosmondi-hash-1");
  const auto second = run(kScenario, case_of(kNewton, 0.25), "ifosmondi-hash-2");
  const auto anderson = run(kScenario, case_of(kAnderson, 0.25), "ifosmondi-hash-3");
  EXPECT_EQ(first.at("decision_hash"), second.at("decision_hash"));
  EXPECT_EQ(first.at("errors"), second.at("errors"));
  EXPECT_NE(first.at("decision_hash"), anderson.at("decision_hash"));
}

// Slaves that report no output derivatives (declared output_derivative_order 0): ẏ
// by finite difference over the step; Newton still converges on radius 2.
TEST(IfosmondiDamper, FiniteDifferenceWhenSlavesReportNoDerivatives) {
  std::vector<std::string> assignments = case_of(kNewton, 0.25);
  assignments.push_back("slaves.body.capabilities.output_derivative_order=0");
  assignments.push_back("slaves.plate.capabilities.output_derivative_order=0");
  const auto summary = run(kScenario, assignments, "ifosmondi-fd");
  EXPECT_LT(worst_nrmse(summary), 1.0);
  EXPECT_EQ(counter(summary, "rejected_steps"), 0.0);
}

// CVODE and exact ODE slaves roll back bit for bit: along the accepted path alone, a
// fresh pair reproduces what the iterated, rolled-back pair reported.
TEST(IfosmondiDamper, IteratedCvodeSlavesRollBackBitForBit) {
  tools::Scenario scenario = load(kScenario, case_of(kNewton, 0.25));
  scenario.end = 1.0;
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto make = [&](std::size_t index) {
    const tools::SlaveSpec& spec = scenario.slaves[index];
    return models::make_ode_slave(spec.name, catalog.create(spec.model, spec.parameters),
                                  spec.solver, spec.capabilities);
  };
  auto body = std::make_unique<RecordingSlave>(make(0));
  auto plate = std::make_unique<RecordingSlave>(make(1));
  RecordingSlave& recorded_body = *body;
  RecordingSlave& recorded_plate = *plate;
  System system;
  system.add_slave("body", std::move(body));
  system.add_slave("plate", std::move(plate));
  for (const tools::ConnectionSpec& connection : scenario.connections)
    system.connect(connection.from, connection.to);
  const std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
  RecordingObserver observer;
  dynamic_cast<IfosmondiAlgorithm&>(*algorithm).set_observer(&observer);
  run(system, *algorithm, scenario.end);
  ASSERT_EQ(observer.steps.size(), 100U);
  EXPECT_GT(recorded_body.restores, 300);
  const auto fresh_body = make(0);
  const auto fresh_plate = make(1);
  EXPECT_EQ(replay_accepted_path(recorded_body, observer.steps, *fresh_body, 0), 100U);
  EXPECT_EQ(replay_accepted_path(recorded_plate, observer.steps, *fresh_plate, 0), 100U);
}

TEST(IfosmondiDamper, ConfigurationErrorsNameTheElement) {
  const auto message = [](const std::vector<std::string>& assignments) {
    try {
      tools::validate_scenario(load(kScenario, assignments));
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(
      message({"slaves.plate.capabilities.rollback=false"}).find("slave 'plate' cannot roll back"),
      std::string::npos);
  EXPECT_NE(message({"algorithm.solver=secant"}).find("algorithm.solver: unknown solver 'secant'"),
            std::string::npos);
  EXPECT_NE(
      message({"algorithm.type=ifosmondi"}).find("algorithm.solver: only for type ifosmondi_jfm"),
      std::string::npos);
  EXPECT_NE(message({"algorithm.step=null"}).find("algorithm.step: missing"), std::string::npos);
  EXPECT_NE(message({"algorithm.min_step=1"}).find("algorithm.min_step: must not exceed step"),
            std::string::npos);
}

}  // namespace
}  // namespace couplet::testing
