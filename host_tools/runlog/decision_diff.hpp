#pragma once
// Where two runs' masters first decided differently, from their run logs
// (docs/run-log.md): the calls each master made — which slave, which kind,
// the times, the input polynomials, the sample times, the derivative order —
// compared bit for bit in the order they were made, plan by plan. The results
// the slaves returned are not decisions and are not compared.
#include <cstdint>
#include <optional>
#include <string>

#include "couplet/time.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/run_log_stream.hpp"

namespace couplet::tools {

struct DecisionDifference {
  /// 1, 2, ...: the plan (LoggedPlan::plan) whose calls differ; 0: the
  /// initialization (the setup and output evaluations before the first step).
  std::uint64_t plan = 0;
  Time time = 0;     ///< its communication time: where the master stood when it made the plan
  std::string what;  ///< the first differing call and quantity, naming the slave
};

/// "plan 3 at t = 0.2 s", "the initialization at t = 0 s".
std::string plan_text(const DecisionDifference& difference);

/// The first plan whose calls differ between `a` and `b`; nullopt when every
/// call of both logs is the same (one log may still end earlier: see
/// DecisionDifference::what, "the run log ... ends"). Logs of different systems
/// (slaves or their order) differ at plan 1.
std::optional<DecisionDifference> first_decision_difference(const RunLog& a, const RunLog& b);
/// The same of two streamed logs, read call by call in step (memory independent
/// of their length). Throws RunLogError as read_run_log() for a malformed record.
std::optional<DecisionDifference> first_decision_difference(RunLogStream& a, RunLogStream& b);

}  // namespace couplet::tools
