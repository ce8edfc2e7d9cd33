// FMI 3.0 co-simulation FMUs in runs: the project's integrator3.fmu (y' = k u,
// exact for an input held over the step) driven by a ramp matches the closed
// form of a held input, replays bit for bit, runs in its own couplet-target
// process with the same decisions, rolls back, asks to end the run, and
// refuses what FMI 3.0 cannot take, naming the slave and the FMU.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/simulation.hpp"
#include "host_tools/test_support.hpp"
#include "models/slave_source.hpp"
#include "support/zip_writer.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

const std::string kFmu = COUPLET_TEST_FMU("integrator3");

/// A ramp u = t drives the integrator (k = 2, y0 = 0.5) under Jacobi with step h.
std::string ramp_scenario(const std::string& step, const std::string& fmu_extra = "",
                          const std::string& algorithm = "jacobi") {
  return "name: integrator3\ntime: {start: 0, end: 1}\nalgorithm: {type: " + algorithm +
         ", step: " + step +
         "}\nreference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
         "  int:\n    fmu: " +
         kFmu + "\n    parameters: {k: 2, y0: 0.5" + fmu_extra +
         "}\nconnections:\n  - {from: ramp.y, to: int.u}\n"
         "evaluation: {grid: 0.1, signals: [int.y]}\n";
}

// With u held at u(t_i) = t_i over [t_i, t_i + h], y(t_n) = y0 + k h² n(n-1)/2.
TEST(Fmi3CoSimulation, ARampIntoTheIntegratorFollowsTheClosedFormOfAHeldInput) {
  const auto outcome = couplet_on_text("run", ramp_scenario("0.01"), "fmi3-ramp");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  const std::vector<double>& y = columns.at("int.y");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double n = std::round(time[row] / 0.01);
    EXPECT_NEAR(y[row], 0.5 + 2.0 * 1e-4 * n * (n - 1.0) / 2.0, 1e-13) << "t = " << time[row];
  }
  expect_replayed_and_inspected(outcome, "int");
}

// integrator2 is integrator3's FMI 2.0 twin (fmu_step_bench compares their
// cost): the same arithmetic through either API gives the same bits.
TEST(Fmi3CoSimulation, ItsFmi2TwinGivesTheSameSignalsBitForBit) {
  const auto three = couplet_on_text("run", ramp_scenario("0.01"), "fmi3-twin3");
  std::string text = ramp_scenario("0.01");
  text.replace(text.find(kFmu), kFmu.size(), COUPLET_TEST_FMU("integrator2"));
  const auto two = couplet_on_text("run", text, "fmi3-twin2");
  ASSERT_EQ(three.exit_code, 0) << three.output;
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(read_file(three.out / "signals.csv"), read_file(two.out / "signals.csv"));
}

TEST(Fmi3CoSimulation, InItsOwnProcessItMakesTheDecisionsOfTheInProcessRun) {
  const auto local = couplet_on_text("run", ramp_scenario("0.02"), "fmi3-local");
  const std::string isolated_text =
      ramp_scenario("0.02");  // the same scenario, the FMU slave isolated below
  std::string text = isolated_text;
  text.replace(text.find("    parameters: {k: 2"), 0, "    isolate: true\n");
  const auto isolated = couplet_on_text("run", text, "fmi3-isolated");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(local.out), hash_of(isolated.out));
  EXPECT_EQ(read_file(local.out / "signals.csv"), read_file(isolated.out / "signals.csv"));
}

TEST(Fmi3CoSimulation, AnFmuThatAsksToEndTheRunStopsItThere) {
  const auto outcome =
      couplet_on_text("run", ramp_scenario("0.1", ", stop_time: 0.5"), "fmi3-stop");
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  EXPECT_EQ(summary["status"], "stopped");
  EXPECT_EQ(summary["stopped_by"], "slave 'int' at t = 0.5 s");
}

TEST(Fmi3CoSimulation, RollbackRestoresTheSavedStateExactly) {
  models::SlaveSettings settings;
  settings.slave_name = "int";
  settings.parameters = {{"k", 3.0}, {"y0", 1.0}};
  const auto slave = models::fmu_source(kFmu, models::FmuKind::automatic)->make_slave(settings);
  ASSERT_TRUE(slave->description().capabilities.can_rollback);
  ASSERT_EQ(slave->description().capabilities.output_derivative_order, 1);
  slave->setup(0);
  const std::vector<Polynomial> input{Polynomial::constant(0.0, 2.0)};
  std::vector<double> first(2), again(2);
  const auto step = [&](Time start, Time end, std::vector<double>& out) {
    StepRequest request;
    request.start = start;
    request.end = end;
    request.inputs = input;
    slave->step(request, OutputBuffers{out, {}, {}});
  };
  const Time h = step_to_ticks(0.25);
  slave->save_state();
  step(0, h, first);
  slave->restore_state();
  step(0, h, again);
  EXPECT_EQ(first, again);
  EXPECT_EQ(first[0], 1.0 + 3.0 * 2.0 * 0.25);  // y = y0 + k u h
  EXPECT_EQ(first[1], 6.0);                     // dy/dt = k u
}

TEST(Fmi3CoSimulation, RefusesWhatAnFmi3FmuCannotTakeNamingTheSlave) {
  const auto degree = couplet_on_text(
      "validate", ramp_scenario("0.01", "}\n    capabilities: {max_input_degree: 1"),
      "fmi3-degree");
  EXPECT_EQ(degree.exit_code, 2);
  EXPECT_NE(degree.output.find("slave 'int': FMU '" + kFmu +
                               "': capabilities.max_input_degree 1: an FMI 3.0 FMU without "
                               "intermediate update takes its inputs as values held over the "
                               "step"),
            std::string::npos)
      << degree.output;
  const auto algorithm =
      couplet_on_text("validate", ramp_scenario("0.01", "", "ifosmondi"), "fmi3-ifosmondi");
  EXPECT_EQ(algorithm.exit_code, 2);
  EXPECT_NE(algorithm.output.find("slave 'int' accepts input polynomials of degree at most 0"),
            std::string::npos)
      << algorithm.output;
  std::string model_exchange = ramp_scenario("0.01");
  model_exchange.replace(model_exchange.find("    parameters: {k: 2"), 0, "    fmu_kind: me\n");
  const auto kind = couplet_on_text("validate", model_exchange, "fmi3-me");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.output.find("FMU '" + kFmu + "': fmu_kind: does not offer model exchange"),
            std::string::npos)
      << kind.output;
  const auto unknown = couplet_on_text("validate", ramp_scenario("0.01", ", y: 1"), "fmi3-param");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("parameters: 'y' cannot be set (settable "
                                "variables: k, y0, u, stop_time)"),
            std::string::npos)
      << unknown.output;
}

const std::string kText = COUPLET_TEST_FMU("text3");

/// text3 (a String greeting, a Binary key, a Float64 gain) with `parameters`.
std::string text_scenario(const std::string& parameters, const std::string& extra = "") {
  return "name: text3\ntime: {start: 0, end: 0.2}\nalgorithm: {type: jacobi, step: 0.1}\n"
         "reference: none\nslaves:\n  t:\n    fmu: " +
         kText + "\n    parameters: {" + parameters + "}\n" + extra + "evaluation: {grid: 0.1}\n";
}

