// FMUs as slaves (docs/fmi.md): the two-mass switch with FMU halves against the
// monolithic reference of the same system with built-in models, for several
// algorithms and the three FMU flavours (co-simulation with and without the
// advanced flags, model exchange); the bouncing ball's state events; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

std::string fmu(const std::string& name) {
  return std::string(COUPLET_TEST_FMU_DIR) + "/" + name + ".fmu";
}

/// Slave entries of the two-mass switch: built-in, or FMU halves.
struct Halves {
  std::string left, right;
};

const std::string kBuiltinParameters = "    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}\n";

Halves builtin_halves(const std::string& capabilities) {
  const std::string solver =
      "    solver: {type: cvode, rtol: 1.0e-10, atol: 1.0e-12}\n" + capabilities;
  return {"    model: translational.mass\n" + solver,
          "    model: translational.coupled_mass\n" + solver};
}

Halves fmu_halves(const std::string& left, const std::string& right, const std::string& extra) {
  const std::string solver = "    solver: {type: cvode, rtol: 1.0e-10, atol: 1.0e-12}\n" + extra;
  return {"    fmu: " + fmu(left) + "\n" + solver, "    fmu: " + fmu(right) + "\n" + solver};
}

std::string scenario_text(const Halves& halves, const std::string& algorithm, bool reference,
                          double end) {
  std::ostringstream text;
  text << "name: fmi_two_mass_switch\n"
       << "time: {start: 0, end: " << end << "}\n"
       << "slaves:\n  left:\n"
       << halves.left << "  right:\n"
       << halves.right
       << "connections:\n  - {from: left.x, to: right.x}\n  - {from: left.v, to: right.v}\n"
       << "  - {from: right.f, to: left.f}\n"
       << "algorithm: " << algorithm << "\n"
       << "reference: " << (reference ? "monolithic" : "none") << "\n"
       << "evaluation: {grid: 0.01, signals: [left.x, left.v]}\n";
  return text.str();
}

nlohmann::json run_text(const std::string& text, const std::string& directory) {
  const tools::Scenario scenario = tools::parse_scenario(text, "fmi_test.yaml");
  return tools::run_scenario(scenario, {fresh_directory(directory).string(), false, true});
}

double nrmse_pct(const std::vector<double>& cosimulation, const std::vector<double>& reference) {
  double sum = 0.0, low = reference[0], high = reference[0];
  for (std::size_t k = 0; k < reference.size(); ++k) {
    sum += (cosimulation[k] - reference[k]) * (cosimulation[k] - reference[k]);
    low = std::min(low, reference[k]);
    high = std::max(high, reference[k]);
  }
  return 100.0 * std::sqrt(sum / static_cast<double>(reference.size())) / (high - low);
}

struct Case {
  std::string name;
  std::string left, right;     ///< FMU names
  std::string fmu_extra;       ///< extra slave keys for the FMU halves (fmu_kind, capabilities)
  std::string builtin_limits;  ///< the same limits declared on the built-in models
  std::string algorithm;
};

// The co-simulation FMUs without the advanced flags take ZOH inputs, report no
// derivatives, cannot roll back and step on a fixed 0.05 s grid: the built-in
// models are given the same limits, so that the algorithm is the same.
const std::string kBasicLimits =
    "    capabilities: {max_input_degree: 0, output_derivative_order: 0, imposed_step: 0.05, "
    "rollback: false, "
    "intermediate_samples: false}\n";

class FmuAgainstBuiltin : public ::testing::TestWithParam<Case> {};

