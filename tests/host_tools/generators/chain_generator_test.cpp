// `couplet generate chain` (docs/chain.md): the generated scenario runs, and its
// Jacobi co-simulation converges to the monolithic reference as the macro step
// shrinks; the chain is split evenly; the schemes and the executor come out as
// the scenario keys they stand for; bad arguments are refused with a message
// naming the option; the committed example scenarios are the generator's output.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "host_tools/test_support.hpp"
#include "support/sanitizer.hpp"

namespace couplet::testing {
namespace {

const std::string kCouplet = COUPLET_BINARY;

std::string generate(const std::string& arguments, int& exit_code) {
  return command_output(kCouplet + " generate chain " + arguments, exit_code);
}

std::string generate(const std::string& arguments) {
  int exit_code = -1;
  const std::string yaml = generate(arguments, exit_code);
  EXPECT_EQ(exit_code, 0) << yaml;
  return yaml;
}

/// Generates into a file, runs `couplet run` on it, returns summary.json.
nlohmann::json generate_and_run(const std::string& arguments, const std::string& name) {
  const std::filesystem::path directory = fresh_directory(name);
  std::filesystem::create_directories(directory);
  const std::string scenario = (directory / "chain.yaml").string();
  int exit_code = -1;
  std::string output = generate(arguments + " -o " + scenario, exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  output = command_output(
      kCouplet + " run " + scenario + " -q --no-log -o " + (directory / "out").string(), exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  return nlohmann::json::parse(read_file(directory / "out" / "summary.json"));
}

TEST(ChainGenerator, JacobiConvergesToTheMonolithicReference) {
  // Taylor inputs of order 1: global error O(H²). Coupling bodies of the middle
  // interfaces, against the reference solved from the same generated file.
  const std::string common =
      "--bodies 12 --subsystems 4 --end 0.002 --order 1 --tolerance 1e-11 --step ";
  const nlohmann::json coarse = generate_and_run(common + "4e-6", "chain-coarse");
  const nlohmann::json fine = generate_and_run(common + "2e-6", "chain-fine");
  for (const std::string signal : {"seg2.x_last", "seg3.x_first", "seg2.v_last", "seg3.v_first"}) {
    const double coarse_error = rmse(coarse, signal);
    const double fine_error = rmse(fine, signal);
    EXPECT_LT(nrmse(fine, signal), 0.01) << signal;  // percent
    EXPECT_GT(coarse_error / fine_error, 3.0) << signal;
    EXPECT_LT(coarse_error / fine_error, 5.5) << signal;
  }
  EXPECT_EQ(coarse.at("algorithm"), "jacobi");
}

// Segments of 50 bodies linearize into far more values than a run-log record
// holds; neither scheme asks them to (the semi-implicit one linearizes only the
// couplings), so the run is logged and replays.
TEST(ChainGenerator, LargeSegmentsRunWithARunLogUnderBothSchemes) {
  for (const std::string scheme : {"explicit", "semi-implicit"}) {
    const std::filesystem::path directory = fresh_directory("chain-large-" + scheme);
    std::filesystem::create_directories(directory);
    const std::string scenario = (directory / "chain.yaml").string();
    int exit_code = -1;
    std::string output =
        generate("--bodies 200 --subsystems 4 --end 1e-4 --step 1e-5 --order 2 --scheme " + scheme +
                     " --reference none -o " + scenario,
                 exit_code);
    ASSERT_EQ(exit_code, 0) << output;
    const std::string out = (directory / "out").string();
    output = command_output(kCouplet + " run " + scenario + " -q -o " + out, exit_code);
    ASSERT_EQ(exit_code, 0) << scheme << ": " << output;
    output = command_output(kCouplet + " replay " + out + "/run.log --verify", exit_code);
    EXPECT_EQ(exit_code, 0) << scheme << ": " << output;
  }
}

// A system of 10 000 slaves (5000 segments and 4999 couplings, 2.9 MB of
// scenario): it validates, runs with a run log whose scenario text (in 32 KiB
// parts) and connections (in records of 512) read back whole, and replays bit
// for bit.
TEST(ChainGenerator, TenThousandSlavesRunWithARunLogAndReplay) {
  // Instrumented, a fifth of the chain (1999 slaves): the whole chain takes 4 minutes
  // under AddressSanitizer, a large part of CI's budget. The plain build runs it whole.
  const std::size_t subsystems = kSanitized ? 1000 : 5000;
  const std::size_t slaves = 2 * subsystems - 1;  // segments and the couplings between them
  const std::filesystem::path directory = fresh_directory("chain-10000");
  std::filesystem::create_directories(directory);
  const std::string scenario = (directory / "chain.yaml").string();
  int exit_code = -1;
  std::string output = generate("--bodies " + std::to_string(4 * subsystems) + " --subsystems " +
                                    std::to_string(subsystems) +
                                    " --end 2e-5 --step 1e-5 --reference none -o " + scenario,
                                exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  ASSERT_GT(std::filesystem::file_size(scenario), 400u * subsystems);
  const std::string out = (directory / "out").string();
  output = command_output(kCouplet + " run " + scenario + " -q -o " + out, exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  output = command_output(kCouplet + " inspect " + out + "/run.log", exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  // Every slave stepped twice, every connection read back (3 per segment end
  // and 3 per coupling input side: 6 per coupling).
  EXPECT_NE(output.find(std::to_string(2 * slaves) + " steps"), std::string::npos) << output;
  std::size_t connections = 0;
  for (const std::string target : {" → seg", " → cpl"}) {
    for (std::size_t at = output.find(target); at != std::string::npos;
         at = output.find(target, at + 1))
      ++connections;
  }
  EXPECT_EQ(connections, 6u * (subsystems - 1));
  output = command_output(kCouplet + " replay " + out + "/run.log --verify", exit_code);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_NE(output.find("every recorded decision reproduced bit for bit"), std::string::npos)
      << output;
}

// CVODE keeping its history across the macro steps (solver history: keep): the
// co-simulation stays as close to the monolithic reference as the restarting one
// (the coupling error dominates, measured 0.0080 % vs 0.0079 % at 1000 bodies),
// and its run log replays bit for bit (the slaves stay deterministic).
TEST(ChainGenerator, KeptSolverHistoryIsAsAccurateAndReplays) {
  const std::string common =
      "--bodies 12 --subsystems 4 --end 0.002 --step 5e-6 --scheme explicit --order 2 "
      "--solver-history ";
  std::map<std::string, nlohmann::json> summaries;
  for (const std::string history : {"restart", "keep"}) {
    const std::filesystem::path directory = fresh_directory("chain-history-" + history);
    std::filesystem::create_directories(directory);
    const std::string scenario = (directory / "chain.yaml").string();
    int exit_code = -1;
    std::string output = generate(common + history + " -o " + scenario, exit_code);
    ASSERT_EQ(exit_code, 0) << output;
    EXPECT_EQ(read_file(scenario).find("history: keep") != std::string::npos, history == "keep");
    const std::string out = (directory / "out").string();
    output = command_output(kCouplet + " run " + scenario + " -q -o " + out, exit_code);
    ASSERT_EQ(exit_code, 0) << history << ": " << output;
    output = command_output(kCouplet + " replay " + out + "/run.log --verify", exit_code);
    EXPECT_EQ(exit_code, 0) << history << ": " << output;
    summaries[history] = nlohmann::json::parse(read_file(directory / "out" / "summary.json"));
  }
  for (const std::string signal : {"seg2.x_last", "seg3.x_first", "seg2.v_last", "seg3.v_first"}) {
    const double restarted = nrmse(summaries["restart"], signal);
    const double kept = nrmse(summaries["keep"], signal);
    EXPECT_LT(kept, 1.05 * restarted) << signal;
    EXPECT_GT(kept, 0.95 * restarted) << signal;
    EXPECT_NE(rmse(summaries["keep"], signal), rmse(summaries["restart"], signal)) << signal;
  }
}

TEST(ChainGenerator, SplitsTheChainEvenly) {
  const std::string yaml = generate("--bodies 10 --subsystems 4");
  EXPECT_NE(yaml.find("{bodies: 3, first_body: 1, chain_bodies: 10, wall_left: 1, wall_right: 0}"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("{bodies: 3, first_body: 4, chain_bodies: 10, wall_left: 0, wall_right: 0}"),
            std::string::npos);
  EXPECT_NE(yaml.find("{bodies: 2, first_body: 7, chain_bodies: 10, wall_left: 0, wall_right: 0}"),
            std::string::npos);
  EXPECT_NE(yaml.find("{bodies: 2, first_body: 9, chain_bodies: 10, wall_left: 0, wall_right: 1}"),
            std::string::npos);
  EXPECT_NE(yaml.find("cpl3: {model: chain.coupling}"), std::string::npos);
  EXPECT_EQ(yaml.find("cpl4"), std::string::npos);
  EXPECT_NE(yaml.find("- {from: cpl2.force, to: seg3.force_left}"), std::string::npos);
  EXPECT_NE(yaml.find("- {from: seg3.x_first, to: cpl2.x_right}"), std::string::npos);
}

TEST(ChainGenerator, SchemesAndExecutorBecomeScenarioKeys) {
  EXPECT_NE(generate("--bodies 6 --subsystems 3 --step 2e-6 --order 2")
                .find("algorithm: {type: jacobi, step: 2e-06, input_order: 2}\n"),
            std::string::npos);
  EXPECT_NE(
      generate("--bodies 6 --subsystems 3 --scheme explicit --step 5e-6 --order 2")
          .find("algorithm: {type: jacobi, step: 5e-06, input_order: 2, inputs: extrapolated}\n"),
      std::string::npos);
  EXPECT_NE(
      generate("--bodies 6 --subsystems 3 --scheme semi-implicit --order 1 --perturbation 10")
          .find(
              "algorithm: {type: semi_implicit, step: 1e-05, input_order: 1, perturbation: 10}\n"),
      std::string::npos);
  const std::string threaded = generate("--bodies 6 --subsystems 3 --threads 2 --reference none");
  EXPECT_NE(threaded.find("executor: {type: threads, threads: 2}\n"), std::string::npos);
  EXPECT_NE(threaded.find("reference: none\n"), std::string::npos);
  EXPECT_EQ(generate("--bodies 6 --subsystems 3").find("executor"), std::string::npos);
}

TEST(ChainGenerator, BadArgumentsAreRefusedByName) {
  const auto refused = [](const std::string& arguments, const std::string& expected) {
    int exit_code = -1;
    const std::string output = generate(arguments, exit_code);
    EXPECT_EQ(exit_code, 2) << arguments << ": " << output;
    EXPECT_NE(output.find(expected), std::string::npos) << arguments << ": " << output;
  };
  refused("--bodies 12 --subsystems 13", "--subsystems 13 exceeds --bodies 12");
  refused("--bodies 12 --subsystems 0", "--subsystems must be >= 1");
  refused("--bodies 0 --subsystems 1", "--bodies must be >= 1");
  refused("--bodies 12", "--subsystems is required");
  refused("--bodies 12 --subsystems 4 --scheme implicit", "--scheme must be jacobi, explicit or");
  refused("--bodies 12 --subsystems 4 --step 0", "--step must be a positive number");
  refused("--bodies 12 --subsystems 4 --step 1 --end 0.1", "--step must not exceed --end");
  refused("--bodies 12 --subsystems 4 --order 4", "--order must be 0, 1, 2 or 3");
  refused("--bodies 12 --subsystems 4 --order 3",
          "--order must be at most 2 under --scheme jacobi");
  refused("--bodies 12 --subsystems 4 --reference dense", "--reference must be monolithic or none");
  refused("--bodies 12 --subsystems 4 --tolerance -1", "--tolerance must be a positive number");
  refused("--bodies 12 --subsystems 4 --solver-history forget",
          "--solver-history must be restart or keep, got 'forget'");
}

TEST(ChainGenerator, ExampleScenariosAreTheGeneratorsOutput) {
  EXPECT_EQ(read_file(scenario_path("chain_small.yaml")),
            generate("--bodies 12 --subsystems 4 --step 5e-6 --order 2 --tolerance 1e-10"));
  EXPECT_EQ(read_file(scenario_path("chain_144.yaml")),
            generate("--bodies 144 --subsystems 48 --step 5e-6 --order 2 --tolerance 1e-10"));
}

TEST(ChainGenerator, ExampleScenarioRunsCloseToTheReference) {
  const nlohmann::json summary = run("chain_small.yaml", {"time.end=0.002"}, "chain-small");
  for (const auto& [signal, error] : summary.at("errors").items()) {
    EXPECT_LT(error.at("nrmse_pct").get<double>(), 0.01) << signal;
  }
  EXPECT_EQ(summary.at("errors").size(), 12u);
}

}  // namespace
}  // namespace couplet::testing
