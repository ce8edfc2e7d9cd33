#pragma once
// `couplet inspect RUN.log` (docs/run-log.md): a readable summary of a run log —
// configuration, slaves and links, progress, calls, timing, how it ended.
#include <string>

#include "host_tools/runlog/run_log.hpp"
#include "protocol/run_log_frame.hpp"

namespace couplet::tools {

/// The summary of a log read whole (read_run_log).
std::string inspect_text(const RunLog& log);

/// The summary of the log at `path`, and how reading it ended.
struct LogInspection {
  std::string text;
  std::string tail_problem;  ///< why reading stopped early; empty when it read to the end
  protocol::LogReadStatus tail = protocol::LogReadStatus::end;
};

/// inspect_text(read_run_log(path)), read record by record: the memory it
/// takes grows with the slaves and with the distinct step round-trip times of
/// linked slaves (nanoseconds), not with the log's length. Throws RunLogError
/// as read_run_log().
LogInspection inspect_log(const std::string& path);

}  // namespace couplet::tools
