// The run log (issue 6, docs/run-log.md): replay
// reproduces every algorithm's decisions bit for bit, also for remote runs
// through a lossy proxy and for runs killed mid-way; an altered slave result is
// found at its step; recording changes no decision.
#include "host_tools/runlog/run_log.hpp"

#include <gtest/gtest.h>
#include <pb_decode.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>

#include "host_tools/process_support.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/run_log_frame.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;

std::string log_of(const std::string& directory_name) {
  return (run_directory(directory_name) / "run.log").string();
}

tools::ReplayOutcome replay(const std::string& directory_name) {
  return tools::replay_run_log(tools::read_run_log(log_of(directory_name)));
}

void expect_reproduced(const std::string& directory_name) {
  const tools::ReplayOutcome outcome = replay(directory_name);
  EXPECT_TRUE(outcome.identical) << directory_name << ": " << outcome.divergence;
  EXPECT_TRUE(outcome.hash_compared) << directory_name << ": " << outcome.note;
  EXPECT_GT(outcome.macro_steps, 10U) << directory_name;
}

struct Case {
  const char* scenario;
  std::vector<std::string> settings;
  const char* label;
};

class ReplayEveryAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(ReplayEveryAlgorithm, ReproducesEveryDecision) {
  const Case& c = GetParam();
  run(c.scenario, c.settings, std::string("replay-") + c.label);
  expect_reproduced(std::string("replay-") + c.label);
}

INSTANTIATE_TEST_SUITE_P(
    Algorithms, ReplayEveryAlgorithm,
    ::testing::Values(
        Case{"two_mass_switch.yaml",
             {"time.end=5", "algorithm={type: jacobi, step: 0.01, input_order: 0}"},
             "jacobi_zoh"},
        Case{"two_mass_switch.yaml",
             {"time.end=5", "algorithm={type: jacobi, step: 0.02, input_order: 1}"},
             "jacobi_taylor"},
        Case{"two_mass_switch.yaml",
             {"time.end=5", "algorithm={type: gauss_seidel, step: 0.02}"},
             "gauss_seidel"},
        Case{"rotational_two_mass_defect_control.yaml", {}, "defect_control"},
        Case{"two_mass_switch.yaml",
             {"time.end=5", "algorithm={type: defect_control, step: 0.02}"},
             "defect_control_fixed"},
        Case{"car_speed_control.yaml", {}, "f3ornits"},
        Case{"ifosmondi_damper.yaml",
             {"time.end=1", "slaves.plate.parameters.D_D=4", "algorithm.type=ifosmondi",
              "algorithm.solver=null"},
             "ifosmondi"},
        Case{"ifosmondi_damper.yaml",
             {"time.end=1", "algorithm.solver=newton"},
             "ifosmondi_jfm_newton"},
        Case{"ifosmondi_damper.yaml",
             {"time.end=1", "algorithm.solver=anderson"},
             "ifosmondi_jfm_anderson"},
        Case{"ifosmondi_damper_hil.yaml", {"time.end=1"}, "composite_group_with_remote_slave"}),
    [](const ::testing::TestParamInfo<Case>& parameter) {
      return std::string(parameter.param.label);
    });

TEST(ReplayRemote, RunThroughALossyProxyIsReproduced) {
  ChildProcess target({binary_beside_couplet("couplet-target"), "--model",
                       "translational.coupled_mass", "--udp", "127.0.0.1:0"});
  const std::string target_address = target.ready_address();
  ChildProcess netem({binary_beside_couplet("couplet-netem"), "--listen", "127.0.0.1:0",
                      "--forward", target_address, "--loss", "0.2", "--duplicate", "0.05",
                      "--reorder", "0.05", "--seed", "5"});
  const std::string netem_address = netem.ready_address();
  const auto summary = run(
      "two_mass_switch.yaml",
      {"time.end=4", "algorithm={type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}",
       "slaves.right.link={udp: \"" + netem_address + "\", retransmit_timeout: 0.001, timeout: 5}"},
      "replay-netem");
  EXPECT_GT(summary.at("links").at("right").at("retransmissions").get<int>(), 10);
  expect_reproduced("replay-netem");
  const tools::RunLog log = tools::read_run_log(log_of("replay-netem"));
  EXPECT_EQ(log.slaves[1].link.rfind("udp", 0), 0U) << log.slaves[1].link;
  std::uint64_t retransmissions = 0;
  for (const tools::LoggedCall& call : log.calls) retransmissions += call.retransmissions;
  EXPECT_GT(retransmissions, 10U) << "the log's timing shows the lossy link";
}

TEST(ReplayRemote, RealTimeRunIsReproduced) {
  run("two_mass_switch.yaml",
      {"time.end=0.5", "clock={type: wall}",
       "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}"},
      "replay-wall-clock");
  expect_reproduced("replay-wall-clock");
  const tools::RunLog log = tools::read_run_log(log_of("replay-wall-clock"));
  const auto paced =
      std::count_if(log.plans.begin(), log.plans.end(),
                    [](const tools::LoggedPlan& plan) { return plan.pacer_lateness_ns != 0; });
  EXPECT_GT(paced, 10) << "a paced run records the lateness of its cycles";
}

