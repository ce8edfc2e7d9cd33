// couplet's master driving a DCP slave in non-real-time mode (docs/dcp.md).
// The slave is tests/dcp/dcp_test_slave.py, a DCP implementation written
// from the protocol's layouts independently of couplet's codec: x' = gain·u
// integrated exactly for held inputs, count = the steps done, x(0) = offset.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "host_tools/process_support.hpp"
#include "host_tools/stepping_allocations.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

const std::string kDcpDirectory = std::string(COUPLET_SOURCE_DIR) + "/tests/dcp";

/// The test slave on a free port of the loopback interface.
class DcpTestSlave {
 public:
  explicit DcpTestSlave(std::vector<std::string> faults = {})
      : process_(arguments(std::move(faults))) {
    std::istringstream ready(process_.ready_line());
    std::string word;
    ready >> word >> port_;
  }
  const std::string& port() const { return port_; }
  ChildProcess& process() { return process_; }

 private:
  static std::vector<std::string> arguments(std::vector<std::string> faults) {
    std::vector<std::string> argv{kDcpDirectory + "/dcp_test_slave.py"};
    argv.insert(argv.end(), faults.begin(), faults.end());
    return argv;
  }
  ChildProcess process_;
  std::string port_;
};

std::string scenario(const std::string& port, const std::string& link_extra = "",
                     double end = 1.0) {
  return "name: dcp_integrator\n"
         "time: {start: 0, end: " +
         std::to_string(end) +
         "}\n"
         "slaves:\n"
         "  speed: {model: stimulus.constant, parameters: {value: 3}}\n"
         "  gain: {model: stimulus.constant, parameters: {value: 2}}\n"
         "  plant:\n"
         "    dcp: " +
         kDcpDirectory +
         "/integrator.dcpx\n"
         "    link: {udp: \"127.0.0.1:" +
         port + "\"" + link_extra +
         "}\n"
         "    parameters: {offset: 1.5}\n"
         "connections:\n"
         "  - {from: speed.y, to: plant.u}\n"
         "  - {from: gain.y, to: plant.gain, rounding: nearest}\n"
         "algorithm: {type: jacobi, step: 0.01}\n";
}

nlohmann::json link_of(const CoupletOutcome& outcome) {
  return nlohmann::json::parse(read_file(outcome.out / "summary.json")).at("links").at("plant");
}

CoupletOutcome clean_run(const std::string& name) {
  DcpTestSlave slave;
  CoupletOutcome outcome = couplet_on_text("run", scenario(slave.port()), name);
  // The slave was stopped and deregistered: it exits after STC_deregister.
  EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0);
  return outcome;
}

TEST(Dcp, NonRealTimeRunFollowsTheClosedFormAndReplays) {
  const CoupletOutcome outcome = clean_run("dcp-clean");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& time = columns.at("time");
  ASSERT_EQ(time.size(), 101u);
  for (std::size_t k = 0; k < time.size(); ++k) {
    // x = offset + gain·u·t with offset 1.5 (a CFG_parameter), gain 2 (Int32), u 3.
    EXPECT_NEAR(columns.at("plant.x")[k], 1.5 + 6.0 * time[k], 1e-12) << "t = " << time[k];
    EXPECT_EQ(columns.at("plant.count")[k], static_cast<double>(k)) << "t = " << time[k];
  }
  const nlohmann::json link = link_of(outcome);
  EXPECT_EQ(link.at("link").get<std::string>().rfind("dcp udp 127.0.0.1:", 0), 0u);
  EXPECT_EQ(link.at("retransmissions"), 0);
  expect_replayed_and_inspected(outcome, "plant        dcp udp 127.0.0.1:");
  // Determinism: a second run against a fresh slave makes the same decisions.
  EXPECT_EQ(hash_of(clean_run("dcp-again").out), hash_of(outcome.out));
}