// A quoted value, or one that is no number, is text: an FMI 3.0 String
// variable takes it as it is (fmi3SetString, UTF-8), a Binary one the bytes of
// its hexadecimal digits (fmi3SetBinary). text3 shows them as numbers. A
// quoted number for a numeric variable is still the number.
TEST(Fmi3Parameters, StringAndBinaryValuesReachTheFmu) {
  const auto given = couplet_on_text(
      "run", text_scenario("greeting: \"Grüß dich\", key: \"ff00FF10\", gain: \"0.5\""),
      "fmi3-text");
  ASSERT_EQ(given.exit_code, 0) << given.output;
  const auto columns = read_columns(given.out / "signals.csv");
  for (std::size_t row = 0; row < columns.at("time").size(); ++row) {
    EXPECT_EQ(columns.at("t.greeting_length")[row], 11.0);  // UTF-8 bytes
    EXPECT_EQ(columns.at("t.greeting_first")[row], 'G');
    EXPECT_EQ(columns.at("t.key_size")[row], 4.0);
    EXPECT_EQ(columns.at("t.key_sum")[row], 255.0 + 0.0 + 255.0 + 16.0);
    EXPECT_EQ(columns.at("t.weighted")[row], 0.5 * 526.0);
  }
  expect_replayed_and_inspected(given, "t");
  // Served by its own couplet-target, the Configure message carries the text.
  const auto isolated =
      couplet_on_text("run",
                      text_scenario("greeting: \"Grüß dich\", key: \"ff00FF10\", gain: \"0.5\"",
                                    "    isolate: true\n"),
                      "fmi3-text-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(given.out), hash_of(isolated.out));
  EXPECT_EQ(read_file(given.out / "signals.csv"), read_file(isolated.out / "signals.csv"));
  // A number in quotes for a String is its text; an unquoted word is text too;
  // an empty Binary is no bytes. Without values, the start values hold.
  const auto numeric_text =
      couplet_on_text("run", text_scenario("greeting: \"12\", key: \"\""), "fmi3-text-number");
  ASSERT_EQ(numeric_text.exit_code, 0) << numeric_text.output;
  const auto short_columns = read_columns(numeric_text.out / "signals.csv");
  EXPECT_EQ(short_columns.at("t.greeting_length")[0], 2.0);
  EXPECT_EQ(short_columns.at("t.greeting_first")[0], '1');
  EXPECT_EQ(short_columns.at("t.key_size")[0], 0.0);
  const auto word = couplet_on_text("run", text_scenario("greeting: ahoy"), "fmi3-text-word");
  ASSERT_EQ(word.exit_code, 0) << word.output;
  const auto word_columns = read_columns(word.out / "signals.csv");
  EXPECT_EQ(word_columns.at("t.greeting_length")[0], 4.0);
  EXPECT_EQ(word_columns.at("t.key_sum")[0], 1.0 + 2.0 + 255.0);  // start value 0102ff
}

// Text where it cannot go is refused before the run, naming the scenario
// element, the FMU, the parameter and what the FMU could take.
TEST(Fmi3Parameters, TextIsRefusedWhereItCannotGoNamingTheParameter) {
  const std::string settable =
      " (String and Binary variables it can set: greeting (String), "
      "key (Binary))";
  const struct {
    const char* parameters;
    std::string expected;
  } cases[] = {
      {"key: \"0g\"",
       "parameters: 'key' = \"0g\": a Binary value is written as pairs of "
       "hexadecimal digits"},
      {"key: \"abc\"",
       "parameters: 'key' = \"abc\": a Binary value is written as pairs of "
       "hexadecimal digits"},
      {"greeting: 12", "parameters: 'greeting' is a String: give its value as text, in quotes"},
      {"gain: fast",
       "parameters: 'gain' = \"fast\": 'gain' is a Float64, which takes a "
       "number, not text" +
           settable},
      {"motto: \"x\"", "parameters: 'motto' = \"x\": 'motto' cannot be set" + settable},
      {"nothing: \"x\"",
       "parameters: 'nothing' = \"x\": 'nothing' is no variable of the FMU" + settable},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.parameters);
    const auto outcome =
        couplet_on_text("validate", text_scenario(bad.parameters), "fmi3-text-bad");
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_NE(outcome.output.find(":7: slaves.t: slave 't': FMU '" + kText + "': " + bad.expected),
              std::string::npos)
        << outcome.output;
  }
  std::string long_key;  // 200 bytes, which text3 takes: 400 digits, more than a Configure carries
  for (int k = 0; k < 200; ++k) long_key += "ab";
  const auto too_long =
      couplet_on_text("validate", text_scenario("key: \"" + long_key + "\"", "    isolate: true\n"),
                      "fmi3-text-isolated-long");
  EXPECT_EQ(too_long.exit_code, 2);
  EXPECT_NE(too_long.output.find("the text of parameter 'key', '" + long_key +
                                 "' is longer than the wire protocol allows (255 bytes)"),
            std::string::npos)
      << too_long.output;
  std::string fmi2 = ramp_scenario("0.01", ", label: \"far\"");
  fmi2.replace(fmi2.find(kFmu), kFmu.size(), COUPLET_TEST_FMU("integrator2"));
  const auto two = couplet_on_text("validate", fmi2, "fmi3-text-fmi2");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.output.find("parameters: 'label' = \"far\" is no number; text values are for the "
                            "String and Binary variables of FMI 3.0 FMUs (this is FMI 2.0)"),
            std::string::npos)
      << two.output;
}

const char* const kTypeNames[] = {"f32", "f64", "i8",  "u8",  "i16", "u16",
                                  "i32", "u32", "i64", "u64", "b",   "mode"};

/// Two types3 FMUs, a's outputs into b's inputs (or `connections`); a's
/// inputs keep their start values, the extremes of their types.
Simulation chained_types(const std::string& name, const std::string& connections) {
  const auto directory = fresh_directory(name);
  std::filesystem::create_directories(directory);
  const auto scenario = directory / "types3.yaml";
  std::ofstream(scenario) << "name: types3\ntime: {start: 0, end: 0.1}\nslaves:\n"
                             "  a: {fmu: " COUPLET_TEST_FMU("types3") "}\n"
                             "  b: {fmu: " COUPLET_TEST_FMU("types3") "}\n"
                             "connections:\n"
                          << connections << "algorithm: {type: jacobi, step: 0.05}\nreference: none\n";
  return Simulation::from_scenario(scenario.string(), {},
                                   {(directory / "out").string(), false, false});
}

