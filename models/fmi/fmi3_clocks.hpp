#pragma once
// The clocks of an FMI 3.0 FMU as the master schedules them in virtual time
// (FMI 3.0 §2.3.5 clocks, §5 scheduled execution, §4.2.5 event mode in
// co-simulation): when each input clock ticks next, found by integer
// arithmetic on nanosecond ticks, and the ports that belong to each clock —
// so nothing is allocated while stepping and every run makes the same ticks
// at the same times.
//
//   periodic input clocks (intervalVariability constant, fixed or tunable;
//   the interval from intervalDecimal or fmi3GetIntervalDecimal) tick at
//   shift + k·interval;
//   changing input clocks tick at their shift, then each time the interval
//   later that fmi3GetIntervalDecimal tells after the tick (or the last one);
//   countdown input clocks tick where the FMU sets their interval, asked with
//   fmi3GetIntervalDecimal after every tick (fmi3IntervalChanged: a tick
//   that much later, possibly at the same instant);
//   triggered input clocks are Boolean input ports of the clock's name: a
//   rise to true at a communication point ticks the clock there;
//   output clocks are Boolean output ports of the clock's name, true for a
//   step in which the FMU reported a tick (fmi3GetClock); the outputs that
//   belong to one (and to no input clock) are read at its ticks.
// Ticks of one time go by the clocks' priority (smaller first, then value
// reference). Before a tick the inputs that belong to the clock (the
// variables whose `clocks` names it) take their polynomials' values at its
// time; after it its outputs are read and held until its next tick. Local
// clocks are refused by name.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "couplet/slave.hpp"
#include "models/fmi/fmi3_instance.hpp"
#include "models/fmi/fmi3_port_values.hpp"

namespace couplet::models::fmi3 {

/// The places among a slave's ports of the ports of one clock (or of no
/// clock), and their exchange with the FMU.
struct ClockedPorts {
  std::vector<std::size_t> inputs, discrete_inputs, outputs, discrete_outputs;
  std::optional<PortValues> input_values, discrete_input_values, output_values,
      discrete_output_values;
  std::vector<double> real_in, real_out;
  std::vector<std::int64_t> discrete_in, discrete_out;
};

/// One input clock: when it ticks, and its ports.
struct InputClock {
  static constexpr std::size_t kNoPort = static_cast<std::size_t>(-1);

  std::uint32_t reference = 0;  ///< value reference
  std::string name;
  std::uint32_t priority = 0;
  bool is_periodic = false;
  bool is_countdown = false;          ///< ticks when the FMU sets its interval (§2.3.4)
  bool is_changing = false;           ///< ticks again `interval` after each tick, the FMU's latest
  bool ask_interval = false;          ///< fixed or tunable without intervalDecimal: asked at setup
  std::optional<Time> countdown;      ///< countdown: its pending tick
  std::optional<Time> changing_tick;  ///< changing: its next tick
  Time interval = 0;                  ///< periodic: > 0 once known
  Time shift = 0;
  std::size_t trigger_port = kNoPort;  ///< triggered: its Boolean input port
  bool triggered = false;              ///< triggered: its port rose, it ticks now
  std::int64_t held_trigger = 0;       ///< triggered: its port's value at the last step
  ClockedPorts ports;

  /// A periodic clock's first tick at or after `time`.
  Time next_tick(Time time) const {
    if (time <= shift) return shift;
    return shift + (time - shift + interval - 1) / interval * interval;
  }
};

/// The settings with the input clocks' names taken out of the coupled inputs:
/// a triggered clock's port is no FMU variable.
fmi::FmuSettings without_clock_ports(const Package& package, const fmi::FmuSettings& settings);

/// The ports, those of no clock first — exchanged as the FMU's interface
/// says — then the clocked ones, exchanged at their clocks' ticks.
struct SplitPorts {
  PortElements all, unclocked;
};

/// The FMU's ports (port_elements, the settings without_clock_ports) so split.
SplitPorts split_ports(const Package& package, const fmi::FmuSettings& settings,
                       const ArrayLayout& layout);

class Clocks {
 public:
  /// Reads the FMU's input and output clocks, the input clocks sorted by
  /// priority, then value reference. `exchange` says who exchanges with them
  /// ("scheduled execution", "co-simulation"). Throws ConfigurationError
  /// naming the clock for one that cannot be scheduled (a local clock, a
  /// constant clock without intervalDecimal, a negative shift, a function
  /// the FMU lacks).
  Clocks(const Package& package, const Functions& functions, const LogRing& log,
         const fmi::FmuSettings& settings, const std::string& exchange);

  bool empty() const { return inputs_.empty() && output_references_.empty(); }

  /// Adds the ports of the clocks to `description`: a Boolean input per
  /// coupled triggered clock, then a Boolean output per output clock, after
  /// the FMU's own ports.
  void add_clock_ports(SlaveDescription& description, const fmi::FmuSettings& settings);

  /// Each port of `ports` (in the order of the description's ports) into the
  /// clock it belongs to — an input clock, else an output clock; the ports of
  /// no clock into unclocked().
  void assign_ports(const ArrayLayout& layout, const PortElements& ports,
                    const fmi::FmuSettings& settings);

  /// In Initialization Mode: the intervals the FMU tells, the changing
  /// clocks' first ticks.
  void set_up(fmi3Instance instance, Time start);

