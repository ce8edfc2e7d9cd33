// Composite slaves (issue 7; runtime/composite_slave.hpp, docs/iterative.md): a group
// of rollback-capable slaves solved by IFOSMONDI-JFM inside, seen by the outer master
// as one slave — here next to a rollback-less device behind a link.
#include "runtime/composite_slave.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

const char* const kDamper = "ifosmondi_damper.yaml";
const char* const kHil = "ifosmondi_damper_hil.yaml";

// The damper pair of ifosmondi_damper.yaml as a group under an outer Jacobi whose
// step is the group's δt_ref: the inner steps are the standalone run's steps.
const char* const kClosedGroup = R"(
name: closed_group
time: {start: 0, end: 10}
slaves:
  body: {model: damper.mass_spring, parameters: {M_L: 1, K_SD: 1, D_SD: 1}}
  plate: {model: damper.plate, parameters: {D_D: 0.64}, solver: {type: exact}}
groups:
  damper:
    slaves: [body, plate]
    algorithm: {type: ifosmondi_jfm, solver: newton, step: 0.01, eps: 1.0e-4}
connections:
  - {from: body.f_c, to: plate.f_c}
  - {from: plate.v_c, to: body.v_c}
  - {from: plate.x_c, to: body.x_c}
algorithm: {type: jacobi, step: 0.01}
reference: monolithic
)";