// Every numeric type of FMI 3.0 crosses a connection at the extremes of its
// range unchanged: Floats as Real ports, the integer types, Boolean and an
// Enumeration as discrete ones.
TEST(Fmi3CoSimulation, EveryNumericTypeCrossesAConnectionAtTheEndsOfItsRange) {
  std::string connections;
  for (const char* type : kTypeNames)
    connections += std::string("  - {from: a.y_") + type + ", to: b.u_" + type + "}\n";
  Simulation simulation = chained_types("fmi3-types", connections);
  simulation.run();
  EXPECT_EQ(simulation.output("b.y_f32"), static_cast<double>(FLT_MAX));
  EXPECT_EQ(simulation.output("b.y_f64"), -DBL_MAX);
  EXPECT_EQ(simulation.discrete_output("b.y_i8"), -128);
  EXPECT_EQ(simulation.discrete_output("b.y_u8"), 255);
  EXPECT_EQ(simulation.discrete_output("b.y_i16"), -32768);
  EXPECT_EQ(simulation.discrete_output("b.y_u16"), 65535);
  EXPECT_EQ(simulation.discrete_output("b.y_i32"), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(simulation.discrete_output("b.y_u32"), 4294967295);
  EXPECT_EQ(simulation.discrete_output("b.y_i64"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(simulation.discrete_output("b.y_u64"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(simulation.discrete_output("b.y_b"), 1);
  EXPECT_EQ(simulation.discrete_output("b.y_mode"), 7);
}

TEST(Fmi3CoSimulation, AValueItsInputTypeCannotHoldFailsTheStepNamingThePort) {
  Simulation simulation = chained_types("fmi3-range", "  - {from: a.y_i8, to: b.u_u8}\n");
  try {
    simulation.run();
    ADD_FAILURE() << "no error";
  } catch (const SlaveError& error) {
    EXPECT_NE(
        std::string(error.what()).find("slave 'b': input 'u_u8' takes values 0 to 255, not -128"),
        std::string::npos)
        << error.what();
  }
}

TEST(Fmi3CoSimulation, StartValuesAreSetInTheVariablesOwnType) {
  const auto set = [](const std::string& parameters) {
    return couplet_on_text("validate",
                           "name: types3\ntime: {start: 0, end: 0.1}\nslaves:\n  a:\n    fmu: " +
                               std::string(COUPLET_TEST_FMU("types3")) + "\n    parameters: {" +
                               parameters +
                               "}\nalgorithm: {type: jacobi, step: 0.05}\nreference: none\n",
                           "fmi3-start");
  };
  const auto good = set("u_u8: 17, u_b: 0, u_f32: 0.5, u_i64: -4e18");
  EXPECT_EQ(good.exit_code, 0) << good.output;
  // A UInt64 start above 2^63 is set, but its output cannot be a discrete signal.
  const auto beyond = set("u_u64: 1.5e19");
  EXPECT_EQ(beyond.exit_code, 1);
  EXPECT_NE(beyond.output.find("slave 'a': output 'y_u64' is 15000000000000000000, beyond the "
                               "int64 range of couplet's discrete signals"),
            std::string::npos)
      << beyond.output;
  const auto fraction = set("u_i16: 2.5");
  EXPECT_EQ(fraction.exit_code, 2);
  EXPECT_NE(fraction.output.find("parameters: 'u_i16' is a Int16, which cannot hold 2.5"),
            std::string::npos)
      << fraction.output;
  const auto range = set("u_u8: 256");
  EXPECT_NE(range.output.find("parameters: 'u_u8' is a UInt8, which cannot hold 256"),
            std::string::npos)
      << range.output;
}

const std::string kArrays = COUPLET_TEST_FMU("arrays3");

/// arrays3 (y[i]' = i u[i], i = 1..n) with u[`driven`] fed a ramp u = t, the
/// other elements of u held at their parameters; `fmu_extra` adds to its keys.
std::string arrays_scenario(int driven, const std::string& parameters,
                            const std::string& fmu_extra = "") {
  const std::string element = "arr.u[" + std::to_string(driven) + "]";
  return "name: arrays3\ntime: {start: 0, end: 1}\nalgorithm: {type: jacobi, step: 0.01}\n"
         "reference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
         "  arr:\n    fmu: " +
         kArrays + "\n" + fmu_extra + "    parameters: {" + parameters +
         "}\nconnections:\n  - {from: ramp.y, to: \"" + element + "\"}\nevaluation: {grid: 0.1}\n";
}

// The elements of arrays are ports name[i]: a connection drives one element of
// u, the scenario holds the others, and each y[i] follows its closed form;
// the Int32[2,3] grid comes out row-major with two elements of its parameter
// array set by name, the other four keeping their start values.
TEST(Fmi3Arrays, EachElementIsAPortFollowingItsClosedForm) {
  const auto outcome = couplet_on_text(
      "run", arrays_scenario(2, "\"u[1]\": 1, \"u[3]\": 3, \"offset[4]\": 100, \"offset[3]\": 7"),
      "fmi3-arrays");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    const double n = std::round(t / 0.01);
    const double held_ramp = 1e-4 * n * (n - 1.0) / 2.0;  // ∫ of u = t held per step
    EXPECT_NEAR(columns.at("arr.y[1]")[row], 1.0 * 1.0 * t, 1e-13) << "t = " << t;
    EXPECT_NEAR(columns.at("arr.y[2]")[row], 2.0 * held_ramp, 1e-13) << "t = " << t;
    EXPECT_NEAR(columns.at("arr.y[3]")[row], 3.0 * 3.0 * t, 1e-12) << "t = " << t;
    EXPECT_NEAR(columns.at("arr.total")[row], 10.0 * t + 2.0 * held_ramp, 1e-12) << "t = " << t;
  }
  const std::vector<double> grid{11, 12, 13 + 7, 21 + 100, 22, 23};
  for (std::size_t k = 0; k < grid.size(); ++k)
    EXPECT_EQ(columns.at("arr.grid[" + std::to_string(k + 1) + "]").back(), grid[k]) << k;
  EXPECT_EQ(columns.count("arr.y[4]"), 0u);
  expect_replayed_and_inspected(outcome, "arr");
}

// A structural parameter sizes the arrays: n = 5 makes u[1..5] and y[1..5],
// set in Configuration Mode before the other parameters.
TEST(Fmi3Arrays, AStructuralParameterSizesTheArrays) {
  const auto outcome =
      couplet_on_text("run", arrays_scenario(5, "n: 5, \"u[1]\": 2"), "fmi3-structural");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const double n = 100;
  EXPECT_NEAR(columns.at("arr.y[5]").back(), 5.0 * 1e-4 * n * (n - 1.0) / 2.0, 1e-12);
  EXPECT_NEAR(columns.at("arr.y[1]").back(), 2.0, 1e-13);
  EXPECT_EQ(columns.at("arr.y[4]").back(), 0.0);
  EXPECT_EQ(columns.count("arr.y[6]"), 0u);
  // In its own process the FMU makes the same decisions.
  const auto isolated =
      couplet_on_text("run", arrays_scenario(5, "n: 5, \"u[1]\": 2", "    isolate: true\n"),
                      "fmi3-isolated-arrays");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));
}

// Output derivatives name each array once and come back per element.
TEST(Fmi3Arrays, OutputDerivativesComeBackPerElement) {
  models::SlaveSettings settings;
  settings.slave_name = "arr";
  settings.parameters = {{"n", 2.0}};
  const auto slave = models::fmu_source(kArrays, models::FmuKind::automatic)->make_slave(settings);
  const SlaveDescription& description = slave->description();
  ASSERT_EQ(description.inputs.size(), 2u);
  EXPECT_EQ(description.inputs[1].name, "u[2]");
  ASSERT_EQ(description.outputs.size(), 3u);  // y[1], y[2], total
  EXPECT_EQ(description.outputs[2].name, "total");
  ASSERT_EQ(description.discrete_outputs.size(), 6u);
  EXPECT_EQ(description.discrete_outputs[5].name, "grid[6]");
  slave->setup(0);
  const std::vector<Polynomial> inputs{Polynomial::constant(0.0, 3.0),
                                       Polynomial::constant(0.0, 5.0)};
  std::vector<double> end(6);
  std::vector<std::int64_t> grid(6);
  StepRequest request;
  request.start = 0;
  request.end = step_to_ticks(0.5);
  request.inputs = inputs;
  slave->step(request, OutputBuffers{end, {}, grid});
  EXPECT_EQ(end, (std::vector<double>{1.5, 5.0, 6.5, 3.0, 10.0, 13.0}));
  EXPECT_EQ(grid, (std::vector<std::int64_t>{11, 12, 13, 21, 22, 23}));
}

TEST(Fmi3Arrays, RefusesElementsThatAreNotThereNamingThem) {
  const auto expect_refusal = [](const std::string& text, const std::string& message) {
    const auto outcome = couplet_on_text("validate", text, "fmi3-array-refusal");
    EXPECT_EQ(outcome.exit_code, 2) << text;
    EXPECT_NE(outcome.output.find(message), std::string::npos) << outcome.output;
  };
  expect_refusal(arrays_scenario(4, ""),
                 "slave 'arr': FMU '" + kArrays + "': no input 'u[4]' of a numeric type");
  expect_refusal(arrays_scenario(4, ""), "; 'u' is a Float64[3]: u[1] to u[3]");
  expect_refusal(arrays_scenario(1, "\"offset[7]\": 1"),
                 "parameters: 'offset[7]' is no variable of the FMU (settable variables: n, "
                 "u[1..3], offset[1..6]); 'offset' is a Int32[2,3]: offset[1] to offset[6]");
  expect_refusal(arrays_scenario(1, "\"offset[02]\": 1"), "'offset[02]' is no variable");
  expect_refusal(arrays_scenario(1, "offset: 1"), "parameters: 'offset' cannot be set");
  expect_refusal(arrays_scenario(1, "n: 2.5"),
                 "parameters: 'n' is a UInt64, which cannot hold 2.5");
  expect_refusal(arrays_scenario(1, "n: 17"), "fmi3ExitConfigurationMode returned fmi3Error");
  expect_refusal(arrays_scenario(1, "n: 1e9"),
                 "'u': Float64[1000000000] has more than the 65536 elements couplet makes "
                 "ports of");
  // Unquoted in a flow mapping, the brackets start a YAML sequence.
  std::string unquoted = arrays_scenario(2, "");
  unquoted.replace(unquoted.find("\"arr.u[2]\""), 10, "arr.u[2]");
  expect_refusal(unquoted,
                 "scenario.yaml:13: not valid YAML: end of map flow not found (a name with "
                 "brackets, such as the array element \"arr.u[2]\", is quoted inside { } and [ ])");
}

const std::string kSawtooth = COUPLET_TEST_FMU("sawtooth3");

/// sawtooth3 (model exchange): x' = k + u, reset at multiples of 0.47 s, count
/// of rises through 0.25; neither falls on the 0.1 s grid.
std::string sawtooth_scenario(const std::string& reference = "none",
                              const std::string& extra = "") {
  return "name: sawtooth3\ntime: {start: 0, end: 2}\nalgorithm: {type: jacobi, step: 0.1}\n"
         "reference: " +
         reference + "\nslaves:\n  saw:\n    fmu: " + kSawtooth + "\n" + extra +
         "    parameters: {period: 0.47, threshold: 0.25}\n"
         "evaluation: {grid: 0.1, signals: [saw.x, saw.count]}\n";
}

// Time events reset the state and state events count, each where the closed
// form puts it: x(t) = t mod 0.47, count(t) = #{n : 0.47 n + 0.25 <= t}.
TEST(Fmi3ModelExchange, TimeAndStateEventsFollowTheClosedForm) {
  const auto outcome = couplet_on_text("run", sawtooth_scenario(), "fmi3-me-run");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 21u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    EXPECT_NEAR(columns.at("saw.x")[row], t - std::floor(t / 0.47) * 0.47, 1e-9) << "t = " << t;
    const double crossings = t < 0.25 ? 0.0 : std::floor((t - 0.25) / 0.47) + 1.0;
    EXPECT_EQ(columns.at("saw.count")[row], crossings) << "t = " << t;
  }
  expect_replayed_and_inspected(outcome, "saw");
  // In its own couplet-target process, the same decisions.
  const auto isolated =
      couplet_on_text("run", sawtooth_scenario("none", "    fmu_kind: me\n    isolate: true\n"),
                      "fmi3-me-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));
}

// As a Model, the FMU joins the monolithic reference: one slave, so the
// reference solves the same equations and agrees with the run.
TEST(Fmi3ModelExchange, ItJoinsTheMonolithicReference) {
  const auto outcome = couplet_on_text("run", sawtooth_scenario("monolithic"), "fmi3-me-ref");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  ASSERT_TRUE(summary.contains("errors")) << summary.dump();
  EXPECT_LT(summary["errors"]["saw.x"]["nrmse_pct"].get<double>(), 1e-6) << summary.dump();
}

TEST(Fmi3ModelExchange, RefusesCoSimulationAndUnknownParametersNamingThem) {
  const auto kind =
      couplet_on_text("validate", sawtooth_scenario("none", "    fmu_kind: cs\n"), "fmi3-me-cs");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.output.find("FMU '" + kSawtooth + "': fmu_kind: does not offer co-simulation"),
            std::string::npos)
      << kind.output;
  const auto parameter = [](const std::string& replacement) {
    std::string text = sawtooth_scenario();
    text.replace(text.find("period: 0.47"), 12, replacement);
    return couplet_on_text("validate", text, "fmi3-me-parameter");
  };
  const auto local = parameter("\"der(x)\": 3");
  EXPECT_EQ(local.exit_code, 2);
  EXPECT_NE(local.output.find("slave 'saw': FMU '" + kSawtooth +
                              "': parameters: 'der(x)' cannot be set (settable variables: x, "
                              "k, period, threshold, u, count)"),
            std::string::npos)
      << local.output;
  // count may be set (initial="exact"), but this FMU refuses: the call and the parameter named.
  const auto refused = parameter("count: 3");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("slave 'saw': FMU '" + kSawtooth +
                                "': fmi3SetInt32 returned fmi3Error setting parameters count"),
            std::string::npos)
      << refused.output;
}

