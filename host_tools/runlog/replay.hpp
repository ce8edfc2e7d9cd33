#pragma once
// `couplet replay RUN.log [--verify]` (docs/run-log.md):
// a fresh master of the recorded configuration runs against replay slaves that
// answer every call with the recorded results. Each call the master makes must
// be the recorded one bit for bit — same slave, same kind, same times, input
// polynomials and sample times — and after every plan the algorithm's internals
// and progress must equal the recorded ones; at the end the decision hash.
// Remote and real-time runs replay like local ones: the log holds what the
// master saw (late results after their policy).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/run_log_stream.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/algorithm.hpp"

namespace couplet::tools {

struct ReplayOutcome {
  bool identical = false;         ///< every recorded decision was reproduced
  std::string divergence;         ///< the first difference, naming the macro step and quantity
  std::string note;               ///< e.g. the log was cut, or the recorded failure was reproduced
  std::uint64_t plans = 0;        ///< plans replayed
  std::uint64_t macro_steps = 0;  ///< macro steps replayed
  std::uint64_t calls = 0;        ///< slave calls replayed
  std::uint64_t replayed_hash = 0;
  bool hash_compared = false;  ///< the recorded run completed: its decision hash was compared
};

/// Replays `log`. Throws ConfigurationError when its scenario no longer builds a
/// master (e.g. an unknown algorithm key).
ReplayOutcome replay_run_log(const RunLog& log);

/// Replays the log `stream` reads, holding one plan's calls at a time: the
/// memory does not grow with the log's length (`couplet replay`). Reads the log
/// to its end, so that stream.log() then tells how it ends.
ReplayOutcome replay_run_log(RunLogStream& stream);

/// The algorithm of the replayed master, made from the logged scenario.
using ReplayAlgorithmMaker = std::function<std::unique_ptr<Algorithm>(const Scenario&)>;

/// Replays `log` with the algorithm `make_algorithm` returns instead of the one
/// the scenario's `algorithm` key names (the overload above uses the factory):
/// for a program that runs an algorithm of its own through the library's
/// executor and recorder. Its name must be the logged one.
ReplayOutcome replay_run_log(const RunLog& log, const ReplayAlgorithmMaker& make_algorithm);
ReplayOutcome replay_run_log(RunLogStream& stream, const ReplayAlgorithmMaker& make_algorithm);

}  // namespace couplet::tools
