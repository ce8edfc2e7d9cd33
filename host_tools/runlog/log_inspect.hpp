#pragma once
// `couplet inspect RUN.log` (docs/run-log.md): a readable summary of a run log —
// configuration, slaves and links, progress, calls, timing, how it ended.
#include <string>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

std::string inspect_text(const RunLog& log);

}  // namespace couplet::tools