const std::string kSampled = COUPLET_TEST_FMU("sampled3");

// A model-exchange FMU's input clocks tick as time events: sampled3 (x' = v,
// v = 2) samples e = r - x every 25 ms from 5 ms, r a ramp held at the
// communication points — so at t = 0.1 m, e = (t - 0.1) - 2 (t - 0.02) =
// -t - 0.06 after 4 m ticks — and its countdown clock echo, set at each
// sample to 10 ms later, ticks as often. sampled3 fails any fmi3SetTime past
// an unhandled tick. CVODE and Euler make the same decisions; the monolithic
// reference, where r is the ramp itself at each tick, gives e = -(t - 0.02).
TEST(Fmi3ModelExchange, InputClockTicksAreTimeEvents) {
  const std::string scenario =
      "name: sampled3\ntime: {start: 0, end: 1}\nalgorithm: {type: jacobi, step: 0.1}\n"
      "reference: monolithic\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
      "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
      "  s:\n    fmu: " +
      kSampled +
      "\n    parameters: {v: 2}\nconnections:\n  - {from: ramp.y, to: s.r}\n"
      "evaluation: {grid: 0.1}\n";
  const auto outcome = couplet_on_text("run", scenario, "fmi3-sampled");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    const double m = std::round(t / 0.1);
    EXPECT_NEAR(columns.at("s.x")[row], 2.0 * t, 1e-9) << "t = " << t;
    EXPECT_EQ(columns.at("s.samples")[row], 4.0 * m) << "t = " << t;
    EXPECT_EQ(columns.at("s.echoes")[row], 4.0 * m) << "t = " << t;
    EXPECT_NEAR(columns.at("s.e")[row], m == 0.0 ? 0.0 : -t - 0.06, 1e-9) << "t = " << t;
    EXPECT_NEAR(columns.at("s.e:reference")[row], m == 0.0 ? 0.0 : -(t - 0.02), 1e-9)
        << "t = " << t;
  }
  expect_replayed_and_inspected(outcome, "s");
  std::string euler = scenario;
  euler.replace(euler.find("{v: 2}"), 6, "{v: 2}\n    solver: {type: euler, substeps: 4}");
  const auto stepped = couplet_on_text("run", euler, "fmi3-sampled-euler");
  ASSERT_EQ(stepped.exit_code, 0) << stepped.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(stepped.out));  // x' constant: both exact

  // A rollback takes the schedule, the pending countdown and the held
  // outputs back: the step after it repeats bit for bit.
  models::SlaveSettings settings;
  settings.slave_name = "s";
  const auto slave = models::fmu_source(kSampled, models::FmuKind::automatic)->make_slave(settings);
  ASSERT_TRUE(slave->description().capabilities.can_rollback);
  slave->setup(0);
  const std::vector<Polynomial> inputs{Polynomial::constant(0.0, 2.0),
                                       Polynomial::constant(0.0, 1.0)};  // v, r
  std::vector<double> end(2 * (slave->description().capabilities.output_derivative_order + 1));
  std::vector<std::int64_t> discrete(2);  // samples, echoes
  const auto step = [&](Time from, Time to) {
    slave->step({from, to, inputs, {}}, OutputBuffers{end, {}, discrete});
    return std::tuple(end[0], end[1], discrete[0], discrete[1]);
  };
  const Time ms = 1'000'000;
  step(0, 27 * ms);  // a sample at 5 ms, its echo at 15 ms
  slave->save_state();
  const auto first = step(27 * ms, 47 * ms);  // sample at 30 ms, its echo at 40 ms
  EXPECT_EQ(std::get<2>(first), 2);
  EXPECT_EQ(std::get<3>(first), 2);
  EXPECT_NEAR(std::get<1>(first), 1.0 - 2.0 * 0.03, 1e-12);
  slave->restore_state();
  EXPECT_EQ(step(27 * ms, 47 * ms), first);
}

