#pragma once
// The recorder (docs/run-log.md): writes the run log —
// configuration, slave descriptions, every executor call on a slave (the
// master's decision and what the slave returned, with timing), and after every
// plan the algorithm's internals.
//
// Real-time boundary: the constructor and begin() allocate. On the stepping
// thread the observer callbacks and plan_finished() only fill a preallocated
// record slot (the used part of its arrays) and pass its index through a
// lock-free single-producer queue (Boost.Lockfree); the writer thread encodes
// the slot (nanopb) into its buffer, hands the slot back through a second queue
// and writes many frames with one write(2) (docs/run-log.md), so that what it
// has written survives a crash or kill -9 of the process within microseconds.
// A compressed log (LogCompression::zstd) is written a block at a time: once
// the writer holds 16 KiB of frames when idle, or its batch while records
// stream; the block is compressed on the writer thread.
//
// Waking: the stepping thread makes no system call in steady state. The writer,
// once it has found the queue empty for a while, says so (`writer_asleep_`) and
// sleeps on a futex for at most kWriterFlushInterval (1 ms); the stepping thread
// wakes it only when it has published half the slots' worth of records since it
// last looked (a futex wake, counted by writer_wakeups()), so that a run that
// logs fast is written as fast, and a slow one (a 1 kHz HIL run) costs its
// stepping thread nothing: its records reach the file within a millisecond.
// When every slot is in flight the stepping thread blocks until the writer has
// freed slots (never drops: replay needs every record) and counts it
// (`records_waited`); the queue is sized so that it does not happen when the
// writer keeps up.
//
// Memory: the slots are sized from the system in begin() (slave count), and of
// each slot only the parts that this system's records fill are touched (and
// prefaulted in begin()): the 48 KiB of sample values beyond the first page,
// and the linearization when no slave linearizes, stay untouched virtual memory.
//
// A step with more sample times than one record holds (a long step on a fine
// evaluation grid) is written as its call record with the first samples, followed
// by CALL_STEP_SAMPLES records carrying the rest in order (docs/run-log.md).
// A log longer than RunLogHeader::segment_bytes goes on in further files
// (protocol::log_segment_path: run.2.log, run.3.log, ...): the writer thread
// starts the next one at a batch (or block) boundary, so that every segment
// holds whole frames; the constructor removes the segments of an earlier run.
// The log is capped (RunLogHeader::max_bytes, all segments): a log that, at
// the rate it grew so far, would pass the cap by the run's end stops the run
// early (projected at 1/64, 1/32, ..., 1/2 of the horizon); at the first plan after the
// writer passed the cap, plan_finished() throws a SlaveError, so that the run
// stops with a readable log ending in the failure. So it is when the file
// system holding the log has less free space than RunLogHeader::keep_free_bytes
// (the writer asks fstatvfs once per kFreeSpaceCheckBytes written: the end
// record and the run's results must still fit), and when a write failed (a
// disk filled by someone else): the run stops rather than going on unrecorded.
#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "protocol/run_log_block.hpp"
#include "protocol/run_log_frame.hpp"
#include "runtime/algorithm.hpp"
#include "runtime/executor.hpp"
#include "runtime/futex_flag.hpp"

namespace couplet {

/// What the log's header holds beside the system.
struct RunLogHeader {
  std::string scenario_source;  ///< file name, for messages
  std::string scenario_text;    ///< the scenario as run (overrides applied)
  Time start = 0;
  Time end = 0;
  std::string algorithm;
  std::vector<std::string> slave_links;  ///< per slave: "udp host:port", or empty (local)
  /// The run stops when the log, all its segments together, has grown past
  /// this (scenario key limits.run_log_bytes).
  std::uint64_t max_bytes = kDefaultMaxLogBytes;
  /// The writer starts the next segment before a file would grow past this
  /// (scenario key limits.run_log_segment_bytes).
  std::uint64_t segment_bytes = kDefaultSegmentBytes;
  /// The run stops when the log's file system has less than this free: room for
  /// the log's last records and the run's other files (signals.csv, summary.json).
  std::uint64_t keep_free_bytes = 0;

