#pragma once
// `couplet export RUN.log --csv FILE` (docs/run-log.md): one row per executor
// plan — time, step size, every slave output at its latest communication, the
// algorithm's internals (orders, errors, defects, controller state, iterations)
// and, per slave behind a link, the timing of its latest step.
#include <string>

#include "host_tools/run_log.hpp"

namespace couplet::tools {

std::string export_csv(const RunLog& log);

}  // namespace couplet::tools
