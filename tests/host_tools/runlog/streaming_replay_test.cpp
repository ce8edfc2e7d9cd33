// `couplet replay`, `couplet inspect`, `couplet export` (communication or grid
// rows as CSV), `couplet compare`, `couplet report`, `couplet resim`,
// `couplet watch` and the Python module's read_table stream the log
// (host_tools/runlog/run_log_stream.hpp, log_inspect.hpp, log_export.hpp,
// host_tools/report/report_digest.hpp): their memory does not grow with the log's length, where
// reading a log whole takes about four times the log's size.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "host_tools/report/report.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/run_log_stream.hpp"
#include "host_tools/test_support.hpp"
#include "support/sanitizer.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

/// Runs `arguments` (stdout and stderr to /dev/null); returns its exit code
/// and peak resident memory in bytes.
struct Finished {
  int exit_code = -1;
  std::uint64_t peak_bytes = 0;
};

Finished run_measured(std::vector<std::string> arguments) {
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  ::wait4(child, &status, 0, &usage);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          static_cast<std::uint64_t>(usage.ru_maxrss) * 1024};
}

/// The two-mass switch at 2 ms steps over `seconds`: 0.24 MB of log per second.
fs::path logged_run(const std::string& name, int seconds) {
  const fs::path out = fresh_directory(name) / "out";
  int code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set algorithm.step=0.002 --set time.end=" + std::to_string(seconds) +
                         " -q -o " + out.string(),
                     code);
  EXPECT_EQ(code, 0) << output;
  return out / "run.log";
}

TEST(StreamingReplay, MemoryDoesNotGrowWithTheLogsLength) {
  // A sanitizer's quarantine and shadow memory grow with what was allocated.
  if (kSanitized) GTEST_SKIP() << "resident memory is measured in the plain build";
  const fs::path short_log = logged_run("streaming-replay-short", 20);
  const fs::path long_log = logged_run("streaming-replay-long", 200);
  const std::uint64_t long_bytes = fs::file_size(long_log);
  ASSERT_GT(long_bytes, std::uint64_t{40} << 20);
  // Ten times the log, the same memory (a few MiB of slack for the allocator).
  // The report reads signals.csv and summary.json beside the log as well.
  const fs::path pages = fresh_directory("streaming-report");
  fs::create_directories(pages);
  const std::string page = (pages / "report.html").string();
  const std::string resimulated = (pages / "resim").string();
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"replay", "--verify"}, std::vector<std::string>{"inspect"},
        std::vector<std::string>{"export"}, std::vector<std::string>{"export", "--grid"},
        std::vector<std::string>{"compare", "LOG"}, std::vector<std::string>{"report", "-o", page},
        std::vector<std::string>{"resim", "left", "-o", resimulated},
        std::vector<std::string>{"watch", "--live", "0", "--live-linger", "0"}}) {
    const auto measured = [&](const fs::path& log) {
      std::vector<std::string> arguments{COUPLET_BINARY, command[0], log.string()};
      for (auto argument = command.begin() + 1; argument != command.end(); ++argument)
        arguments.push_back(*argument == "LOG" ? log.string() : *argument);  // the log again
      const Finished finished = run_measured(arguments);
      EXPECT_EQ(finished.exit_code, 0) << command[0] << ' ' << log;
      return finished.peak_bytes;
    };
    const std::uint64_t short_peak = measured(short_log);
    const std::uint64_t long_peak = measured(long_log);
    EXPECT_LT(long_peak, short_peak + (std::uint64_t{8} << 20))
        << command[0] << ": " << short_peak << " bytes for the short log, " << long_peak
        << " for the long one";
    EXPECT_LT(long_peak, long_bytes / 2) << command[0];
  }
  // The Python module's read_table streams too.
  const fs::path module_directory = fs::path(COUPLET_BINARY).parent_path() / "python";
  if (fs::exists("/usr/bin/python3") && fs::exists(module_directory)) {
    const auto python_peak = [&](const fs::path& log) {
      const Finished finished = run_measured(
          {"/usr/bin/env", "PYTHONPATH=" + module_directory.string(), "/usr/bin/python3", "-c",
           "import couplet, sys; t = couplet.read_table(sys.argv[1], grid=True, "
           "columns=['left.x'], every=0.5); "
           "sys.exit(0 if len(t['time_s']) > 40 else 1)",
           log.string()});
      EXPECT_EQ(finished.exit_code, 0) << "read_table " << log;
      return finished.peak_bytes;
    };
    const std::uint64_t short_peak = python_peak(short_log);
    EXPECT_LT(python_peak(long_log), short_peak + (std::uint64_t{8} << 20)) << "read_table";
    // Reading it whole, as read_log does, takes several times the log.
    const Finished whole = run_measured(
        {"/usr/bin/env", "PYTHONPATH=" + module_directory.string(), "/usr/bin/python3", "-c",
         "import couplet, sys; couplet.read_log(sys.argv[1])", long_log.string()});
    ASSERT_EQ(whole.exit_code, 0);
    EXPECT_GT(whole.peak_bytes, long_bytes);
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The report of a run directory, its log streamed and signals.csv read row by
// row, is the page of the log read whole with the files' text: over the
// budget of points per series as well (a 20 s run at 2 ms has 10000 steps).
TEST(StreamingReport, IsThePageOfTheWholeLog) {
  const fs::path log_path = logged_run("streaming-report-page", 20);
  const fs::path page = log_path.parent_path() / "streamed.html";
  int code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " report " + log_path.parent_path().string() +
                         " -o " + page.string(),
                     code);
  ASSERT_EQ(code, 0) << output;
  const tools::RunLog whole = tools::read_run_log(log_path.string());
  ASSERT_GT(whole.plans.size(), 4000U);
  const std::string expected =
      tools::render_report(whole, {read_file(log_path.parent_path() / "signals.csv"),
                                   read_file(log_path.parent_path() / "summary.json")});
  EXPECT_TRUE(read_file(page) == expected) << "the streamed report differs from " << page;
  EXPECT_NE(expected.find("points shown of"), std::string::npos);
}

