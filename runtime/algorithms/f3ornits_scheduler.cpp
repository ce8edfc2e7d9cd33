#include "runtime/algorithms/f3ornits_scheduler.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet {
namespace {

/// The earliest of the bounds seen so far and the rule that set it.
struct Bound {
  Time time;
  StepLimit limit;
  void take(Time candidate, StepLimit reason) {
    if (candidate < time) {
      time = candidate;
      limit = reason;
    }
  }
};

}  // namespace

const char* to_string(StepLimit limit) {
  switch (limit) {
    case StepLimit::proposal: return "proposal";
    case StepLimit::end_time: return "end_time";
    case StepLimit::source_data: return "source_data";
    case StepLimit::imposed_target: return "imposed_target";
    case StepLimit::synchronous: return "synchronous";
    case StepLimit::imposed_grid: return "imposed_grid";
  }
  return "unknown";
}

F3ornitsScheduler::F3ornitsScheduler(std::vector<SchedulerSlave> slaves, std::vector<std::string> names,
                                     Time start, Time end, bool synchronous)
    : slaves_(std::move(slaves)), start_(start), end_(end), synchronous_(synchronous) {
  if (names.size() != slaves_.size()) throw std::invalid_argument("F3ornitsScheduler: one name per slave");
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    const Time period = slaves_[s].imposed_step;
    if (period > 0 && (end_ - start_) % period != 0) {
      throw ConfigurationError("slave '" + names[s] + "' imposes a step of " + std::to_string(to_seconds(period)) +
                               " s, but the time span " + std::to_string(to_seconds(end_ - start_)) +
                               " s is not a multiple of it: it could not end at time.end");
    }
  }
}

Time F3ornitsScheduler::next_rendezvous(std::span<const Time> times) const {
  Time earliest = end_;
  for (const Time time : times) earliest = std::min(earliest, time);
  return earliest;
}

Time F3ornitsScheduler::floor_to_grid(std::size_t slave, Time time) const {
  const Time period = slaves_[slave].imposed_step;
  return start_ + (time - start_) / period * period;
}

void F3ornitsScheduler::schedule_imposed(std::size_t slave, Time rendezvous, std::span<const Time> times,
                                         std::span<const Time> proposals, std::span<Time> ends,
                                         std::span<StepLimit> limits) const {
  const SchedulerSlave& self = slaves_[slave];
  Bound bound{end_, StepLimit::end_time};
  if (self.feeds_inputs) bound.take(proposals[slave], StepLimit::proposal);
  for (const std::size_t source : self.sources) {
    if (times[source] > rendezvous) {
      bound.take(times[source], StepLimit::source_data);
    } else {
      // At the rendez-vous too: its next communication is not decided yet, but it
      // comes no later than its proposal, and no earlier than one period of its own.
      const Time period = slaves_[source].imposed_step;
      const Time next = period > 0 ? std::max(proposals[source], rendezvous + period) : proposals[source];
      bound.take(next, StepLimit::source_data);
    }
  }
  Time end = floor_to_grid(slave, bound.time);
  if (end != bound.time) bound.limit = StepLimit::imposed_grid;
  if (end <= rendezvous) end = rendezvous + self.imposed_step;
  ends[slave] = std::min(end, end_);
  limits[slave] = bound.limit;
}

void F3ornitsScheduler::schedule_variable(std::size_t slave, Time rendezvous, std::span<const Time> times,
                                          std::span<const Time> proposals, std::span<Time> ends,
                                          std::span<StepLimit> limits) const {
  const SchedulerSlave& self = slaves_[slave];
  Bound bound{end_, StepLimit::end_time};
  if (self.feeds_variable_step) bound.take(proposals[slave], StepLimit::proposal);
  for (const std::size_t target : self.imposed_targets) {
    // An imposed-step slave at the rendez-vous has been scheduled first.
    bound.take(times[target] > rendezvous ? times[target] : ends[target], StepLimit::imposed_target);
  }
  for (const std::size_t source : self.sources) {
    if (times[source] > rendezvous) {
      bound.take(times[source], StepLimit::source_data);
    } else if (slaves_[source].imposed_step > 0) {
      bound.take(ends[source], StepLimit::source_data);
    }
    // Variable-step sources at the rendez-vous: propagated in schedule().
  }
  ends[slave] = bound.time;
  limits[slave] = bound.limit;
}

void F3ornitsScheduler::schedule(Time rendezvous, std::span<const Time> times, std::span<const Time> proposals,
                                 std::span<Time> ends, std::span<StepLimit> limits) const {
  const auto ready = [&](std::size_t s) { return times[s] == rendezvous && rendezvous < end_; };
  const auto variable = [&](std::size_t s) { return slaves_[s].imposed_step == 0; };
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (ready(s) && !variable(s)) schedule_imposed(s, rendezvous, times, proposals, ends, limits);
  }
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (ready(s) && variable(s)) schedule_variable(s, rendezvous, times, proposals, ends, limits);
  }
  // A variable-step slave stops where a variable-step source at the same
  // rendez-vous stops: the minimum flows along connections until nothing changes
  // (at most one pass per slave, as each pass settles one more link of a chain).
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t s = 0; s < slaves_.size(); ++s) {
      if (!ready(s) || !variable(s)) continue;
      for (const std::size_t source : slaves_[s].sources) {
        if (ready(source) && variable(source) && ends[source] < ends[s]) {
          ends[s] = ends[source];
          limits[s] = StepLimit::source_data;
          changed = true;
        }
      }
    }
  }
  if (!synchronous_) return;
  Time shared = end_;
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (ready(s) && variable(s)) shared = std::min(shared, ends[s]);
  }
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    if (ready(s) && variable(s) && ends[s] > shared) {
      ends[s] = shared;
      limits[s] = StepLimit::synchronous;
    }
  }
}

}  // namespace couplet
