// Damaged run logs (issue 6): truncated at any byte or corrupted anywhere, a log
// gives a clear error or what came before the damage — never a crash. Also
// built with AddressSanitizer (tests/CMakeLists.txt, "asan." tests), so that a
// read past a buffer fails the test rather than passing by luck.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/run_log.hpp"

namespace couplet::testing {
namespace {

std::filesystem::path work_directory() {
  return std::filesystem::temp_directory_path() / ("couplet-damage-" + std::to_string(::getpid()));
}

std::vector<char> read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes,
                 std::size_t count) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(count));
}

/// A short real log, written by the couplet binary.
class RunLogDamage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::filesystem::create_directories(work_directory());
    const std::string command = std::string(COUPLET_BINARY) + " run " + COUPLET_SOURCE_DIR +
                                "/scenarios/two_mass_switch.yaml --set time.end=0.3 -o " +
                                (work_directory() / "run").string() + " > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0);
    original_ = new std::vector<char>(read_bytes(work_directory() / "run" / "run.log"));
  }
  static void TearDownTestSuite() {
    delete original_;
    std::filesystem::remove_all(work_directory());
  }

  /// Reads `bytes` as a log: a std::runtime_error naming the file, or a log whose
  /// damage is reported; every tool works on what was read.
  static void expect_handled(const std::vector<char>& bytes, std::size_t count, bool expect_damage,
                             const std::string& what) {
    const auto path = work_directory() / "damaged.log";
    write_bytes(path, bytes, count);
    try {
      const tools::RunLog log = tools::read_run_log(path.string());
      if (expect_damage) {
        EXPECT_TRUE(log.cut()) << what;
        if (log.damaged()) {
          EXPECT_NE(log.tail_problem.find("at byte"), std::string::npos)
              << what << log.tail_problem;
        }
      }
      EXPECT_FALSE(tools::inspect_text(log).empty());
      const tools::LogInspection streamed = tools::inspect_log(path.string());
      EXPECT_EQ(streamed.text, tools::inspect_text(log)) << what;
      EXPECT_EQ(streamed.tail, log.tail) << what;
      EXPECT_FALSE(tools::export_csv(log).empty());
      EXPECT_FALSE(tools::csv_text(tools::grid_table(log, evaluation_grid())).empty());
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos)
          << what << ": " << error.what();
    }
  }

  /// The run's evaluation grid: 0, 0.01, ..., 0.3 s.
  static std::vector<Time> evaluation_grid() {
    std::vector<Time> grid;
    for (Time k = 0; k <= 30; ++k) grid.push_back(k * to_ticks(0.01));
    return grid;
  }

  static std::vector<char>* original_;
};

std::vector<char>* RunLogDamage::original_ = nullptr;

TEST_F(RunLogDamage, TheIntactLogReadsCompletely) {
  const auto path = work_directory() / "intact.log";
  write_bytes(path, *original_, original_->size());
  const tools::RunLog log = tools::read_run_log(path.string());
  EXPECT_FALSE(log.cut());
  EXPECT_FALSE(log.damaged());
  EXPECT_EQ(log.plans.back().macro_steps, 30U);
}

TEST_F(RunLogDamage, TruncationAtAnyByteIsACutNotACrash) {
  const std::size_t size = original_->size();
  const std::size_t stride = std::max<std::size_t>(1, size / 300);
  for (std::size_t count = 0; count < size; count += count < 1500 ? 1 : stride) {
    expect_handled(*original_, count, true, "truncated to " + std::to_string(count) + " bytes");
  }
}

TEST_F(RunLogDamage, TruncationInsideAFrameSaysWhere) {
  const auto path = work_directory() / "cut.log";
  write_bytes(path, *original_, original_->size() - 3);
  const tools::RunLog log = tools::read_run_log(path.string());
  EXPECT_EQ(log.tail, protocol::LogReadStatus::cut);
  EXPECT_NE(log.tail_problem.find("the run was cut while writing it"), std::string::npos)
      << log.tail_problem;
  EXPECT_GT(log.plans.size(), 50U) << "everything before the cut frame is kept";
}

TEST_F(RunLogDamage, CorruptionAnywhereIsDetected) {
  const std::size_t size = original_->size();
  const std::size_t stride = std::max<std::size_t>(1, size / 400);
  for (std::size_t at = 0; at < size; at += at < 600 ? 1 : stride) {
    std::vector<char> bytes = *original_;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5A);
    expect_handled(bytes, size, true, "byte " + std::to_string(at) + " flipped");
  }
}

TEST_F(RunLogDamage, ACorruptedFrameIsNamedWithItsOffset) {
  std::vector<char> bytes = *original_;
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x01);
  const auto path = work_directory() / "corrupted.log";
  write_bytes(path, bytes, bytes.size());
  const tools::RunLog log = tools::read_run_log(path.string());
  EXPECT_EQ(log.tail, protocol::LogReadStatus::corrupted);
  EXPECT_NE(log.tail_problem.find("checksum mismatch"), std::string::npos) << log.tail_problem;
  EXPECT_NE(log.tail_problem.find("frame "), std::string::npos) << log.tail_problem;
}

TEST_F(RunLogDamage, ForeignFilesAreRefusedByName) {
  const auto path = work_directory() / "foreign.log";
  for (const std::string& content :
       {std::string(), std::string("COUPLOG"), std::string("name: not a log\n"),
        std::string("COUPLOG1\xff\xff\xff\x7f", 12)}) {
    write_bytes(path, std::vector<char>(content.begin(), content.end()), content.size());
    try {
      const tools::RunLog log = tools::read_run_log(path.string());
      FAIL() << "read a foreign file";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW(tools::read_run_log((work_directory() / "missing.log").string()),
               std::runtime_error);
}

}  // namespace
}  // namespace couplet::testing