const std::string kEvents = COUPLET_TEST_FMU("events3");

// events3 (y' = 1, reset where it reaches 0.27) returns early at each reset
// inside a communication step and has it handled in Event Mode, so the run
// follows the closed form: y(t) = t mod 0.27, count(t) = floor(t / 0.27),
// one early return per reset.
TEST(Fmi3EventMode, EventsInsideAStepAreHandledWhereTheyHappen) {
  const std::string text =
      "name: events3\ntime: {start: 0, end: 2}\nalgorithm: {type: jacobi, step: 0.1}\n"
      "reference: none\nslaves:\n  ev: {fmu: " +
      kEvents + "}\nevaluation: {grid: 0.1}\n";
  const auto outcome = couplet_on_text("run", text, "fmi3-events");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 21u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    EXPECT_NEAR(columns.at("ev.y")[row], t - std::floor(t / 0.27) * 0.27, 1e-12) << "t = " << t;
    EXPECT_EQ(columns.at("ev.count")[row], std::floor(t / 0.27)) << "t = " << t;
    EXPECT_EQ(columns.at("ev.early_returns")[row], std::floor(t / 0.27)) << "t = " << t;
  }
  expect_replayed_and_inspected(outcome, "ev");
  std::string isolated_text = text;
  isolated_text.replace(isolated_text.find("{fmu: "), 6, "{isolate: true, fmu: ");
  const auto isolated = couplet_on_text("run", isolated_text, "fmi3-events-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));
}

// With event mode, a discrete input is set in Event Mode (events3 refuses it
// in Step Mode), and only when it changes.
TEST(Fmi3EventMode, AChangedDiscreteInputIsAnEventAtTheCommunicationPoint) {
  models::SlaveSettings settings;
  settings.slave_name = "ev";
  const auto slave = models::fmu_source(kEvents, models::FmuKind::automatic)->make_slave(settings);
  ASSERT_EQ(slave->description().discrete_inputs.size(), 1u);
  ASSERT_EQ(slave->description().discrete_outputs.size(), 3u);  // count, early_returns, mode_events
  slave->setup(0);
  std::vector<double> end(1);
  std::vector<std::int64_t> discrete(3);
  const auto step = [&](Time start, std::int64_t mode) {
    StepRequest request;
    request.start = start;
    request.end = start + step_to_ticks(0.1);
    const std::vector<std::int64_t> modes{mode};
    request.discrete_inputs = modes;
    slave->step(request, OutputBuffers{end, {}, discrete});
  };
  step(0, 1);  // the start value: no event
  EXPECT_EQ(discrete[2], 0);
  step(step_to_ticks(0.1), 5);
  EXPECT_EQ(discrete[2], 1);
  step(step_to_ticks(0.2), 5);
  EXPECT_EQ(discrete[2], 1);
  EXPECT_NEAR(end[0], 0.3 - 0.27, 1e-12);  // one reset at 0.27, inside the third step
  EXPECT_EQ(discrete[0], 1);
}

const std::string kClocked = COUPLET_TEST_FMU("clocked3");

/// clocked3 (x' = v, v = 2) with its clocked input r from a ramp r = t, held
/// at the communication points (degree 0), under Jacobi with step 0.1.
std::string clocked_scenario(const std::string& extra = "") {
  return "name: clocked3\ntime: {start: 0, end: 1}\nalgorithm: {type: jacobi, step: 0.1}\n"
         "reference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
         "  c:\n    fmu: " +
         kClocked + "\n    parameters: {v: 2}\n" + extra +
         "connections:\n  - {from: ramp.y, to: c.r}\nevaluation: {grid: 0.1}\n";
}

// A co-simulation FMU's clocks tick where they should: fmi3DoStep stops at
// each tick of the periodic clock sample (0.005 s + 0.025 s k) for an event
// there, with r set while sample is active, so at t = 0.1 m its last tick was
// at t - 0.02 with r = t - 0.1 held from the communication point: e = r - x =
// -t - 0.06 after 4 m ticks, and the countdown clock echo, set at each of
// them to tick 10 ms later, as often. The output clock level ticks where x = 2t crosses
// 0.75 and 1.5 — at t = 0.375 and 0.75, inside the steps, by early return —
// and its port is true for those steps only. clocked3 fails any fmi3DoStep
// over an unhandled tick and any clocked input set outside its tick.
TEST(Fmi3CoSimulationClocks, TicksInsideTheStepAreEventsAtTheirTimes) {
  const auto outcome = couplet_on_text("run", clocked_scenario(), "fmi3-clocked");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    const double m = std::round(t / 0.1);
    const double crossings = std::floor(2.0 * t / 0.75);
    EXPECT_NEAR(columns.at("c.x")[row], 2.0 * t, 1e-12) << "t = " << t;
    EXPECT_EQ(columns.at("c.samples")[row], 4.0 * m) << "t = " << t;
    EXPECT_EQ(columns.at("c.echoes")[row], 4.0 * m) << "t = " << t;  // 10 ms after each
    EXPECT_NEAR(columns.at("c.e")[row], m == 0.0 ? 0.0 : -t - 0.06, 1e-12) << "t = " << t;
    EXPECT_EQ(columns.at("c.crossings")[row], crossings) << "t = " << t;
    EXPECT_NEAR(columns.at("c.crossed_at")[row], crossings == 0.0 ? -1.0 : 0.375 * crossings, 1e-12)
        << "t = " << t;
    EXPECT_EQ(columns.at("c.level")[row], m == 4.0 || m == 8.0 ? 1.0 : 0.0) << "t = " << t;
    EXPECT_EQ(columns.at("c.kicks")[row], 0.0) << "t = " << t;
  }
  expect_replayed_and_inspected(outcome, "c");
  const auto isolated =
      couplet_on_text("run", clocked_scenario("    isolate: true\n"), "fmi3-clocked-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));
}

