#pragma once
// The scheduler of F3ORNITS: from the time-steppers' proposals to the times at
// which slaves actually meet (F3ORNITS paper §3.2.2, eq. 40, which leaves it
// unspecified; these rules are ours, docs/f3ornits.md; docs/references.md).
//
// The run is a sequence of rendez-vous: the next one is the earliest time an
// unfinished slave has reached, and every slave there steps (in one plan, slave
// index order). A slave's inputs on its step come from each source's estimate
// made at the source's latest communication time not after the step start
// (eq. 25). The end of each ready slave's step:
//
//  imposed-step slave (a device with a fixed period h): the largest point of its
//    grid start + j·h not after its bound, at least one period; its bound is the
//    earliest of t_end, its own proposal (t_end without connected outputs,
//    eq. 39), and for each source the time fresh data comes (a source ahead: the
//    time it reached; a source at the rendez-vous: its proposal, or its next grid
//    point if it has an imposed step too). So it steps on its own grid only, and
//    takes several periods at once when nothing would change in between.
//  variable-step slave: the earliest of
//    - t_end;
//    - its own proposal (eq. 38) if a variable-step slave reads its outputs; if
//      only imposed-step slaves do, their next reading times are all that matter,
//      and with no reader at all it proposes t_end (eq. 39);
//    - the next reading time of each imposed-step slave it feeds (so that a device
//      reads a fresh value, not an extrapolation);
//    - the next communication time of each source (a source ahead: the time it
//      reached; a source at the rendez-vous: the end of its step, propagated
//      until stable). Hence a variable-step slave never evaluates an input beyond
//      the time its source proposed, nor beyond the time a newer estimate exists.
//    In `synchronous` mode all variable-step slaves then share the minimum.
//
// Invariant behind eq. 25: a slave steps only from the earliest time, so a source
// is ahead of its target by at most one step; the source's estimate the target
// needs is its newest or the one before. Only an imposed-step slave can evaluate
// an input past its source's proposal (it cannot shorten its period); the master
// counts these as horizon overruns.
//
// Deterministic: increasing time, then slave index; no allocation after configure().
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "couplet/time.hpp"

namespace couplet {

/// Why a step ends where it does (the rule that bound it), for the run log.
enum class StepLimit : std::uint8_t {
  proposal,        ///< the slave's own time-stepper (eq. 38)
  end_time,        ///< t_end, or eq. 39 (no outputs that anything reads)
  source_data,     ///< a source communicates then
  imposed_target,  ///< an imposed-step slave it feeds reads its inputs then
  synchronous,     ///< the minimum shared by the variable-step slaves
  imposed_grid,    ///< an imposed-step slave's grid (rounded down, or one period)
};

const char* to_string(StepLimit limit);

struct SchedulerSlave {
  Time imposed_step = 0;               ///< > 0: steps only on start + j·imposed_step
  bool feeds_inputs = false;           ///< some output is connected to some input
  bool feeds_variable_step = false;    ///< some variable-step slave reads its outputs
  std::vector<std::size_t> sources;          ///< slaves feeding it, increasing, no repeats
  std::vector<std::size_t> imposed_targets;  ///< imposed-step slaves it feeds, increasing
};

class F3ornitsScheduler {
 public:
  F3ornitsScheduler() = default;
  /// Throws ConfigurationError unless t_end − start is a multiple of every imposed step.
  F3ornitsScheduler(std::vector<SchedulerSlave> slaves, std::vector<std::string> names, Time start,
                    Time end, bool synchronous);

  std::size_t slave_count() const { return slaves_.size(); }
  const SchedulerSlave& slave(std::size_t index) const { return slaves_[index]; }

  /// The next rendez-vous: the earliest time a slave has reached below t_end;
  /// t_end when every slave is there.
  Time next_rendezvous(std::span<const Time> times) const;

  /// For every slave with times[s] == rendezvous (< t_end): ends[s] and limits[s].
  /// `proposals[s]` is slave s's latest proposal (> times[s] for the ready ones).
  /// Other entries of `ends` and `limits` are left as they are.
  void schedule(Time rendezvous, std::span<const Time> times, std::span<const Time> proposals,
                std::span<Time> ends, std::span<StepLimit> limits) const;

 private:
  Time floor_to_grid(std::size_t slave, Time time) const;
  void schedule_imposed(std::size_t slave, Time rendezvous, std::span<const Time> times,
                        std::span<const Time> proposals, std::span<Time> ends,
                        std::span<StepLimit> limits) const;
  void schedule_variable(std::size_t slave, Time rendezvous, std::span<const Time> times,
                         std::span<const Time> proposals, std::span<Time> ends,
                         std::span<StepLimit> limits) const;

  std::vector<SchedulerSlave> slaves_;
  Time start_ = 0;
  Time end_ = 0;
  bool synchronous_ = false;
};

}  // namespace couplet