TEST_P(FmuAgainstBuiltin, MatchesTheBuiltinCouplingErrorWithinTwoPercent) {
  const Case& c = GetParam();
  const double end = 200.0;
  const auto builtin =
      run_text(scenario_text(builtin_halves(c.builtin_limits), c.algorithm, true, end),
               "fmi-builtin-" + c.name);
  const auto with_fmus =
      run_text(scenario_text(fmu_halves(c.left, c.right, c.fmu_extra), c.algorithm, false, end),
               "fmi-fmu-" + c.name);
  const auto reference = read_columns(run_directory("fmi-builtin-" + c.name) / "signals.csv");
  const auto fmu_signals = read_columns(run_directory("fmi-fmu-" + c.name) / "signals.csv");
  for (const std::string signal : {"left.x", "left.v"}) {
    const double expected = nrmse(builtin, signal);
    const double measured = nrmse_pct(fmu_signals.at(signal), reference.at(signal + ":reference"));
    EXPECT_NEAR(measured, expected, 0.02 * expected) << c.name << " " << signal;
  }
  // Deterministic: a second run decides the same.
  const auto again =
      run_text(scenario_text(fmu_halves(c.left, c.right, c.fmu_extra), c.algorithm, false, end),
               "fmi-fmu-again-" + c.name);
  EXPECT_EQ(again.at("decision_hash"), with_fmus.at("decision_hash"));
  // The run log replays bit for bit.
  const std::string command = std::string(COUPLET_BINARY) + " replay --verify " +
                              (run_directory("fmi-fmu-" + c.name) / "run.log").string() +
                              " > /dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

const std::string kCs = "    fmu_kind: cs\n";
// The advanced co-simulation FMUs take inputs of degree 1 by default and report
// two output derivatives: the built-in models are given the same.
const std::string kCsLimits =
    "    capabilities: {max_input_degree: 1, output_derivative_order: 2}\n";
// IFOSMONDI's inputs are cubic Hermite polynomials.
const std::string kCsCubic = kCs + "    capabilities: {max_input_degree: 3}\n";
const std::string kMe = "    fmu_kind: me\n";

INSTANTIATE_TEST_SUITE_P(
    TwoMassSwitch, FmuAgainstBuiltin,
    ::testing::Values(Case{"cs_jacobi_zoh", "switch_left", "switch_right", kCs, kCsLimits,
                           "{type: jacobi, step: 0.05, input_order: 0}"},
                      Case{"cs_jacobi_order1", "switch_left", "switch_right", kCs, kCsLimits,
                           "{type: jacobi, step: 0.05, input_order: 1}"},
                      Case{"cs_defect_control", "switch_left", "switch_right", kCs, kCsLimits,
                           "{type: defect_control, tol: 1.0e-3}"},
                      Case{"cs_f3ornits", "switch_left", "switch_right", kCs, kCsLimits,
                           "{type: f3ornits, tol_rel: 1.0e-3, tol_abs: 1.0e-4}"},
                      Case{"cs_ifosmondi_jfm", "switch_left", "switch_right", kCsCubic, "",
                           "{type: ifosmondi_jfm, step: 0.05}"},
                      Case{"basic_jacobi_zoh", "switch_left_basic", "switch_right_basic", "",
                           kBasicLimits, "{type: jacobi, step: 0.05, input_order: 0}"},
                      Case{"basic_defect_control", "switch_left_basic", "switch_right_basic", "",
                           kBasicLimits, "{type: defect_control, step: 0.05, defect: connection}"},
                      Case{"basic_f3ornits", "switch_left_basic", "switch_right_basic", "",
                           kBasicLimits, "{type: f3ornits, tol_rel: 1.0e-3, tol_abs: 1.0e-4}"},
                      Case{"me_jacobi_zoh", "switch_left", "switch_right", kMe, "",
                           "{type: jacobi, step: 0.05, input_order: 0}"},
                      Case{"me_jacobi_order1", "switch_left", "switch_right", kMe, "",
                           "{type: jacobi, step: 0.05, input_order: 1}"},
                      Case{"me_defect_control", "switch_left", "switch_right", kMe, "",
                           "{type: defect_control, tol: 1.0e-3}"},
                      Case{"me_f3ornits", "switch_left", "switch_right", kMe, "",
                           "{type: f3ornits, tol_rel: 1.0e-3, tol_abs: 1.0e-4}"},
                      Case{"me_ifosmondi_jfm", "switch_left", "switch_right", kMe, "",
                           "{type: ifosmondi_jfm, step: 0.05}"}),
    [](const ::testing::TestParamInfo<Case>& parameter) { return parameter.param.name; });

TEST(FmuModelExchange, JoinsTheMonolithicReference) {
  // ME halves in the reference: the same reference as with built-in models.
  const auto builtin =
      run_text(scenario_text(builtin_halves(""), "{type: jacobi, step: 0.05}", true, 200.0),
               "fmi-reference-builtin");
  const auto with_fmus = run_text(scenario_text(fmu_halves("switch_left", "switch_right", kMe),
                                                "{type: jacobi, step: 0.05}", true, 200.0),
                                  "fmi-reference-me");
  const auto expected = read_columns(run_directory("fmi-reference-builtin") / "signals.csv");
  const auto measured = read_columns(run_directory("fmi-reference-me") / "signals.csv");
  for (const std::string signal : {"left.x:reference", "left.v:reference"}) {
    for (std::size_t k = 0; k < expected.at(signal).size(); ++k) {
      ASSERT_NEAR(measured.at(signal)[k], expected.at(signal)[k], 1e-6)
          << signal << " at row " << k;
    }
  }
}

TEST(FmuModelExchange, BouncingBallBouncesOnTimeAndStaysAboveTheFloor) {
  const std::string text =
      "name: ball\ntime: {start: 0, end: 2.4}\nslaves:\n  ball:\n    fmu: " + fmu("bouncing_ball") +
      "\n    solver: {type: cvode, rtol: 1.0e-10, atol: 1.0e-12}\n"
      "algorithm: {type: jacobi, step: 0.01}\nevaluation: {grid: 0.0001}\n";
  run_text(text, "fmi-ball");
  const auto columns = read_columns(run_directory("fmi-ball") / "signals.csv");
  const auto& time = columns.at("time");
  const auto& h = columns.at("ball.h");
  const auto& v = columns.at("ball.v");
  for (std::size_t k = 0; k < h.size(); ++k) ASSERT_GE(h[k], -1e-9) << "t = " << time[k];
  // Closed form: first impact at sqrt(2 h0 / g); each later one 2 e v / g after
  // the previous, with the impact speed v reduced by e at every bounce.
  const double g = 9.81, e = 0.7;
  double impact = std::sqrt(2.0 / g), speed = g * impact;
  for (int bounce = 0; bounce < 4; ++bounce) {
    // Between grid points the ball is a parabola: the height just after the
    // impact tells the impact time to far better than the grid spacing.
    std::size_t k = 0;
    while (time[k] <= impact + 1e-3) ++k;
    const double after = time[k] - impact;  // expected flight time since the impact
    const double launch = e * speed;
    EXPECT_NEAR(h[k], launch * after - 0.5 * g * after * after, 1e-6 * launch)
        << "bounce " << bounce;
    EXPECT_NEAR(v[k], launch - g * after, 1e-5) << "bounce " << bounce;
    impact += 2.0 * launch / g;
    speed = launch;
  }
}

/// couplet's exit code and standard error for a scenario text.
std::pair<int, std::string> run_cli(const std::string& subcommand, const std::string& text,
                                    const std::string& name) {
  const auto directory = fresh_directory(name);
  std::filesystem::create_directories(directory);
  const auto scenario = directory / "scenario.yaml";
  std::ofstream(scenario) << text;
  const auto errors = directory / "stderr.txt";
  const std::string output = subcommand == "run" ? " -o " + (directory / "out").string() : "";
  const std::string command = std::string(COUPLET_BINARY) + " " + subcommand + " " +
                              scenario.string() + output + " > /dev/null 2> " + errors.string();
  const int status = std::system(command.c_str());
  return {WEXITSTATUS(status), read_file(errors)};
}

std::string single_slave(const std::string& slave,
                         const std::string& algorithm = "{type: jacobi, step: 0.05}") {
  return "name: bad\ntime: {start: 0, end: 1}\nslaves:\n  s:\n" + slave +
         "algorithm: " + algorithm + "\n";
}

TEST(FmuErrors, BadFmusGetOneLineErrorsNamingSlaveFileAndElement) {
  const std::string dir = run_directory("fmi-bad-files").string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/not_a_zip.fmu") << "this is not a zip archive";
  struct Expectation {
    std::string slave;
    std::vector<std::string> words;
  };
  const std::vector<Expectation> cases = {
      {"    fmu: " + dir + "/missing.fmu\n", {"slaves.s", "missing.fmu", "no such file"}},
      {"    fmu: " + dir + "/not_a_zip.fmu\n", {"slaves.s", "not_a_zip.fmu", "not a zip"}},
      {"    fmu: " + fmu("missing_symbol") + "\n",
       {"slaves.s", "missing_symbol.fmu", "fmi2DoStep"}},
      {"    fmu: " + fmu("null_instance") + "\n",
       {"slaves.s", "null_instance.fmu", "fmi2Instantiate returned NULL"}},
      {"    fmu: " + fmu("faulty") + "\n    parameters: {no_such_variable: 1}\n",
       {"slaves.s", "faulty.fmu", "parameters.no_such_variable", "no such variable"}},
      {"    fmu: " + fmu("switch_left_basic") + "\n    capabilities: {max_input_degree: 1}\n",
       {"slaves.s", "switch_left_basic.fmu", "max_input_degree", "canInterpolateInputs"}},
  };
  for (const Expectation& expectation : cases) {
    const auto [code, errors] = run_cli("validate", single_slave(expectation.slave), "fmi-bad");
    EXPECT_EQ(code, 2) << errors;
    EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << errors;
    for (const std::string& word : expectation.words)
      EXPECT_NE(errors.find(word), std::string::npos) << word << " in " << errors;
  }
}

TEST(FmuErrors, UnknownVariableInAConnectionIsNamed) {
  const std::string text =
      "name: bad\ntime: {start: 0, end: 1}\nslaves:\n  left:\n    fmu: " + fmu("switch_left") +
      "\n  right:\n    fmu: " + fmu("switch_right") +
      "\nconnections:\n  - {from: left.x, to: right.nope}\n  - {from: left.v, to: right.v}\n"
      "  - {from: right.f, to: left.f}\nalgorithm: {type: jacobi, step: 0.05}\n";
  const auto [code, errors] = run_cli("validate", text, "fmi-bad-connection");
  EXPECT_EQ(code, 2) << errors;
  EXPECT_NE(errors.find("nope"), std::string::npos) << errors;
  EXPECT_NE(errors.find("slaves.right"), std::string::npos) << errors;
}

TEST(FmuErrors, CoSimulationWithoutStateAccessCannotRunIfosmondi) {
  const std::string text = scenario_text(fmu_halves("switch_left_basic", "switch_right_basic", ""),
                                         "{type: ifosmondi_jfm, step: 0.05}", false, 1.0);
  const auto [code, errors] = run_cli("validate", text, "fmi-no-rollback");
  EXPECT_EQ(code, 2) << errors;
  EXPECT_NE(errors.find("left"), std::string::npos) << errors;
  EXPECT_NE(errors.find("roll back"), std::string::npos) << errors;
}

TEST(FmuErrors, CoSimulationScenarioAskingForAReferenceSaysSoBeforeRunning) {
  const std::string text = scenario_text(fmu_halves("switch_left", "switch_right", kCs),
                                         "{type: jacobi, step: 0.05}", true, 1.0);
  const auto [code, errors] = run_cli("validate", text, "fmi-cs-reference");
  EXPECT_EQ(code, 2) << errors;
  EXPECT_NE(errors.find("no monolithic reference"), std::string::npos) << errors;
}

TEST(FmuErrors, FailingStepEndsTheRunWithAReadableLog) {
  for (const std::string status : {"3", "2"}) {  // fmi2Error, fmi2Discard
    const std::string text =
        single_slave("    fmu: " + fmu("faulty") +
                     "\n    parameters: {fail_time: 0.5, fail_status: " + status + "}\n") +
        "reference: none\n";
    const auto [code, errors] = run_cli("run", text, "fmi-faulty-" + status);
    EXPECT_EQ(code, 1) << errors;
    EXPECT_NE(errors.find("fmi2DoStep"), std::string::npos) << errors;
    EXPECT_NE(errors.find(status == "3" ? "fmi2Error" : "fmi2Discard"), std::string::npos)
        << errors;
    EXPECT_NE(errors.find("faulty.fmu"), std::string::npos) << errors;
    EXPECT_NE(errors.find("'s'"), std::string::npos) << errors;
    const std::string log = (run_directory("fmi-faulty-" + status) / "out" / "run.log").string();
    const std::string inspect = std::string(COUPLET_BINARY) + " inspect " + log + " > /dev/null";
    EXPECT_EQ(std::system(inspect.c_str()), 0) << inspect;
  }
}

TEST(FmuErrors, FmuCallingExitFailsTheRunWithASummary) {
  const std::string text =
      single_slave("    fmu: " + fmu("exiting") + "\n    parameters: {fail_time: 0.5}\n") +
      "reference: none\n";
  const auto [code, errors] = run_cli("run", text, "fmi-exiting");
  // Not the FMU's 0: the run did not complete.
  EXPECT_EQ(code, 1) << errors;
  const std::string cause = "the FMU '" + fmu("exiting") +
                            "' of slave 's' called exit(0) during a step at t = 0.5 s (fmi2DoStep)";
  EXPECT_NE(errors.find("couplet: run failed: " + cause), std::string::npos) << errors;
  std::ifstream file(run_directory("fmi-exiting") / "out" / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(file, nullptr, false);
  EXPECT_EQ(summary.value("status", ""), "failed") << summary.dump();
  EXPECT_EQ(summary.value("scenario", ""), "bad") << summary.dump();
  EXPECT_EQ(summary.value("error", "").rfind(cause, 0), 0u) << summary.dump();
}

// --- an FMU's request to end the simulation ---------------------------------

/// The last line of a run's signals.csv.
std::string last_signals_row(const std::filesystem::path& out) {
  std::ifstream file(out / "signals.csv");
  std::string line, last;
  while (std::getline(file, line))
    if (!line.empty()) last = line;
  return last;
}

std::string stopping_scenario(const std::string& kind) {
  return "name: stopping\ntime: {start: 0, end: 20}\nslaves:\n  counter:\n    fmu: " +
         fmu("stopping") + "\n    fmu_kind: " + kind +
         "\n  follower:\n    model: translational.mass\n"
         "connections:\n  - {from: counter.x, to: follower.f, factor: 1}\n"
         "algorithm: {type: jacobi, step: 0.1}\nreference: none\n";
}

/// The summary of a run the counter stopped at t = 9 s, ended at `end_time`.
nlohmann::json stopped_summary(const std::filesystem::path& out, double end_time) {
  const nlohmann::json summary = nlohmann::json::parse(read_file(out / "summary.json"));
  EXPECT_EQ(summary["status"], "stopped");
  EXPECT_EQ(summary["stopped_by"], "slave 'counter' at t = 9 s");
  EXPECT_EQ(summary["end_time"], end_time);
  return summary;
}

// FMI 2.0 §4.2.3: fmi2DoStep's fmi2Discard with fmi2Terminated ends the run, a
// normal end (exit 0, status stopped), at the communication point the FMU
// stopped at: stop_time 9 is one, so the run ends there with every row up to
// it; replay reproduces every decision.
TEST(FmuStopRequest, CoSimulationFmuEndsTheRunAtItsStopTime) {
  const auto [code, errors] = run_cli("run", stopping_scenario("cs"), "fmi-stop-cs");
  EXPECT_EQ(code, 0) << errors;
  const auto out = run_directory("fmi-stop-cs") / "out";
  const nlohmann::json summary = stopped_summary(out, 9.0);
  EXPECT_EQ(summary["macro_steps"], 90);
  EXPECT_FALSE(summary.contains("error")) << summary.dump(2);
  // time, counter.count, counter.x at t = 9: nine whole periods.
  EXPECT_EQ(last_signals_row(out).rfind("9,9,9,", 0), 0u) << last_signals_row(out);
  int exit_code = -1;
  const std::string replay = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + (out / "run.log").string(), exit_code);
  EXPECT_EQ(exit_code, 0) << replay;
  EXPECT_NE(replay.find("asked to stop the simulation at t = 9 s"), std::string::npos) << replay;
  // The run log's end record says stopped, not failed.
  const std::string inspected = command_output(
      std::string(COUPLET_BINARY) + " inspect " + (out / "run.log").string(), exit_code);
  EXPECT_EQ(exit_code, 0) << inspected;
  EXPECT_NE(inspected.find(
                "status       stopped: slave 'counter' asked to stop the simulation at t = 9 s"),
            std::string::npos)
      << inspected;
}

// Model exchange: terminateSimulation from the event iteration at t = 9, the
// end of the step from 8.9: that step is not used, the run ends at 8.9.
TEST(FmuStopRequest, ModelExchangeFmuEndsTheRunBeforeItsTerminatingEvent) {
  const auto [code, errors] = run_cli("run", stopping_scenario("me"), "fmi-stop-me");
  EXPECT_EQ(code, 0) << errors;
  const auto out = run_directory("fmi-stop-me") / "out";
  stopped_summary(out, 8.9);
  EXPECT_EQ(last_signals_row(out).rfind("8.9000000000000004,8,", 0), 0u) << last_signals_row(out);
}

// The monolithic reference of a model-exchange FMU stops at its request too:
// the reference columns end at the last grid point before t = 9.
TEST(FmuStopRequest, MonolithicReferenceStopsWithTheModel) {
  std::string text = stopping_scenario("me");
  text.replace(text.find("reference: none"), 15, "reference: monolithic\nevaluation: {grid: 0.5}");
  const auto [code, errors] = run_cli("run", text, "fmi-stop-reference");
  EXPECT_EQ(code, 0) << errors;
  const auto out = run_directory("fmi-stop-reference") / "out";
  const std::string header = read_file(out / "signals.csv").substr(0, 200);
  EXPECT_NE(header.find("counter.count:reference"), std::string::npos) << header;
  EXPECT_EQ(last_signals_row(out).rfind("8.5,8,8.5,", 0), 0u) << last_signals_row(out);
}

TEST(FmuModels, ListsVariablesCapabilitiesAndKinds) {
  const std::string text = tools::describe_slave_file(fmu("switch_right"));
  for (const std::string word :
       {"offers: cs me", "canInterpolateInputs yes", "maxOutputDerivativeOrder 2", "x", "input",
        "f", "output", "(feedthrough)", "c_coupling", "parameter"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word << " in\n" << text;
  }
}

}  // namespace
}  // namespace couplet::testing