  /// 64 GiB: a day of the 1 kHz two-target HIL run, plain (40 GB).
  static constexpr std::uint64_t kDefaultMaxLogBytes = std::uint64_t{64} << 30;
  /// 1 GiB: a segment any file system takes and a tool can copy.
  static constexpr std::uint64_t kDefaultSegmentBytes = std::uint64_t{1} << 30;
};

/// The kind of the records that continue a step's samples (protocol/couplet.proto).
inline constexpr couplet_wire_SlaveCallKind kCallStepSamples =
    couplet_wire_SlaveCallKind_CALL_STEP_SAMPLES;

/// How the log's frames reach the file: as they are, or in zstd blocks
/// (protocol/run_log_block.hpp), compressed on the writer thread.
enum class LogCompression { none, zstd };

/// How a run that did not complete ended (the run log's LogEnd.status).
enum class EarlyEnd { failed, interrupted, stopped };

/// How the run ended, for the last record.
struct RunEnding {
  bool completed = false;
  std::string message;  ///< why it failed, was interrupted or stopped
  std::uint64_t decision_hash = 0;
  RunCounters counters;
  /// The counters of each slave's link (the host tools fill them from the
  /// remote slaves; this layer knows no links), written before the end record.
  std::vector<couplet_wire_LogLinkTotals> link_totals;
  EarlyEnd early_end = EarlyEnd::failed;  ///< when not completed
};

class Recorder final : public ExecutorObserver {
 public:
  /// The most records in flight between the two threads; begin() takes fewer
  /// for a small system (queue_records_for()).
  static constexpr std::size_t kDefaultQueueRecords = 256;

  /// Record slots for a system of `slave_count` slaves under a cap of
  /// `queue_records`: room for 32 plans' records (a plan record and up to four
  /// calls per slave) and at least 128, so that a burst of cheap steps, or a
  /// writer thread descheduled for milliseconds on a loaded machine, does not
  /// make the stepping thread wait.
  static std::size_t queue_records_for(std::size_t slave_count, std::size_t queue_records);

  /// Creates (truncates) `path` and starts the writer thread. Throws
  /// ConfigurationError naming the path when it cannot be created.
  /// `queue_records` caps the record slots (at least 2).
  explicit Recorder(const std::string& path, std::size_t queue_records = kDefaultQueueRecords,
                    LogCompression compression = LogCompression::none);
  ~Recorder() override;
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Header, one record per slave, the connections. Before the executor's
  /// initialize(). Throws ConfigurationError when the system exceeds what a
  /// record can hold (names, ports).
  void begin(const RunLogHeader& header, const System& system);
  /// The names of the algorithm's internal quantities: after initialize().
  void algorithm_started(const Algorithm& algorithm);

  void slave_set_up(std::size_t slave, Time start) override;
  void discrete_outputs_evaluated(std::size_t slave, std::span<const std::int64_t> values) override;
  void step_began(std::size_t slave) override;
  void slave_stepped(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                     const LinkStepReport& link) override;
  void slave_linearized(std::size_t slave, std::span<const Polynomial> inputs,
                        std::span<const double> linearization) override;
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                         std::span<const double> outputs) override;
  void state_saved(std::size_t slave) override;
  void state_restored(std::size_t slave) override;

  /// After each executor advance: progress and the algorithm's internals. Throws
  /// SlaveError when the log has passed RunLogHeader::max_bytes, its file system
  /// has less than keep_free_bytes free, or a write failed (after publishing the
  /// plan's record: finish() then ends the log with the message, where it can).
  void plan_finished(const Executor& executor, const Algorithm& algorithm,
                     std::int64_t pacer_lateness_ns = 0);

  /// Writes the last record, waits for the writer to drain the queue and closes
  /// the file. Throws std::runtime_error naming the file when writing failed.
  void finish(const RunEnding& ending);

  std::uint64_t records_waited() const { return records_waited_; }
  /// How often the stepping thread woke the sleeping writer (a futex wake):
  /// at most once per half the slots' worth of records.
  std::uint64_t writer_wakeups() const { return writer_wakeups_; }
  /// Record slots taken by begin() (0 before).
  std::size_t queue_records() const { return slot_count_; }
  /// Bytes of the slots that this system's records touch (prefaulted in begin()).
  std::size_t record_memory_bytes() const { return slot_count_ * touched_slot_bytes_; }
  /// Bytes of all segments together.
  std::uint64_t bytes_written() const { return bytes_written_.load(); }
  /// Segments begun so far (1: the first file only).
  std::uint32_t segments() const { return segment_.load(std::memory_order_relaxed); }
  /// The writer asks how much space is left each time it has written this much.
  static constexpr std::uint64_t kFreeSpaceCheckBytes = std::uint64_t{1} << 20;
  const std::string& path() const { return path_; }