// A triggered clock of a co-simulation FMU is a Boolean input port of its
// name: a rise ticks it at the communication point, in Event Mode; a
// rollback takes the held port, the clocked outputs and the output clock's
// port back too.
TEST(Fmi3CoSimulationClocks, ATriggeredClockTicksAtARiseAndRollsBack) {
  models::SlaveSettings settings;
  settings.slave_name = "c";
  const auto slave = models::fmu_source(kClocked, models::FmuKind::automatic)->make_slave(settings);
  const SlaveDescription& description = slave->description();
  ASSERT_EQ(description.inputs.size(), 2u);  // v, then the clocked r
  EXPECT_EQ(description.inputs[1].name, "r");
  ASSERT_EQ(description.discrete_inputs.size(), 1u);
  EXPECT_EQ(description.discrete_inputs[0].name, "kick");
  ASSERT_EQ(description.outputs.size(), 3u);  // x, then the clocked e, crossed_at
  ASSERT_EQ(description.discrete_outputs.size(), 5u);
  EXPECT_EQ(description.discrete_outputs[1].name, "kicks");
  EXPECT_EQ(description.discrete_outputs[4].name, "level");  // the output clock, last
  slave->setup(0);
  const std::vector<Polynomial> inputs{Polynomial::constant(0.0, 2.0),
                                       Polynomial::constant(0.0, 1.0)};
  std::vector<double> end(3);
  std::vector<std::int64_t> discrete(5);  // samples, kicks, crossings, echoes, level
  Time at = 0;
  const auto step = [&](std::int64_t kick) {
    StepRequest request;
    request.start = at;
    request.end = at + step_to_ticks(0.1);
    request.inputs = inputs;
    const std::vector<std::int64_t> kicks{kick};
    request.discrete_inputs = kicks;
    slave->step(request, OutputBuffers{end, {}, discrete});
    at = request.end;
    return discrete[1];
  };
  EXPECT_EQ(step(0), 0);
  EXPECT_EQ(step(1), 1);
  slave->save_state();
  EXPECT_EQ(step(1), 1);  // held: no rise
  EXPECT_EQ(step(0), 1);
  EXPECT_EQ(discrete[4], 1);  // level ticked in [0.3, 0.4), where x = 2t reaches 0.75
  EXPECT_EQ(step(1), 2);
  EXPECT_EQ(discrete[2], 1);
  EXPECT_EQ(discrete[4], 0);
  slave->restore_state();
  at = step_to_ticks(0.2);
  EXPECT_EQ(step(1), 1);       // the saved trigger was high: no rise after the rollback either
  EXPECT_EQ(discrete[0], 12);  // ticks at 0.005, 0.030, ..., 0.280
  EXPECT_NEAR(end[1], 1.0 - 2.0 * 0.28, 1e-12);  // e = r - x at 0.28
  EXPECT_EQ(discrete[2], 0);
  EXPECT_EQ(step(0), 1);
  EXPECT_EQ(discrete[2], 1);
  EXPECT_EQ(discrete[4], 1);
  EXPECT_NEAR(end[2], 0.375, 1e-12);  // crossed_at
}

// Clocks in co-simulation need event mode: clocked3 without hasEventMode is
// refused naming the slave, the FMU and why; so is a triggered clock in model
// exchange (sawtooth3 given one), which couplet does not tick there yet.
TEST(Fmi3CoSimulationClocks, WhereTheyCannotTickTheyAreRefused) {
  const auto directory = fresh_directory("fmi3-clocked-no-event-mode");
  std::filesystem::create_directories(directory);
  std::string xml = read_file(kClocked + ".d/stage/modelDescription.xml");
  xml.replace(xml.find("hasEventMode=\"true\""), 19, "hasEventMode=\"false\"");
  const std::string fmu = (directory / "clocked3.fmu").string();
  write_zip(fmu, {{"modelDescription.xml", xml},
                  {"binaries/x86_64-linux/clocked3.so", "@" + kClocked + ".d/clocked3.so"}});
  std::string text = clocked_scenario();
  text.replace(text.find(kClocked), kClocked.size(), fmu);
  const auto refused = couplet_on_text("validate", text, "fmi3-clocked-refused");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("slave 'c': FMU '" + fmu +
                                "': it has clocks but no event mode (hasEventMode), which FMI "
                                "3.0 co-simulation needs for their ticks"),
            std::string::npos)
      << refused.output;

  const std::string sawtooth = COUPLET_TEST_FMU("sawtooth3");
  std::string me_xml = read_file(sawtooth + ".d/stage/modelDescription.xml");
  me_xml.replace(me_xml.find("<ModelVariables>"), 16,
                 "<ModelVariables>\n    <Clock name=\"kick\" valueReference=\"99\" "
                 "causality=\"input\" intervalVariability=\"triggered\"/>");
  const std::string me_fmu = (directory / "sawtooth3.fmu").string();
  write_zip(me_fmu, {{"modelDescription.xml", me_xml},
                     {"binaries/x86_64-linux/sawtooth3.so", "@" + sawtooth + ".d/sawtooth3.so"}});
  const auto me =
      couplet_on_text("validate",
                      "name: m\ntime: {start: 0, end: 1}\nalgorithm: {type: jacobi, step: 0.1}\n"
                      "reference: none\nslaves:\n  saw: {fmu: " +
                          me_fmu + "}\n",
                      "fmi3-me-clock-refused");
  EXPECT_EQ(me.exit_code, 2);
  EXPECT_NE(me.output.find("slave 'saw': FMU '" + me_fmu +
                           "': clock 'kick': a triggered input clock in model exchange is not "
                           "supported yet"),
            std::string::npos)
      << me.output;
}

const std::string kSmooth = COUPLET_TEST_FMU("smooth3");

/// A ramp u = t into smooth3 (y' = u by the midpoint rule on 8 substeps, u
/// asked for at each midpoint) under Jacobi with step 0.01.
std::string smooth_scenario(const std::string& algorithm, const std::string& extra = "") {
  return "name: smooth3\ntime: {start: 0, end: 1}\nalgorithm: {type: jacobi, step: 0.01" +
         algorithm +
         "}\nreference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n"
         "  s:\n    fmu: " +
         kSmooth + "\n" + extra +
         "connections:\n  - {from: ramp.y, to: s.u}\n"
         "evaluation: {grid: 0.1}\n";
}

