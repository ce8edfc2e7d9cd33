// Segmented run logs (docs/run-log.md "Segments"): a log longer than
// limits.run_log_segment_bytes goes on in run.2.log, run.3.log, ...; every
// reader reads the segments as one log, with the results of an unsegmented
// one; a segment cut, missing or of another run keeps what came before it.
#include <gtest/gtest.h>

#include <boost/endian/conversion.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/run_log_frame.hpp"

namespace couplet::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kSegmentBytes = std::uint64_t{1} << 20;

/// `couplet run` of the two-mass switch over `seconds` into the fresh directory
/// `name`, with `extra` options.
CoupletOutcome run_two_mass_switch(const std::string& name, int seconds, const std::string& extra) {
  CoupletOutcome outcome;
  outcome.out = fresh_directory(name) / "out";
  outcome.output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set time.end=" + std::to_string(seconds) + " -q -o " +
                         outcome.out.string() + " " + extra,
                     outcome.exit_code);
  return outcome;
}

const std::string kSegmented =
    "--set limits.run_log_segment_bytes=" + std::to_string(kSegmentBytes);

/// The files of the log in `out`: run.log, run.2.log, ... up to the first missing.
std::vector<fs::path> segment_files(const fs::path& out) {
  std::vector<fs::path> files{out / "run.log"};
  for (std::uint32_t number = 2; fs::exists(protocol::log_segment_path(files[0], number)); ++number)
    files.emplace_back(protocol::log_segment_path(files[0], number));
  return files;
}

std::string first_bytes(const fs::path& path, std::size_t count) {
  std::string bytes(count, '\0');
  std::ifstream(path, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(count));
  return bytes;
}

std::string exported_csv(const fs::path& out) {
  int code = -1;
  const fs::path csv = out.parent_path() / "export.csv";
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " export " + (out / "run.log").string() +
                         " --csv " + csv.string(),
                     code);
  EXPECT_EQ(code, 0) << output;
  return read_file(csv);
}

/// A copy of the run directory `out` as `name`, for damaging it.
fs::path copy_of(const fs::path& out, const std::string& name) {
  const fs::path copy = out.parent_path() / name;
  fs::remove_all(copy);
  fs::copy(out, copy);
  return copy;
}

struct Runs {
  CoupletOutcome whole, segmented, compressed;
};

// 50 s of the two-mass switch: a 2.5 MB log, 3 segments of 1 MiB; compressed
// over 200 s: 4.9 MB, 5 segments.
const Runs& runs() {
  static const Runs all{
      run_two_mass_switch("segmented-log-whole", 50, ""),
      run_two_mass_switch("segmented-log-plain", 50, kSegmented),
      run_two_mass_switch("segmented-log-zstd", 200, kSegmented + " --compress-log")};
  return all;
}

TEST(SegmentedLog, ReplaysExportsAndInspectsAsOneLog) {
  const Runs& all = runs();
  ASSERT_EQ(all.whole.exit_code, 0) << all.whole.output;
  ASSERT_EQ(all.segmented.exit_code, 0) << all.segmented.output;
  EXPECT_EQ(segment_files(all.whole.out).size(), 1U);
  const std::vector<fs::path> files = segment_files(all.segmented.out);
  ASSERT_EQ(files.size(), 3U);
  std::uint64_t bytes = 0;
  for (std::size_t s = 0; s < files.size(); ++s) {
    EXPECT_LE(fs::file_size(files[s]), kSegmentBytes) << files[s];
    bytes += fs::file_size(files[s]);
    if (s == 0) continue;
    const std::string header = first_bytes(files[s], protocol::kLogSegmentHeaderBytes);
    EXPECT_EQ(header.substr(0, 8), "COUPSEG1");
    EXPECT_EQ(
        boost::endian::load_little_u32(reinterpret_cast<const unsigned char*>(header.data()) + 8),
        s + 1);
  }
  const auto summary = nlohmann::json::parse(read_file(all.segmented.out / "summary.json"));
  EXPECT_EQ(summary.at("run_log").at("segments").get<int>(), 3);
  EXPECT_EQ(summary.at("run_log").at("bytes").get<std::uint64_t>(), bytes);

  EXPECT_EQ(hash_of(all.segmented.out), hash_of(all.whole.out));
  const tools::RunLog whole = tools::read_run_log((all.whole.out / "run.log").string());
  const tools::RunLog segmented = tools::read_run_log((all.segmented.out / "run.log").string());
  EXPECT_FALSE(segmented.damaged()) << segmented.tail_problem;
  EXPECT_EQ(segmented.frames, whole.frames);
  EXPECT_EQ(segmented.calls.size(), whole.calls.size());
  EXPECT_EQ(segmented.plans.size(), whole.plans.size());
  expect_replayed_and_inspected(all.segmented, "status       completed");
  EXPECT_EQ(exported_csv(all.segmented.out), exported_csv(all.whole.out));
}

