// What the command line prints and writes, as a newcomer meets it: `--set`
// without '=' is a usage error; `couplet report DIR` writes DIR/report.html;
// `export --grid` is signals.csv byte for byte; tables widen to long names and
// say n/a for an NRMSE that summary.json holds as null.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "host_tools/cli/commands.hpp"
#include "host_tools/test_support.hpp"
#include "targets/device_source.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

TEST(CommandLineOutputs, SetWithoutAnEqualsSignIsAUsageError) {
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " validate " +
                         scenario_path("two_mass_switch.yaml") + " --set algorithm.step",
                     exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_NE(output.find("couplet: usage error: "), std::string::npos) << output;
  EXPECT_NE(output.find("usage: --set expects KEY=VALUE (e.g. --set algorithm.step=0.01), got "
                        "'algorithm.step'"),
            std::string::npos)
      << output;
  EXPECT_EQ(output.find("configuration error"), std::string::npos) << output;
}

TEST(CommandLineOutputs, ReportGoesIntoTheRunsDirectoryWithoutOutputOption) {
  run("two_mass_switch.yaml", {"time.end=1", "reference=none"}, "report-here");
  const fs::path run = run_directory("report-here");
  const fs::path elsewhere = fresh_directory("report-cwd");
  fs::create_directories(elsewhere);
  int exit_code = -1;
  const std::string output = command_output(
      "cd " + elsewhere.string() + " && " + COUPLET_BINARY + " report " + run.string(), exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  EXPECT_TRUE(fs::exists(run / "report.html"));
  EXPECT_FALSE(fs::exists(elsewhere / "report.html"));
  EXPECT_NE(output.find("report written to " + (run / "report.html").string()), std::string::npos)
      << output;
  // -o still chooses the file.
  const std::string chosen = (elsewhere / "mine.html").string();
  command_output(std::string(COUPLET_BINARY) + " report " + run.string() + " -o " + chosen,
                 exit_code);
  EXPECT_EQ(exit_code, 0);
  EXPECT_TRUE(fs::exists(chosen));
}

TEST(CommandLineOutputs, ExportGridIsSignalsCsvByteForByte) {
  for (const std::vector<std::string>& assignments :
       {std::vector<std::string>{"time.end=2", "reference=none"},
        std::vector<std::string>{"time.end=2", "reference=none",
                                 "evaluation.signals=[right.f, left.x]"},
        std::vector<std::string>{"time.end=2", "reference=none", "evaluation.signals=[]"}}) {
    run("two_mass_switch.yaml", assignments, "export-as-signals");
    const fs::path run = run_directory("export-as-signals");
    const std::string grid_csv = (run / "grid.csv").string();
    int exit_code = -1;
    const std::string output =
        command_output(std::string(COUPLET_BINARY) + " export " + (run / "run.log").string() +
                           " --grid --csv " + grid_csv,
                       exit_code);
    ASSERT_EQ(exit_code, 0) << output;
    const std::string signals = read_file(run / "signals.csv");
    ASSERT_FALSE(signals.empty());
    EXPECT_EQ(read_file(grid_csv), signals) << assignments.back();
  }
}

TEST(CommandLineOutputs, SummaryTableWidensToLongNamesAndSaysNotAvailable) {
  const nlohmann::json summary = {
      {"scenario", "ft"},
      {"algorithm", "jacobi"},
      {"errors",
       {{"ft.Float64_continuous_output",
         {{"nrmse_pct", std::numeric_limits<double>::infinity()}, {"rmse", 0.5}}},
        {"ft.y", {{"nrmse_pct", nullptr}, {"rmse", nullptr}}},
        {"ft.x", {{"nrmse_pct", 1.25}, {"rmse", 0.001}}}}}};
  const std::string table = tools::summary_table(summary);
  EXPECT_NE(table.find("    ft.Float64_continuous_output     NRMSE n/a   RMSE 5.000e-01\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("    ft.y" + std::string(29, ' ') + "NRMSE n/a   RMSE n/a\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("    ft.x" + std::string(29, ' ') + "NRMSE   1.2500 %   RMSE 1.000e-03\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("inf"), std::string::npos) << table;
}

TEST(CommandLineOutputs, DeviceDescriptionWidensToLongParameterNames) {
  DeviceDescription device;
  device.name = "wide";
  device.parameters = {{"a_parameter_with_a_long_name", 1.5, "V"}, {"k", 2.0, ""}};
  const std::string text = targets::describe_device(device);
  EXPECT_NE(text.find("    a_parameter_with_a_long_name   = 1.5 V\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    k" + std::string(30, ' ') + "= 2\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace couplet::testing