// With intermediate update, an FMI 3.0 FMU takes input polynomials: the
// linear extrapolation of the ramp (input_order 1) is set at every midpoint
// the FMU asks for, and the midpoint rule integrates it exactly: y = t²/2.
// Held at the communication points (degree 0) the ramp gives the held-input
// value h² n(n−1)/2 instead.
TEST(Fmi3IntermediateUpdate, InputPolynomialsAreSetWhereTheFmuAsks) {
  const auto smooth = couplet_on_text("run", smooth_scenario(", input_order: 1"), "fmi3-smooth");
  ASSERT_EQ(smooth.exit_code, 0) << smooth.output;
  const auto held = couplet_on_text(
      "run", smooth_scenario("", "    capabilities: {max_input_degree: 0}\n"), "fmi3-smooth-held");
  ASSERT_EQ(held.exit_code, 0) << held.output;
  const auto columns = read_columns(smooth.out / "signals.csv");
  const auto held_columns = read_columns(held.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const double t = time[row];
    const double n = std::round(t / 0.01);
    EXPECT_NEAR(columns.at("s.y")[row], t * t / 2.0, 1e-12) << "t = " << t;
    EXPECT_NEAR(held_columns.at("s.y")[row], 1e-4 * n * (n - 1.0) / 2.0, 1e-12) << "t = " << t;
    EXPECT_EQ(columns.at("s.updates")[row], 8.0 * n) << "t = " << t;
    EXPECT_EQ(held_columns.at("s.updates")[row], 0.0) << "t = " << t;
  }
  expect_replayed_and_inspected(smooth, "s");
  const auto isolated = couplet_on_text(
      "run", smooth_scenario(", input_order: 1", "    isolate: true\n"), "fmi3-smooth-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(smooth.out), hash_of(isolated.out));
}

TEST(Fmi3IntermediateUpdate, ADegreeAboveThreeIsRefused) {
  const auto outcome =
      couplet_on_text("validate", smooth_scenario("", "    capabilities: {max_input_degree: 4}\n"),
                      "fmi3-smooth-degree");
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.output.find("slave 's': FMU '" + kSmooth +
                                "': capabilities.max_input_degree 4 is more than couplet gives "
                                "an FMU (3)"),
            std::string::npos)
      << outcome.output;
}

const std::string kScheduled = COUPLET_TEST_FMU("sched3");

/// sched3 (scheduled execution) with a ramp u = t into its slow partition.
std::string scheduled_scenario(const std::string& extra = "") {
  return "name: sched3\ntime: {start: 0, end: 2}\nalgorithm: {type: jacobi, step: 0.1, "
         "input_order: 1}\nreference: none\nslaves:\n  ramp:\n    model: stimulus.ramp\n"
         "    parameters: {start: 0, stop: 10, initial: 0, final: 10}\n  s:\n    fmu: " +
         kScheduled + "\n" + extra +
         "connections:\n  - {from: ramp.y, to: s.u}\nevaluation: {grid: 0.1}\n";
}

/// The signals of sched3 at every communication time of 0.1 s: the closed form
/// of PartitionsRunAtTheirTicksInPriorityOrder below.
void expect_scheduled_closed_form(const std::filesystem::path& signals) {
  const auto columns = read_columns(signals);
  const std::vector<double>& time = columns.at("time");
  ASSERT_GE(time.size(), 11u);
  for (std::size_t row = 0; row < time.size(); ++row) {
    const long ms = std::lround(time[row] * 1000.0);
    // Ticks before t: fast at 10 m ms, slow at 20 + 50 k ms, burst 3 ms after slow.
    double slow_sum = 0.0;
    long last_slow = -1, slow_ticks = 0, bursts = 0, last_burst = -1;
    for (long tick = 20; tick < ms; tick += 50) {
      slow_sum += static_cast<double>(tick) / 1000.0, last_slow = tick, ++slow_ticks;
      if (tick + 3 < ms) ++bursts, last_burst = tick + 3;
    }
    const long fast_ticks = ms / 10;
    EXPECT_EQ(columns.at("s.fast_count")[row], static_cast<double>(fast_ticks)) << ms;
    EXPECT_EQ(columns.at("s.bursts")[row], static_cast<double>(bursts)) << ms;
    EXPECT_EQ(columns.at("s.burst_time")[row],
              last_burst < 0 ? 0.0 : to_seconds(last_burst * 1'000'000))
        << ms;
    EXPECT_EQ(columns.at("s.activations")[row],
              static_cast<double>(fast_ticks + slow_ticks + bursts))
        << ms;
    // tick: fast_count reached a multiple of 25 within the step [t − 0.1, t).
    bool ticked = false;
    for (long count = (ms - 100) / 10 + 1; row > 0 && count <= fast_ticks; ++count)
      ticked = ticked || count % 25 == 0;
    EXPECT_EQ(columns.at("s.tick")[row], ticked ? 1.0 : 0.0) << ms;
    EXPECT_NEAR(columns.at("s.slow_sum")[row], slow_sum, 1e-12) << ms;
    EXPECT_EQ(columns.at("s.slow_seen_fast")[row],
              last_slow < 0 ? 0.0 : static_cast<double>(last_slow / 10))
        << ms;
  }
}