namespace couplet::testing {
namespace {

// An FMU behind a link that asks to stop: the target answers
// ERROR_STOP_REQUESTED with the time, and the run ends as the local one does
// (exit 0, status stopped, the same end time and decisions; replay agrees).
TEST(FmuTarget, AStopRequestCrossesTheLink) {
  for (const std::string kind : {"cs", "me"}) {
    const double end_time = kind == "cs" ? 9.0 : 8.9;
    const auto [local_code, local_errors] =
        run_cli("run", stopping_scenario(kind), "fmi-stop-local-" + kind);
    ASSERT_EQ(local_code, 0) << local_errors;
    std::string text = stopping_scenario(kind);
    const std::string marker = "fmu_kind: " + kind + "\n";
    text.insert(text.find(marker) + marker.size(),
                "    link: {spawn: true, udp: \"127.0.0.1:0\"}\n");
    const auto [code, errors] = run_cli("run", text, "fmi-stop-remote-" + kind);
    EXPECT_EQ(code, 0) << errors;
    const auto out = run_directory("fmi-stop-remote-" + kind) / "out";
    const nlohmann::json summary = stopped_summary(out, end_time);
    EXPECT_TRUE(summary.at("links").contains("counter")) << summary.dump(2);
    const nlohmann::json local = nlohmann::json::parse(
        read_file(run_directory("fmi-stop-local-" + kind) / "out" / "summary.json"));
    EXPECT_EQ(summary.at("decision_hash"), local.at("decision_hash")) << kind;
    EXPECT_EQ(last_signals_row(out),
              last_signals_row(run_directory("fmi-stop-local-" + kind) / "out"))
        << kind;
    int exit_code = -1;
    const std::string replay = command_output(
        std::string(COUPLET_BINARY) + " replay --verify " + (out / "run.log").string(), exit_code);
    EXPECT_EQ(exit_code, 0) << replay;
    EXPECT_NE(replay.find("asked to stop the simulation at t = 9 s"), std::string::npos) << replay;
  }
}

TEST(FmuTarget, SpawnedTargetServingAnFmuDecidesAsLocal) {
  for (const std::string kind : {"cs", "me"}) {
    const std::string extra = "    fmu_kind: " + kind + "\n";
    Halves local = fmu_halves("switch_left", "switch_right", extra);
    Halves remote = local;
    remote.right += "    link: {spawn: true, udp: \"127.0.0.1:0\"}\n";
    const std::string algorithm = "{type: jacobi, step: 0.05, input_order: 1}";
    const auto here = run_text(scenario_text(local, algorithm, false, 20.0), "fmi-local-" + kind);
    const auto there =
        run_text(scenario_text(remote, algorithm, false, 20.0), "fmi-remote-" + kind);
    EXPECT_EQ(here.at("decision_hash"), there.at("decision_hash")) << kind;
    EXPECT_EQ(read_file(run_directory("fmi-local-" + kind) / "signals.csv"),
              read_file(run_directory("fmi-remote-" + kind) / "signals.csv"))
        << kind;
  }
}

}  // namespace
}  // namespace couplet::testing