TEST(SegmentedLog, CompressedSegmentsReadAsOneLog) {
  const Runs& all = runs();
  ASSERT_EQ(all.compressed.exit_code, 0) << all.compressed.output;
  const std::vector<fs::path> files = segment_files(all.compressed.out);
  ASSERT_GE(files.size(), 4U);
  EXPECT_EQ(first_bytes(files[0], 8), "COUPLOGZ");
  for (std::size_t s = 1; s < files.size(); ++s) {
    EXPECT_EQ(first_bytes(files[s], 8), "COUPSEGZ");
    EXPECT_LE(fs::file_size(files[s]), kSegmentBytes);
  }
  const tools::RunLog log = tools::read_run_log((all.compressed.out / "run.log").string());
  EXPECT_FALSE(log.damaged()) << log.tail_problem;
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_EQ(log.plans.back().frontier, to_ticks(200.0));
  expect_replayed_and_inspected(all.compressed, "status       completed");
}

// Cut, missing or foreign: the log keeps the frames of the segments before.
TEST(SegmentedLog, ADamagedSegmentKeepsTheSegmentsBeforeIt) {
  const Runs& all = runs();
  ASSERT_EQ(all.segmented.exit_code, 0) << all.segmented.output;
  const auto frames_of = [](const fs::path& out) {
    return tools::read_run_log((out / "run.log").string());
  };

  // Without its third segment the log ends after the second: a cut run.
  const fs::path missing = copy_of(all.segmented.out, "missing");
  fs::remove(missing / "run.3.log");
  const tools::RunLog two = frames_of(missing);
  EXPECT_TRUE(two.cut());
  EXPECT_FALSE(two.damaged());
  EXPECT_GT(two.frames, 0U);
  EXPECT_LT(two.frames, frames_of(all.segmented.out).frames);

  // Cut inside the third segment: more than two segments' frames, and a cut tail.
  const fs::path cut = copy_of(all.segmented.out, "cut");
  fs::resize_file(cut / "run.3.log", fs::file_size(cut / "run.3.log") / 2);
  const tools::RunLog cut_log = frames_of(cut);
  EXPECT_EQ(cut_log.tail, protocol::LogReadStatus::cut) << cut_log.tail_problem;
  EXPECT_GT(cut_log.frames, two.frames);
  EXPECT_NE(cut_log.tail_problem.find(" of '" + (cut / "run.3.log").string() + "'"),
            std::string::npos)
      << cut_log.tail_problem;

  // Cut inside the third segment's header.
  const fs::path header_cut = copy_of(all.segmented.out, "header-cut");
  fs::resize_file(header_cut / "run.3.log", 10);
  const tools::RunLog header_cut_log = frames_of(header_cut);
  EXPECT_EQ(header_cut_log.frames, two.frames);
  EXPECT_EQ(header_cut_log.tail_problem,
            "segment 3 '" + (header_cut / "run.3.log").string() +
                "': ends inside its header (the run was cut while starting it)");

  // The third segment of another run (the compressed one's third segment is
  // also not plain): refused by what its header says, naming it.
  const CoupletOutcome other = run_two_mass_switch("segmented-log-other", 50, kSegmented);
  ASSERT_EQ(other.exit_code, 0) << other.output;
  const fs::path foreign = copy_of(all.segmented.out, "foreign");
  fs::copy_file(other.out / "run.3.log", foreign / "run.3.log",
                fs::copy_options::overwrite_existing);
  const tools::RunLog foreign_log = frames_of(foreign);
  EXPECT_EQ(foreign_log.tail, protocol::LogReadStatus::corrupted);
  EXPECT_EQ(foreign_log.frames, two.frames);
  EXPECT_EQ(foreign_log.tail_problem.find("segment 3 '" + (foreign / "run.3.log").string() +
                                          "': belongs to another run (identity "),
            0U)
      << foreign_log.tail_problem;
  fs::copy_file(all.compressed.out / "run.3.log", foreign / "run.3.log",
                fs::copy_options::overwrite_existing);
  EXPECT_NE(frames_of(foreign).tail_problem.find(
                "is not a segment of a plain run log (it does not start with COUPSEG1)"),
            std::string::npos);
  // A byte flipped in the header's number.
  fs::copy_file(all.segmented.out / "run.3.log", foreign / "run.3.log",
                fs::copy_options::overwrite_existing);
  {
    std::fstream file(foreign / "run.3.log", std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(8);
    file.put('\x07');
  }
  EXPECT_NE(frames_of(foreign).tail_problem.find("checksum mismatch in its header: corrupted"),
            std::string::npos);
}

// Segments of an earlier run in the same directory are removed, not read on.
TEST(SegmentedLog, ARunRemovesTheSegmentsOfAnEarlierRun) {
  const CoupletOutcome first = run_two_mass_switch("segmented-log-rerun", 50, kSegmented);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ASSERT_TRUE(fs::exists(first.out / "run.3.log"));
  int code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set time.end=5 -q -o " + first.out.string(),
                     code);
  ASSERT_EQ(code, 0) << output;
  EXPECT_EQ(segment_files(first.out).size(), 1U);
  EXPECT_FALSE(fs::exists(first.out / "run.3.log"));
  const tools::RunLog log = tools::read_run_log((first.out / "run.log").string());
  EXPECT_FALSE(log.damaged()) << log.tail_problem;
  EXPECT_EQ(log.plans.back().frontier, to_ticks(5.0));
}

}  // namespace
}  // namespace couplet::testing