 private:
  couplet_wire_SlaveCall& begin_call(std::size_t slave, couplet_wire_SlaveCallKind kind);
  static void copy_inputs(std::span<const Polynomial> inputs, couplet_wire_SlaveCall& call);
  /// Sample rows [first, first + count) of a step into `call`.
  void copy_samples(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                    std::size_t first, std::size_t count, couplet_wire_SlaveCall& call) const;
  std::size_t sample_rows_per_record(std::size_t slave) const;
  void copy_end_outputs(std::size_t slave, std::span<const double> outputs,
                        couplet_wire_SlaveCall& call);
  void allocate_slots(std::size_t count, bool linearizes);
  protocol::LogRecord& next_record();
  void wait_for_free_slot();
  void publish();
  void wake_writer();
  void wake_producer();
  void write_bytes(std::span<const std::uint8_t> bytes);
  /// Writer thread: encoded frames to the file, as a block when compressed.
  void write_frames(std::span<const std::uint8_t> frames);
  /// Writer thread: before writing `next` bytes, closes a full segment and
  /// starts the next one.
  void start_segment_if_full(std::size_t next);
  /// Writer thread: sets free_bytes_low_ when the file system has less than
  /// keep_free_bytes_ free.
  void check_free_space();
  /// At 1/64, 1/32, ..., 1/2 of the horizon: stops the run when the log,
  /// growing at its rate so far, would pass max_bytes_ by the end.
  void check_projection(const Executor& executor);
  /// The SlaveError that stops the run: `why`, when, and what to do (`advice`).
  [[noreturn]] void stop_run(const Executor& executor, const std::string& why,
                             const char* advice) const;
  void drain();
  bool idle_until_published();
  void stop_writer();

  std::string path_;
  int file_ = -1;
  std::vector<double> internals_;
  std::vector<std::uint64_t> step_began_ns_;
  std::vector<std::size_t> output_counts_;
  std::uint64_t plan_ = 0;
  std::uint64_t max_bytes_ = RunLogHeader::kDefaultMaxLogBytes;
  // The log's growth projected to the run's end when the frontier passes 1/64,
  // 1/32, ..., 1/2 of the horizon (check_projection).
  Time start_ = 0;
  Time end_ = 0;
  Time next_projection_ = 0;
  std::uint64_t bytes_at_first_plan_ = 0;
  std::atomic<std::uint64_t> keep_free_bytes_{0};  ///< set by begin(), read by the writer
  std::atomic<std::uint64_t> segment_bytes_{RunLogHeader::kDefaultSegmentBytes};  ///< likewise
  // The segment written now (set by the writer thread), its bytes, and the
  // run's identity (the header record's wall_clock_start_ns) that further
  // segments carry (writer thread).
  std::atomic<std::uint32_t> segment_{1};
  std::uint64_t segment_written_ = 0;
  std::uint64_t identity_ = 0;
  std::uint64_t next_space_check_ = 0;             ///< writer thread: bytes_written_ then
  /// The free bytes the writer found below keep_free_bytes_; 0 while there is room.
  std::atomic<std::uint64_t> free_bytes_low_{0};
  std::uint64_t records_waited_ = 0;
  std::uint64_t writer_wakeups_ = 0;

  std::size_t queue_capacity_;  ///< the cap given to the constructor
  std::size_t slot_count_ = 0;  ///< slots taken by begin()
  std::size_t touched_slot_bytes_ = 0;
  /// Default-initialized: pages of a slot that no record fills are never touched.
  std::unique_ptr<protocol::LogRecord[]> slots_;
  std::vector<std::uint8_t>
      writer_buffer_;  ///< the writer's frames before write(2), allocated up front
  std::unique_ptr<protocol::LogBlockCompressor> compressor_;  ///< set: zstd blocks
  boost::lockfree::spsc_queue<std::uint32_t> free_slots_;    ///< writer → stepping thread
  boost::lockfree::spsc_queue<std::uint32_t> filled_slots_;  ///< stepping thread → writer
  std::uint32_t current_slot_ = 0;  ///< being filled by the stepping thread
  std::atomic<bool> stopping_{false};
  /// 1: the writer is about to sleep or sleeps (at most kWriterFlushInterval);
  /// the stepping thread clears it and wakes the writer.
  FutexFlag writer_asleep_;
  /// Stepping thread: records published since it last looked whether the
  /// writer sleeps; it looks every wake_threshold_ records.
  std::size_t published_since_look_ = 0;
  std::size_t wake_threshold_ = 1;
  /// 1: the stepping thread waits for a free slot; the writer clears it and notifies.
  std::atomic<std::uint32_t> producer_waiting_{0};
  std::atomic<bool> write_failed_{false};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::string write_error_;  ///< set by the writer thread before write_failed_
  std::thread writer_;
};

}  // namespace couplet