// Real-time path: after the first macro step, a DCP step (inputs, STC_do_step,
// INF_state while computing, STC_send_outputs, the outputs) allocates nothing,
// recorded as in `couplet run`.
TEST(Dcp, SteppingAllocatesNothingAfterWarmUp) {
  DcpTestSlave slave;
  const tools::Scenario parsed = tools::parse_scenario(scenario(slave.port(), "", 2.0), "dcp.yaml");
  const SteppingAllocations run = allocations_after_warm_up(parsed, true);
  EXPECT_EQ(run.allocations, 0);
  EXPECT_EQ(run.counters.macro_steps, 200u);
}

TEST(Dcp, NackEndsTheRunNamingTheErrorCodeAndDeregisters) {
  DcpTestSlave slave({"--nack-step", "5"});
  const CoupletOutcome outcome = couplet_on_text("run", scenario(slave.port()), "dcp-nack");
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.output.find("DCP slave 'plant' (dcp udp 127.0.0.1:" + slave.port() +
                                "): it refused STC_do_step (sequence 26) with RSP_nack "
                                "INVALID_STEPS (0x200E): the number of steps is not supported"),
            std::string::npos)
      << outcome.output;
  // Nothing is lost: the log holds the four steps done, and the slave was
  // stopped and deregistered.
  EXPECT_EQ(read_columns(outcome.out / "signals.csv").at("plant.count").back(), 4.0);
  EXPECT_TRUE(std::filesystem::exists(outcome.out / "summary.json"));
  EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0);
}

TEST(Dcp, LostGarbledOrDuplicatedAnswersChangeNothing) {
  const std::string reference = hash_of(clean_run("dcp-reference").out);
  struct Fault {
    std::vector<std::string> arguments;
    const char* counter;
    int least;
  };
  for (const Fault& fault :
       {Fault{{"--drop-ack", "5"}, "retransmissions", 1}, Fault{{"--garble-ack", "5"}, "drops", 1},
        Fault{{"--duplicate"}, "duplicates", 100}}) {
    SCOPED_TRACE(fault.arguments.front());
    DcpTestSlave slave(fault.arguments);
    const CoupletOutcome outcome = couplet_on_text("run", scenario(slave.port()), "dcp-fault");
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_EQ(hash_of(outcome.out), reference);
    EXPECT_GE(link_of(outcome).at(fault.counter).get<int>(), fault.least) << link_of(outcome);
    EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0);
  }
}

TEST(Dcp, DeadSlaveIsReportedWithinTheLinkTimeout) {
  DcpTestSlave slave({"--die-at-step", "5"});
  const auto begin = std::chrono::steady_clock::now();
  const CoupletOutcome outcome =
      couplet_on_text("run", scenario(slave.port(), ", timeout: 0.5"), "dcp-dead");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.output.find("no answer for 500 ms while couplet awaited COMPUTED after "
                                "STC_do_step: the slave is dead or unreachable"),
            std::string::npos)
      << outcome.output;
  EXPECT_LT(seconds, 5.0);  // the timeout, the brief goodbye, and the process around them
  EXPECT_EQ(read_columns(outcome.out / "signals.csv").at("plant.count").back(), 4.0);
}

// SoftRealTime under a wall clock: the slave ticks on its own clock (one
// tick of its 10 ms resolution per macro step) and sends its outputs every
// tick; couplet sends the inputs at each communication point. The first ticks
// run on the inputs' start values (u = 0) until couplet's first ones arrive;
// from then on x = 1.5 + 0.06·(count − lag), the lag those first ticks.
TEST(Dcp, SoftRealTimeRunsOnTheSlavesClock) {
  DcpTestSlave slave;
  const CoupletOutcome outcome = couplet_on_text(
      "run", scenario(slave.port()) + "clock: {type: wall, tolerance: 0.005}\n", "dcp-srt");
  ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
  EXPECT_TRUE(summary.at("realtime").at("slaves").at("plant").at("real_time_target").get<bool>());
  const auto columns = read_columns(outcome.out / "signals.csv");
  const std::vector<double>& x = columns.at("plant.x");
  const std::vector<double>& count = columns.at("plant.count");
  const double lag = count.back() - (x.back() - 1.5) / 0.06;
  EXPECT_NEAR(lag, std::round(lag), 1e-6);
  EXPECT_GE(lag, 0.0);
  for (std::size_t k = x.size() / 2; k < x.size(); ++k)
    EXPECT_NEAR(count[k] - (x[k] - 1.5) / 0.06, lag, 1e-6) << "row " << k;
  EXPECT_GE(count.back(), 50.0);  // misses on a loaded machine hold a value, no more
  expect_replayed_and_inspected(outcome, "plant        dcp udp 127.0.0.1:");
  EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0);
}

