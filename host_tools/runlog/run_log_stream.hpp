#pragma once
// A run log consumed in order, as replay consumes it (docs/run-log.md "Replay"):
// the structure at once, then the calls one by one and the plan records as
// they are asked for. Read from a file, only what the consumer has not yet used
// stays in memory — one plan's calls, the last plans — so that a log of any
// length replays in the same memory; over a log read whole (read_run_log) it
// walks that log's vectors.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

class RunLogStream {
 public:
  /// Streams `path`, reading up to its connections. Throws RunLogError as read_run_log().
  explicit RunLogStream(const std::string& path);
  /// Walks `log`, which must outlive the stream.
  explicit RunLogStream(const RunLog& log);

  /// The log's structure (header, slaves, connections); what has been read of
  /// the rest; once read to the end, its end record and tail.
  const RunLog& log() const { return reading_ ? reading_->log() : *whole_; }

  /// The next call, with all its samples; nullptr when the log has no more
  /// calls (read to its end). Valid until the next call of next_call().
  const LoggedCall* next_call();
  std::uint64_t calls_taken() const { return calls_taken_; }

  /// Plan record `number` (from 1); nullptr when the log ends before it. The
  /// two plans before the last one asked for stay available, older ones may not.
  const LoggedPlan* plan(std::uint64_t number);

  /// The algorithm's internal quantities (read on to their record, which
  /// follows the initialization's calls); empty when the log ends before it.
  const std::vector<std::string>& internal_quantities();

  /// Reads the rest of the log, dropping what it holds; returns the calls
  /// there were beyond those taken. log() then has the end record and tail.
  std::uint64_t read_to_end();

 private:
  /// Calls read whole: the last one may still get samples while the log goes on.
  std::size_t complete_calls() const;
  void drop_used();

  std::optional<RunLogReading> reading_;
  const RunLog* whole_ = nullptr;
  std::size_t next_call_ = 0;  ///< index into log().calls of the next call to take
  std::uint64_t calls_taken_ = 0;
  std::uint64_t plans_dropped_ = 0;  ///< plan records removed from the front of log().plans
  std::uint64_t calls_skipped_ = 0;  ///< read_to_end(): calls counted and dropped unread
};

}  // namespace couplet::tools