// inspect read record by record says what it says of the log read whole, for
// slaves behind links too (the step round trips' median and maximum), over
// more calls and plans than it holds at once.
TEST(StreamingInspect, SaysWhatTheWholeLogSays) {
  const fs::path out = fresh_directory("streaming-inspect") / "out";
  int code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set time.end=10 --set algorithm.step=0.001"
                         " --set 'slaves.left.link={spawn: true, udp: \"127.0.0.1:0\"}' -q -o " +
                         out.string(),
                     code);
  ASSERT_EQ(code, 0) << output;
  const std::string path = (out / "run.log").string();
  const tools::RunLog whole = tools::read_run_log(path);
  ASSERT_GT(whole.plans.size(), 9000U);
  const tools::LogInspection streamed = tools::inspect_log(path);
  EXPECT_EQ(streamed.text, tools::inspect_text(whole));
  EXPECT_NE(streamed.text.find("left: step round trip median "), std::string::npos)
      << streamed.text;
  EXPECT_NE(streamed.text.find("10000 macro steps up to t = 10 s"), std::string::npos)
      << streamed.text;
  EXPECT_TRUE(streamed.tail_problem.empty());
}

// Streamed or read whole, the same calls and plans in the same order.
TEST(StreamingReplay, TheStreamYieldsTheCallsAndPlansOfTheWholeLog) {
  const fs::path log_path = logged_run("streaming-replay-order", 20);
  const tools::RunLog whole = tools::read_run_log(log_path.string());
  tools::RunLogStream stream(log_path.string());
  std::uint64_t plan = 0;
  for (std::size_t c = 0; c < whole.calls.size(); ++c) {
    const tools::LoggedCall* call = stream.next_call();
    ASSERT_NE(call, nullptr) << "call " << c;
    EXPECT_EQ(call->plan, whole.calls[c].plan);
    EXPECT_EQ(call->kind, whole.calls[c].kind);
    EXPECT_EQ(call->end, whole.calls[c].end);
    EXPECT_EQ(call->samples, whole.calls[c].samples);
    // The plan records up to the call's plan, asked for as replay asks.
    for (; plan < call->plan; ++plan) {
      const tools::LoggedPlan* record = stream.plan(plan + 1);
      ASSERT_NE(record, nullptr);
      EXPECT_EQ(record->frontier, whole.plans[plan].frontier);
    }
  }
  EXPECT_EQ(stream.next_call(), nullptr);
  EXPECT_EQ(stream.calls_taken(), whole.calls.size());
  EXPECT_EQ(stream.read_to_end(), 0U);
  ASSERT_TRUE(stream.log().end_record.has_value());
  EXPECT_EQ(stream.log().end_record->decision_hash, whole.end_record->decision_hash);
  EXPECT_EQ(stream.log().frames, whole.frames);
}

}  // namespace
}  // namespace couplet::testing