TEST(Dcp, SoftRealTimeMissingOutputsFollowTheLatePolicy) {
  {
    DcpTestSlave slave({"--silent-after", "20"});
    const CoupletOutcome outcome = couplet_on_text(
        "run",
        scenario(slave.port()) +
            "clock: {type: wall, on_late: hold, max_misses: 1000, max_miss_time: 10}\n",
        "dcp-srt-hold");
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.out / "summary.json"));
    EXPECT_GE(summary.at("realtime").at("slaves").at("plant").at("missed_results").get<int>(), 70);
    const std::vector<double> x = read_columns(outcome.out / "signals.csv").at("plant.x");
    EXPECT_EQ(x.back(), x[30]);  // held since the slave fell silent
  }
  DcpTestSlave slave({"--silent-after", "20"});
  const CoupletOutcome outcome = couplet_on_text(
      "run", scenario(slave.port()) + "clock: {type: wall, on_late: abort, tolerance: 0.05}\n",
      "dcp-srt-abort");
  EXPECT_NE(outcome.exit_code, 0);
  EXPECT_NE(outcome.output.find("slave 'plant' (dcp udp 127.0.0.1:" + slave.port() +
                                "): no result for t = 0.21 s within its deadline (1 consecutive "
                                "misses over 0 s; the policy is on_late: abort)"),
            std::string::npos)
      << outcome.output;
  EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0);
}

TEST(Dcp, InterruptEndsTheRunCleanlyAndDeregistersTheSlave) {
  DcpTestSlave slave;
  const auto directory = fresh_directory("dcp-interrupt");
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "scenario.yaml") << scenario(slave.port(), "", 1000.0);
  const std::string errors = (directory / "errors.txt").string();
  ChildProcess couplet({COUPLET_BINARY, "run", (directory / "scenario.yaml").string(), "-o",
                        (directory / "out").string()},
                       errors);
  ASSERT_TRUE(wait_for_logged_plans(directory / "out" / "run.log", 20, std::chrono::seconds(20)));
  couplet.signal(SIGINT);
  EXPECT_EQ(couplet.wait_exit(std::chrono::seconds(20)), 130) << read_file(errors);
  EXPECT_EQ(slave.process().wait_exit(std::chrono::seconds(5)), 0)
      << "the slave was not deregistered";
  EXPECT_TRUE(std::filesystem::exists(directory / "out" / "summary.json"));
}

TEST(Dcp, ScenarioMistakesAreNamedWithTheirLine) {
  const auto output_of = [](const std::string& text) {
    return couplet_on_text("validate", text, "dcp-validate").output;
  };
  std::string spawned = scenario("5000");
  spawned.replace(spawned.find("link: {"), 7, "link: {spawn: true, ");
  EXPECT_NE(output_of(spawned).find(
                "scenario.yaml:8: slaves.plant.link.spawn: a DCP slave is reached over UDP at its "
                "control endpoint: its link takes udp, timeout and retransmit_timeout only"),
            std::string::npos)
      << output_of(spawned);
  std::string unknown = scenario("5000");
  unknown.replace(unknown.find("offset: 1.5"), 11, "offsett: 1.5");
  EXPECT_NE(output_of(unknown).find("parameters.offsett: no numeric Parameter of that name"),
            std::string::npos)
      << output_of(unknown);
  std::string solver = scenario("5000");
  solver.replace(solver.find("    parameters: {offset"), 0, "    solver: {type: euler}\n");
  EXPECT_NE(
      output_of(solver).find("slaves.plant.solver: a DCP slave has no solver couplet chooses"),
      std::string::npos)
      << output_of(solver);
}

