// An Integer output driving a Real input (docs/algorithms.md, "Integer to
// Real"): the tally FMU's count (tests/fmus/tally.c, +1 every 0.5 s) held as
// the force on a free unit mass and passed through coupling.linear. Exact
// values under Jacobi and Gauss–Seidel, the held value under the masters that
// choose their own steps, replay and inspect, a unit conversion, and the
// refusals that name the connection.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/test_support.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

/// t counts 1, 2, ... at t = 0.5, 1, ...; pass.y = t.count; body: v̇ = f = t.count.
std::string count_into_mass(const std::string& algorithm, const std::string& extra = "") {
  return "name: integer-to-real\ntime: {start: 0, end: 4}\nslaves:\n  t:\n    fmu: " +
         std::string(COUPLET_TEST_FMU("tally")) +
         "\n    parameters: {period: 0.5}\n"
         "  pass: {model: coupling.linear}\n"
         "  body: {model: translational.mass, parameters: {m: 1, c: 0, d: 0, x0: 0, v0: 0}}\n" +
         extra +
         "connections:\n  - {from: t.count, to: pass.u}\n  - {from: t.count, to: body.f}\n"
         "algorithm: " +
         algorithm + "\nevaluation: {grid: 0.5}\nreference: none\n";
}

std::vector<double> after_start(const CoupletOutcome& outcome, const std::string& column) {
  std::vector<double> values = read_columns(outcome.out / "signals.csv").at(column);
  values.erase(values.begin());
  return values;
}

