#include "host_tools/runlog/run_log_stream.hpp"

#include <algorithm>

namespace couplet::tools {

namespace {

/// Used calls and plans are removed in batches of this many: erasing from the
/// front of a vector is linear, so once per batch keeps it O(1) per record.
constexpr std::size_t kDropBatch = 4096;

}  // namespace

RunLogStream::RunLogStream(const std::string& path) : reading_(std::in_place, path) {
  reading_->read_structure();
}

RunLogStream::RunLogStream(const RunLog& log) : whole_(&log) {}

std::size_t RunLogStream::complete_calls() const {
  const std::size_t read = log().calls.size();
  const bool open = reading_ && !reading_->ended() && reading_->last_was_call();
  return open && read > 0 ? read - 1 : read;
}

const LoggedCall* RunLogStream::next_call() {
  drop_used();
  while (next_call_ >= complete_calls()) {
    if (!reading_ || !reading_->read_record()) break;
  }
  if (next_call_ >= log().calls.size()) return nullptr;
  ++calls_taken_;
  return &log().calls[next_call_++];
}

const LoggedPlan* RunLogStream::plan(std::uint64_t number) {
  while (plans_dropped_ + log().plans.size() < number) {
    if (!reading_ || !reading_->read_record()) return nullptr;
  }
  if (number <= plans_dropped_) return nullptr;
  return &log().plans[number - 1 - plans_dropped_];
}

const std::vector<std::string>& RunLogStream::internal_quantities() {
  while (reading_ && !reading_->has_internal_quantities() && reading_->read_record()) {
  }
  return log().internal_quantities;
}

std::uint64_t RunLogStream::read_to_end() {
  if (reading_) {
    RunLog& log = reading_->log();
    while (reading_->read_record()) {
      // Unread calls are only counted: keep the last (a step's samples may
      // follow) and the one handed out last.
      if (log.calls.size() > kDropBatch + next_call_) {
        const std::size_t drop = log.calls.size() - 1 - next_call_;
        log.calls.erase(log.calls.begin() + static_cast<std::ptrdiff_t>(next_call_),
                        log.calls.begin() + static_cast<std::ptrdiff_t>(next_call_ + drop));
        calls_skipped_ += drop;
      }
      if (log.plans.size() > kDropBatch) {
        plans_dropped_ += log.plans.size();
        log.plans.clear();
      }
    }
  }
  const std::uint64_t left = calls_skipped_ + (log().calls.size() - next_call_);
  calls_skipped_ = 0;
  next_call_ = log().calls.size();
  return left;
}

// The calls taken before the current one and the plans before the last two
// asked for are not needed again.
void RunLogStream::drop_used() {
  if (!reading_) return;
  RunLog& log = reading_->log();
  if (next_call_ >= kDropBatch) {
    log.calls.erase(log.calls.begin(), log.calls.begin() + static_cast<std::ptrdiff_t>(next_call_));
    next_call_ = 0;
  }
  if (log.plans.size() >= 2 * kDropBatch) {
    const std::size_t drop = log.plans.size() - kDropBatch;
    log.plans.erase(log.plans.begin(), log.plans.begin() + static_cast<std::ptrdiff_t>(drop));
    plans_dropped_ += drop;
  }
}

}  // namespace couplet::tools
