#pragma once
// A slave whose work inside a communication step happens at instants of its own
// — an FMI 3.0 scheduled-execution FMU activating a model partition at each of
// its clocks' ticks. In virtual time a step makes every activation of
// [start, end) at its own time; a real-time target instead steps such a slave
// from instant to instant as its wall clock reaches each one, so that every
// partition runs when its tick comes (docs/fmi.md, "FMI 3.0 scheduled
// execution"). Only the target's serving thread calls these.
#include "couplet/time.hpp"

namespace couplet::models {

class ScheduledActivations {
 public:
  /// The first instant at or after `time` at which a step activates something
  /// (a periodic tick, a pending countdown); the largest Time when none is due.
  /// Triggered clocks are not announced: a rise of their port activates them at
  /// the start of the step that brings it.
  virtual Time next_activation(Time time) const = 0;

  /// From now on steps no longer clear the output-clock ports: each keeps its
  /// ticks until clear_output_clocks(), so that one result can show the ticks
  /// of a whole communication period stepped in pieces.
  virtual void latch_output_clocks() = 0;
  virtual void clear_output_clocks() = 0;

 protected:
  ~ScheduledActivations() = default;
};

}  // namespace couplet::models
