// A Real output driving an Integer input through a declared rounding rule
// (docs/algorithms.md, "Real to Integer"): a ramp rounded into the tally FMU's
// increment (tests/fmus/tally.c, one tick per period of 0.5 s), exact counts
// for every rule under Jacobi and Gauss–Seidel, replay, inspect, and the
// refusals that name the connection.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

/// knob: −1.5 at t = 0 rising by 1 per second; t.increment = knob.y rounded.
std::string ramp_into_tally(const std::string& connection,
                            const std::string& algorithm = "jacobi") {
  return "name: rounded\ntime: {start: 0, end: 4}\nslaves:\n"
         "  knob: {model: stimulus.ramp, parameters: {initial: -1.5, final: 2.5, start: 0, "
         "stop: 4}}\n  t:\n    fmu: " +
         std::string(COUPLET_TEST_FMU("tally")) +
         "\n    parameters: {period: 0.5}\nconnections:\n  - " + connection +
         "\nalgorithm: {type: " + algorithm +
         ", step: 0.5}\nevaluation: {grid: 0.5}\nreference: none\n";
}

std::vector<double> counts_after_start(const CoupletOutcome& outcome) {
  std::vector<double> counts = read_columns(outcome.out / "signals.csv").at("t.count");
  counts.erase(counts.begin());  // t = 0: nothing counted yet
  return counts;
}

// Under Jacobi each step takes knob.y at its start, −1.5, −1, ..., 2, rounded;
// the tally adds it at the step's end.
TEST(RoundedConnections, EachRuleRoundsTheValueAtTheStepStart) {
  struct Case {
    const char* rule;
    std::vector<double> counts;  // at t = 0.5, 1, ..., 4
  };
  for (const Case& c : {
           Case{"nearest", {-2, -3, -4, -4, -3, -2, 0, 2}},  // −1.5 → −2, −0.5 → −1, 0.5 → 1
           Case{"floor", {-2, -3, -4, -4, -4, -3, -2, 0}},    // 0.5 → 0, 1.5 → 1
           Case{"ceil", {-1, -2, -2, -2, -1, 0, 2, 4}},       // −1.5 → −1, −0.5 → 0
           Case{"truncate", {-1, -2, -2, -2, -2, -1, 0, 2}},  // toward zero
       }) {
    const CoupletOutcome outcome = couplet_on_text(
        "run",
        ramp_into_tally(std::string("{from: knob.y, to: t.increment, rounding: ") + c.rule + "}"),
        std::string("rounded-") + c.rule);
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_EQ(counts_after_start(outcome), c.counts) << c.rule;
  }
}

// Under Gauss–Seidel the knob has stepped first: the tally takes its value at
// the step's end (−1, −0.5, ..., 2.5).
TEST(RoundedConnections, GaussSeidelRoundsTheSourcesNewValue) {
  const CoupletOutcome outcome = couplet_on_text(
      "run", ramp_into_tally("{from: knob.y, to: t.increment, rounding: nearest}", "gauss_seidel"),
      "rounded-gauss-seidel");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(counts_after_start(outcome), (std::vector<double>{-1, -2, -2, -1, 0, 2, 4, 7}));
}

// factor/offset convert first, then the converted value is rounded: 2·y floored.
TEST(RoundedConnections, AConversionOnTheConnectionComesBeforeTheRounding) {
  const CoupletOutcome outcome = couplet_on_text(
      "run", ramp_into_tally("{from: knob.y, to: t.increment, factor: 2, rounding: floor}"),
      "rounded-factor");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  // 2y = −3, −2, −1, 0, 1, 2, 3, 4
  EXPECT_EQ(counts_after_start(outcome), (std::vector<double>{-3, -5, -6, -6, -5, -3, 0, 4}));
}

TEST(RoundedConnections, TheRunLogReplaysAndInspectShowsTheRule) {
  const CoupletOutcome outcome = couplet_on_text(
      "run", ramp_into_tally("{from: knob.y, to: t.increment, rounding: ceil}"), "rounded-replay");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  expect_replayed_and_inspected(outcome, "knob.y → t.increment (rounding: ceil)");
}

TEST(RoundedConnections, RefusalsNameTheConnectionAndWhatToDo) {
  struct Case {
    std::string connection, words;
  };
  for (const Case& c : {
           Case{"{from: knob.y, to: t.increment}",
                "connections[0]: 'knob.y' (Real) -> 't.increment' (Integer): the types differ; a "
                "connection joins ports of one type, or a Real output to an Integer input with a "
                "declared rounding (rounding: nearest, floor, ceil or truncate)"},
           Case{"{from: knob.y, to: t.enable, rounding: floor}",
                "connections[0]: 'knob.y' (Real) -> 't.enable' (Boolean): rounding applies where "
                "a Real output drives an Integer input; connect these without it"},
           Case{"{from: knob.y, to: t.increment, rounding: bankers}",
                "connections[0].rounding: 'bankers' is no rounding (nearest, floor, ceil or "
                "truncate)"},
       }) {
    const CoupletOutcome outcome =
        couplet_on_text("validate", ramp_into_tally(c.connection), "rounded-refused");
    EXPECT_EQ(outcome.exit_code, 2) << outcome.output;  // a configuration error
    EXPECT_NE(outcome.output.find(c.words), std::string::npos) << outcome.output;
  }
  // The model-exchange tally could join the reference; the rounding cannot.
  std::string with_reference = ramp_into_tally("{from: knob.y, to: t.increment, rounding: floor}");
  with_reference.replace(with_reference.find("reference: none"), 15, "reference: monolithic");
  const std::string cs = COUPLET_TEST_FMU("tally");
  with_reference.replace(with_reference.find(cs), cs.size(), COUPLET_TEST_FMU("tally_me"));
  const CoupletOutcome reference = couplet_on_text("run", with_reference, "rounded-reference");
  EXPECT_EQ(reference.exit_code, 2) << reference.output;
  EXPECT_NE(
      reference.output.find("the monolithic reference couples Real ports only, and this "
                            "system connects Integer or Boolean ones ('knob.y' -> slave 't')"),
      std::string::npos)
      << reference.output;
}

// A value no 64-bit integer holds ends the run as a slave failure naming the
// source, its value and time, and the input; the summary stays readable.
TEST(RoundedConnections, AValueBeyondInt64EndsTheRunNamingTheSource) {
  const CoupletOutcome outcome = couplet_on_text(
      "run", ramp_into_tally("{from: knob.y, to: t.increment, factor: 1e19, rounding: nearest}"),
      "rounded-overflow");
  EXPECT_EQ(outcome.exit_code, 1) << outcome.output;
  EXPECT_NE(outcome.output.find("slave 'transform_t_increment': output 'y' = -1.5e+19 at t = 0 s "
                                "has no 64-bit Integer value for input 't.increment' (rounding: "
                                "nearest)"),
            std::string::npos)
      << outcome.output;
  const auto summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  EXPECT_EQ(summary.at("status"), "failed");
}

}  // namespace
}  // namespace couplet::testing