// Under Jacobi the force over [k/2, (k+1)/2] is the count at the step start,
// k: v(k/2) = 0.5 · (0 + 1 + … + k−1) = k(k−1)/4. The pass-through shows at
// each step's end the value it held over the step, exactly.
TEST(IntegerToReal, JacobiHoldsTheCountAtTheStepStart) {
  const CoupletOutcome outcome =
      couplet_on_text("run", count_into_mass("{type: jacobi, step: 0.5}"), "i2r-jacobi");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  EXPECT_EQ(after_start(outcome, "t.count"), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(after_start(outcome, "pass.y"), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
  const std::vector<double> v = after_start(outcome, "body.v");
  for (std::size_t n = 0; n < v.size(); ++n) {
    const double k = static_cast<double>(n + 1);
    EXPECT_NEAR(v[n], k * (k - 1) / 4, 1e-9) << "t = " << k / 2;
  }
}

// Under Gauss–Seidel the tally steps first: the body takes the new count k+1,
// v(k/2) = k(k+1)/4.
TEST(IntegerToReal, GaussSeidelHoldsTheSourcesNewValue) {
  const CoupletOutcome outcome =
      couplet_on_text("run", count_into_mass("{type: gauss_seidel, step: 0.5}"), "i2r-gs");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const std::vector<double> v = after_start(outcome, "body.v");
  for (std::size_t n = 0; n < v.size(); ++n) {
    const double k = static_cast<double>(n + 1);
    EXPECT_NEAR(v[n], k * (k + 1) / 4, 1e-9) << "t = " << k / 2;
  }
}

// Whatever the master and its input order, the count is never extrapolated:
// the pass-through shows whole numbers only. Held from each step's start,
// where the count is at most one step (0.5 s) old, the force lags the count:
// ∫ count(t − 0.5) dt = 10.5 ≤ v(4) ≤ ∫ count dt = 14. F3ORNITS steps the
// tally, whose Integer output is read, by its initial step (no error estimate
// applies to a piecewise-constant signal) instead of to the end at once.
TEST(IntegerToReal, EveryMasterHoldsTheValueOverItsSteps) {
  for (const std::string algorithm :
       {"{type: jacobi, step: 0.5, input_order: 2}",
        "{type: defect_control, tol: 1e-4, initial_step: 0.5, max_step: 0.5}",
        "{type: f3ornits, initial_step: 0.5, max_step: 0.5}"}) {
    const CoupletOutcome outcome = couplet_on_text("run", count_into_mass(algorithm), "i2r-any");
    ASSERT_EQ(outcome.exit_code, 0) << algorithm << "\n" << outcome.output;
    for (const double y : after_start(outcome, "pass.y")) EXPECT_EQ(y, std::round(y)) << algorithm;
    const double v_end = after_start(outcome, "body.v").back();
    EXPECT_GE(v_end, 10.5 - 1e-9) << algorithm;
    EXPECT_LE(v_end, 14 + 1e-9) << algorithm;
    EXPECT_EQ(after_start(outcome, "t.count").back(), 8) << algorithm;
  }
}

TEST(IntegerToReal, TheRunLogReplaysAndInspectShowsTheConnection) {
  const CoupletOutcome outcome =
      couplet_on_text("run", count_into_mass("{type: jacobi, step: 0.5}"), "i2r-replay");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  expect_replayed_and_inspected(outcome, "t.count → body.f (Integer to Real, held)");
  // The thread pool decides as the sequential executor.
  const CoupletOutcome threads = couplet_on_text(
      "run", count_into_mass("{type: jacobi, step: 0.5}\nexecutor: {type: threads, threads: 3}"),
      "i2r-threads");
  ASSERT_EQ(threads.exit_code, 0) << threads.output;
  EXPECT_EQ(hash_of(threads.out), hash_of(outcome.out));
  EXPECT_EQ(read_file(threads.out / "signals.csv"), read_file(outcome.out / "signals.csv"));
}

// factor/offset convert the held value: 2·count + 1 newtons.
TEST(IntegerToReal, AConversionOnTheConnectionConvertsTheHeldValue) {
  std::string text = count_into_mass("{type: jacobi, step: 0.5}");
  text.replace(text.find("{from: t.count, to: body.f}"), 27,
               "{from: t.count, to: body.f, factor: 2, offset: 1}");
  const CoupletOutcome outcome = couplet_on_text("run", text, "i2r-factor");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  // v(k/2) = 0.5 · Σ_{j<k} (2j + 1) = k²/2
  const std::vector<double> v = after_start(outcome, "body.v");
  for (std::size_t n = 0; n < v.size(); ++n) {
    const double k = static_cast<double>(n + 1);
    EXPECT_NEAR(v[n], k * k / 2, 1e-9) << "t = " << k / 2;
  }
}

/// table.n (Integer, held from each row: 1 from t = 0, 3 from 1, −2 from 2)
/// pushes a free unit mass, directly or (`through_gain`) through a
/// coupling.linear; body and spring give the semi-implicit scheme its
/// coupling element.
std::string table_into_mass(const std::string& algorithm, bool through_gain) {
  const auto tables = fresh_directory("i2r-table-files");
  std::filesystem::create_directories(tables);
  std::ofstream(tables / "n.csv") << "time,n:Integer\n0,1\n1,3\n2,-2\n";
  return "name: table\ntime: {start: 0, end: 3}\nslaves:\n"
         "  table: {model: stimulus.table, file: " +
         (tables / "n.csv").string() +
         ", interpolation: hold}\n"
         "  body: {model: translational.mass, parameters: {m: 1, c: 4, d: 0, x0: 1, v0: 0}}\n"
         "  spring: {model: coupling.linear, parameters: {factor: -1}}\n"
         "  pushed: {model: translational.mass, parameters: {m: 1, c: 0, d: 0, x0: 0, v0: 0}}\n" +
         (through_gain ? "  gain: {model: coupling.linear}\n" : "") +
         "connections:\n  - {from: body.x, to: spring.u}\n  - {from: spring.y, to: body.f}\n" +
         (through_gain ? "  - {from: table.n, to: gain.u}\n  - {from: gain.y, to: pushed.f}\n"
                       : "  - {from: table.n, to: pushed.f}\n") +
         "algorithm: " + algorithm + "\nevaluation: {grid: 0.5}\nreference: none\n";
}

// The iterating masters hold the value too: the semi-implicit scheme on a
// subsystem (no λ for it), IFOSMONDI outside its unknowns. With the rows on
// step boundaries v = ∫ n dt exactly: 0.5, 1, 2.5, 4, 3, 2 at t = 0.5 … 3.
TEST(IntegerToReal, TheIteratingMastersHoldItOnTheirSubsystems) {
  for (const std::string algorithm :
       {"{type: semi_implicit, step: 0.25, input_order: 1}", "{type: ifosmondi_jfm, step: 0.25}"}) {
    const CoupletOutcome outcome =
        couplet_on_text("run", table_into_mass(algorithm, false), "i2r-iterating");
    ASSERT_EQ(outcome.exit_code, 0) << algorithm << "\n" << outcome.output;
    const std::vector<double> v = after_start(outcome, "pushed.v");
    const std::vector<double> expected{0.5, 1, 2.5, 4, 3, 2};
    ASSERT_EQ(v.size(), expected.size()) << algorithm;
    for (std::size_t n = 0; n < v.size(); ++n) EXPECT_NEAR(v[n], expected[n], 1e-12) << algorithm;
  }
  // A coupling element is linearized in Real subsystem outputs (eq. 5).
  const CoupletOutcome coupling = couplet_on_text(
      "run", table_into_mass("{type: semi_implicit, step: 0.25}", true), "i2r-coupling");
  EXPECT_EQ(coupling.exit_code, 2) << coupling.output;
  EXPECT_NE(coupling.output.find("input 'gain.u' of coupling element 'gain' is driven by Integer "
                                 "output 'table.n'; algorithm 'semi_implicit' linearizes "
                                 "coupling elements in Real subsystem outputs only"),
            std::string::npos)
      << coupling.output;
}

TEST(IntegerToReal, RefusalsNameTheConnection) {
  // A Boolean output is no number.
  std::string boolean = count_into_mass("{type: jacobi, step: 0.5}");
  boolean.replace(boolean.find("{from: t.count, to: body.f}"), 27, "{from: t.odd, to: body.f}");
  const CoupletOutcome refused = couplet_on_text("validate", boolean, "i2r-boolean");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("'t.odd' (Boolean) -> 'body.f' (Real): the types differ; a "
                                "connection joins ports of one type, or an Integer output to a "
                                "Real input"),
            std::string::npos)
      << refused.output;
  // MISSILES solves every input from linearized outputs.
  const CoupletOutcome missiles =
      couplet_on_text("validate", count_into_mass("{type: missiles, step: 0.5}"), "i2r-missiles");
  EXPECT_EQ(missiles.exit_code, 2) << missiles.output;
  EXPECT_NE(missiles.output.find("connections[0]: 't.count' (Integer) -> 'pass.u' (Real): "
                                 "algorithm 'missiles' solves every Real input from Real "
                                 "outputs, and an Integer output drives this one"),
            std::string::npos)
      << missiles.output;
  // The monolithic reference couples Real ports only.
  std::string with_reference = count_into_mass("{type: jacobi, step: 0.5}");
  with_reference.replace(with_reference.find("reference: none"), 15, "reference: monolithic");
  const std::string cs = COUPLET_TEST_FMU("tally");
  with_reference.replace(with_reference.find(cs), cs.size(), COUPLET_TEST_FMU("tally_me"));
  const CoupletOutcome reference = couplet_on_text("run", with_reference, "i2r-reference");
  EXPECT_EQ(reference.exit_code, 2) << reference.output;
  EXPECT_NE(reference.output.find("the monolithic reference couples Real ports only, and this "
                                  "system connects Integer or Boolean ones ('t.count' -> slave "
                                  "'pass')"),
            std::string::npos)
      << reference.output;
}

}  // namespace
}  // namespace couplet::testing
