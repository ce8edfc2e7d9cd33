// `executor: {type: threads, threads: N}` (docs/executors.md): every scenario run
// on the thread pool gives the sequential run's decision hash and signals.csv,
// byte for byte, and its run log replays. Add a scenario (a file, or a generated
// one) to kCases to cover it.
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/generators/chain_generator.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

struct Case {
  const char* name;                      ///< test directory name
  std::string (*scenario_file)();        ///< the scenario's path
  std::vector<std::string> assignments;  ///< shortened so that the table runs in seconds
};
void PrintTo(const Case& test, std::ostream* out) {
  *out << test.name;
}

template <const char* kFile>
std::string in_scenarios() {
  return scenario_path(kFile);
}
constexpr char kTwoMassSwitch[] = "two_mass_switch.yaml";
constexpr char kIfosmondiDamper[] = "ifosmondi_damper.yaml";
constexpr char kDefectControl[] = "rotational_two_mass_defect_control.yaml";
constexpr char kCarTrailer[] = "car_trailer.yaml";

/// The oscillator chain of Kraft and Schweizer (`couplet generate chain`): 60
/// bodies in 6 segments (a wave of 11 steps, one of 5 evaluations), with one of
/// its schemes.
std::string chain_scenario(const char* scheme, int order) {
  tools::ChainScenarioOptions options;
  options.bodies = 60;
  options.subsystems = 6;
  options.end = 2e-3;
  options.step = 2e-5;
  options.scheme = scheme;
  options.order = order;
  options.reference = false;
  const auto path = run_directory(std::string("threads-chain-") + scheme + ".yaml");
  std::ofstream(path) << tools::chain_scenario_yaml(options);
  return path.string();
}
std::string chain_jacobi() {
  return chain_scenario("jacobi", 0);
}
/// §2.3: forces extrapolated through past communication values.
std::string chain_explicit() {
  return chain_scenario("explicit", 2);
}
/// §2.4: predictor, perturbed predictor, linearize, corrector (save/restore).
std::string chain_semi_implicit() {
  return chain_scenario("semi-implicit", 2);
}

// One per kind of master: Jacobi, Gauss–Seidel (one slave per wave), IFOSMONDI
// (save/restore and steps of the same slave in one batch), defect control
// (step-size control, repeated steps), and a chain of many slaves under each of its schemes.
const std::vector<Case> kCases = {
    {"jacobi", in_scenarios<kTwoMassSwitch>, {"time.end=20", "algorithm.input_order=1"}},
    {"gauss_seidel", in_scenarios<kTwoMassSwitch>, {"time.end=20", "algorithm.type=gauss_seidel"}},
    {"ifosmondi", in_scenarios<kIfosmondiDamper>, {"time.end=2"}},
    {"defect_control", in_scenarios<kDefectControl>, {}},
    {"car_trailer_jacobi",
     in_scenarios<kCarTrailer>,
     {"time.end=5", "algorithm={type: jacobi, step: 0.01, input_order: 1}"}},
    {"chain_jacobi", chain_jacobi, {}},
    {"chain_explicit", chain_explicit, {}},
    {"chain_semi_implicit", chain_semi_implicit, {}},
};

std::vector<std::string> with(std::vector<std::string> assignments, const std::string& executor) {
  assignments.push_back("executor=" + executor);
  return assignments;
}

nlohmann::json run_case(const Case& test, const std::vector<std::string>& assignments,
                        const std::string& directory) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(tools::parse_override(assignment));
  return tools::run_scenario(tools::load_scenario(test.scenario_file(), overrides),
                             {fresh_directory(directory).string(), false});
}

class ThreadPoolExecutor : public ::testing::TestWithParam<Case> {};

TEST_P(ThreadPoolExecutor, GivesTheSequentialDecisionHashAndSignalsByteForByte) {
  const Case& test = GetParam();
  const std::string base = std::string("threads-") + test.name;
  const nlohmann::json sequential = run_case(test, test.assignments, base + "-sequential");
  ASSERT_EQ(sequential.at("status"), "completed");
  EXPECT_EQ(sequential.at("executor").at("type"), "sequential");
  const std::string signals = read_file(run_directory(base + "-sequential") / "signals.csv");
  ASSERT_GT(signals.size(), 1000U);
  for (const int threads : {2, 4}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const std::string directory = base + "-" + std::to_string(threads);
    const nlohmann::json threaded = run_case(
        test, with(test.assignments, "{type: threads, threads: " + std::to_string(threads) + "}"),
        directory);
    ASSERT_EQ(threaded.at("status"), "completed");
    EXPECT_EQ(threaded.at("executor").at("type"), "threads");
    EXPECT_EQ(threaded.at("executor").at("threads"), threads);
    EXPECT_EQ(threaded.at("decision_hash"), sequential.at("decision_hash"));
    EXPECT_EQ(threaded.at("macro_steps"), sequential.at("macro_steps"));
    EXPECT_EQ(threaded.at("slave_steps"), sequential.at("slave_steps"));
    EXPECT_EQ(threaded.at("rollbacks"), sequential.at("rollbacks"));
    EXPECT_TRUE(read_file(run_directory(directory) / "signals.csv") == signals)
        << "signals.csv differs";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ThreadPoolExecutor, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           return std::string(param.param.name);
                         });

// Through the command line: --set, and a log that the (sequential) replay
// reproduces bit for bit.
TEST(ThreadPoolExecutorCli, RunsFromSetAndItsLogReplays) {
  const auto directory = fresh_directory("threads-cli");
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run -q " +
                         scenario_path("two_mass_switch.yaml") + " -o " + directory.string() +
                         " --set time.end=5 --set executor.type=threads --set executor.threads=2",
                     exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  const std::string replay = command_output(
      std::string(COUPLET_BINARY) + " replay " + (directory / "run.log").string() + " --verify",
      exit_code);
  EXPECT_EQ(exit_code, 0) << replay;
  EXPECT_NE(replay.find("every recorded decision reproduced bit for bit"), std::string::npos)
      << replay;
}

std::string refusal(const std::vector<std::string>& assignments) {
  try {
    load("two_mass_switch.yaml", assignments);
  } catch (const ConfigurationError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(ThreadPoolExecutorSettings, BadSettingsAreRefusedNamingTheKey) {
  const std::string file = scenario_path("two_mass_switch.yaml") + ": ";
  EXPECT_EQ(refusal({"executor.type=threads", "executor.threads=0"}),
            file + "executor.threads: 0 is out of range (allowed: a whole number from 1 to 1024)");
  EXPECT_NE(refusal({"executor.type=threads", "executor.threads=2.5"}).find("executor.threads"),
            std::string::npos);
  EXPECT_EQ(refusal({"executor.type=fibers"}),
            file + "executor.type: unknown executor 'fibers' (sequential, threads)");
  EXPECT_EQ(refusal({"executor.type=sequential", "executor.threads=2"}),
            file + "executor.threads: only with executor.type threads");
  EXPECT_NE(refusal({"executor.cores=2"}).find("executor.cores: unknown key"), std::string::npos);
  EXPECT_EQ(refusal({"executor=threads"}), "accepted");
  EXPECT_EQ(load("two_mass_switch.yaml", {"executor=threads"}).executor.type,
            tools::ExecutorSettings::Type::threads);
  EXPECT_GE(load("two_mass_switch.yaml", {"executor=threads"}).executor.threads, 1U);
  EXPECT_EQ(load("two_mass_switch.yaml", {}).executor.type,
            tools::ExecutorSettings::Type::sequential);
}

}  // namespace
}  // namespace couplet::testing