  /// The first tick of any time-based input clock at or after `time`; the
  /// largest Time when none.
  Time next_tick(Time time) const;

  /// Does `clock` tick at `next`, the first tick at or after `cursor`?
  static bool ticks_at(const InputClock& clock, Time cursor, Time next) {
    return clock.is_periodic ? clock.next_tick(cursor) == next
                             : clock.changing_tick && *clock.changing_tick <= next;
  }

  /// At a communication point: marks the triggered clocks whose ports rose
  /// to true (InputClock::triggered) and holds the ports' values. Returns
  /// whether any rose.
  bool take_triggers(std::span<const std::int64_t> discrete_inputs);

  /// In Event Mode at `time` (co-simulation, model exchange): the input
  /// clocks that tick then — a periodic one on its grid, a changing or
  /// countdown one due (the countdown cleared), a triggered one whose port
  /// rose — activated with fmi3SetClock, in priority order. Buffers reserved
  /// at construction.
  std::span<InputClock* const> activate_ticking(fmi3Instance instance, Time time);

  /// After their inputs are set: the outputs of the clocks activate_ticking
  /// gave read and held, the changing clocks' next ticks and the countdown
  /// clocks' asked.
  void complete_ticks(fmi3Instance instance, Time time, std::span<double> real_outputs,
                      std::span<std::int64_t> discrete_outputs);

  /// After a changing clock's tick at `time`: its next tick, its interval
  /// later — the one fmi3GetIntervalDecimal says changed, else the last.
  void schedule_changing(fmi3Instance instance, InputClock& clock, Time time);

  /// After a tick at `time`: the countdown clocks' next ticks
  /// (fmi3GetIntervalDecimal, fmi3IntervalChanged). Throws SlaveError naming
  /// the clock for an interval that is negative, not finite or 10^8 s or more.
  void ask_countdowns(fmi3Instance instance, Time time);

  /// Is a countdown clock's tick due at `time`? Throws SlaveError when more
  /// than kMaxTicksPerInstant are due at one time (an FMU that sets an
  /// interval of 0 at each of its ticks would never let time go on).
  bool countdown_due(Time time);

  /// The countdown clock whose tick is due at `time`, cleared; nullptr when
  /// none. Counted as countdown_due() counts.
  InputClock* due_countdown(Time time);

  static constexpr int kMaxTicksPerInstant = 100;

  /// fmi3GetClock for the output clocks; the Boolean ports of those that
  /// ticked (in `discrete_outputs`, from output_clock_port()) set to 1, and
  /// their clocked outputs read.
  void read_output_clocks(fmi3Instance instance, Time time, std::span<double> real_outputs,
                          std::span<std::int64_t> discrete_outputs);

  /// The outputs of every clock, input and output: their values in
  /// Initialization Mode, held until their clocks' first ticks.
  void read_initial_outputs(fmi3Instance instance, Time time, std::span<double> real_outputs,
                            std::span<std::int64_t> discrete_outputs);

  /// The ports' inputs from the request's polynomials at `time`, and the
  /// outputs into the slave's held values.
  void set_inputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                  const StepRequest& request);
  /// ... from the inputs' values at `time` (model exchange).
  void set_inputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                  std::span<const double> real, std::span<const std::int64_t> discrete);
  void read_outputs(fmi3Instance instance, ClockedPorts& ports, Time time,
                    std::span<double> real_outputs, std::span<std::int64_t> discrete_outputs);

  std::vector<InputClock>& inputs() { return inputs_; }
  ClockedPorts& unclocked() { return unclocked_; }
  bool has_output_clocks() const { return !output_references_.empty(); }
  /// The first output clock's port among the discrete outputs.
  std::size_t output_clock_port() const { return first_output_clock_port_; }

  /// The schedule (pending and next ticks, intervals, held triggers) for a rollback;
  /// buffers sized at construction.
  void save();
  void restore();

 private:
  void check(fmi3Status status, const char* call, Time time) const;
  void check(const std::optional<PortValues::Failure>& failure, Time time) const;
  void ask_interval(fmi3Instance instance, InputClock& clock, Time start);

  const Package& package_;
  const Functions& functions_;
  const LogRing& log_;
  std::string slave_name_;
  std::vector<InputClock> inputs_;  ///< by priority, then value reference
  ClockedPorts unclocked_;          ///< the ports of no clock
  std::vector<fmi3ValueReference> output_references_;
  std::vector<std::string> output_names_;
  std::vector<ClockedPorts> output_ports_;            ///< each output clock's outputs
  std::unique_ptr<fmi3Clock[]> output_clock_values_;  ///< not std::vector: fmi3Clock is bool
  std::vector<InputClock*> ticking_;                  ///< of one instant, reserved
  std::vector<fmi3ValueReference> ticking_references_;
  std::unique_ptr<fmi3Clock[]> actives_;  ///< fmi3ClockActive for each, for fmi3SetClock
  std::size_t first_output_clock_port_ = 0;
  Time instant_ = -1;         ///< the time of the latest countdown ticks
  int ticks_at_instant_ = 0;  ///< and how many there were
  std::vector<std::optional<Time>> saved_countdowns_, saved_changing_ticks_;
  std::vector<Time> saved_intervals_;
  std::vector<std::int64_t> saved_triggers_;
};

}  // namespace couplet::models::fmi3
