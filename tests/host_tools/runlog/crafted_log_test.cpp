// Crafted run logs (issue 15): frames whose checksum holds but whose record
// breaks the format are errors naming the file, the frame and its byte offset,
// in every reader (replay, export, inspect, report) — never a crash, an escaped
// std::invalid_argument / std::out_of_range or undefined behaviour. A cut or
// garbage tail shortens the log with a warning naming the offset. And `report`
// refuses a run directory whose files come from different runs.
#include <gtest/gtest.h>
#include <pb_decode.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "host_tools/cli/log_commands.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "protocol/crc32.hpp"
#include "protocol/run_log_frame.hpp"
#include "support/log_frames.hpp"

namespace couplet::testing {
namespace {

std::filesystem::path work_directory() {
  return std::filesystem::temp_directory_path() / ("couplet-crafted-" + std::to_string(::getpid()));
}

/// A frame of `payload` with a valid checksum.
Bytes frame_of(const Bytes& payload) {
  Bytes frame(4 + payload.size() + 4);
  const auto size = static_cast<std::uint32_t>(payload.size());
  for (int k = 0; k < 4; ++k)
    frame[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(size >> (8 * k));
  std::copy(payload.begin(), payload.end(), frame.begin() + 4);
  const std::uint32_t crc =
      protocol::crc32(std::span<const std::uint8_t>(frame.data(), 4 + payload.size()));
  for (int k = 0; k < 4; ++k)
    frame[4 + payload.size() + static_cast<std::size_t>(k)] =
        static_cast<std::uint8_t>(crc >> (8 * k));
  return frame;
}

/// An enum field set to any int32, as a peer can send it (never through the
/// enum type, whose out-of-range values are undefined).
template <typename Enum>
void set_enum(Enum& field, std::int32_t value) {
  static_assert(sizeof field == sizeof value);
  std::memcpy(&field, &value, sizeof value);
}

std::size_t find(const Frames& frames,
                 const std::function<bool(const protocol::LogRecord&)>& wanted) {
  for (std::size_t k = 0; k < frames.size(); ++k) {
    if (wanted(*decode(frames[k]))) return k;
  }
  ADD_FAILURE() << "no such record";
  return 0;
}

bool is_call(const protocol::LogRecord& record, couplet_wire_SlaveCallKind kind) {
  return record.which_body == couplet_wire_LogRecord_call_tag && record.body.call.kind == kind;
}

std::size_t first_step(const Frames& frames) {
  return find(frames,
              [](const auto& r) { return is_call(r, couplet_wire_SlaveCallKind_CALL_STEP); });
}

std::size_t first_of(const Frames& frames, pb_size_t tag) {
  return find(frames, [tag](const auto& r) { return r.which_body == tag; });
}

/// Re-encodes frame `index` after `edit`: a crafted record with a valid checksum.
std::size_t edit(Frames& frames, std::size_t index,
                 const std::function<void(protocol::LogRecord&)>& change) {
  const auto record = decode(frames[index]);
  change(*record);
  frames[index] = encode(*record);
  return index;
}

/// A link totals record of `slave` just before the end record; its index.
std::size_t insert_link_totals(Frames& frames, std::uint32_t slave) {
  const std::size_t end = first_of(frames, couplet_wire_LogRecord_end_tag);
  frames.insert(frames.begin() + static_cast<std::ptrdiff_t>(end), frames[end]);
  return edit(frames, end, [slave](protocol::LogRecord& record) {
    record.which_body = couplet_wire_LogRecord_link_totals_tag;
    record.body.link_totals = couplet_wire_LogLinkTotals_init_zero;
    record.body.link_totals.slave = slave;
  });
}

/// One crafted log: changes `frames` and returns the index of the frame the
/// reader must refuse.
struct Crafted {
  const char* name;
  std::function<std::size_t(Frames&)> craft;
  const char* why;  ///< part of the expected message
};

std::vector<Crafted> crafted_cases() {
  using Record = protocol::LogRecord;
  constexpr std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  return {
      {"negative_derivative_order",
       [](Frames& f) {
         return edit(f, first_step(f),
                     [](Record& r) { r.body.call.derivative_order = 0xFFFFFFFFU; });
       },
       "step call on slave 'left': derivative order 4294967295, above the 3 the slave reports"},
      {"huge_derivative_order",
       [](Frames& f) {
         return edit(f,
                     find(f,
                          [](const auto& r) {
                            return is_call(r, couplet_wire_SlaveCallKind_CALL_EVALUATE_OUTPUTS);
                          }),
                     [](Record& r) { r.body.call.derivative_order = 64; });
       },
       "derivative order 64, above the 3 the slave reports"},
      {"end_outputs_not_a_whole_row",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { r.body.call.end_outputs_count = 64; });
       },
       "64 end output values, not (derivative order 3 + 1) × 2 outputs"},
      {"description_derivative_order",
       [](Frames& f) {
         return edit(f, 1, [](Record& r) {
           r.body.slave.description.capabilities.output_derivative_order = 0xFFFFFFFFU;
         });
       },
       "capabilities.output_derivative_order = 4294967295 exceeds what the protocol carries"},
      {"unknown_call_kind",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { set_enum(r.body.call.kind, 77); });
       },
       "a slave call of unknown kind 77"},
      {"negative_call_kind",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { set_enum(r.body.call.kind, -1); });
       },
       "a slave call of unknown kind -1"},
      {"step_samples_without_their_step",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) {
           set_enum(r.body.call.kind,
                    couplet_wire_SlaveCallKind_CALL_RESTORE_STATE + 1);  // CALL_STEP_SAMPLES
           r.body.call.inputs_count = 0;
           r.body.call.end_outputs_count = 0;
           r.body.call.derivative_order = 0;
         });
       },
       "a step samples record on slave 'left' that does not follow the record of its step"},
      {"unknown_call_status",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { set_enum(r.body.call.status, 9); });
       },
       "a slave call with unknown status 9"},
      {"unknown_end_status",
       [](Frames& f) {
         return edit(f, first_of(f, couplet_wire_LogRecord_end_tag),
                     [](Record& r) { set_enum(r.body.end.status, 9); });
       },
       "an end record with unknown status 9"},
      {"call_slave_beyond_header",
       [](Frames& f) { return edit(f, first_step(f), [](Record& r) { r.body.call.slave = 9; }); },
       "a slave call on slave 9, but the log has 2 slaves"},
      {"connection_slave_beyond_header",
       [](Frames& f) {
         return edit(f, 3, [](Record& r) { r.body.connections.connections[0].target_slave = 5; });
       },
       "connection 0 names slave 5, but the log has 2 slaves"},
      {"connection_port_beyond_slave",
       [](Frames& f) {
         return edit(f, 3, [](Record& r) { r.body.connections.connections[0].source_port = 7; });
       },
       "which has 2 outputs"},
      {"unconnected_input",
       [](Frames& f) {
         return edit(f, 3, [](Record& r) { --r.body.connections.connections_count; });
       },
       "is not connected"},
      {"unannounced_scenario_text",
       [](Frames& f) {
         const auto slave = f[1];
         f.insert(f.begin() + 1, slave);
         return edit(f, 1, [](Record& r) {
           r.which_body = couplet_wire_LogRecord_scenario_text_tag;
           r.body.scenario_text = couplet_wire_LogScenarioText_init_zero;
         });
       },
       "a scenario text record the header does not announce"},
      {"announced_scenario_text_missing",
       [](Frames& f) {
         edit(f, 0, [](Record& r) { r.body.header.scenario_text_parts = 1; });
         return std::size_t{1};
       },
       "a slave record where 1 more scenario text record(s) come next"},
      {"too_many_scenario_text_parts",
       [](Frames& f) {
         return edit(f, 0, [](Record& r) { r.body.header.scenario_text_parts = 257; });
       },
       "the header announces 257 scenario text parts; a run log has at most 256"},
      {"connections_continued_without_the_rest",
       [](Frames& f) {
         edit(f, 3, [](Record& r) { r.body.connections.continued = true; });
         return std::size_t{4};
       },
       "record before the slaves and connections are complete"},
      {"slave_index_out_of_order",
       [](Frames& f) { return edit(f, 2, [](Record& r) { r.body.slave.index = 4; }); },
       "a slave record with index 4 where index 1 comes next"},
      {"huge_sample_count",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { r.body.call.samples_count = 6144; });
       },
       "6144 sample values for"},
      {"input_count_not_the_slaves",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { r.body.call.inputs_count = 16; });
       },
       "16 input polynomials for the slave's 1 inputs"},
      {"input_scale_zero",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { r.body.call.inputs[0].scale = 0.0; });
       },
       "input 'left.f'.scale = 0 must be finite and > 0"},
      {"internals_count",
       [](Frames& f) {
         return edit(f, first_of(f, couplet_wire_LogRecord_plan_tag),
                     [](Record& r) { r.body.plan.internals_count = 200; });
       },
       "holds 200 internal values for 0 quantities"},
      {"header_time_overflow",
       [](Frames& f) {
         return edit(f, 0, [](Record& r) {
           r.body.header.start_ns = -huge - 1;
           r.body.header.end_ns = huge;
         });
       },
       "header start_ns = -9223372036854775808 ns lies outside ±2^61 ns"},
      {"call_time_overflow",
       [](Frames& f) {
         return edit(f, first_step(f), [](Record& r) { r.body.call.end_ns = huge; });
       },
       "end_ns = 9223372036854775807 ns lies outside ±2^61 ns"},
      {"frontier_beyond_end",
       [](Frames& f) {
         return edit(f, first_of(f, couplet_wire_LogRecord_plan_tag),
                     [](Record& r) { r.body.plan.frontier_ns = std::int64_t{1} << 60; });
       },
       "frontier 1152921504606846976 ns lies outside"},
      {"sample_times_backwards",
       [](Frames& f) {
         return edit(f, first_step(f),
                     [](Record& r) { r.body.call.sample_times_ns[0] = r.body.call.start_ns; });
       },
       "sample time 0 = 0 ns does not increase within the step"},
      {"duplicated_header_after_connections",
       [](Frames& f) {
         f.insert(f.begin() + 4, f[0]);
         return std::size_t{4};
       },
       "a second header record"},
      {"duplicated_header_at_start",
       [](Frames& f) {
         f.insert(f.begin() + 1, f[0]);
         return std::size_t{1};
       },
       "a second header record"},
      {"wrong_call_plan_index",
       [](Frames& f) { return edit(f, first_step(f), [](Record& r) { r.body.call.plan = 3; }); },
       "a slave call with plan index 3 after 0 plan records"},
      {"wrong_plan_record_index",
       [](Frames& f) {
         return edit(f, first_of(f, couplet_wire_LogRecord_plan_tag),
                     [](Record& r) { r.body.plan.plan = 7; });
       },
       "plan record 7 where plan 1 comes next"},
      {"record_after_the_end",
       [](Frames& f) {
         f.push_back(f[first_step(f)]);
         return f.size() - 1;
       },
       "a record after the end record"},
      {"end_counts_other_plans",
       [](Frames& f) {
         return edit(f, first_of(f, couplet_wire_LogRecord_end_tag),
                     [](Record& r) { r.body.end.plans += 1; });
       },
       "the end record counts"},
      {"link_totals_of_a_local_slave", [](Frames& f) { return insert_link_totals(f, 0); },
       "link totals of slave 'left', which has no link"},
      {"link_totals_of_no_slave", [](Frames& f) { return insert_link_totals(f, 7); },
       "link totals of slave 7 of 2"},
      {"zero_length_frame",
       [](Frames& f) {
         f.insert(f.begin() + 5, frame_of({}));
         return std::size_t{5};
       },
       "an empty record"},
      {"payload_that_does_not_decode",
       [](Frames& f) {
         f.insert(f.begin() + 5, frame_of({0x22, 0xFF, 0xFF, 0xFF, 0x0F}));
         return std::size_t{5};
       },
       "the record does not decode"},
  };
}