TEST(RunLogRecording, ChangesNoDecision) {
  for (const std::vector<std::string>& settings :
       {std::vector<std::string>{"time.end=5"},
        std::vector<std::string>{"time.end=5", "algorithm={type: f3ornits}"}}) {
    const auto logged = run("two_mass_switch.yaml", settings, "recording-on");
    const auto unlogged =
        tools::run_scenario(load("two_mass_switch.yaml", settings),
                            {fresh_directory("recording-off").string(), false, false});
    EXPECT_EQ(logged.at("decision_hash"), unlogged.at("decision_hash"));
    EXPECT_TRUE(logged.contains("run_log"));
    EXPECT_FALSE(unlogged.contains("run_log"));
    EXPECT_FALSE(std::filesystem::exists(run_directory("recording-off") / "run.log"));
  }
}

TEST(RunLogRecording, HoldsTheAlgorithmInternalsPerPlan) {
  run("rotational_two_mass_defect_control.yaml", {}, "internals-defect");
  const tools::RunLog defect = tools::read_run_log(log_of("internals-defect"));
  ASSERT_GE(defect.internal_quantities.size(), 6U);
  EXPECT_EQ(defect.internal_quantities[1], "defect");
  EXPECT_EQ(defect.internal_quantities[2], "tolerance");
  const auto& last = defect.plans.back().internals;
  EXPECT_GT(last[1], 0.0);
  EXPECT_LT(last[1], 10 * last[2]) << "defects held near the tolerance";

  run("ifosmondi_damper.yaml", {"time.end=0.2"}, "internals-ifosmondi");
  const tools::RunLog iterative = tools::read_run_log(log_of("internals-ifosmondi"));
  ASSERT_EQ(iterative.internal_quantities.at(1), "iterations");
  double converged_steps = 0;
  std::size_t attempts_in_progress = 0;
  for (const tools::LoggedPlan& plan : iterative.plans) {
    converged_steps += plan.internals[5];
    if (plan.internals[5] == 0.0 && plan.internals[2] >= 1.0) ++attempts_in_progress;
  }
  EXPECT_GE(converged_steps, 20.0) << "one converged record per macro step (0.2 s at 0.01 s)";
  EXPECT_GE(attempts_in_progress, 3U * 20U)
      << "every evaluation of an attempt is recorded as it stands";
}

TEST(RunLogRecording, AFailedRunEndsTheLogWithItsMessage) {
  EXPECT_ANY_THROW(run("ifosmondi_damper.yaml",
                       {"time.end=1", "slaves.plate.parameters.D_D=0.25",
                        "algorithm.type=ifosmondi", "algorithm.solver=null"},
                       "failed-run"));
  const tools::RunLog log = tools::read_run_log(log_of("failed-run"));
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_FALSE(log.end_record->completed());
  EXPECT_NE(log.end_record->message.find("no convergence"), std::string::npos)
      << log.end_record->message;
  const tools::ReplayOutcome outcome = tools::replay_run_log(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_NE(outcome.note.find("failure"), std::string::npos) << outcome.note;
}

// --- An altered slave result ------------------------------------------------

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

std::uint32_t little_endian(const std::uint8_t* bytes) {
  return bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) |
         (static_cast<std::uint32_t>(bytes[3]) << 24);
}

/// Adds `delta` to the first end output of slave `slave`'s step to `end`, and
/// rewrites that frame with a valid checksum: a log that lies consistently.
void alter_step_result(const std::string& path, std::size_t slave, Time end, double delta) {
  std::vector<std::uint8_t> bytes = read_bytes(path);
  auto record = std::make_unique<protocol::LogRecord>();
  std::vector<std::uint8_t> frame(protocol::kMaxLogFrameBytes);
  for (std::size_t at = protocol::kLogMagicBytes; at + 4 <= bytes.size();) {
    const std::size_t payload = little_endian(&bytes[at]);
    const std::size_t size = payload + protocol::kLogFrameOverhead;
    *record = protocol::LogRecord{};
    pb_istream_t stream = pb_istream_from_buffer(&bytes[at + 4], payload);
    ASSERT_TRUE(pb_decode(&stream, couplet_wire_LogRecord_fields, record.get()));
    couplet_wire_SlaveCall& call = record->body.call;
    if (record->which_body == couplet_wire_LogRecord_call_tag &&
        call.kind == couplet_wire_SlaveCallKind_CALL_STEP && call.slave == slave &&
        call.end_ns == end) {
      call.end_outputs[0] += delta;
      const protocol::EncodeResult encoded = protocol::encode_log_frame(*record, frame);
      ASSERT_TRUE(encoded);
      bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                  bytes.begin() + static_cast<std::ptrdiff_t>(at + size));
      bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), frame.begin(),
                   frame.begin() + static_cast<std::ptrdiff_t>(encoded.size));
      write_bytes(path, bytes);
      return;
    }
    at += size;
  }
  FAIL() << "no step of slave " << slave << " to " << end << " ns in " << path;
}