std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(file, line);) {
    std::vector<std::string> cells;
    std::stringstream stream(line);
    for (std::string cell; std::getline(stream, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

nlohmann::json run_text(const std::string& text, const std::vector<std::string>& assignments,
                        const std::string& name) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  return tools::run_scenario(tools::parse_scenario(text, "closed_group.yaml", overrides),
                             {fresh_directory(name).string(), false});
}

/// The HIL scenario with the arm local (no link): rollback-capable unless declared.
tools::Scenario local_hil(const std::vector<std::string>& assignments) {
  tools::Scenario scenario = load(kHil, assignments);
  for (tools::SlaveSpec& slave : scenario.slaves) {
    if (slave.name == "arm") slave.link.reset();
  }
  return scenario;
}

std::string configuration_error(const tools::Scenario& scenario) {
  try {
    tools::validate_scenario(scenario);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string configuration_error(const std::string& scenario,
                                const std::vector<std::string>& assignments) {
  try {
    return configuration_error(load(scenario, assignments));
  } catch (const ConfigurationError& error) {  // found while parsing
    return error.what();
  }
}

// Same steps, same result: the group inside a composite gives, bit for bit, the
// signals of the same models run alone under the same algorithm.
TEST(CompositeSlave, GivesTheSameResultAsTheGroupRunAlone) {
  const auto alone = run(kDamper, {}, "composite-alone");
  const auto grouped = run_text(kClosedGroup, {}, "composite-grouped");
  const auto csv = [](const std::string& name) {
    return read_csv(run_directory(name) / "signals.csv");
  };
  const auto a = csv("composite-alone");
  const auto b = csv("composite-grouped");
  ASSERT_EQ(a.size(), 1002U);
  ASSERT_EQ(b.size(), a.size());
  EXPECT_EQ(b[0][1], "damper.body.f_c");
  for (std::size_t row = 1; row < a.size(); ++row) EXPECT_EQ(b[row], a[row]) << "row " << row;
  EXPECT_EQ(grouped.at("groups").at("damper").at("integrations"),
            alone.at("counters").at("integrations"));
  EXPECT_EQ(grouped.at("rollbacks").get<int>(), 0);  // Jacobi never asks the composite to roll back
  const auto grouped_again = run_text(kClosedGroup, {}, "composite-grouped-2");
  EXPECT_EQ(grouped_again.at("decision_hash"), grouped.at("decision_hash"));
  EXPECT_EQ(grouped_again.at("groups").at("damper").at("decision_hash"),
            grouped.at("groups").at("damper").at("decision_hash"))
      << "the inner master's decisions are reproducible too";
}

// The group's ports: its members' inputs driven from outside and every member
// output, named member.port; feedthrough where a chain inside leads from an input.
TEST(CompositeSlave, ExposesTheGroupPortsWithTheirFeedthrough) {
  const tools::Scenario scenario = local_hil({});
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto slave = tools::make_group_slave(scenario, scenario.groups.front(), catalog);
  const SlaveDescription& description = slave->description();
  ASSERT_EQ(description.inputs.size(), 1U);
  EXPECT_EQ(description.inputs[0].name, "body.f_ext");
  std::vector<std::pair<std::string, bool>> outputs;
  for (const OutputDescription& output : description.outputs)
    outputs.emplace_back(output.name, output.direct_feedthrough);
  EXPECT_EQ(outputs, (std::vector<std::pair<std::string, bool>>{{"body.f_c", true},
                                                                {"body.x_L", false},
                                                                {"body.v_L", false},
                                                                {"plate.v_c", true},
                                                                {"plate.x_c", false}}));
  EXPECT_TRUE(description.capabilities.can_rollback);
  EXPECT_TRUE(description.capabilities.intermediate_samples);
  EXPECT_EQ(description.capabilities.output_derivative_order, 2);  // the body's
}

// The demonstration: a rollback-less device behind a link (a spawned couplet-target)
// coupled explicitly to a group solved implicitly on a radius-2 loop.
TEST(CompositeSlave, RunsNextToARollbackLessRemoteSlave) {
  const auto summary = run(kHil, {}, "composite-hil");
  EXPECT_EQ(summary.at("rollbacks").get<int>(), 0);
  EXPECT_EQ(summary.at("end_time").get<double>(), 10.0);
  for (const auto& [signal, error] : summary.at("errors").items())
    EXPECT_LT(error.at("nrmse_pct").get<double>(), 0.1) << signal;
  const auto& group = summary.at("groups").at("damper");
  EXPECT_EQ(group.at("algorithm"), "ifosmondi_jfm");
  EXPECT_EQ(group.at("converged_steps").get<double>(), 1000.0);
  EXPECT_GT(group.at("rollbacks").get<double>(), 1000.0);  // inside, every iteration rolls back
}

// The outer master asks for a rollback only of slaves that can: an iterative outer
// algorithm rejects the remote slave, naming it; it accepts the composite.
TEST(CompositeSlave, OnlyRollbackCapableSlavesMeetAnIterativeMaster) {
  EXPECT_NE(configuration_error(kHil, {"algorithm={type: ifosmondi_jfm, step: 0.01}"})
                .find("slave 'arm' cannot roll back, but algorithm 'ifosmondi_jfm' is iterative"),
            std::string::npos);
  EXPECT_EQ(configuration_error(local_hil({"algorithm={type: ifosmondi_jfm, step: 0.01}",
                                           "slaves.arm.capabilities.rollback=true"})),
            "(no error)");
}

TEST(CompositeSlave, GroupMisconfigurationsNameTheElement) {
  EXPECT_NE(configuration_error(kHil, {"slaves.plate.capabilities.rollback=false"})
                .find("group 'damper': slave 'plate' cannot roll back"),
            std::string::npos);
  EXPECT_NE(configuration_error(kHil, {"groups.damper.slaves=[body, plate, arm]"})
                .find("slave 'arm' is in group 'damper' but sits behind a link"),
            std::string::npos);
  EXPECT_NE(configuration_error(kHil, {"groups.damper.algorithm={type: jacobi, step: 0.01}"})
                .find("groups.damper.algorithm.type: 'jacobi' cannot solve a group"),
            std::string::npos);
  EXPECT_NE(configuration_error(kHil, {"groups.damper.slaves=[body, wheel]"})
                .find("'wheel' is not declared under 'slaves'"),
            std::string::npos);
  EXPECT_NE(configuration_error(
                kHil, {"groups.arm={slaves: [body], algorithm: {type: ifosmondi, step: 0.01}}"})
                .find("'body' is already in group 'damper'"),
            std::string::npos);
  // Without the group the loop is algebraic, which the outer Jacobi cannot solve.
  EXPECT_NE(configuration_error(kHil, {"groups=null"}).find("algebraic loop"), std::string::npos);
}

struct Stepped {
  std::vector<double> outputs;
  std::vector<double> samples;
};

Stepped step(Slave& slave, Time start, Time end, const std::vector<Polynomial>& inputs,
             std::vector<Time> samples) {
  Stepped result;
  result.outputs.assign(
      static_cast<std::size_t>(slave.description().capabilities.output_derivative_order + 1) *
          slave.description().outputs.size(),
      0.0);
  result.samples.assign(samples.size() * slave.description().outputs.size(), 0.0);
  slave.step(StepRequest{start, end, inputs, samples},
             OutputBuffers{result.outputs, result.samples});
  return result;
}

// Rollback of the composite (an outer iterative master): undone bit for bit, even
// when the outer step spans several inner steps — the iterations of the later ones
// replay the earlier ones from the anchor.
TEST(CompositeSlave, RollsBackBitForBit) {
  const tools::Scenario scenario = local_hil({});
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto make = [&] {
    return tools::make_group_slave(scenario, scenario.groups.front(), catalog);
  };
  const std::vector<Polynomial> push{Polynomial::hermite(0.0, 0.0, 1.0, 0.05, 0.1, 2.0)};
  const std::vector<Polynomial> pull{Polynomial::hermite(0.0, 0.0, -1.0, 0.03, -0.1, 0.0)};
  std::vector<double> initial(15, 0.0);

  const auto rolled = make();
  rolled->setup(0);
  rolled->evaluate_outputs(push, initial);
  rolled->save_state();
  const Stepped first = step(*rolled, 0, to_ticks(0.05), push, {to_ticks(0.02), to_ticks(0.05)});
  rolled->restore_state();
  const Stepped again = step(*rolled, 0, to_ticks(0.05), push, {to_ticks(0.02), to_ticks(0.05)});
  rolled->restore_state();
  const Stepped other = step(*rolled, 0, to_ticks(0.03), pull, {});

  const auto fresh = make();
  fresh->setup(0);
  fresh->evaluate_outputs(push, initial);
  const Stepped expected = step(*fresh, 0, to_ticks(0.05), push, {to_ticks(0.02), to_ticks(0.05)});
  const auto fresh_other = make();
  fresh_other->setup(0);
  fresh_other->evaluate_outputs(push, initial);
  const Stepped expected_other = step(*fresh_other, 0, to_ticks(0.03), pull, {});

  EXPECT_EQ(first.outputs, expected.outputs);
  EXPECT_EQ(first.samples, expected.samples);
  EXPECT_EQ(again.outputs, expected.outputs);
  EXPECT_EQ(again.samples, expected.samples);
  EXPECT_EQ(other.outputs, expected_other.outputs);
  const auto& composite = dynamic_cast<const CompositeSlave&>(*rolled);
  EXPECT_GT(composite.algorithm().totals().replayed_integrations, 0U);
  EXPECT_EQ(first.samples[5 + 1],
            first.outputs[1]);  // body.x_L sampled at the step end: its end value
}

// Rollback after converged inner steps: anchored at t = 0.05 s, the inner
// algorithm has a C¹ history (input derivatives at the anchor) that the
// restore must bring back with the members' states.
TEST(CompositeSlave, RollsBackBitForBitAfterAConvergedStep) {
  const tools::Scenario scenario = local_hil({});
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto make = [&] {
    return tools::make_group_slave(scenario, scenario.groups.front(), catalog);
  };
  const std::vector<Polynomial> first_input{Polynomial::hermite(0.0, 0.0, 1.0, 0.05, 0.1, 2.0)};
  const std::vector<Polynomial> second_input{Polynomial::hermite(0.05, 0.1, 2.0, 0.1, 0.15, 0.0)};
  const std::vector<Polynomial> other_input{Polynomial::hermite(0.05, 0.1, 2.0, 0.08, -0.2, 1.0)};
  std::vector<double> initial(15, 0.0);
  const auto prepared = [&] {
    auto composite = make();
    composite->setup(0);
    composite->evaluate_outputs(first_input, initial);
    step(*composite, 0, to_ticks(0.05), first_input, {});
    return composite;
  };

  const auto rolled = prepared();
  rolled->save_state();
  const Stepped first =
      step(*rolled, to_ticks(0.05), to_ticks(0.1), second_input, {to_ticks(0.07)});
  rolled->restore_state();
  const Stepped other = step(*rolled, to_ticks(0.05), to_ticks(0.08), other_input, {});
  rolled->restore_state();
  const Stepped again =
      step(*rolled, to_ticks(0.05), to_ticks(0.1), second_input, {to_ticks(0.07)});

  const auto fresh = prepared();
  const Stepped expected =
      step(*fresh, to_ticks(0.05), to_ticks(0.1), second_input, {to_ticks(0.07)});
  const auto fresh_other = prepared();
  const Stepped expected_other =
      step(*fresh_other, to_ticks(0.05), to_ticks(0.08), other_input, {});

  EXPECT_EQ(first.outputs, expected.outputs);
  EXPECT_EQ(first.samples, expected.samples);
  EXPECT_EQ(other.outputs, expected_other.outputs);
  EXPECT_EQ(again.outputs, expected.outputs);
  EXPECT_EQ(again.samples, expected.samples);
  EXPECT_NE(other.outputs, expected.outputs)
      << "the two continuations differ, so the comparison can fail";
}

// Nested: an outer IFOSMONDI-JFM (which rolls back every slave at each iteration)
// with the composite and a local arm, outer steps of five inner steps.
TEST(CompositeSlave, WorksUnderAnIterativeOuterMaster) {
  const auto summary =
      tools::run_scenario(local_hil({"slaves.arm.capabilities.rollback=true", "time.end=2",
                                     "algorithm={type: ifosmondi_jfm, step: 0.05}"}),
                          {fresh_directory("composite-nested").string(), false});
  EXPECT_GT(summary.at("rollbacks").get<int>(), 0);
  EXPECT_GT(summary.at("groups").at("damper").at("replayed_integrations").get<double>(), 0.0);
  for (const auto& [signal, error] : summary.at("errors").items())
    EXPECT_LT(error.at("nrmse_pct").get<double>(), 0.1) << signal;
}

}  // namespace
}  // namespace couplet::testing
