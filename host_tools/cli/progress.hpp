#pragma once
// The progress of a run on stderr (docs/cli.md "Progress"): on a terminal one
// line rewritten in place four times a second; otherwise (a log file, a CI job,
// a pipe) one line every `interval`, so a run that crawls is visible wherever
// its stderr goes. Each line: simulated time / end, percentage, the rate over
// the last interval (simulated seconds per wall second) and the ETA at that rate.
//
// The stepping loop only stores the frontier in an atomic (no allocation, no
// lock, no system call: real-time runs call it every cycle); a thread of its
// own formats and writes the lines, so a slow stderr never delays a step.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "couplet/time.hpp"

namespace couplet::tools {

struct ProgressSettings {
  bool enabled = false;
  bool terminal = false;                     ///< rewrite one line in place rather than print lines
  std::chrono::milliseconds interval{5000};  ///< between lines when not on a terminal
};

/// One progress line, formatted into `buffer` (no allocation); returns its length.
/// `rate` is simulated seconds per wall second over the last interval; `rate`
/// of 0 shows no ETA.
std::size_t format_progress(char* buffer, std::size_t size, double time, double start, double end,
                            double rate);

class ProgressReporter {
 public:
  /// Starts the reporting thread when `settings.enabled`; `start`/`end` in seconds.
  ProgressReporter(const ProgressSettings& settings, double start, double end,
                   std::FILE* stream = stderr);
  /// Stops the thread and clears an in-place line.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  /// The stepping loop's only call, after each macro step.
  void reached(Time frontier) noexcept { frontier_.store(frontier, std::memory_order_relaxed); }

 private:
  void report_until_stopped();
  bool wait_or_stop(std::chrono::steady_clock::duration period);

  ProgressSettings settings_;
  double start_;
  double end_;
  std::FILE* stream_;
  std::atomic<Time> frontier_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool line_shown_ = false;
  std::thread thread_;
};

}  // namespace couplet::tools