/// The start and every time a step ended (these runs roll nothing back).
std::size_t communication_times(const tools::RunLog& log) {
  std::set<Time> times{log.start};
  for (const tools::LoggedCall& call : log.calls) {
    if (call.kind == tools::CallKind::step) times.insert(call.end);
  }
  return times.size();
}

TEST(ReplayVerify, AnAlteredSlaveResultIsFoundAtItsStep) {
  run("two_mass_switch.yaml", {"time.end=1", "algorithm.step=0.01"}, "altered");
  int exit_code = -1;
  const std::string verified = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + log_of("altered"), exit_code);
  ASSERT_EQ(exit_code, 0) << verified;

  // Slave 0 ("left") reports x at the end of macro step 50; its source-following
  // feedthrough refresh in the same macro step is the first decision using it.
  alter_step_result(log_of("altered"), 0, to_ticks(0.5), 1e-9);
  const std::string diverged = command_output(
      std::string(COUPLET_BINARY) + " replay --verify " + log_of("altered"), exit_code);
  EXPECT_EQ(exit_code, 1) << diverged;
  EXPECT_NE(diverged.find("DIVERGED"), std::string::npos) << diverged;
  EXPECT_NE(diverged.find("macro step 50 "), std::string::npos) << diverged;
  EXPECT_NE(diverged.find("input 'right.x'"), std::string::npos) << diverged;
}

// --- A run killed mid-way -----------------------------------------------------

TEST(RunLogAfterKill, IsReadableUpToTheLastCompleteFrame) {
  const auto directory = fresh_directory("killed-run");
  ChildProcess couplet({COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "-o",
                        directory.string(), "--set", "time.end=30", "--set", "clock={type: wall}"});
  ASSERT_TRUE(wait_for_logged_plans(directory / "run.log", 21, 60s));
  ASSERT_TRUE(couplet.running());
  couplet.signal(SIGKILL);
  ASSERT_TRUE(couplet.wait_exit(5s).has_value());

  const tools::RunLog log = tools::read_run_log((directory / "run.log").string());
  EXPECT_TRUE(log.cut());
  EXPECT_GT(log.plans.size(), 20U) << "flushed as the run went";
  const std::string summary = tools::inspect_text(log);
  EXPECT_NE(summary.find("cut"), std::string::npos) << summary;
  const std::string csv = tools::export_csv(log);
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            communication_times(log) + 1)
      << "a header and one row per communication time the cut log holds";
  const tools::ReplayOutcome outcome = tools::replay_run_log(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
  EXPECT_NE(outcome.note.find("cut"), std::string::npos) << outcome.note;
  EXPECT_GE(outcome.plans + 1, log.plans.size());

  int exit_code = -1;
  for (const char* command : {" inspect ", " export ", " replay --verify "}) {
    const std::string output = command_output(
        std::string(COUPLET_BINARY) + command + (directory / "run.log").string(), exit_code);
    EXPECT_EQ(exit_code, 0) << command << output;
  }
}

TEST(RunLogExport, HasOneRowPerCommunicationTimeWithSignalsInternalsAndTiming) {
  run("rotational_two_mass_defect_control.yaml", {}, "export");
  const tools::RunLog log = tools::read_run_log(log_of("export"));
  const std::string csv = tools::export_csv(log);
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* column :
       {"time_s", "step_s", "defect", "tolerance", "next_step_s", "pacer_lateness_us"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
  }
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            communication_times(log) + 1);
}

// The report of a real run (not a hand-built log): every plot its data allows,
// well-formed.
TEST(RunLogReport, OfARealRunShowsItsPlots) {
  run("rotational_two_mass_defect_control.yaml", {}, "report");
  const std::string html_path = (run_directory("report") / "report.html").string();
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " report " + run_directory("report").string() +
                         " -o " + html_path,
                     exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  const std::string html = read_file(html_path);
  // One plot per quantity (omega, tau), each with its error against the reference.
  for (const char* plot : {"id=\"plot-signals-1\"", "id=\"plot-error-1\"", "id=\"plot-signals-2\"",
                           "id=\"plot-error-2\"", "id=\"plot-step-size\"", "id=\"plot-defects\""}) {
    EXPECT_NE(html.find(plot), std::string::npos) << plot;
  }
  for (const char* absent :
       {"id=\"plot-orders\"", "id=\"plot-iterations\"", "id=\"plot-lateness\""})
    EXPECT_EQ(html.find(absent), std::string::npos) << absent;
  EXPECT_NE(html.find("tau2omega.omega (reference)"), std::string::npos)
      << "signals against the reference";
  EXPECT_NE(html.find("tau2omega.omega - reference"), std::string::npos) << "their error";
  const std::string parse = command_output(
      "python3 -c \"import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])\" " + html_path,
      exit_code);
  EXPECT_EQ(exit_code, 0) << parse;
}

}  // namespace
}  // namespace couplet::testing
