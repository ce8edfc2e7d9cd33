// The embedded core (targets/embedded/, docs/embedded.md) coupled by the master
// end to end: couplet-embedded-mass, the core and a translational mass written
// in C, built for the host and served over a pseudo-terminal, stands in for
// the built-in left mass of the two-mass switch. Integrated by the same explicit
// Euler, it must give the built-in model's decision hash and signals.csv byte
// for byte — directly, and through a relay that flips bits, drops bytes and
// puts garbage between frames.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "host_tools/damaging_serial_relay.hpp"
#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/frame_key.hpp"
#include "test_fmus.hpp"

namespace couplet::testing {
namespace {

struct Outcome {
  nlohmann::json summary;
  std::string signals;
};

Outcome run_case(const std::vector<std::string>& assignments, const std::string& name) {
  const nlohmann::json summary = run("two_mass_switch.yaml", assignments, name);
  return {summary, read_file(run_directory(name) / "signals.csv")};
}

const std::string kParameters = "{m: 10, c: 1, d: 0.1, x0: 1, v0: 0";

// The built-in left mass with the C model's integrator and capabilities.
std::vector<std::string> builtin_left(std::vector<std::string> settings) {
  settings.push_back("slaves.left.solver={type: euler, substeps: 4}");
  settings.push_back("slaves.left.capabilities={max_input_degree: 3, output_derivative_order: 1}");
  return settings;
}

std::vector<std::string> device_left(std::vector<std::string> settings, const std::string& link) {
  settings.push_back("slaves.left={device: translational_mass, parameters: " + kParameters +
                     ", substeps: 4}, link: " + link + "}");
  return settings;
}

// A device has no equations on the host: no monolithic reference in either run.
std::vector<std::string> common(const std::string& algorithm) {
  return {"algorithm=" + algorithm, "time.end=12", "slaves.right.parameters.switch_time=6",
          "reference=none"};
}

void expect_identical(const Outcome& builtin, const Outcome& device) {
  EXPECT_EQ(device.summary.at("decision_hash"), builtin.summary.at("decision_hash"));
  EXPECT_EQ(device.summary.at("macro_steps"), builtin.summary.at("macro_steps"));
  EXPECT_FALSE(builtin.signals.empty());
  EXPECT_TRUE(device.signals == builtin.signals) << "signals.csv differs";
}

struct AlgorithmCase {
  const char* label;
  const char* algorithm;
};

class EmbeddedOverPty : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(EmbeddedOverPty, GivesTheBuiltinModelsResultsBitForBit) {
  const AlgorithmCase& c = GetParam();
  const Outcome builtin =
      run_case(builtin_left(common(c.algorithm)), std::string("emb-builtin-") + c.label);
  const std::string link =
      "{spawn: true, program: " + std::string(COUPLET_EMBEDDED_MASS) + ", serial: {device: pty}}";
  const Outcome device =
      run_case(device_left(common(c.algorithm), link), std::string("emb-device-") + c.label);
  expect_identical(builtin, device);
  const auto& counters = device.summary.at("links").at("left");
  EXPECT_NE(counters.at("link").get<std::string>().find("serial /dev/pts/"), std::string::npos);
  EXPECT_EQ(counters.at("drops").get<int>(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, EmbeddedOverPty,
    ::testing::Values(AlgorithmCase{"jacobi", "{type: jacobi, step: 0.01, input_order: 0}"},
                      AlgorithmCase{"jacobi_taylor", "{type: jacobi, step: 0.02, input_order: 1}"},
                      AlgorithmCase{
                          "defect_control",
                          "{type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}"}),
    [](const auto& test) { return std::string(test.param.label); });

// With a key on both sides every frame is sealed: the core's SipHash tags are
// the host's (libsodium's), so a keyed run decides as the built-in model does.
TEST(EmbeddedOverPty, ASealedSessionGivesTheBuiltinModelsResults) {
  const std::string algorithm = "{type: jacobi, step: 0.01, input_order: 0}";
  const Outcome builtin = run_case(builtin_left(common(algorithm)), "emb-sealed-builtin");
  const std::filesystem::path key = fresh_directory("emb-sealed-key");
  std::filesystem::create_directories(key);
  protocol::write_new_frame_key(key / "core.key");
  const std::string link = "{spawn: true, program: " + std::string(COUPLET_EMBEDDED_MASS) +
                           ", serial: {device: pty}, key_file: " + (key / "core.key").string() +
                           "}";
  const Outcome device = run_case(device_left(common(algorithm), link), "emb-sealed-device");
  expect_identical(builtin, device);
  const auto& counters = device.summary.at("links").at("left");
  EXPECT_EQ(counters.at("unauthenticated").get<int>(), 0);
  EXPECT_EQ(counters.at("drops").get<int>(), 0);
}

TEST(EmbeddedThroughDamagingRelay, CompletesWithTheBuiltinModelsHash) {
  for (const AlgorithmCase& c :
       {AlgorithmCase{"jacobi", "{type: jacobi, step: 0.01, input_order: 0}"},
        AlgorithmCase{"defect_control",
                      "{type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}"}}) {
    const Outcome builtin =
        run_case(builtin_left(common(c.algorithm)), std::string("emb-relay-builtin-") + c.label);
    ChildProcess device({COUPLET_EMBEDDED_MASS, "--serial", "pty"});
    DamagingSerialRelay relay(device.ready_address(), {.seed = 7});
    const std::string link =
        "{serial: {device: " + relay.path() + "}, retransmit_timeout: 0.005, timeout: 10}";
    const Outcome damaged =
        run_case(device_left(common(c.algorithm), link), std::string("emb-relay-") + c.label);
    expect_identical(builtin, damaged);
    // The damage happened, and the link repaired it.
    EXPECT_GT(relay.counts().flips.load(), 20U) << c.label;
    EXPECT_GT(relay.counts().drops.load(), 20U) << c.label;
    EXPECT_GT(relay.counts().bursts.load(), 20U) << c.label;
    const auto& counters = damaged.summary.at("links").at("left");
    EXPECT_GT(counters.at("retransmissions").get<int>(), 20) << counters.dump();
    EXPECT_GT(counters.at("drops").get<int>(), 5) << counters.dump();
  }
}

// Real-time mode: the C mass runs on the wall clock of its host program, takes
// the newest input from its arrival and pushes its outputs at each
// communication time; the run stays close to the built-in virtual-time run.
TEST(EmbeddedRealtime, FollowsTheWallClockAndReportsLateness) {
  const std::vector<std::string> settings = {"time.end=1", "algorithm.step=0.005",
                                             "reference=none"};
  const Outcome builtin = run_case(builtin_left(settings), "emb-realtime-builtin");
  std::vector<std::string> realtime = settings;
  realtime.push_back("clock={type: wall, tolerance: 0.002, max_misses: 1000}");
  const std::string link = "{spawn: true, program: " + std::string(COUPLET_EMBEDDED_MASS) +
                           ", serial: {device: pty}, realtime: true}";
  const Outcome device = run_case(device_left(realtime, link), "emb-realtime-device");
  const auto& entry = device.summary.at("realtime").at("slaves").at("left");
  EXPECT_TRUE(entry.at("real_time_target").get<bool>());
  EXPECT_GT(entry.at("input_lateness_us").at("median").get<double>(), 0.0)
      << "inputs arrive after their step starts";
  EXPECT_LT(entry.at("missed_results").get<int>(), 100) << entry.dump();
  EXPECT_EQ(device.summary.at("realtime").at("cycles").get<int>(), 200);
  // Close to the virtual-time run: the last left.x differs by little.
  const auto last_value = [](const std::string& csv) {
    const std::string last_line = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    return std::stod(last_line.substr(last_line.find(',') + 1));
  };
  EXPECT_NEAR(last_value(device.signals), last_value(builtin.signals), 0.05);
}

/// Two tallies, a.count → b.increment and a.odd → b.enable; `b` is the
/// slave b's mapping. Both as FMUs, or b the embedded core's tally counter
/// (examples/tally_counter.c, the same counter in C) over a pty.
std::string tallies(const std::string& b) {
  return "name: tallies\ntime: {start: 0, end: 10}\nslaves:\n  a: {fmu: " +
         std::string(COUPLET_TEST_FMU("tally")) + "}\n  b: " + b +
         "\nconnections:\n  - {from: a.count, to: b.increment}\n  - {from: a.odd, to: b.enable}\n"
         "algorithm: {type: jacobi, step: 0.5}\nevaluation: {grid: 0.5}\nreference: none\n";
}

Outcome run_text(const std::string& text, const std::string& name) {
  const auto directory = fresh_directory(name);
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "scenario.yaml") << text;
  int exit_code = -1;
  const std::string output = command_output(std::string(COUPLET_BINARY) + " run " +
                                                (directory / "scenario.yaml").string() + " -o " +
                                                (directory / "out").string(),
                                            exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  if (exit_code != 0) return {nlohmann::json::object(), ""};
  return {nlohmann::json::parse(read_file(directory / "out" / "summary.json")),
          read_file(directory / "out" / "signals.csv")};
}

// Integer and Boolean ports through the embedded core: its discrete inputs
// decoded from the step request, its outputs encoded into the result and the
// Ack of Initialize. The C counter stands in for the tally FMU byte for byte.
TEST(EmbeddedOverPty, IntegerAndBooleanPortsDecideAsTheFmu) {
  const Outcome fmu =
      run_text(tallies("{fmu: " + std::string(COUPLET_TEST_FMU("tally")) + "}"), "emb-tally-fmu");
  const Outcome device =
      run_text(tallies("{device: tally, link: {spawn: true, program: " +
                       std::string(COUPLET_EMBEDDED_TALLY) + ", serial: {device: pty}}}"),
               "emb-tally-device");
  EXPECT_EQ(device.summary.at("decision_hash"), fmu.summary.at("decision_hash"));
  // On the communication points: between them the FMU holds its Real output
  // `level` (variability discrete), the device's is interpolated.
  EXPECT_TRUE(device.signals == fmu.signals) << "signals.csv differs:\n" << device.signals;
  EXPECT_NE(device.signals.find("\n10,5,12.5,10,2,0,25,2,1\n"), std::string::npos)
      << device.signals;
  EXPECT_NE(
      device.summary.at("links").at("b").at("link").get<std::string>().find("serial /dev/pts/"),
      std::string::npos);
}

// A device on the embedded core ends the simulation (its stop_requested
// callback): the tally with stop_count 12 asks at the first communication
// point at which its count has reached 12. The run ends there as stopped
// (exit 0), with every row up to it as the run without the stop has them, and
// its log replays.
TEST(EmbeddedOverPty, AStopRequestEndsTheRunWhereTheCountReachedItsLimit) {
  const std::string device =
      "{device: tally, link: {spawn: true, program: " + std::string(COUPLET_EMBEDDED_TALLY) +
      ", serial: {device: pty}}";
  const Outcome whole = run_text(tallies(device + "}"), "emb-tally-whole");
  const Outcome stopped =
      run_text(tallies(device + ", parameters: {stop_count: 12}}"), "emb-tally-stop");
  // The first row of the whole run whose b.count (column 7) is at least 12.
  std::istringstream rows(whole.signals);
  std::string row;
  std::string expected_signals;
  double stop_time = -1.0;
  while (std::getline(rows, row)) {
    expected_signals += row + "\n";
    if (row.rfind("time", 0) == 0) continue;
    std::vector<std::string> cells;
    std::istringstream cell_stream(row);
    for (std::string cell; std::getline(cell_stream, cell, ',');) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 9U) << row;
    if (std::stol(cells[6]) >= 12) {
      stop_time = std::stod(cells[0]);
      break;
    }
  }
  ASSERT_GT(stop_time, 0.0) << whole.signals;
  EXPECT_EQ(stopped.summary.at("status"), "stopped") << stopped.summary.dump(2);
  EXPECT_EQ(stopped.summary.at("end_time").get<double>(), stop_time);
  EXPECT_EQ(stopped.summary.at("stopped_by"), "slave 'b' at t = 8 s");
  EXPECT_EQ(stopped.signals, expected_signals);
  int exit_code = -1;
  const std::string replay =
      command_output(std::string(COUPLET_BINARY) + " replay --verify " +
                         (run_directory("emb-tally-stop") / "out" / "run.log").string(),
                     exit_code);
  EXPECT_EQ(exit_code, 0) << replay;
  EXPECT_NE(replay.find("count reached stop_count"), std::string::npos) << replay;
}

// The host program refuses a bad command line with exit code 2.
TEST(EmbeddedHostProgram, RejectsABadCommandLine) {
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{COUPLET_EMBEDDED_MASS},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--serial", "pty", "--session-timeout",
                                 "0"},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--serial", "/nonexistent/tty"},
        std::vector<std::string>{COUPLET_EMBEDDED_MASS, "--bogus"}}) {
    ChildProcess program(words);
    EXPECT_EQ(program.wait_exit(std::chrono::seconds(5)).value_or(-1), 2) << words.back();
  }
}

}  // namespace
}  // namespace couplet::testing
