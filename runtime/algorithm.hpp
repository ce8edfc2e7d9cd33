#pragma once
// The Algorithm interface: pure decision logic (docs/algorithms.md).
//
// Given what the slaves returned, an algorithm chooses the next communication
// times and input polynomials. It never calls a slave: it writes requests into
// per-slave StepSlots and lists actions in a Plan; the executor carries them out
// and writes the results back. Same results in ⇒ bit-identical decisions out: no
// clocks, no randomness, no unordered iteration. It does not know whether a slave
// is local or remote.
//
// Calling contract:
//   requirements()                 before the run, for System::validate
//   start(setup, slots)            once; slots hold the outputs at the start time; may allocate
//   plan_next(slots, plan)         fills requests; false when the run is complete; no allocation
//   accept(slots, plan)            the actions of `plan` were carried out; no allocation
//   report(summary)                after the run
//   internal_quantities()          after start(); may allocate
//   internal_values(values)        after each accept(); no allocation
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "couplet/polynomial.hpp"
#include "runtime/system.hpp"
#include "couplet/time.hpp"

namespace couplet {

/// Exchange area for one slave, allocated once by the executor.
struct StepSlot {
  // Request, written by the algorithm before a step action.
  Time start = 0;
  Time end = 0;
  std::vector<Polynomial> inputs;   ///< one per input
  std::vector<Time> sample_times;   ///< extra output samples the algorithm needs (capacity set in start)

  // Results, written by the executor.
  Time output_time = 0;             ///< time of `outputs`
  int output_derivative_order = 0;  ///< rows of `outputs` beyond the values
  std::size_t output_count = 0;
  std::vector<double> outputs;      ///< (order + 1) rows × output_count: values, ẏ, ÿ, ...
  std::vector<double> samples;      ///< one row of output_count per sample time
  /// After a linearize action: x, ẋ, A, B, C, D (LinearizationLayout); sized at
  /// initialization for slaves that can linearize, empty otherwise.
  std::vector<double> linearization;

  double output(std::size_t index, int derivative = 0) const {
    return outputs[static_cast<std::size_t>(derivative) * output_count + index];
  }
  double sample(std::size_t sample_index, std::size_t output_index) const {
    return samples[sample_index * output_count + output_index];
  }
};

/// step: advance over [slot.start, slot.end] with slot.inputs.
/// evaluate_outputs: recompute the outputs at the slave's current time from
///   slot.inputs (no time passes): how feedthrough outputs are made consistent
///   with the connection equations at a communication time.
/// save_state / restore_state: rollback-capable slaves only.
/// linearize: state, its derivative and the Jacobians at the slave's current
///   time, inputs at the values of slot.inputs, into slot.linearization (no time
///   passes; slaves with capabilities.can_linearize only).
enum class SlaveAction : std::uint8_t { step, evaluate_outputs, save_state, restore_state, linearize };

struct PlannedAction {
  std::size_t slave = 0;
  SlaveAction action = SlaveAction::step;
};

/// The actions of one batch; actions in a batch may run concurrently. Fixed
/// capacity after reserve(): adding never allocates on the stepping path.
class Plan {
 public:
  void reserve(std::size_t capacity) { actions_.reserve(capacity); }
  void clear() { actions_.clear(); }
  void add(std::size_t slave, SlaveAction action = SlaveAction::step) {
    actions_.push_back({slave, action});
  }
  std::span<const PlannedAction> actions() const { return actions_; }
  bool empty() const { return actions_.empty(); }

 private:
  std::vector<PlannedAction> actions_;
};

struct RunSetup {
  const System& system;
  Time start;
  Time end;
};

/// Whole-run results an algorithm adds to summary.json.
struct AlgorithmReport {
  std::map<std::string, double> counters;                 ///< e.g. "iterations"
  std::map<std::string, double> connection_defect_rms;     ///< keyed "slave.input"
  std::map<std::string, double> output_defect_rms;         ///< keyed "slave.output"
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::string_view name() const = 0;
  virtual AlgorithmRequirements requirements() const = 0;
  virtual void start(const RunSetup& setup, std::span<StepSlot> slots) = 0;
  virtual bool plan_next(std::span<StepSlot> slots, Plan& plan) = 0;
  virtual void accept(std::span<const StepSlot> slots, const Plan& plan) = 0;
  virtual void report(AlgorithmReport&) const {}

  /// Names of the internal quantities the run log records after every accept()
  /// — orders, errors, defects, controller state, iterations (docs/run-log.md
  /// lists them). Replay compares them bit for bit, so they must depend only on
  /// what the slaves returned.
  virtual std::vector<std::string> internal_quantities() const { return {}; }
  /// Their values now, in internal_quantities() order (`values` has that size).
  virtual void internal_values(std::span<double> /*values*/) const {}
};

}  // namespace couplet
