#pragma once
// `couplet compare A B` (docs/cli.md): two runs, each a run directory
// (signals.csv, and summary.json and run.log when present) or a run log, signal
// by signal and decision by decision.
//
// A point is beyond tolerance when |a − b| > tolerance + relative·|b|, b being
// the value of the second run (NaN against a number is beyond any tolerance).
// The runs must share their time grid; signals of one run only are listed and
// ignored. The decisions are the same when the decision hashes are (summary.json
// or the logs' end records); otherwise the logs, when both runs have one, give
// the first plan whose decisions differ (decision_diff.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host_tools/runlog/decision_diff.hpp"

namespace couplet::tools {

struct CompareOptions {
  double tolerance = 0.0;            ///< ABS, absolute
  double relative = 0.0;             ///< REL, relative to |b|
  std::vector<std::string> signals;  ///< empty: every signal common to both runs
};

struct SignalComparison {
  std::string name;
  double max_absolute = 0.0;           ///< max |a − b|
  double max_relative = 0.0;           ///< max |a − b| / |b|; infinite where b = 0 ≠ a
  std::optional<double> first_beyond;  ///< the first time beyond tolerance, seconds
};

struct RunComparison {
  std::string signals_a, signals_b;  ///< the files compared, for the table
  std::vector<SignalComparison> signals;
  std::vector<std::string> only_in_a, only_in_b;
  /// True: equal decision hashes. False: see `decisions`.
  bool same_decisions = false;
  std::string decisions;  ///< a line saying what is known of the decisions
  std::optional<DecisionDifference> first_difference;

  bool within_tolerance() const;
};

/// Compares run `a` with run `b` (directories or run logs). Throws
/// ConfigurationError naming the file that cannot be read, the signal of
/// --signals that a run lacks, or both files when their time grids differ.
RunComparison compare_runs(const std::string& a, const std::string& b,
                           const CompareOptions& options);

/// The table `couplet compare` prints.
std::string comparison_table(const RunComparison& comparison, const CompareOptions& options);

/// `couplet compare`: prints the table; 0 within tolerance, 3 beyond.
int compare_command(const std::string& a, const std::string& b, const CompareOptions& options);

/// The exit code of `couplet compare` for runs beyond tolerance.
inline constexpr int kExitBeyondTolerance = 3;

}  // namespace couplet::tools