// couplet-target --dcp: a built-in model served as a DCP slave gives, driven
// by couplet's master, exactly what the model gives locally with the same held
// inputs; the target exits after the master deregistered (--once).
TEST(Dcp, CoupletTargetServesAModelAsADcpSlaveBitForBit) {
  const std::string target = binary_beside_couplet("couplet-target");
  ChildProcess served({target, "--dcp", "--model", "translational.mass", "--param", "m=2", "--udp",
                       "127.0.0.1:0", "--once"});
  const std::string endpoint = served.ready_address();
  int exit_code = -1;
  const std::string description = command_output(
      target + " --dcp --model translational.mass --param m=2 --udp " + endpoint + " --describe",
      exit_code);
  ASSERT_EQ(exit_code, 0) << description;
  const auto directory = fresh_directory("dcp-served");
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "mass.dcpx") << description;
  const std::string scenario_text =
      "name: dcp_mass\n"
      "time: {start: 0, end: 2}\n"
      "slaves:\n"
      "  force: {model: stimulus.sine, parameters: {amplitude: 3}}\n"
      "  mass: MASS\n"
      "connections:\n"
      "  - {from: force.y, to: mass.f}\n"
      "algorithm: {type: jacobi, step: 0.01}\n";
  const auto with = [&](const std::string& mass) {
    std::string text = scenario_text;
    return text.replace(text.find("MASS"), 4, mass);
  };
  const CoupletOutcome over_dcp = couplet_on_text(
      "run", with("{dcp: " + (directory / "mass.dcpx").string() + "}"), "dcp-served-run");
  ASSERT_EQ(over_dcp.exit_code, 0) << over_dcp.output;
  const CoupletOutcome local = couplet_on_text(
      "run", with("{model: translational.mass, parameters: {m: 2}}"), "dcp-local-run");
  ASSERT_EQ(local.exit_code, 0) << local.output;
  const auto served_columns = read_columns(over_dcp.out / "signals.csv");
  const auto local_columns = read_columns(local.out / "signals.csv");
  for (const char* column : {"mass.x", "mass.v"}) {
    EXPECT_EQ(served_columns.at(column), local_columns.at(column)) << column;
  }
  EXPECT_EQ(hash_of(over_dcp.out), hash_of(local.out));
  EXPECT_EQ(served.wait_exit(std::chrono::seconds(5)), 0);

  // A description of another slave (another UUID) is refused at registration.
  ChildProcess other(
      {target, "--dcp", "--model", "translational.mass", "--udp", "127.0.0.1:0", "--once"});
  const std::string other_endpoint = other.ready_address();
  std::string foreign = description;
  const std::size_t uuid = foreign.find("uuid=\"") + 6;
  foreign[uuid] = foreign[uuid] == '0' ? '1' : '0';
  std::ofstream(directory / "foreign.dcpx") << foreign;
  const CoupletOutcome refused =
      couplet_on_text("run",
                      with("{dcp: " + (directory / "foreign.dcpx").string() + ", link: {udp: \"" +
                           other_endpoint + "\"}}"),
                      "dcp-served-foreign");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("it refused STC_register (sequence 0) with RSP_nack INVALID_UUID "
                                "(0x2011): the UUID is not the slave's"),
            std::string::npos)
      << refused.output;
}

TEST(Dcp, ModelsDescribesTheSlave) {
  int exit_code = -1;
  const std::string text = command_output(
      std::string(COUPLET_BINARY) + " models " + kDcpDirectory + "/integrator.dcpx", exit_code);
  EXPECT_EQ(exit_code, 0) << text;
  for (const char* line :
       {"DCP slave 'integrator'",
        "modes: SoftRealTime NonRealTime (default steps 1, variable, min 1, max 1000)",
        "time resolutions: 1..1000/1000 s", "gain  Input Int32, vr 3, start 1",
        "label  Input String, vr 6"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace couplet::testing