/// "frame N at byte offset X" of frame `index`.
std::string position(const Frames& frames, std::size_t index) {
  std::size_t offset = protocol::kLogMagicBytes;
  for (std::size_t k = 0; k < index; ++k) offset += frames[k].size();
  return "frame " + std::to_string(index + 1) + " at byte offset " + std::to_string(offset);
}

/// A short real run's log, split into frames, shared by the tests of a suite.
class CraftedLogBase : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::filesystem::create_directories(work_directory());
    const std::string command = std::string(COUPLET_BINARY) + " run " + COUPLET_SOURCE_DIR +
                                "/scenarios/two_mass_switch.yaml --set time.end=0.05 -o " +
                                (work_directory() / "run").string() + " > /dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0);
    frames_ = new Frames(split_frames(read_bytes(work_directory() / "run" / "run.log")));
  }
  static void TearDownTestSuite() {
    delete frames_;
    std::filesystem::remove_all(work_directory());
  }
  static Frames* frames_;
};

Frames* CraftedLogBase::frames_ = nullptr;

class CraftedLog : public CraftedLogBase, public ::testing::WithParamInterface<Crafted> {};
class ReadingCraftedLogs : public CraftedLogBase {};

/// Every reader refuses the log with `expected` in a message that names the file.
void expect_refused(const std::string& path, const std::string& expected) {
  const auto html = work_directory() / "report.html";
  const auto csv = work_directory() / "export.csv";
  const std::vector<std::pair<const char*, std::function<void()>>> readers = {
      {"read", [&] { tools::read_run_log(path); }},
      {"replay", [&] { tools::replay_log_command(path, true); }},
      {"export",
       [&] {
         tools::export_log_command(path, {csv.string(), "", false});
       }},
      {"export --grid",
       [&] {
         tools::export_log_command(path, {csv.string(), "", true});
       }},
      {"inspect", [&] { tools::inspect_log_command(path); }},
      {"report", [&] { tools::report_log_command(path, html.string()); }},
  };
  for (const auto& [reader, read] : readers) {
    try {
      read();
      ADD_FAILURE() << reader << " read " << path;
    } catch (const tools::RunLogError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("run log '" + path + "': "), std::string::npos)
          << reader << ": " << message;
      EXPECT_NE(message.find(expected), std::string::npos)
          << reader << ": " << message << "\nexpected: " << expected;
    }
  }
  // export streams its rows, but a refused log leaves no partial table behind
  // (neither the table nor the temporary file it is written into).
  for (const auto& entry : std::filesystem::directory_iterator(work_directory()))
    EXPECT_EQ(entry.path().filename().string().find("export.csv"), std::string::npos)
        << path << " left " << entry.path();
}

