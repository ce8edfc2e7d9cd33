// A run log read while it is written (couplet watch, docs/live.md): a reading
// that stopped at the end of what the file held — between frames, inside a
// frame, a compressed block or a segment's header — resumes where the last
// whole record ended, and the log read so, piece by piece, is the log read
// whole (host_tools/runlog/run_log.hpp RunLogReading::resume,
// protocol/run_log_frame.hpp RunLogReader::resume).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/run_log_frame.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

/// The two-mass switch at 2 ms over 12 s: 2.8 MB of log in three segments of
/// 1 MiB (plain), or one compressed file.
fs::path written_log(const std::string& name, bool compressed) {
  const fs::path out = fresh_directory(name) / "out";
  int code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set algorithm.step=0.002 --set time.end=12 --set "
                         "limits.run_log_segment_bytes=1048576" +
                         (compressed ? " --compress-log" : "") + " -q -o " + out.string(),
                     code);
  EXPECT_EQ(code, 0) << output;
  return out / "run.log";
}

/// The files of the log at `first`: its segments, in order.
std::vector<fs::path> segments_of(const fs::path& first) {
  std::vector<fs::path> segments{first};
  for (std::uint32_t number = 2;; ++number) {
    const fs::path next = protocol::log_segment_path(first.string(), number);
    if (!fs::exists(next)) return segments;
    segments.push_back(next);
  }
}

/// A copy of a log that grows as a writer writes it: every segment in turn,
/// the next one begun once the one before is whole.
class GrowingCopy {
 public:
  GrowingCopy(const fs::path& source, const fs::path& copy) {
    for (const fs::path& segment : segments_of(source)) {
      const std::string bytes = read_file(segment);
      const fs::path target =
          protocol::log_segment_path(copy.string(), static_cast<std::uint32_t>(files_.size() + 1));
      files_.push_back({bytes, files_.size() == 0 ? copy : target});
      total_ += bytes.size();
    }
  }

  std::size_t total() const { return total_; }

  /// Where each segment after the first begins, in the log's bytes.
  std::vector<std::size_t> segment_starts() const {
    std::vector<std::size_t> starts;
    std::size_t offset = 0;
    for (const File& file : files_) {
      if (offset > 0) starts.push_back(offset);
      offset += file.bytes.size();
    }
    return starts;
  }

  /// The first `bytes` of the log, over its segments, are in the copy now.
  void grow_to(std::size_t bytes) {
    std::size_t offset = 0;
    for (File& file : files_) {
      const std::size_t want = std::min(file.bytes.size(), bytes > offset ? bytes - offset : 0);
      if (want > file.written) {
        std::ofstream out(file.path, std::ios::binary | std::ios::app);
        out.write(file.bytes.data() + file.written,
                  static_cast<std::streamsize>(want - file.written));
        file.written = want;
      }
      offset += file.bytes.size();
    }
  }

 private:
  struct File {
    std::string bytes;
    fs::path path;
    std::size_t written = 0;
  };
  std::vector<File> files_;
  std::size_t total_ = 0;
};

/// Reads `source` as it grows by `step` bytes at a time (its first 64 KiB at
/// once: the structure), resuming after every piece; what it read in the end is
/// what read_run_log reads of the whole.
void expect_followed_as_whole(const fs::path& source, std::size_t step) {
  const fs::path copy = source.parent_path() / ("copy-" + std::to_string(step)) / "run.log";
  fs::create_directories(copy.parent_path());
  GrowingCopy growing(source, copy);
  std::size_t written = std::min<std::size_t>(growing.total(), 64 * 1024);
  growing.grow_to(written);
  tools::RunLogReading reading(copy.string());
  std::size_t calls = 0, plans = 0, resumed = 0;
  for (;;) {
    while (reading.read_record()) {
      // The calls so far, but the last while a step's samples may follow it.
      if (!reading.last_was_call()) {
        calls += reading.log().calls.size();
        reading.log().calls.clear();
      }
      plans += reading.log().plans.size();
      reading.log().plans.clear();
    }
    if (reading.log().end_record) break;
    ASSERT_LT(written, growing.total()) << "the whole log is there, and no end record was read";
    ASSERT_TRUE(reading.resume()) << reading.log().tail_problem;
    std::size_t next = std::min(growing.total(), written + step);
    // Stop inside every segment's header on the way too.
    for (const std::size_t start : growing.segment_starts()) {
      if (written < start + 10 && start + 10 < next) next = start + 10;
    }
    written = next;
    growing.grow_to(written);
    ++resumed;
  }
  calls += reading.log().calls.size();
  const tools::RunLog whole = tools::read_run_log(source.string());
  EXPECT_EQ(calls, whole.calls.size());
  EXPECT_EQ(plans, whole.plans.size());
  EXPECT_EQ(reading.log().frames, whole.frames);
  EXPECT_EQ(reading.log().end_record->decision_hash, whole.end_record->decision_hash);
  EXPECT_FALSE(reading.resume()) << "after the end record there is nothing to resume";
  EXPECT_GT(resumed, 10U);
}

TEST(RunLogFollow, APlainLogInSegmentsReadAsItGrowsIsTheWholeLog) {
  const fs::path log = written_log("follow-plain", false);
  ASSERT_EQ(segments_of(log).size(), 3U);
  // 997 bytes: cuts inside frames and between them; and inside each segment's header.
  expect_followed_as_whole(log, 997);
  expect_followed_as_whole(log, 100'003);
}

TEST(RunLogFollow, ACompressedLogReadAsItGrowsIsTheWholeLog) {
  const fs::path log = written_log("follow-compressed", true);
  expect_followed_as_whole(log, 997);
  expect_followed_as_whole(log, 7);
}

// Damage is not a log still being written: it does not resume.
TEST(RunLogFollow, ACorruptedLogDoesNotResume) {
  const fs::path log = written_log("follow-corrupted", false);
  std::string bytes = read_file(log);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
  const fs::path corrupted = log.parent_path() / "corrupted.log";
  std::ofstream(corrupted, std::ios::binary) << bytes;
  tools::RunLogReading reading(corrupted.string());
  while (reading.read_record()) {
    reading.log().calls.clear();
    reading.log().plans.clear();
  }
  ASSERT_EQ(reading.log().tail, protocol::LogReadStatus::corrupted);
  EXPECT_FALSE(reading.resume());
}

}  // namespace
}  // namespace couplet::testing
