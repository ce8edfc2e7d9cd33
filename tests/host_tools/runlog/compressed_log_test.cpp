// Compressed run logs (`couplet run --compress-log`, docs/run-log.md
// "Compressed logs"): the same records as the plain log in zstd blocks, read by
// every reader with the same results; a log cut at or inside any block, or with
// a damaged block, keeps every whole block before it.
#include <gtest/gtest.h>

#include <boost/endian/conversion.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"
#include "host_tools/test_support.hpp"
#include "protocol/run_log_block.hpp"

namespace couplet::testing {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void write_bytes(const std::filesystem::path& path, const Bytes& bytes, std::size_t count) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(count));
}

/// Where each block of a compressed log ends (file offsets).
std::vector<std::size_t> block_ends(const Bytes& log) {
  std::vector<std::size_t> ends;
  for (std::size_t at = protocol::kLogMagicBytes;
       at + protocol::kLogBlockHeaderBytes <= log.size();) {
    at += protocol::kLogBlockHeaderBytes + boost::endian::load_little_u32(&log[at]) +
          protocol::kLogBlockChecksumBytes;
    ends.push_back(at);
  }
  return ends;
}

/// The two-mass switch over 20 s, with a plain and a compressed log.
struct Runs {
  CoupletOutcome plain, compressed;
};

/// `couplet run` of the scenario into the fresh directory `name`, with `extra` options.
CoupletOutcome run_two_mass_switch(const std::string& name, const std::string& extra) {
  CoupletOutcome outcome;
  outcome.out = fresh_directory(name) / "out";
  outcome.output =
      command_output(std::string(COUPLET_BINARY) + " run " + scenario_path("two_mass_switch.yaml") +
                         " --set time.end=20 -q -o " + outcome.out.string() + " " + extra,
                     outcome.exit_code);
  return outcome;
}

const Runs& runs() {
  static const Runs both{run_two_mass_switch("compressed-log-plain", ""),
                         run_two_mass_switch("compressed-log-zstd", "--compress-log")};
  return both;
}

TEST(CompressedLog, ReplaysExportsAndInspectsAsThePlainLog) {
  const Runs& both = runs();
  ASSERT_EQ(both.plain.exit_code, 0) << both.plain.output;
  ASSERT_EQ(both.compressed.exit_code, 0) << both.compressed.output;
  EXPECT_EQ(hash_of(both.plain.out), hash_of(both.compressed.out));
  const Bytes compressed = read_bytes(both.compressed.out / "run.log");
  ASSERT_GE(compressed.size(), protocol::kLogMagicBytes);
  EXPECT_EQ(std::string(compressed.begin(), compressed.begin() + 8), "COUPLOGZ");
  // zstd level 3 on 16–64 KiB blocks: about half (2.1× on the 200 s run).
  EXPECT_LT(compressed.size() * 10, std::filesystem::file_size(both.plain.out / "run.log") * 6);

  const tools::RunLog plain_log = tools::read_run_log((both.plain.out / "run.log").string());
  const tools::RunLog compressed_log =
      tools::read_run_log((both.compressed.out / "run.log").string());
  EXPECT_FALSE(compressed_log.damaged()) << compressed_log.tail_problem;
  EXPECT_EQ(compressed_log.frames, plain_log.frames);
  EXPECT_EQ(compressed_log.calls.size(), plain_log.calls.size());
  expect_replayed_and_inspected(both.compressed, "status       completed");
  int code = -1;
  const auto exported = [&](const std::filesystem::path& out) {
    const auto csv = out.parent_path() / "export.csv";
    command_output(std::string(COUPLET_BINARY) + " export " + (out / "run.log").string() +
                       " --csv " + csv.string(),
                   code);
    EXPECT_EQ(code, 0);
    return read_file(csv);
  };
  const std::string plain_csv = exported(both.plain.out);
  EXPECT_FALSE(plain_csv.empty());
  EXPECT_EQ(exported(both.compressed.out), plain_csv);
}

TEST(CompressedLog, ACutLogKeepsEveryWholeBlockBeforeTheCut) {
  const Runs& both = runs();
  ASSERT_EQ(both.compressed.exit_code, 0) << both.compressed.output;
  const Bytes log = read_bytes(both.compressed.out / "run.log");
  const std::vector<std::size_t> ends = block_ends(log);
  ASSERT_GE(ends.size(), 5u);
  ASSERT_EQ(ends.back(), log.size());
  const auto cut_file = both.compressed.out.parent_path() / "cut.log";
  const auto frames_when_cut_at = [&](std::size_t size) {
    write_bytes(cut_file, log, size);
    return tools::read_run_log(cut_file.string());
  };
  std::uint64_t before = 0;
  for (std::size_t b = 0; b < ends.size(); ++b) {
    const std::size_t start = b == 0 ? protocol::kLogMagicBytes : ends[b - 1];
    // Inside the block (its header, its middle, its last byte missing): the
    // frames of the whole blocks before it, and the reader says it was cut.
    for (const std::size_t inside : {start + 4, (start + ends[b]) / 2, ends[b] - 1}) {
      if (b == 0) {  // nothing before it: no header, not a log to read
        EXPECT_THROW(frames_when_cut_at(inside), std::runtime_error);
        continue;
      }
      const tools::RunLog cut = frames_when_cut_at(inside);
      EXPECT_EQ(cut.frames, before) << "cut at " << inside << " in block " << b + 1;
      EXPECT_EQ(cut.tail, protocol::LogReadStatus::cut) << cut.tail_problem;
      EXPECT_NE(cut.tail_problem.find("block " + std::to_string(b + 1) + " at byte offset " +
                                      std::to_string(start)),
                std::string::npos)
          << cut.tail_problem;
    }
    // At its end: every frame of it too.
    const tools::RunLog whole = frames_when_cut_at(ends[b]);
    EXPECT_GT(whole.frames, before) << "block " << b + 1 << " holds no frame";
    EXPECT_FALSE(whole.damaged()) << whole.tail_problem;
    before = whole.frames;
  }
  EXPECT_EQ(before, tools::read_run_log((both.compressed.out / "run.log").string()).frames);
}

TEST(CompressedLog, ADamagedBlockKeepsTheBlocksBeforeIt) {
  const Runs& both = runs();
  ASSERT_EQ(both.compressed.exit_code, 0) << both.compressed.output;
  Bytes log = read_bytes(both.compressed.out / "run.log");
  const std::vector<std::size_t> ends = block_ends(log);
  ASSERT_GE(ends.size(), 4u);
  const auto damaged_file = both.compressed.out.parent_path() / "damaged.log";
  write_bytes(damaged_file, log, ends[1]);
  const std::uint64_t two_blocks = tools::read_run_log(damaged_file.string()).frames;
  log[(ends[1] + ends[2]) / 2] ^= 0x40;  // inside the third block's compressed part
  write_bytes(damaged_file, log, log.size());
  const tools::RunLog damaged = tools::read_run_log(damaged_file.string());
  EXPECT_EQ(damaged.frames, two_blocks);
  EXPECT_EQ(damaged.tail, protocol::LogReadStatus::corrupted);
  EXPECT_EQ(damaged.tail_problem,
            "block 3 at byte offset " + std::to_string(ends[1]) + ": checksum mismatch: corrupted");
}

}  // namespace
}  // namespace couplet::testing
