// Slaves behind links (issue 5, docs/links.md): in virtual time a remote slave gives
// exactly the results of the same slave run locally — signals.csv byte for byte
// and the decision hash — over UDP loopback, through couplet-netem with loss,
// duplication and reordering, and over a pseudo-terminal; a killed target ends
// the run within the link timeout, naming the slave.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "host_tools/process/target_process.hpp"
#include "host_tools/process_support.hpp"
#include "host_tools/test_support.hpp"
#include "support/sanitizer.hpp"

namespace couplet::testing {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  nlohmann::json summary;
  std::string signals;
};

Outcome run_case(std::vector<std::string> assignments, const std::string& name) {
  const nlohmann::json summary = run("two_mass_switch.yaml", assignments, name);
  return {summary, read_file(run_directory(name) / "signals.csv")};
}

void expect_identical(const Outcome& local, const Outcome& remote) {
  EXPECT_EQ(remote.summary.at("decision_hash"), local.summary.at("decision_hash"));
  EXPECT_EQ(remote.summary.at("macro_steps"), local.summary.at("macro_steps"));
  EXPECT_FALSE(local.signals.empty());
  EXPECT_TRUE(remote.signals == local.signals) << "signals.csv differs";
  EXPECT_EQ(remote.summary.at("evaluation").at("interpolated_slaves"), nlohmann::json::array())
      << "the target reports grid samples, as a local slave does";
}

const std::string kEarlySwitch = "slaves.right.parameters.switch_time=6";

struct AlgorithmCase {
  const char* label;
  std::vector<std::string> settings;
};

// Each algorithm that has landed. The switch of the right mass is moved to
// t = 6 s so that a short horizon covers it (the same in both runs).
std::vector<AlgorithmCase> algorithms() {
  return {
      {"jacobi_zoh",
       {"algorithm={type: jacobi, step: 0.01, input_order: 0}", "time.end=12", kEarlySwitch}},
      {"jacobi_taylor",
       {"algorithm={type: jacobi, step: 0.02, input_order: 1}", "time.end=12", kEarlySwitch}},
      {"defect_control",
       {"algorithm={type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}", "time.end=12",
        kEarlySwitch}},
      {"f3ornits", {"algorithm={type: f3ornits}", "time.end=12", kEarlySwitch}},
  };
}

class RemoteOverUdp : public ::testing::TestWithParam<AlgorithmCase> {};