TEST_F(ReadingCraftedLogs, TheUncraftedLogReadsAndReplays) {
  const auto path = work_directory() / "intact.log";
  write_bytes(path, join(*frames_));
  const tools::RunLog log = tools::read_run_log(path.string());
  EXPECT_FALSE(log.damaged());
  ASSERT_TRUE(log.end_record.has_value());
  EXPECT_TRUE(log.end_record->completed());
  const tools::ReplayOutcome outcome = tools::replay_run_log(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
}

TEST_P(CraftedLog, IsRefusedNamingTheFileAndTheFrameOffset) {
  const Crafted& crafted = GetParam();
  Frames frames = *frames_;
  const std::size_t bad = crafted.craft(frames);
  const auto path = (work_directory() / (std::string(crafted.name) + ".log")).string();
  write_bytes(path, join(frames));
  expect_refused(path, position(frames, bad) + ": ");
  expect_refused(path, crafted.why);
}

INSTANTIATE_TEST_SUITE_P(EveryClass, CraftedLog, ::testing::ValuesIn(crafted_cases()),
                         [](const auto& test) { return std::string(test.param.name); });

// --- Damaged tails: a warning naming the offset, what came before is used ---

struct Tail {
  const char* name;
  std::function<Bytes(const Frames&)> damage;
  protocol::LogReadStatus status;
  const char* why;
};

class DamagedTail : public CraftedLogBase, public ::testing::WithParamInterface<Tail> {};

Bytes with_length(Bytes frame, std::uint32_t length) {
  for (int k = 0; k < 4; ++k)
    frame[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(length >> (8 * k));
  return frame;
}

TEST_P(DamagedTail, ShortensTheLogWithItsOffset) {
  const Tail& tail = GetParam();
  const Frames& frames = *frames_;
  const auto path = work_directory() / (std::string(tail.name) + ".log");
  write_bytes(path, tail.damage(frames));
  const tools::RunLog log = tools::read_run_log(path.string());
  EXPECT_EQ(log.tail, tail.status) << log.tail_problem;
  const std::string where = position(frames, frames.size() - 1);
  EXPECT_NE(log.tail_problem.find(where + ": " + tail.why), std::string::npos)
      << log.tail_problem << "\nexpected: " << where << ": " << tail.why;
  EXPECT_TRUE(log.cut()) << "the end record was in the damaged frame";
  EXPECT_FALSE(log.plans.empty());
  const tools::ReplayOutcome outcome = tools::replay_run_log(log);
  EXPECT_TRUE(outcome.identical) << outcome.divergence;
}

Bytes without_last(const Frames& frames) {
  return join(Frames(frames.begin(), frames.end() - 1));
}

INSTANTIATE_TEST_SUITE_P(
    EveryClass, DamagedTail,
    ::testing::Values(Tail{"truncated",
                           [](const Frames& f) {
                             Bytes log = join(f);
                             log.resize(log.size() - 3);
                             return log;
                           },
                           protocol::LogReadStatus::cut, "the log ends after"},
                      Tail{"garbage_tail",
                           [](const Frames& f) {
                             Bytes log = without_last(f);
                             const Bytes garbage = with_length(Bytes(28, 0xAB), 20);
                             log.insert(log.end(), garbage.begin(), garbage.end());
                             return log;
                           },
                           protocol::LogReadStatus::corrupted, "checksum mismatch"},
                      Tail{"length_beyond_file",
                           [](const Frames& f) {
                             Bytes log = without_last(f);
                             const Bytes last = with_length(
                                 f.back(), static_cast<std::uint32_t>(f.back().size() + 1000));
                             log.insert(log.end(), last.begin(), last.end());
                             return log;
                           },
                           protocol::LogReadStatus::cut, "the log ends after"},
                      Tail{"length_beyond_any_record",
                           [](const Frames& f) {
                             Bytes log = without_last(f);
                             const Bytes last = with_length(f.back(), 0x7F000000U);
                             log.insert(log.end(), last.begin(), last.end());
                             return log;
                           },
                           protocol::LogReadStatus::corrupted, "length"}),
    [](const auto& test) { return std::string(test.param.name); });

// --- Replay: plan indices and the header against its scenario ---------------

/// Moves the first plan record before the last step call of its plan, with the
/// call's plan index made consistent: a log the reader accepts, whose plans the
/// replayed master does not execute so.
TEST_F(ReadingCraftedLogs, ReplayFailsAPlanWhoseCallsAreNotTheMastersPlan) {
  Frames frames = *frames_;
  const std::size_t plan = first_of(frames, couplet_wire_LogRecord_plan_tag);
  ASSERT_EQ(decode(frames[plan - 1])->which_body, couplet_wire_LogRecord_call_tag);
  std::swap(frames[plan - 1], frames[plan]);
  edit(frames, plan, [](protocol::LogRecord& r) { r.body.call.plan = 1; });
  const auto path = (work_directory() / "moved_plan.log").string();
  write_bytes(path, join(frames));
  const tools::ReplayOutcome outcome = tools::replay_run_log(tools::read_run_log(path));
  EXPECT_FALSE(outcome.identical);
  EXPECT_NE(outcome.divergence.find(
                "the replayed master calls step on slave 'right' after 0 plans; the next "
                "recorded call (step on slave 'right') was made after 1"),
            std::string::npos)
      << outcome.divergence;
  EXPECT_EQ(tools::replay_log_command(path, true), 1);
}

TEST_F(ReadingCraftedLogs, ReplayRefusesAHeaderWhoseTimesAreNotItsScenarios) {
  Frames frames = *frames_;
  frames.pop_back();  // no end record: the log may stop before the header's end
  edit(frames, 0, [](protocol::LogRecord& r) { r.body.header.end_ns *= 2; });
  const auto path = (work_directory() / "header_span.log").string();
  write_bytes(path, join(frames));
  try {
    tools::replay_run_log(tools::read_run_log(path));
    FAIL() << "replayed";
  } catch (const tools::RunLogError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("run log '" + path + "': frame 1 at byte offset 8: the header's time span"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(ReadingCraftedLogs, TheCommandLineGivesOneLineAndExitCode1) {
  Frames frames = *frames_;
  const std::size_t bad = edit(frames, first_step(frames), [](protocol::LogRecord& r) {
    r.body.call.derivative_order = 0xFFFFFFFFU;
  });
  const auto path = (work_directory() / "cli.log").string();
  write_bytes(path, join(frames));
  const auto stderr_path = work_directory() / "stderr.txt";
  for (const char* command : {" replay --verify ", " export ", " inspect "}) {
    const std::string line =
        std::string(COUPLET_BINARY) + command + path + " > /dev/null 2> " + stderr_path.string();
    const int status = std::system(line.c_str());
    EXPECT_EQ(WEXITSTATUS(status), 1) << command;
    std::ifstream file(stderr_path);
    const std::string message((std::istreambuf_iterator<char>(file)),
                              std::istreambuf_iterator<char>());
    const std::string expected =
        "run log '" + path + "': " + position(frames, bad) +
        ": a step call on slave 'left': derivative order 4294967295, above the 3 the "
        "slave reports\n";
    EXPECT_EQ(message.rfind("couplet: ", 0), 0U) << command << message;
    EXPECT_TRUE(message.ends_with(expected)) << command << message;
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << command << message;
  }
}

// --- Report: a run directory whose files disagree ---------------------------

class MixedRunDirectory : public CraftedLogBase {
 protected:
  /// A copy of the test run's directory with `file` taken from a shorter run.
  static std::filesystem::path mixed(const std::string& file) {
    const auto other = work_directory() / "other";
    if (!std::filesystem::exists(other)) {
      const std::string command = std::string(COUPLET_BINARY) + " run " + COUPLET_SOURCE_DIR +
                                  "/scenarios/two_mass_switch.yaml --set time.end=0.03 -o " +
                                  other.string() + " > /dev/null 2>&1";
      EXPECT_EQ(std::system(command.c_str()), 0);
    }
    const auto directory = work_directory() / ("mixed-" + file);
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    for (const char* name : {"run.log", "summary.json", "signals.csv"})
      std::filesystem::copy_file(work_directory() / "run" / name, directory / name);
    std::filesystem::copy_file(other / file, directory / file,
                               std::filesystem::copy_options::overwrite_existing);
    return directory;
  }

  static std::string refusal(const std::filesystem::path& directory) {
    try {
      tools::report_log_command(directory.string(), (directory / "report.html").string());
    } catch (const tools::RunLogError& error) {
      EXPECT_FALSE(std::filesystem::exists(directory / "report.html"));
      return error.what();
    }
    return "";
  }
};

TEST_F(MixedRunDirectory, AgreeingFilesMakeAReport) {
  const auto directory = work_directory() / "run";
  EXPECT_EQ(
      tools::report_log_command(directory.string(), (work_directory() / "agreeing.html").string()),
      0);
}

TEST_F(MixedRunDirectory, AnotherRunsSummaryIsRefused) {
  const auto directory = mixed("summary.json");
  const std::string message = refusal(directory);
  std::string expected = "'";
  expected += (directory / "summary.json").string();
  expected += "' and '";
  expected += (directory / "run.log").string();
  expected += "' are not of the same run: the decision hash is ";
  EXPECT_EQ(message.find(expected), 0U) << message;
}

TEST_F(MixedRunDirectory, AnotherRunsSignalsAreRefused) {
  const auto directory = mixed("signals.csv");
  const std::string message = refusal(directory);
  std::string expected = "'";
  expected += (directory / "signals.csv").string();
  expected += "' and '";
  expected += (directory / "run.log").string();
  expected +=
      "' are not of the same run: it has 4 rows, the logged run completed 6 evaluation times";
  EXPECT_EQ(message.find(expected), 0U) << message;
}

TEST_F(MixedRunDirectory, AnotherRunsLogIsRefused) {
  const auto directory = mixed("run.log");
  const std::string message = refusal(directory);
  EXPECT_NE(message.find("are not of the same run"), std::string::npos) << message;
}

}  // namespace
}  // namespace couplet::testing