namespace couplet::testing {
namespace {

/// switch_left.fmu unpacked, `alter`ed and packed again (cmake -E tar) as `name`.fmu.
std::string altered_fmu(const std::string& name,
                        const std::function<void(const std::filesystem::path&)>& alter) {
  const auto directory = fresh_directory("fmi-altered-" + name);
  const auto unpacked = directory / "unpacked";
  std::filesystem::create_directories(unpacked);
  const std::string unpack =
      "cd " + unpacked.string() + " && cmake -E tar xf " + fmu("switch_left");
  EXPECT_EQ(std::system(unpack.c_str()), 0);
  alter(unpacked);
  const auto packed = directory / (name + ".fmu");
  const std::string pack =
      "cd " + unpacked.string() + " && cmake -E tar cf " + packed.string() + " --format=zip .";
  EXPECT_EQ(std::system(pack.c_str()), 0);
  return packed.string();
}

void replace_in_description(const std::filesystem::path& unpacked, const std::string& from,
                            const std::string& to) {
  const auto file = unpacked / "modelDescription.xml";
  std::string text = read_file(file);
  const std::size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(file) << text;
}

TEST(FmuErrors, DamagedPackagesAreNamedWithTheirElement) {
  struct Damage {
    std::string name;
    std::function<void(const std::filesystem::path&)> alter;
    std::vector<std::string> words;
  };
  const std::vector<Damage> damages = {
      {"guid",
       [](const auto& d) { replace_in_description(d, "c0091e7a", "deadbeef"); },
       {"fmi2Instantiate returned NULL", "GUID"}},
      {"fmi1",
       [](const auto& d) { replace_in_description(d, "fmiVersion=\"2.0\"", "fmiVersion=\"1.0\""); },
       {"fmiVersion", "1.0"}},
      {"fmi3",
       // An FMI 2.0 file relabelled: read as FMI 3.0, it lacks the instantiation token.
       [](const auto& d) { replace_in_description(d, "fmiVersion=\"2.0\"", "fmiVersion=\"3.0\""); },
       {"fmiModelDescription (line", "instantiationToken: missing (required)"}},
      {"malformed",
       [](const auto& d) { replace_in_description(d, "</fmiModelDescription>", "</fmiModel"); },
       {"modelDescription.xml"}},
      {"unknown_element_value",
       [](const auto& d) {
         replace_in_description(d, "causality=\"input\"", "causality=\"sideways\"");
       },
       {"causality", "sideways"}},
      {"no_binaries",
       [](const auto& d) { std::filesystem::remove_all(d / "binaries"); },
       {"binaries/linux64"}},
  };
  for (const Damage& damage : damages) {
    const std::string path = altered_fmu(damage.name, damage.alter);
    const auto [code, errors] =
        run_cli("validate", single_slave("    fmu: " + path + "\n"), "fmi-damaged");
    EXPECT_EQ(code, 2) << damage.name << ": " << errors;
    EXPECT_EQ(std::count(errors.begin(), errors.end(), '\n'), 1) << damage.name << ": " << errors;
    EXPECT_NE(errors.find("slaves.s"), std::string::npos) << damage.name << ": " << errors;
    EXPECT_NE(errors.find(damage.name + ".fmu"), std::string::npos)
        << damage.name << ": " << errors;
    for (const std::string& word : damage.words) {
      EXPECT_NE(errors.find(word), std::string::npos)
          << damage.name << ": " << word << " in " << errors;
    }
  }
}

}  // namespace
}  // namespace couplet::testing
