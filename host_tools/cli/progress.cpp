#include "host_tools/cli/progress.hpp"

#include <algorithm>
#include <cmath>

namespace couplet::tools {

namespace {

using Clock = std::chrono::steady_clock;

// On a terminal the line appears after a second (short runs stay quiet) and is
// refreshed four times a second.
constexpr auto kTerminalDelay = std::chrono::seconds(1);
constexpr auto kTerminalRefresh = std::chrono::milliseconds(250);

/// "42 s", "12 min", "5.3 h", "4.0 days": what a reader compares at a glance.
int format_duration(char* buffer, std::size_t size, double seconds) {
  if (seconds < 120) return std::snprintf(buffer, size, "%.0f s", seconds);
  if (seconds < 7200) return std::snprintf(buffer, size, "%.0f min", seconds / 60);
  if (seconds < 172800) return std::snprintf(buffer, size, "%.1f h", seconds / 3600);
  return std::snprintf(buffer, size, "%.1f days", seconds / 86400);
}

}  // namespace

std::size_t format_progress(char* buffer, std::size_t size, double time, double start, double end,
                            double rate) {
  const double span = end - start;
  const double percent = span > 0 ? 100.0 * (time - start) / span : 100.0;
  int length = std::snprintf(buffer, size, "couplet: t = %.3f / %.3f s (%3.0f%%), %.3g s/s", time,
                             end, percent, rate);
  if (rate > 0 && length > 0 && static_cast<std::size_t>(length) < size) {
    const std::size_t used = static_cast<std::size_t>(length);
    char eta[32];
    format_duration(eta, sizeof eta, (end - time) / rate);
    length += std::snprintf(buffer + used, size - used, ", ETA %s", eta);
  }
  return length < 0 ? 0 : std::min(static_cast<std::size_t>(length), size - 1);
}

ProgressReporter::ProgressReporter(const ProgressSettings& settings, double start, double end,
                                   std::FILE* stream)
    : settings_(settings), start_(start), end_(end), stream_(stream), frontier_(to_ticks(start)) {
  if (settings_.enabled) thread_ = std::thread([this] { report_until_stopped(); });
}

ProgressReporter::~ProgressReporter() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (line_shown_) {
    std::fprintf(stream_, "\r%*s\r", 79, "");
    std::fflush(stream_);
  }
}

bool ProgressReporter::wait_or_stop(Clock::duration period) {
  std::unique_lock lock(mutex_);
  return wake_.wait_for(lock, period, [this] { return stop_; });
}

void ProgressReporter::report_until_stopped() {
  const Clock::duration period =
      settings_.terminal ? Clock::duration(kTerminalRefresh) : Clock::duration(settings_.interval);
  if (settings_.terminal && wait_or_stop(kTerminalDelay - kTerminalRefresh)) return;
  double last_time = to_seconds(frontier_.load(std::memory_order_relaxed));
  auto last_wall = Clock::now();
  while (!wait_or_stop(period)) {
    const double time = to_seconds(frontier_.load(std::memory_order_relaxed));
    const auto now = Clock::now();
    const double wall = std::chrono::duration<double>(now - last_wall).count();
    const double rate = wall > 0 ? (time - last_time) / wall : 0.0;
    last_time = time;
    last_wall = now;
    char line[160];
    const std::size_t length = format_progress(line, sizeof line, time, start_, end_, rate);
    if (settings_.terminal) {
      std::fprintf(stream_, "\r%-79.*s", static_cast<int>(length), line);
      line_shown_ = true;
    } else {
      std::fprintf(stream_, "%.*s\n", static_cast<int>(length), line);
    }
    std::fflush(stream_);
  }
}

}  // namespace couplet::tools