// The partitions are activated in virtual time at their clocks' ticks: fast
// every 10 ms (an interval the FMU tells), slow every 50 ms from 20 ms with the
// ramp's value at its tick, slow before fast where both tick (priority 1
// before 2), the countdown clock burst 3 ms after each slow tick (slow sets
// it); the output clock tick shows in the step where fast_count reaches a
// multiple of 25, and activations, of no clock, is read after every one.
TEST(Fmi3ScheduledExecution, PartitionsRunAtTheirTicksInPriorityOrder) {
  const auto outcome = couplet_on_text("run", scheduled_scenario(), "fmi3-sched");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(read_columns(outcome.out / "signals.csv").at("time").size(), 21u);
  expect_scheduled_closed_form(outcome.out / "signals.csv");
  expect_replayed_and_inspected(outcome, "s");
  const auto isolated =
      couplet_on_text("run", scheduled_scenario("    isolate: true\n"), "fmi3-sched-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));
}

// On a real-time target (couplet-target --realtime, spawned) the partitions are
// activated as the target's wall clock reaches their ticks; the master, paced
// on its own wall clock, sees at each communication time what virtual time gives.
TEST(Fmi3ScheduledExecution, OnARealTimeTargetThePartitionsRunOnTheWallClock) {
  std::string text =
      scheduled_scenario("    link: {spawn: true, udp: \"127.0.0.1:0\", realtime: true}\n");
  text.replace(text.find("end: 2"), 6, "end: 1");
  text.replace(text.find("reference: none"), 0,
               "clock: {type: wall, tolerance: 0.05, max_misses: 1000}\n");
  const auto outcome = couplet_on_text("run", text, "fmi3-sched-realtime");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  const auto& target = summary.at("realtime").at("slaves").at("s");
  EXPECT_TRUE(target.at("real_time_target").get<bool>()) << target.dump();
  EXPECT_EQ(target.at("missed_results").get<int>(), 0) << target.dump();
  EXPECT_EQ(target.at("late_results").get<int>(), 0) << target.dump();
  expect_scheduled_closed_form(outcome.out / "signals.csv");
  EXPECT_NE(outcome.output.find("activation instants on the wall clock"), std::string::npos)
      << outcome.output;
}

// A triggered clock is a Boolean input port of its name: each rise activates
// its partition at that communication point.
TEST(Fmi3ScheduledExecution, ATriggeredClockRunsAtEachRiseOfItsPort) {
  models::SlaveSettings settings;
  settings.slave_name = "s";
  const auto slave =
      models::fmu_source(kScheduled, models::FmuKind::automatic)->make_slave(settings);
  const SlaveDescription& description = slave->description();
  ASSERT_EQ(description.discrete_inputs.size(), 1u);
  EXPECT_EQ(description.discrete_inputs[0].name, "kick");
  EXPECT_EQ(description.discrete_inputs[0].type, DiscreteType::boolean);
  ASSERT_TRUE(description.capabilities.can_rollback);
  slave->setup(0);
  const std::vector<Polynomial> inputs{Polynomial::constant(0.0, 1.0)};
  ASSERT_EQ(description.discrete_outputs.size(), 6u);
  EXPECT_EQ(description.discrete_outputs[5].name, "tick");  // the output clock, last
  std::vector<double> end(2);                               // slow_sum, burst_time
  // fast_count, slow_seen_fast, kicks, bursts, activations, tick
  std::vector<std::int64_t> discrete(6);
  Time at = 0;
  const auto step = [&](std::int64_t kick) {
    StepRequest request;
    request.start = at;
    request.end = at + step_to_ticks(0.1);
    request.inputs = inputs;
    const std::vector<std::int64_t> kicks{kick};
    request.discrete_inputs = kicks;
    slave->step(request, OutputBuffers{end, {}, discrete});
    at = request.end;
    return discrete[2];
  };
  EXPECT_EQ(step(0), 0);
  EXPECT_EQ(step(1), 1);
  slave->save_state();
  EXPECT_EQ(step(1), 1);  // held: no rise
  EXPECT_EQ(step(0), 1);
  EXPECT_EQ(step(1), 2);
  slave->restore_state();
  at = step_to_ticks(0.2);
  EXPECT_EQ(step(1), 1);  // the saved trigger was high: no rise after the rollback either
}

// A countdown interval no tick can have fails the step naming the clock: sched3
// told to set burst 1 s before its slow tick.
TEST(Fmi3ScheduledExecution, ACountdownIntervalThatCannotBeIsRefusedNamingTheClock) {
  const auto outcome = couplet_on_text(
      "run", scheduled_scenario("    parameters: {burst_delay: -1}\n"), "fmi3-sched-countdown");
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.output.find("': fmi3GetIntervalDecimal gave the countdown clock 'burst' the "
                                "interval -1 s at t = 0.02 s: its tick needs one of 0 to 1e8 s"),
            std::string::npos)
      << outcome.output;
}

const std::string kChirp = COUPLET_TEST_FMU("chirp3");

// A changing clock ticks at its shift, then each time the interval the FMU
// tells after the tick (or, unchanged, the last) later: chirp3's 4, 4, 2, 1,
// 8 ms put its ticks at 0, 4, 8, 10, 11 ms and every 19 ms again; the fixed
// clock steady (19 ms) shares every fifth, where chirp (priority 1) runs first.
TEST(Fmi3ScheduledExecution, AChangingClockTicksWhereItsIntervalsPutIt) {
  const std::string scenario =
      "name: chirp3\ntime: {start: 0, end: 0.2}\nalgorithm: {type: "
      "jacobi, step: 0.01}\nreference: none\nslaves:\n  c:\n    fmu: " +
      kChirp + "\n";
  const auto outcome =
      couplet_on_text("run", scenario + "evaluation: {grid: 0.01}\n", "fmi3-chirp");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  std::vector<long> ticks;  // µs
  for (long round = 0; round < 12; ++round)
    for (const long offset : {0, 4000, 8000, 10000, 11000}) ticks.push_back(round * 19000 + offset);
  const auto columns = read_columns(outcome.out / "signals.csv");
  ASSERT_EQ(columns.at("time").size(), 21u);
  for (std::size_t row = 0; row < columns.at("time").size(); ++row) {
    const long us = std::lround(columns.at("time")[row] * 1e6);
    long chirps = 0, last = -1, seen = 0;
    for (const long tick : ticks) {
      if (tick >= us) break;
      ++chirps, last = tick;
      if (tick % 19000 == 0) seen = chirps;  // steady, after chirp
    }
    EXPECT_EQ(columns.at("c.chirps")[row], static_cast<double>(chirps)) << us;
    EXPECT_NEAR(columns.at("c.last_chirp")[row], last < 0 ? -1.0 : static_cast<double>(last) * 1e-6,
                1e-15)
        << us;
    EXPECT_EQ(columns.at("c.steady_seen_chirps")[row], static_cast<double>(seen)) << us;
  }
  expect_replayed_and_inspected(outcome, "c");
  const auto isolated = couplet_on_text(
      "run", scenario + "    isolate: true\nevaluation: {grid: 0.01}\n", "fmi3-chirp-isolated");
  ASSERT_EQ(isolated.exit_code, 0) << isolated.output;
  EXPECT_EQ(hash_of(outcome.out), hash_of(isolated.out));

  // A rollback takes the clock's next tick and interval back too.
  models::SlaveSettings settings;
  settings.slave_name = "c";
  const auto slave = models::fmu_source(kChirp, models::FmuKind::automatic)->make_slave(settings);
  slave->setup(0);
  std::vector<double> end(1);             // last_chirp
  std::vector<std::int64_t> discrete(2);  // chirps, steady_seen_chirps
  const auto step = [&](Time from, Time to) {
    slave->step({from, to, {}, {}}, OutputBuffers{end, {}, discrete});
    return std::pair(discrete[0], end[0]);
  };
  const Time ms = 1'000'000;
  step(0, 9 * ms);  // ticks 0, 4, 8
  slave->save_state();
  const auto first = step(9 * ms, 25 * ms);  // 10, 11, 19, 23
  EXPECT_EQ(first.first, 7);
  slave->restore_state();
  EXPECT_EQ(step(9 * ms, 25 * ms), first);
  EXPECT_EQ(step(25 * ms, 31 * ms).first, 10);  // 27, 29, 30
}

TEST(Fmi3ScheduledExecution, FmuKindSeIsForFmi3FmusThatOfferIt) {
  std::string text = scheduled_scenario();
  text.replace(text.find(kScheduled), kScheduled.size(), kFmu);
  text.replace(text.find("connections:"), 0, "    fmu_kind: se\n");
  const auto cs_only = couplet_on_text("validate", text, "fmi3-se-cs");
  EXPECT_EQ(cs_only.exit_code, 2);
  EXPECT_NE(cs_only.output.find("FMU '" + kFmu + "': fmu_kind: does not offer scheduled execution"),
            std::string::npos)
      << cs_only.output;
  const std::string fmi2 = COUPLET_TEST_FMU("integrator2");
  text.replace(text.find(kFmu), kFmu.size(), fmi2);
  const auto two = couplet_on_text("validate", text, "fmi3-se-fmi2");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.output.find("fmu_kind: se is FMI 3.0 scheduled execution; this is an FMI 2.0 FMU"),
            std::string::npos)
      << two.output;
}

}  // namespace
}  // namespace couplet::testing
