// The readers of a run log on a log of several gigabytes, each under an
// address-space limit (`ulimit -v`) of an eighth of the log's size: replay,
// inspect, export (communication and grid rows), compare, report and the
// Python module's read_table stream the log, so a day-long run can be analysed on a machine
// with less memory than its log (docs/run-log.md "Reading a long log").
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "host_tools/test_support.hpp"
#include "support/sanitizer.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

/// The address space every reader gets (ulimit -v, KiB): 256 MiB.
constexpr std::uint64_t kLimitKiB = 256 * 1024;

/// `command` under the address-space limit; its exit code and output.
std::string limited(const std::string& command, int& exit_code) {
  return command_output("ulimit -v " + std::to_string(kLimitKiB) + "; " + command, exit_code);
}

TEST(LongLog, EveryStreamingReaderWorksUnderAnEighthOfItsSizeInMemory) {
  // A sanitizer reserves terabytes of address space for its shadow memory.
  if (kSanitized) GTEST_SKIP() << "address-space limits are for the plain build";
  const fs::path directory = fresh_directory("long-log");
  const fs::path out = directory / "out";
  // The two-mass switch at 2 ms macro steps logs about 0.23 MB per simulated
  // second: 9500 s give 2.2 GB in three segments.
  const std::string binary = COUPLET_BINARY;
  int code = -1;
  const std::string run =
      command_output(binary + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set algorithm.step=0.002 --set time.end=9500 --set reference=none"
                         " --set evaluation.grid=0.5 --set limits.run_log_bytes=8e9 -q -o " +
                         out.string(),
                     code);
  ASSERT_EQ(code, 0) << run;
  const std::string log = (out / "run.log").string();
  std::uint64_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().starts_with("run")) bytes += entry.file_size();
  }
  ASSERT_GT(bytes, kLimitKiB * 1024 * 8) << "a log of more than eight times the limit";
  ASSERT_TRUE(fs::exists(out / "run.3.log")) << "three segments";

  // Two logs at once, in step: the run against itself has the same signals
  // and decisions.
  const std::string compared = limited(binary + " compare " + log + ' ' + log, code);
  EXPECT_EQ(code, 0) << compared;
  EXPECT_NE(compared.find("same decisions"), std::string::npos) << compared;

  const std::string replay = limited(binary + " replay --verify " + log, code);
  EXPECT_EQ(code, 0) << replay;
  EXPECT_NE(replay.find("4750000 macro steps"), std::string::npos) << replay;
  EXPECT_NE(replay.find("every recorded decision reproduced bit for bit"), std::string::npos)
      << replay;

  const std::string inspect = limited(binary + " inspect " + log, code);
  EXPECT_EQ(code, 0) << inspect;
  EXPECT_NE(inspect.find("4750000 macro steps up to t = 9500 s"), std::string::npos) << inspect;

  // One communication row per macro step and the start, and a header.
  const std::string rows = limited(binary + " export " + log + " | wc -l", code);
  EXPECT_EQ(code, 0) << rows;
  EXPECT_EQ(std::stoull(rows), 4750002U) << rows;
  // The grid rows are signals.csv's, byte for byte.
  const fs::path grid = directory / "grid.csv";
  const std::string exported =
      limited(binary + " export " + log + " --grid --csv " + grid.string(), code);
  EXPECT_EQ(code, 0) << exported;
  EXPECT_EQ(read_file(grid), read_file(out / "signals.csv"));

  // The report's series are decimated to what a plot shows.
  const fs::path page = directory / "report.html";
  const std::string report =
      limited(binary + " report " + out.string() + " -o " + page.string(), code);
  EXPECT_EQ(code, 0) << report;
  EXPECT_NE(read_file(page).find("points shown of"), std::string::npos);

  const fs::path module_directory = fs::path(binary).parent_path() / "python";
  if (fs::exists("/usr/bin/python3") && fs::exists(module_directory)) {
    const std::string python = limited(
        "PYTHONPATH=" + module_directory.string() +
            " /usr/bin/python3 -c \"import couplet, sys; t = couplet.read_table(sys.argv[1], "
            "columns=['left.x'], every=100.0); print(len(t['time_s']), t['time_s'][-1])\" " +
            log,
        code);
    EXPECT_EQ(code, 0) << python;
    EXPECT_NE(python.find("96 9500.0"), std::string::npos) << python;
    // The contrast: reading the log whole cannot stay within the limit.
    limited("PYTHONPATH=" + module_directory.string() +
                " /usr/bin/python3 -c \"import couplet, sys; couplet.read_log(sys.argv[1])\" " +
                log,
            code);
    EXPECT_NE(code, 0) << "read_log reads the log whole: it should not fit";
  }
  fs::remove_all(directory);
}

}  // namespace
}  // namespace couplet::testing