TEST_P(RemoteOverUdp, SpawnedTargetGivesIdenticalResults) {
  const AlgorithmCase& algorithm = GetParam();
  Outcome local;
  try {
    local = run_case(algorithm.settings, std::string("udp-local-") + algorithm.label);
  } catch (const ConfigurationError& error) {
    GTEST_SKIP() << algorithm.label << " is not available yet: " << error.what();
  }
  std::vector<std::string> remote_settings = algorithm.settings;
  remote_settings.push_back("slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}");
  const Outcome remote = run_case(remote_settings, std::string("udp-remote-") + algorithm.label);
  expect_identical(local, remote);
  const auto& counters = remote.summary.at("links").at("right");
  EXPECT_GT(counters.at("requests").get<int>(), 0);
  EXPECT_EQ(counters.at("drops").get<int>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Algorithms, RemoteOverUdp, ::testing::ValuesIn(algorithms()),
                         [](const auto& test) { return std::string(test.param.label); });

// Both slaves remote at once: the left one (no feedthrough) too.
TEST(RemoteOverUdpBoth, TwoSpawnedTargetsGiveIdenticalResults) {
  const std::vector<std::string> settings = {"time.end=30", "algorithm.step=0.01"};
  const Outcome local = run_case(settings, "both-local");
  std::vector<std::string> remote_settings = settings;
  remote_settings.push_back("slaves.left.link={spawn: true, udp: \"127.0.0.1:0\"}");
  remote_settings.push_back("slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}");
  expect_identical(local, run_case(remote_settings, "both-remote"));
}

// Busy polling on the master and both spawned targets changes timing only.
TEST(RemoteOverUdpBoth, BusyPollingGivesIdenticalResults) {
  const std::vector<std::string> settings = {"time.end=10", "algorithm.step=0.01"};
  const Outcome local = run_case(settings, "busy-local");
  std::vector<std::string> remote_settings = settings;
  remote_settings.push_back(
      "slaves.left.link={spawn: true, udp: \"127.0.0.1:0\", busy_poll: 0.0002}");
  remote_settings.push_back(
      "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\", busy_poll: 0.0002}");
  expect_identical(local, run_case(remote_settings, "busy-remote"));
}

// 20 % loss, 5 % duplication and 5 % reordering in each direction; the
// reorder gap exceeds the retransmission timeout, so held-back requests arrive
// after their retransmission: stale ones the target must ignore.
TEST(RemoteThroughNetem, LossDuplicationAndReorderingChangeNothing) {
  ChildProcess target({binary_beside_couplet("couplet-target"), "--model",
                       "translational.coupled_mass", "--udp", "127.0.0.1:0"});
  const std::string target_address = target.ready_address();
  ChildProcess netem({binary_beside_couplet("couplet-netem"), "--listen", "127.0.0.1:0",
                      "--forward", target_address, "--loss", "0.2", "--duplicate", "0.05",
                      "--reorder", "0.05", "--reorder-gap", "3", "--seed", "11"});
  const std::string netem_address = netem.ready_address();

  for (const AlgorithmCase& algorithm :
       {AlgorithmCase{"jacobi", {"algorithm.step=0.01", "time.end=8"}},
        AlgorithmCase{"defect_control",
                      {"algorithm={type: defect_control, tol: 1.0e-4, step: 0.01, input_order: 1}",
                       "time.end=8"}},
        AlgorithmCase{"f3ornits", {"algorithm={type: f3ornits}", "time.end=8"}}}) {
    const Outcome local =
        run_case(algorithm.settings, std::string("netem-local-") + algorithm.label);
    std::vector<std::string> remote_settings = algorithm.settings;
    remote_settings.push_back("slaves.right.link={udp: \"" + netem_address +
                              "\", retransmit_timeout: 0.001, timeout: 5}");
    const Outcome remote =
        run_case(remote_settings, std::string("netem-remote-") + algorithm.label);
    expect_identical(local, remote);
    const auto& counters = remote.summary.at("links").at("right");
    EXPECT_GT(counters.at("retransmissions").get<int>(), 50) << counters.dump();
    EXPECT_GT(counters.at("duplicates").get<int>(), 5) << counters.dump();
  }
}

TEST(RemoteOverSerial, PseudoTerminalGivesIdenticalResults) {
  const std::vector<std::string> settings = {"time.end=12", "algorithm.step=0.01", kEarlySwitch};
  const Outcome local = run_case(settings, "pty-local");
  std::vector<std::string> remote_settings = settings;
  remote_settings.push_back("slaves.right.link={spawn: true, serial: {device: pty, baud: 115200}}");
  const Outcome remote = run_case(remote_settings, "pty-remote");
  expect_identical(local, remote);
  EXPECT_NE(
      remote.summary.at("links").at("right").at("link").get<std::string>().find("serial /dev/pts/"),
      std::string::npos);
}

// docs/cli.md "Exit codes": a dead peer ends the run with a non-zero exit code and a
// one-line message naming the slave, within the configured timeout.
TEST(RemoteTargetKilled, RunEndsWithinTheTimeoutNamingTheSlave) {
  ChildProcess target({binary_beside_couplet("couplet-target"), "--model",
                       "translational.coupled_mass", "--udp", "127.0.0.1:0"});
  const std::string address = target.ready_address();
  const auto directory = fresh_directory("killed-target");
  const std::string errors =
      (std::filesystem::temp_directory_path() / "couplet-test-killed-target.err").string();
  ChildProcess couplet(
      {COUPLET_BINARY, "run", scenario_path("two_mass_switch.yaml"), "-o", directory.string(),
       "--set", "algorithm.step=0.005", "--set",
       "slaves.right.link={udp: \"" + address + "\", timeout: 0.5, retransmit_timeout: 0.01}"},
      errors);
  std::this_thread::sleep_for(400ms);
  ASSERT_TRUE(couplet.running()) << "the run ended before the target was killed";
  target.signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  const std::optional<int> exit_code = couplet.wait_exit(5s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  ASSERT_TRUE(exit_code.has_value()) << "couplet still running 5 s after the target died";
  EXPECT_EQ(*exit_code, 1);
  // (An instrumented couplet takes longer to exit, LeakSanitizer scanning its
  // heap, more so on a loaded machine: 2.56 s was seen; the plain build holds
  // the 1 s bound.)
  EXPECT_LT(seconds, 0.5 + (kSanitized ? 4.0 : 1.0))
      << "detected within the 0.5 s timeout (plus scheduling and exit on a loaded machine)";
  const std::string message = read_file(errors);
  EXPECT_NE(message.find("slave 'right'"), std::string::npos) << message;
  EXPECT_NE(message.find("nothing heard"), std::string::npos) << message;
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << "one line: " << message;
}

TEST(LinkScenario, RejectsInconsistentLinks) {
  const auto load = [](const std::string& link) {
    return tools::load_scenario(scenario_path("two_mass_switch.yaml"),
                                {{"slaves.right.link", link}});
  };
  EXPECT_THROW(load("{udp: \"127.0.0.1:0\"}"), ConfigurationError) << "port 0 needs spawn";
  EXPECT_THROW(load("{udp: \"127.0.0.1:5000\", serial: {device: /dev/ttyS0}}"), ConfigurationError);
  EXPECT_THROW(load("{spawn: true, serial: {device: /dev/ttyS0}}"), ConfigurationError);
  EXPECT_THROW(load("{udp: \"nonsense\"}"), ConfigurationError);
  EXPECT_THROW(load("{udp: \"127.0.0.1:5000\", timeout: -1}"), ConfigurationError);
  EXPECT_THROW(load("{udp: \"127.0.0.1:5000\", colour: blue}"), ConfigurationError);
  EXPECT_NO_THROW(load("{serial: {device: /dev/ttyUSB0, baud: 921600}, timeout: 1}"));
  try {
    load("{serial: {device: /dev/ttyUSB0}, busy_poll: 0.0001}");
    ADD_FAILURE() << "busy polling a serial line";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(
        std::string(error.what()).find("slaves.right.link.busy_poll: applies to udp links only"),
        std::string::npos)
        << error.what();
  }
}

// `program:` without a slash is kept as a name (looked up on PATH when it
// starts); `arguments:` replace the target options and need a program. Errors
// name the scenario element.
TEST(LinkScenario, ProgramOnPathWithArgumentsOfItsOwn) {
  const auto load = [](const std::string& link) {
    return tools::load_scenario(scenario_path("two_mass_switch.yaml"),
                                {{"slaves.right.link", link}});
  };
  const auto message = [&](const std::string& link) {
    try {
      load(link);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const tools::Scenario scenario =
      load("{spawn: true, program: sh, arguments: [-c, \"exit 3\"], serial: {device: pty}}");
  const tools::LinkSpec& link = *scenario.slaves.at(1).link;
  EXPECT_EQ(link.program, "sh") << "looked up on PATH when started, not when parsed";
  EXPECT_EQ(link.arguments, (std::vector<std::string>{"-c", "exit 3"}));
  EXPECT_FALSE(
      load("{spawn: true, program: sh, serial: {device: pty}}").slaves.at(1).link->arguments);

  const std::string without_program =
      message("{spawn: true, arguments: [-x], serial: {device: pty}}");
  EXPECT_NE(without_program.find("slaves.right.link.arguments: arguments are those of a program to "
                                 "start; they need program:"),
            std::string::npos)
      << without_program;
  const std::string not_a_list =
      message("{spawn: true, program: sh, arguments: -x, serial: {device: pty}}");
  EXPECT_NE(not_a_list.find("slaves.right.link.arguments: expected a list of words"),
            std::string::npos)
      << not_a_list;
}

// QEMU announces a board's UART on a pty with "char device redirected to
// /dev/pts/N (label serial0)", possibly after other lines: the spawned
// program's serial line is taken from it.
TEST(LinkSpawn, TakesTheSerialLineFromQemusAnnouncement) {
  const auto target =
      tools::TargetProcess::spawn("/bin/sh",
                                  {"-c",
                                   "echo 'some warning'; echo 'char device redirected to "
                                   "/dev/pts/77 (label serial0)'; exec sleep 10"},
                                  "left", std::chrono::seconds(5));
  EXPECT_EQ(target->kind(), "serial");
  EXPECT_EQ(target->address(), "/dev/pts/77");
  try {
    tools::TargetProcess::spawn("/bin/sh", {"-c", "echo 'nothing useful'; exit 4"}, "left",
                                std::chrono::seconds(5));
    ADD_FAILURE() << "a program that never announces a line must fail";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("slave 'left': the spawned sh did not start: "),
              std::string::npos)
        << error.what();
  }
  // A name without a slash is looked up on PATH.
  EXPECT_EQ(
      tools::TargetProcess::spawn("sh", {"-c", "echo 'x ready serial /dev/pts/78'; exec sleep 10"},
                                  "left", std::chrono::seconds(5))
          ->address(),
      "/dev/pts/78");
  try {
    tools::TargetProcess::spawn("couplet-no-such-program", {}, "left", std::chrono::seconds(5));
    ADD_FAILURE() << "a program missing from PATH must fail";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("slave 'left': no program 'couplet-no-such-program' to spawn on PATH"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace couplet::testing
