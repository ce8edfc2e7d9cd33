#pragma once
// Evaluates a scenario's checks (host_tools/scenario/check_spec.hpp) on every value the
// master sees: each slave's outputs at every sample time inside a step (the
// evaluation grid and the algorithm's own samples), at every step end and at
// every evaluation of its outputs (initial outputs, feedthrough refreshes). It
// is an ExecutorObserver: the executor calls it on the stepping thread, after
// the slave calls of a wave, in plan order, whichever dispatcher made them
// (sequential, thread pool, MPI), so it needs no lock. Everything it keeps is
// allocated in the constructor; the observer calls allocate nothing, lock
// nothing and do no I/O.
//
// A rollback (state_restored) takes every check on that slave back to where it
// stood at the matching state_saved: a value the master discarded is no
// violation. Checks observe, never decide: a run's decisions and decision hash
// are the same with or without them; only `stop_on_failure` ends a run early
// (the caller asks stopping_check() after each plan).
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "host_tools/scenario/check_spec.hpp"
#include "runtime/executor.hpp"
#include "runtime/system.hpp"

namespace couplet::tools {

/// One check's outcome, as summary.json `checks[]` holds it.
struct CheckVerdict {
  std::string name;
  CheckKind kind = CheckKind::bounds;
  std::string signal;  ///< empty for realtime
  bool passed = true;
  std::optional<double> first_violation_time;  ///< seconds
  std::optional<double> worst_value;
  std::string message;  ///< one line
};

/// What the run-level checks are decided on, once the run has ended.
struct RunFacts {
  Time reached = 0;                       ///< every slave's outputs are known up to here
  std::optional<std::uint64_t> overruns;  ///< the wall-clock pacer's, when it paced
  std::optional<double> p99_lateness;     ///< seconds
  std::map<std::string, double, std::less<>> nrmse_pct;  ///< by output name (System::output_name)
};

/// A check with what it looks at, resolved against the system.
struct CheckTarget {
  CheckSpec spec;
  PortReference signal;     ///< unused for realtime
  bool discrete = false;    ///< signal is an Integer or Boolean output (its port indexes those)
  std::string output_name;  ///< System::output_name(signal): the key of summary.json `errors`
  CheckTrace trace;         ///< matches: the CSV's trace
};

class CheckEvaluator final : public ExecutorObserver {
 public:
  CheckEvaluator(std::vector<CheckTarget> targets, const System& system);

  bool empty() const { return targets_.empty(); }
  std::size_t size() const { return targets_.size(); }

  /// The first check (in the scenario's order) with stop_on_failure that has
  /// failed so far; null when none. No allocation.
  const CheckSpec* stopping_check() const;

  /// Check `check`'s name, and when it was first violated so far (nothing
  /// while it holds; the checks decided at the end, `reaches`, `realtime` and
  /// `accuracy`, only have a verdict then). No allocation: fit for observers.
  const std::string& name(std::size_t check) const { return targets_[check].spec.name; }
  std::optional<Time> first_violation(std::size_t check) const {
    const Watch& watch = watches_.at(check);
    return watch.violated ? std::optional<Time>(watch.first_violation) : std::nullopt;
  }

  /// Every check's verdict, in the scenario's order (after the run: allocates).
  std::vector<CheckVerdict> verdicts(const RunFacts& facts) const;

  void slave_set_up(std::size_t slave, Time start) override;
  void step_began(std::size_t) override {}
  void slave_stepped(std::size_t slave, const StepRequest& request, const OutputBuffers& result,
                     const LinkStepReport& link) override;
  void outputs_evaluated(std::size_t slave, std::span<const Polynomial> inputs,
                         std::span<const double> outputs) override;
  void discrete_outputs_evaluated(std::size_t slave, std::span<const std::int64_t> values) override;
  void slave_linearized(std::size_t, std::span<const Polynomial>,
                        std::span<const double>) override {}
  void state_saved(std::size_t slave) override;
  void state_restored(std::size_t slave) override;

 private:
  /// What one check has seen so far; copied whole at a save and put back at a rollback.
  struct Watch {
    bool violated = false;
    Time first_violation = 0;
    double violation_value = 0.0;      ///< the signal there
    double violation_reference = 0.0;  ///< matches: the trace there
    bool seen = false;                 ///< a value the check applies to was seen
    double worst_margin = 0.0;         ///< how far past its limit (negative: inside)
    double worst_value = 0.0;
    double worst_reference = 0.0;  ///< matches: the trace there
    Time worst_time = 0;
    bool has_previous = false;  ///< at: the previous value, to interpolate
    Time previous_time = 0;
    double previous_value = 0.0;
    bool happened = false;  ///< at: the time was seen; reaches: the level was crossed
    Time event_time = 0;
    double event_value = 0.0;
  };
  /// A check's limits in ticks, converted once.
  struct Limits {
    Time from = 0;
    Time to = 0;
    Time time = 0;  ///< settles: by; at: time; reaches: before
  };
  struct SlaveWatch {
    std::vector<std::size_t> checks;           ///< indices into targets_: Real signals
    std::vector<std::size_t> discrete_checks;  ///< and discrete ones
    std::size_t outputs = 0;
    Time time = 0;
    Time saved_time = 0;
    /// The discrete outputs held since the latest communication point (sized
    /// at construction), and at the latest save.
    std::vector<std::int64_t> held, saved_held;
  };

  void observe(std::size_t slave, Time time, std::span<const double> outputs);
  void observe_discrete(std::size_t slave, Time time, std::span<const std::int64_t> values);
  void observe_one(std::size_t check, Time time, double value);
  void record(Watch& watch, Time time, double value, double margin, double reference = 0.0) const;
  double trace_value(const CheckTrace& trace, Time time) const;
  CheckVerdict signal_verdict(std::size_t check, Time reached) const;
  CheckVerdict run_verdict(std::size_t check, const RunFacts& facts) const;

  std::vector<CheckTarget> targets_;
  std::vector<Limits> limits_;
  std::vector<Watch> watches_;
  std::vector<Watch> saved_;
  std::vector<SlaveWatch> slaves_;
  std::vector<std::size_t> stopping_;  ///< the checks with stop_on_failure
};

}  // namespace couplet::tools
