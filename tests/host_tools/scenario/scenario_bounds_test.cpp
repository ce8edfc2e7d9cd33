// Every number of a scenario within its documented range, YAML without
// duplicate or non-scalar keys, bounded files, runs that cannot run away and a
// capped run log (docs/scenarios.md, "Allowed values").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pb_decode.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/run_log_frame.hpp"
#include "runtime/executor.hpp"
#include "runtime/recorder.hpp"
#include "support/sanitizer.hpp"

namespace couplet::testing {
namespace {

// Line numbers matter: the messages name them.
const char* const kScenario = R"(name: bounds
time: {start: 0, end: 1}
slaves:
  left:
    model: translational.mass
    parameters: {m: 1}
  right: {model: translational.coupled_mass}
connections:
  - {from: left.x, to: right.x}
  - {from: left.v, to: right.v}
  - {from: right.f, to: left.f}
algorithm: {type: jacobi, step: 0.1}
)";

std::string configuration_error(const std::string& text,
                                const std::vector<std::string>& assignments = {}) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  try {
    tools::parse_scenario(text, "bounds.yaml", overrides);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "accepted";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t position = text.find(from);
  EXPECT_NE(position, std::string::npos) << from;
  return text.replace(position, from.size(), to);
}

// ---------------------------------------------------------------------------
// `couplet validate` in a child under a memory and a CPU bound: a scenario that
// makes it allocate gigabytes or spin is killed and fails the test.

constexpr rlim_t kMemoryBound = rlim_t{1} << 30;
constexpr rlim_t kCpuSeconds = 1;

// AddressSanitizer reserves terabytes of address space for its shadow memory,
// so the address-space bound applies in the plain build only (the sanitizer
// build runs the same binaries, so the plain build's bound covers them).

struct Outcome {
  int exit_code = -1;  ///< -1: killed by a signal
  std::string output;  ///< stdout and stderr
};

Outcome validate(const std::vector<std::string>& arguments) {
  std::vector<std::string> words{COUPLET_BINARY, "validate"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::array<int, 2> pipe_ends{};
  EXPECT_EQ(::pipe(pipe_ends.data()), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    const rlimit cpu{kCpuSeconds, kCpuSeconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (!kAddressSanitized) {
      const rlimit memory{kMemoryBound, kMemoryBound};
      ::setrlimit(RLIMIT_AS, &memory);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  Outcome outcome;
  std::array<char, 4096> buffer{};
  ssize_t got = 0;
  while ((got = ::read(pipe_ends[0], buffer.data(), buffer.size())) > 0)
    outcome.output.append(buffer.data(), static_cast<std::size_t>(got));
  ::close(pipe_ends[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = fresh_directory("bounds").string() + "-" + name;
  std::ofstream(path) << text;
  return path;
}

void expect_refused(const std::vector<std::string>& arguments, const std::string& culprit) {
  const Outcome outcome = validate(arguments);
  EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
  EXPECT_NE(outcome.output.find(culprit), std::string::npos)
      << "expected '" << culprit << "' in: " << outcome.output;
}

const std::vector<std::string> kHostileNumbers = {"1.0e300", "1.0e-300", ".nan", ".inf", "-1"};

TEST(ScenarioBounds, TheValidScenarioValidatesUnderTheBounds) {
  const Outcome outcome = validate({write_file("valid.yaml", kScenario)});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
}

// One key of each class through the command, every hostile number: exit 2 at once.
TEST(ScenarioBounds, HostileNumbersInEveryKeyClassExitWithTwo) {
  const std::string path = write_file("classes.yaml", kScenario);
  const std::vector<std::string> keys = {
      "time.end",                     // times
      "algorithm.step",               // steps
      "evaluation.grid",              // grids
      "slaves.left.solver.atol",      // tolerances
      "slaves.left.solver.substeps",  // counts
      "limits.grid_points",           // derived-size limits
  };
  for (const std::string& key : keys) {
    for (const std::string& value : kHostileNumbers) {
      SCOPED_TRACE(key + "=" + value);
      expect_refused({path, "--set", key + "=" + value}, key);
    }
  }
  for (const std::string& value : kHostileNumbers) {
    SCOPED_TRACE("timeouts " + value);
    expect_refused({path, "--set", "slaves.right.link={udp: \"127.0.0.1:9\"}", "--set",
                    "slaves.right.link.retransmit_timeout=" + value},
                   "slaves.right.link.retransmit_timeout");
    expect_refused({path, "--set", "clock.type=wall", "--set", "clock.heartbeat=" + value},
                   "clock.heartbeat");
  }
}

// Known failures before the bounds: a 1 ns step that spun writing the log, a grid
// that grew validate to 13 GB, "vector::reserve", "-9.2e12 s", 1.2 M retransmissions.
TEST(ScenarioBounds, TheReportedRunawayValuesAreRefusedNamingKeyAndRange) {
  const std::string path = write_file("reported.yaml", kScenario);
  expect_refused({path, "--set", "algorithm.step=1.0e300"},
                 "algorithm.step: 1e+300 is out of range (allowed: from 1e-06 to 1 s)");
  expect_refused({path, "--set", "algorithm.step=1.0e-300"},
                 "algorithm.step: 1e-300 is out of range");
  expect_refused({path, "--set", "evaluation.grid=1.0e-9"},
                 "evaluation.grid: 1e-09 is out of range (allowed: from 1e-06 to 1e+08 s)");
  expect_refused({path, "--set", "time.end=.inf"},
                 "time.end: inf is out of range (allowed: from -1e+08 to 1e+08 s)");
  expect_refused({path, "--set", "time.start=.nan"}, "time.start: nan is out of range");
  expect_refused(
      {path, "--set", "slaves.right.link={udp: \"127.0.0.1:9\", timeout: 1.0e300}"},
      "slaves.right.link.timeout: 1e+300 is out of range (allowed: from 0.001 to 3600 s)");
  expect_refused(
      {path, "--set", "slaves.right.link={udp: \"127.0.0.1:9\", retransmit_timeout: 1.0e-7}"},
      "slaves.right.link.retransmit_timeout: 1e-07 is out of range (allowed: from 0.001 to 60 s)");
  expect_refused({path, "--set", "slaves.right.link={udp: \"127.0.0.1:9\", busy_poll: 1}"},
                 "slaves.right.link.busy_poll: 1 is out of range (allowed: from 0 to 0.1 s)");
}

TEST(ScenarioBounds, MessagesNameFileLineKeyAndRange) {
  EXPECT_EQ(configuration_error(replace(kScenario, "step: 0.1", "step: 1.0e300")),
            "bounds.yaml:12: algorithm.step: 1e+300 is out of range (allowed: from 1e-06 to 1 s)");
  EXPECT_EQ(configuration_error(replace(kScenario, "start: 0", "start: .nan")),
            "bounds.yaml:2: time.start: nan is out of range (allowed: from -1e+08 to 1e+08 s)");
  EXPECT_EQ(configuration_error(replace(kScenario, "end: 1}", "end: -1}")),
            "bounds.yaml:2: time.end: must be at least 1e-06 s after time.start (0 s)");
  EXPECT_EQ(configuration_error(replace(kScenario, "{m: 1}", "{m: .inf}")),
            "bounds.yaml:6: slaves.left.parameters.m: must be a finite number");
  EXPECT_EQ(configuration_error(
                replace(kScenario, "model: translational.mass\n",
                        "model: translational.mass\n    solver: {type: euler, substeps: 2.5}\n")),
            "bounds.yaml:6: slaves.left.solver.substeps: 2.5 is out of range (allowed: a whole "
            "number from 1 to "
            "1e+06)");
  EXPECT_EQ(
      configuration_error(
          replace(kScenario, "model: translational.mass\n",
                  "model: translational.mass\n    solver: {type: cvode, history: forget}\n")),
      "bounds.yaml:6: slaves.left.solver.history: unknown CVODE history 'forget' (restart, keep)");
}

// Every numeric key, every hostile number it must refuse (some are valid for
// some keys: a start of -1 s, a gain of 1e-300).
TEST(ScenarioBounds, EveryNumericKeyRefusesItsHostileNumbers) {
  struct Case {
    std::vector<std::string> setup;  ///< overrides that make the key meaningful
    std::string key;
    std::vector<std::string> refused;
  };
  const std::vector<std::string> all = kHostileNumbers;
  const std::vector<std::string> not_tiny = {"1.0e300", ".nan", ".inf", "-1"};
  const std::string defect = "algorithm={type: defect_control, tol: 1.0e-3}";
  const std::string f3ornits = "algorithm={type: f3ornits}";
  const std::string ifosmondi = "algorithm={type: ifosmondi, step: 0.1}";
  const std::string link = "slaves.right.link={udp: \"127.0.0.1:9\"}";
  const std::string wall = "clock.type=wall";
  const std::vector<Case> cases = {
      {{}, "time.start", {"1.0e300", ".nan", ".inf", "-.inf"}},
      {{}, "time.end", all},
      {{}, "algorithm.step", all},
      {{"algorithm.type=gauss_seidel"}, "algorithm.step", all},
      {{}, "algorithm.input_order", all},
      {{}, "evaluation.grid", all},
      {{}, "slaves.left.parameters.m", {".nan", ".inf", "-.inf"}},
      {{}, "slaves.left.solver.rtol", all},
      {{}, "slaves.left.solver.atol", all},
      {{}, "slaves.left.solver.max_step", all},
      {{}, "slaves.left.solver.substeps", all},
      {{}, "slaves.left.capabilities.imposed_step", all},
      {{}, "slaves.left.capabilities.max_input_degree", all},
      {{}, "slaves.left.capabilities.output_derivative_order", all},
      {{link}, "slaves.right.link.timeout", all},
      {{link}, "slaves.right.link.retransmit_timeout", all},
      {{link}, "slaves.right.link.busy_poll", not_tiny},
      {{"slaves.right.link={serial: {device: /dev/null}}"}, "slaves.right.link.serial.baud", all},
      {{wall}, "clock.realtime_factor", all},
      {{wall}, "clock.tolerance", all},
      {{wall}, "clock.heartbeat", all},
      {{wall}, "clock.max_misses", all},
      {{wall}, "clock.max_miss_time", not_tiny},
      {{wall}, "clock.priority", all},
      {{}, "limits.grid_points", all},
      {{}, "limits.macro_steps", all},
      {{}, "limits.run_log_bytes", all},
      {{"algorithm={type: defect_control, step: 0.1}"}, "algorithm.step", all},
      {{defect}, "algorithm.tol", all},
      {{defect}, "algorithm.initial_step", all},
      {{defect}, "algorithm.k_p", not_tiny},
      {{defect}, "algorithm.k_i", not_tiny},
      {{defect}, "algorithm.theta_max", all},
      {{defect}, "algorithm.min_step", all},
      {{defect}, "algorithm.max_step", all},
      {{defect}, "algorithm.abort_below_step", all},
      {{defect}, "algorithm.input_order", all},
      {{defect}, "algorithm.output_order", all},
      {{f3ornits}, "algorithm.max_degree", all},
      {{f3ornits}, "algorithm.damping", not_tiny},
      {{f3ornits}, "algorithm.tol_rel", all},
      {{f3ornits}, "algorithm.tol_abs", all},
      {{f3ornits}, "algorithm.rho_min", all},
      {{f3ornits}, "algorithm.rho_max", all},
      {{f3ornits}, "algorithm.initial_step", all},
      {{f3ornits}, "algorithm.min_step", all},
      {{f3ornits}, "algorithm.max_step", all},
      {{f3ornits}, "algorithm.abort_below_step", all},
      {{ifosmondi}, "algorithm.step", all},
      {{ifosmondi}, "algorithm.min_step", all},
      {{ifosmondi}, "algorithm.eps", all},
      {{ifosmondi}, "algorithm.eps_abs", all},
      {{ifosmondi}, "algorithm.max_iterations", all},
      {{"algorithm={type: ifosmondi_jfm, step: 0.1}"}, "algorithm.krylov_dimension", all},
      {{"algorithm={type: ifosmondi_jfm, step: 0.1}"}, "algorithm.krylov_tolerance", all},
  };
  for (const Case& test : cases) {
    for (const std::string& value : test.refused) {
      std::vector<std::string> assignments = test.setup;
      assignments.push_back(test.key + "=" + value);
      const std::string message = configuration_error(kScenario, assignments);
      EXPECT_NE(message.find(test.key), std::string::npos)
          << test.key << "=" << value << ": " << message;
    }
  }
}

TEST(ScenarioBounds, SizesDerivedFromTheNumbersSayWhichLimitToRaise) {
  EXPECT_EQ(configuration_error(kScenario, {"time.end=100", "evaluation.grid=1.0e-6"}),
            "bounds.yaml: evaluation.grid: 1e-06 s gives 100000001 points over the 100 s horizon, "
            "more than "
            "limits.grid_points (10000000): take a coarser grid or raise limits.grid_points");
  EXPECT_EQ(configuration_error(
                kScenario, {"time.end=100", "evaluation.grid=1.0e-6", "limits.grid_points=1e9"}),
            "accepted");
  EXPECT_EQ(
      configuration_error(replace(kScenario, "end: 1}", "end: 10000}"), {"algorithm.step=1.0e-5"}),
      "bounds.yaml: algorithm.step: 1e-05 s makes 1e+09 macro steps over the 10000 s horizon, more "
      "than "
      "limits.macro_steps (1e+08): take a longer step or raise limits.macro_steps");
  EXPECT_NE(
      configuration_error(kScenario, {"slaves.right.link={udp: \"127.0.0.1:9\", timeout: 0.5, "
                                      "retransmit_timeout: 1}"})
          .find("slaves.right.link.retransmit_timeout: must not exceed slaves.right.link.timeout "
                "(0.5 s)"),
      std::string::npos);
}

// The projection is a lower bound made of the records a run must write, as
// they encode: a real log is larger, but not by much under a fixed-step scheme.
TEST(ScenarioBounds, RunLogProjectionIsALowerBoundAndRefusesHugeLogs) {
  const tools::Scenario huge = tools::parse_scenario(
      replace(kScenario, "end: 1}", "end: 8192}"), "bounds.yaml",
      {tools::parse_override("algorithm.step=0.0001220703125"),  // 2^26 steps, exactly
       tools::parse_override("limits.run_log_bytes=1e10")});
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const System huge_system = tools::build_system(huge, catalog);
  const auto huge_algorithm = tools::make_algorithm(huge.algorithm);
  const std::size_t huge_grid = tools::evaluation_grid(huge).size();
  try {
    tools::check_run_log_projection(huge, huge_system, *huge_algorithm, huge_grid);
    ADD_FAILURE() << "a log of at least "
                  << tools::least_run_log_bytes(huge, huge_system, *huge_algorithm, huge_grid)
                  << " bytes was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_EQ(std::string(error.what()),
              "bounds.yaml: the run log would take at least 22.3 GB (6.711e+07 macro steps of "
              "0.00012207 s, "
              "819201 grid points), more than limits.run_log_bytes (10 GB): take a longer "
              "algorithm.step, raise "
              "limits.run_log_bytes, compress the log (--compress-log) or run with --no-log");
  }
  const tools::Scenario small = tools::parse_scenario(
      kScenario, "bounds.yaml", {tools::parse_override("algorithm.step=0.001")});
  const System small_system = tools::build_system(small, catalog);
  const auto small_algorithm = tools::make_algorithm(small.algorithm);
  const std::size_t small_grid = tools::evaluation_grid(small).size();
  EXPECT_NO_THROW(
      tools::check_run_log_projection(small, small_system, *small_algorithm, small_grid));
  const auto directory = fresh_directory("bounds-projection");
  const nlohmann::json summary = tools::run_scenario(small, {directory.string(), false, true});
  const auto bytes = summary.at("run_log").at("bytes").get<std::uint64_t>();
  const std::uint64_t least =
      tools::least_run_log_bytes(small, small_system, *small_algorithm, small_grid);
  EXPECT_GE(bytes, least);
  EXPECT_GE(static_cast<double>(least), 0.6 * static_cast<double>(bytes))
      << "a projection, not a guess";
}

// ---------------------------------------------------------------------------
// YAML hygiene and file size.

TEST(ScenarioBounds, DuplicateKeysNameBothLines) {
  EXPECT_EQ(
      configuration_error(std::string(kScenario) + "algorithm: {type: jacobi, step: 0.2}\n"),
      "bounds.yaml:13: algorithm: duplicate key (first at line 12; YAML keeps only one of them)");
  EXPECT_EQ(configuration_error(replace(kScenario, "{m: 1}", "{m: 1, m: 2}")),
            "bounds.yaml:6: slaves.left.parameters.m: duplicate key (first at line 6; YAML keeps "
            "only one of them)");
  expect_refused({write_file("duplicate.yaml", std::string(kScenario) + "time: {end: 2}\n")},
                 "duplicate.yaml:13: time: duplicate key (first at line 2");
}

TEST(ScenarioBounds, NonScalarKeysAreNamedWithTheirLine) {
  EXPECT_EQ(configuration_error(std::string(kScenario) + "{x: 1}: 2\n"),
            "bounds.yaml:13: (top level): a key must be a plain name, not a map, a list or null");
  EXPECT_EQ(configuration_error(replace(kScenario, "{m: 1}", "{[a, b]: 1}")),
            "bounds.yaml:6: slaves.left.parameters: a key must be a plain name, not a map, a list "
            "or null");
  expect_refused({write_file("list-key.yaml", std::string(kScenario) + "? [a]\n: 1\n")},
                 "list-key.yaml:13:");
}

TEST(ScenarioBounds, AliasesAndNestingCannotBlowUpTheCheck) {
  std::string aliases = "a0: &a0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n";
  for (int level = 1; level < 9; ++level) {
    const std::string name = std::to_string(level);
    const std::string used = "*a" + std::to_string(level - 1);
    aliases.append("a").append(name).append(": &a").append(name).append(" [").append(used);
    for (int k = 1; k < 10; ++k) aliases.append(", ").append(used);
    aliases.append("]\n");
  }
  EXPECT_NE(configuration_error(aliases).find("values (aliases counted each time they are used)"),
            std::string::npos);
  EXPECT_NE(configuration_error("x: " + std::string(40, '[') + std::string(40, ']') + "\n")
                .find("nested deeper"),
            std::string::npos);
}

TEST(ScenarioBounds, LargeFilesAndDevicesAreRefusedBeforeReading) {
  const std::string path = fresh_directory("bounds").string() + "-50MB.yaml";
  { std::ofstream file(path); }
  std::filesystem::resize_file(path, 50'000'000);  // sparse: no 50 MB written
  expect_refused({path}, "scenario file '" + path +
                             "' is 50000000 bytes, more than a scenario may hold (4096 KiB)");
  expect_refused({"/dev/zero"},
                 "scenario file '/dev/zero' holds more than a scenario may (4096 KiB)");
  expect_refused({std::filesystem::temp_directory_path().string()}, "is a directory");
  std::filesystem::remove(path);
}

// ---------------------------------------------------------------------------
// Runs that cannot run away.

struct RunFailure {
  std::string message;  ///< empty: the run completed
  std::filesystem::path directory;
};

RunFailure run_expecting_failure(const std::string& scenario,
                                 const std::vector<std::string>& assignments,
                                 const std::string& name) {
  RunFailure failure{"", fresh_directory(name)};
  try {
    tools::run_scenario(load(scenario, assignments), {failure.directory.string(), false, true});
  } catch (const SlaveError& error) {
    failure.message = error.what();
  }
  return failure;
}

// An absolute tolerance far below what the signals allow: the controller shrinks
// the step towards nothing. The run stops, naming the defect and the keys, and
// its log is readable and ends with the message.
TEST(ScenarioBounds, CollapsedDefectControlRunStopsWithReadableLog) {
  const RunFailure failure = run_expecting_failure("rotational_two_mass_defect_control.yaml",
                                                   {"algorithm.tol=1.0e-15"}, "bounds-collapse");
  ASSERT_FALSE(failure.message.empty()) << "the run completed";
  EXPECT_EQ(failure.message.find(
                "defect control: 1000 steps in a row below algorithm.abort_below_step (1e-06 s)"),
            0U)
      << failure.message;
  EXPECT_NE(failure.message.find("the largest defect is the connection defect of input "),
            std::string::npos);
  EXPECT_NE(failure.message.find("Raise algorithm.tol, set algorithm.min_step"), std::string::npos);
  const tools::RunLog log = tools::read_run_log((failure.directory / "run.log").string());
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_FALSE(log.end_record->completed());
  EXPECT_EQ(log.end_record->message, failure.message);
  EXPECT_GE(log.plans.size(), 1000U);
  // abort_below_step: 0 turns the floor off; min_step then bounds the step instead.
  const RunFailure bounded =
      run_expecting_failure("rotational_two_mass_defect_control.yaml",
                            {"algorithm.tol=1.0e-15", "algorithm.abort_below_step=0",
                             "algorithm.min_step=1.0e-5", "time.end=0.02"},
                            "bounds-bounded");
  EXPECT_EQ(bounded.message, "");
}

TEST(ScenarioBounds, CollapsedF3ornitsRunNamesSlaveAndOutput) {
  const RunFailure failure = run_expecting_failure(
      "car_speed_control.yaml", {"algorithm.tol_rel=1.0e-15", "algorithm.tol_abs=0"},
      "bounds-f3ornits");
  EXPECT_EQ(
      failure.message.find(
          "f3ornits: 1000 steps of slave 'vehicle' in a row below algorithm.abort_below_step"),
      0U)
      << failure.message;
  EXPECT_NE(failure.message.find("the output holding it down is vehicle."), std::string::npos)
      << failure.message;
  const tools::RunLog log = tools::read_run_log((failure.directory / "run.log").string());
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_EQ(log.end_record->message, failure.message);
}

// ---------------------------------------------------------------------------
// The recorder.

/// Every frame's record, decoded with nanopb alone (no consistency checks).
std::vector<protocol::LogRecord> decode_frames(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  std::vector<protocol::LogRecord> records;
  std::size_t offset = protocol::kLogMagicBytes;
  while (offset + protocol::kLogFrameOverhead <= bytes.size()) {
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data() + offset, sizeof length);  // little-endian hosts
    if (offset + protocol::kLogFrameOverhead + length > bytes.size()) break;
    auto stream = pb_istream_from_buffer(
        reinterpret_cast<const pb_byte_t*>(bytes.data() + offset + 4), length);
    records.emplace_back();
    EXPECT_TRUE(pb_decode(&stream, couplet_wire_LogRecord_fields, &records.back()))
        << "frame at byte " << offset;
    offset += protocol::kLogFrameOverhead + length;
  }
  return records;
}

// One 50 s step on the 0.01 s grid: 5000 samples, five records' worth.
TEST(ScenarioBounds, RecorderWritesAStepWithFiveThousandSamples) {
  const auto directory = fresh_directory("bounds-samples");
  const nlohmann::json summary = tools::run_scenario(
      load("rotational_two_mass_defect_control.yaml",
           {"time.end=50", "algorithm={type: defect_control, step: 50, input_order: 1}"}),
      {directory.string(), false, true});
  EXPECT_EQ(summary.at("macro_steps").get<int>(), 1);
  std::vector<Time> times;
  std::size_t values = 0;
  std::size_t continuations = 0;
  for (const protocol::LogRecord& record : decode_frames(directory / "run.log")) {
    if (record.which_body != couplet_wire_LogRecord_call_tag || record.body.call.slave != 0)
      continue;
    const couplet_wire_SlaveCall& call = record.body.call;
    if (call.kind == couplet_wire_SlaveCallKind_CALL_STEP) {
      EXPECT_TRUE(times.empty()) << "one step";
    } else if (call.kind == kCallStepSamples) {
      ++continuations;
      EXPECT_EQ(call.end_ns, to_ticks(50.0));
    } else {
      continue;
    }
    times.insert(times.end(), call.sample_times_ns,
                 call.sample_times_ns + call.sample_times_ns_count);
    values += call.samples_count;
  }
  EXPECT_GE(times.size(), 5000U);
  EXPECT_GE(continuations, 4U);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()) &&
              std::adjacent_find(times.begin(), times.end()) == times.end());
  EXPECT_EQ(times.back(), to_ticks(50.0));
  EXPECT_EQ(values % times.size(), 0U);
  EXPECT_GT(values, 0U);
}

// Runs the bounds scenario over 100 s at 0.1 ms steps (a 430 MB log) into a
// recorder capped at `cap` bytes.
struct CappedRun {
  std::string message;
  Time frontier = 0;
  std::string path;
};

CappedRun run_capped(const std::string& name, std::uint64_t cap) {
  const tools::Scenario scenario =
      tools::parse_scenario(replace(kScenario, "end: 1}", "end: 100}"), "bounds.yaml",
                            {tools::parse_override("algorithm.step=1.0e-4")});
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  const auto algorithm = tools::make_algorithm(scenario.algorithm);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end),
                    tools::evaluation_grid(scenario));
  CappedRun run{"", 0, fresh_directory(name).string() + ".log"};
  Recorder recorder(run.path);
  RunLogHeader header = tools::log_header(scenario, system, *algorithm);
  header.max_bytes = cap;
  recorder.begin(header, system);
  executor.set_observer(&recorder);
  executor.initialize();
  recorder.algorithm_started(*algorithm);
  try {
    while (executor.advance()) recorder.plan_finished(executor, *algorithm);
  } catch (const SlaveError& error) {
    run.message = error.what();
  }
  recorder.finish({false, run.message, executor.decision_hash(), executor.counters()});
  run.frontier = executor.frontier();
  return run;
}

void expect_log_ends_with(const CappedRun& run) {
  const tools::RunLog log = tools::read_run_log(run.path);
  EXPECT_FALSE(log.damaged()) << log.tail_problem;
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_EQ(log.end_record->message, run.message);
  EXPECT_EQ(log.plans.back().frontier, run.frontier);
}

// A log that would pass its cap at the rate it grows is stopped at 1/64 of the
// horizon, not when it reaches the cap: the rest of the run is not wasted.
TEST(ScenarioBounds, RecorderStopsARunWhoseLogWouldPassItsCap) {
  const CappedRun run = run_capped("bounds-projected", std::uint64_t{64} << 20);
  EXPECT_EQ(run.message.find("run log '" + run.path + "' grows by "), 0U) << run.message;
  EXPECT_NE(run.message.find(" bytes per simulated second: it would take "), std::string::npos);
  EXPECT_NE(run.message.find(
                " MiB by t = 100 s, more than limits.run_log_bytes (64 MiB), at t = 1.5625 s after "
                "15625 macro steps: the run is stopped."),
            std::string::npos)
      << run.message;
  EXPECT_EQ(run.frontier, to_ticks(1.5625));
  expect_log_ends_with(run);
  EXPECT_LT(std::filesystem::file_size(run.path), 16U << 20);
}

// A cap reached before the first projection (1/64 of the horizon) stops the
// run at the next plan.
TEST(ScenarioBounds, RecorderStopsTheRunAtItsCap) {
  const CappedRun run = run_capped("bounds-cap", 1 << 20);
  EXPECT_EQ(run.message.find("run log '" + run.path +
                             "' passed 1 MiB (limits.run_log_bytes, all its segments) at t = "),
            0U)
      << run.message;
  EXPECT_NE(
      run.message.find(
          "raise limits.run_log_bytes in the scenario, compress the log (--compress-log), or run "
          "with --no-log"),
      std::string::npos);
  EXPECT_LT(run.frontier, to_ticks(100.0 / 64));
  expect_log_ends_with(run);
  EXPECT_LT(std::filesystem::file_size(run.path), 2U << 20) << "stopped soon after the cap";
}

}  // namespace
}  // namespace couplet::testing
