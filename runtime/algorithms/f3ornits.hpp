#pragma once
// F3ORNITS: flexible-order polynomial inputs, error-based time-stepper and an
// asynchronous scheduler (F3ORNITS paper §3; docs/references.md, docs/f3ornits.md).
// Non-iterative: it
// never rolls back, so it accepts any slave whatever its capabilities (highest
// input degree, imposed step, no inputs, no outputs).
//
// Per rendez-vous time T (f3ornits_scheduler.hpp) the slaves that have reached T:
//  1. take their outputs at T into each output's history, once they are
//     consistent (below); per output: the time-stepper error of the estimate sent
//     (eqs. 32–36), the order function (eqs. 18–20) and the new estimated output,
//     in extrapolation or CLS mode (eqs. 21–22, 12); per slave the ratio (eq. 37)
//     and the proposed next time (eq. 38, eq. 39 without read outputs);
//  2. get their next step end from the scheduler and, per input, the source's
//     estimate made at the latest source communication time not after T (eqs.
//     24–25), recalibrated at the degree the slave accepts (eq. 16), optionally
//     smoothed into a C¹ cubic Hermite (eqs. 26–28, slaves accepting degree ≥ 3);
//  3. step, all in one plan (they are independent).
//
// Consistent outputs at a communication time (our choice, docs/f3ornits.md): the
// value recorded for an output at T satisfies the connection equations at T: it
// is computed with each input equal to its source's estimate at T (eq. 25), which
// is the source's own new value when the source is at T too. A direct-feedthrough
// output reported at the end of a step used the input extrapolated from before T
// instead; so, as NI Jacobi does, slaves with such outputs re-evaluate them at T
// (evaluate_outputs, no time passes) with those raw inputs, in dependency order,
// before anything is estimated from them. With raw inputs this is also exactly
// what the slave produces from T on. With smoothing the slave continues from its
// old input (C¹, eq. 26) instead, but the histories, errors and estimates still
// follow the coupled signal rather than the smoothing's lag, which keeps the
// accuracy cost of smoothing small (on the two-mass switch 5 times smaller than
// with the end-of-step values).
//
// Deterministic (same slave results ⇒ same decisions), steps in whole ticks,
// never past t_end, never a rollback, and no heap allocation in plan_next/accept
// (everything is sized in start()). last_decision() is what the run log records.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/algorithms/f3ornits_estimates.hpp"
#include "runtime/algorithms/f3ornits_order_function.hpp"
#include "runtime/algorithms/f3ornits_scheduler.hpp"
#include "runtime/algorithms/f3ornits_time_stepper.hpp"
#include "runtime/algorithms/step_floor.hpp"
#include "runtime/input_coupling.hpp"
#include "runtime/output_history.hpp"

namespace couplet {

struct F3ornitsSettings {
  int max_degree = 2;  ///< M (eq. 15)
  Calibration calibration = Calibration::extrapolation;
  bool smoothing = false;  ///< C¹ Hermite inputs (§3.1.4); every slave with inputs must accept degree ≥ 3
  TimeStepperSettings time_stepper;  ///< normalization, ν, tolerances, ρ bounds, step bounds
  double initial_step = 0.01;  ///< δt⁽⁰⁾ in seconds (Remark 3), clamped into [min_step, max_step]
  bool synchronous = false;    ///< all variable-step slaves share the minimum (docs/f3ornits.md)
  /// The run stops when a slave's proposed step collapses below this (seconds; 0:
  /// never); unset: the default of runtime/algorithms/step_floor.hpp.
  std::optional<double> abort_below_step;
  /// Times (ticks, increasing) a slave's step lands on instead of crossing
  /// them — the breakpoints of stimuli, whose jumps an estimate would otherwise
  /// smear over a whole step. A landing closer than min_step (one tick at
  /// least) to the slave's time is not taken; the time-stepper's own proposal
  /// (eq. 38) is kept for the steps after it.
  std::vector<Time> landing_times;
};

/// One output at its slave's latest communication time.
struct F3ornitsOutputRecord {
  Time time = 0;             ///< t⁽ⁿ⁺¹⁾
  double value = 0.0;        ///< y⁽ⁿ⁺¹⁾ (consistent, see above)
  bool measured = false;     ///< false at the first point: no estimate to compare with
  int estimate_degree = 0;   ///< degree of the estimate ŷ⁽ⁿ⁾ the error is measured against (see measure)
  OutputError error;         ///< eqs. 32–35
  double damped_max = 0.0;   ///< eq. 36
  double damped_min = 0.0;
  OrderChoice order;         ///< eqs. 18–20: the degree for the next estimate and the ⁽q⁾err
  int estimate_degree_next = 0;  ///< degree of the new estimate (order.degree, capped by the points)
};

/// One slave: its latest communication and its latest planned step.
struct F3ornitsSlaveRecord {
  Time time = 0;                    ///< latest communication time t⁽ⁿ⁺¹⁾
  std::uint64_t communications = 0; ///< n + 1: points in its histories
  double ratio = 0.0;               ///< ρ (eq. 37), min over the read outputs, before the bounds
  StepProposal proposal_step;       ///< eq. 38 with Remark 1
  Time proposal = 0;                ///< t̃⁽ⁿ⁺²⁾ (eq. 38), or t_end (eq. 39)
  Time step_start = 0;              ///< latest step planned
  Time step_end = 0;
  StepLimit limit = StepLimit::proposal;  ///< the scheduler rule that set step_end
  bool refreshed = false;           ///< its outputs at `time` were re-evaluated
};

/// One input for the latest step of its slave.
struct F3ornitsInputRecord {
  Time estimate_time = 0;  ///< t_l⁽ᵐ⁾ of the source estimate used (eq. 25)
  Time horizon = 0;        ///< its source's proposal then (or its next communication, if later)
  int degree = 0;          ///< degree sent (after eq. 16; 3 when smoothed)
  bool smoothed = false;
  bool beyond_horizon = false;  ///< the step ends after `horizon` (imposed-step slaves only)
};

/// What one plan decided, for the run log. Spans point into the algorithm and
/// stay valid until its next plan_next/accept.
struct F3ornitsDecision {
  std::uint64_t index = 0;  ///< plans accepted so far
  Time time = 0;            ///< the rendez-vous time T
  bool refresh = false;     ///< the plan re-evaluated feedthrough outputs (no step)
  std::span<const std::size_t> slaves;  ///< the slaves the plan acted on, increasing
  std::span<const F3ornitsSlaveRecord> slave_records;    ///< every slave
  std::span<const F3ornitsOutputRecord> output_records;  ///< every output (output_index)
  std::span<const F3ornitsInputRecord> input_records;    ///< every input (input_index)
};

class F3ornits final : public Algorithm {
 public:
  /// Throws ConfigurationError naming the algorithm key of a bad setting.
  explicit F3ornits(const F3ornitsSettings& settings);

  std::string_view name() const override { return "f3ornits"; }
  AlgorithmRequirements requirements() const override;
  /// Throws ConfigurationError naming the slave: smoothing on a slave accepting
  /// degree < 3, or a time span that is not a multiple of an imposed step.
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
  void report(AlgorithmReport& report) const override;

  const F3ornitsSettings& settings() const { return settings_; }
  const F3ornitsDecision& last_decision() const { return decision_; }
  std::vector<std::string> internal_quantities() const override;
  void internal_values(std::span<double> values) const override;
  /// Positions in the decision's flattened record arrays.
  std::size_t output_index(std::size_t slave, std::size_t output) const { return output_offset_[slave] + output; }
  std::size_t input_index(std::size_t slave, std::size_t input) const { return input_offset_[slave] + input; }

 private:
  enum class Phase : std::uint8_t { rendezvous, refresh, step };

  /// A slave's estimates made at one communication time: which time, and until
  /// when its time-stepper trusted them.
  struct Epoch {
    Time time = 0;
    Time horizon = 0;
  };
  struct SlaveState {
    Time time = 0;               ///< communication time reached
    Time previous_time = 0;      ///< the one before (its last step start)
    Time proposal = 0;           ///< t̃ (eq. 38/39), made at `time` once updated
    double proposed_step = 0.0;  ///< seconds: the step the time-stepper proposed last
    bool updated = false;        ///< histories hold the outputs at `time`
    bool refresh_pending = false;
    std::uint64_t communications = 0;
    std::uint64_t steps = 0;
    CollapseWatch collapse;  ///< its proposals in a row below the floor
    Epoch current;   ///< estimates at the newest history point
    Epoch previous;  ///< estimates at the point before
    // Fixed at start:
    int accepted_degree = 0;  ///< M_k = min(M, m_k) (eq. 16)
    bool smoothing = false;
    bool has_feedthrough = false;  ///< some output has direct feedthrough
    bool reads_outputs = false;    ///< some output is connected to an input (else eq. 39)
  };
  struct OutputState {
    OutputHistory history;
    OutputRange range;
    OutputEstimate current;   ///< ŷ made at the newest point (eqs. 21–22)
    OutputEstimate previous;  ///< ŷ made at the point before
    bool connected = false;   ///< feeds some input: enters eq. 37
    std::uint8_t target_degrees = 0;  ///< bit d: some input reading it accepts degree d (M_k, eq. 16)
  };
  struct InputState {
    PortReference source;
    bool held = false;          ///< an Integer output drives it: the executor sets it
    Polynomial previous_input;  ///< the polynomial sent on the last step (eq. 26)
    bool has_previous = false;
  };

  void describe_system(const System& system);
  void check_configuration(const System& system) const;
  bool begin_rendezvous(std::span<const StepSlot> slots);
  bool plan_refresh(std::span<StepSlot> slots, Plan& plan);
  void plan_steps(std::span<StepSlot> slots, Plan& plan);
  bool needs_refresh(std::size_t slave) const;
  bool waits_for_refresh(std::size_t slave) const;
  bool is_feedthrough(PortReference output) const;
  /// Takes the outputs at the slave's time into the histories: every output, or
  /// only the feedthrough ones (after a refresh) or only the others (before one).
  enum class Outputs : std::uint8_t { all, feedthrough, not_feedthrough };
  void update_outputs(std::size_t slave, std::span<const double> values, Outputs which);
  void update_output(std::size_t slave, std::size_t output, double value);
  /// Eqs. 32–35 for the estimate sent: at its degree p and at every lower degree
  /// a target actually received (eq. 16), keeping the smallest ratio.
  void measure(const OutputState& state, double value, Time time, F3ornitsOutputRecord& record) const;
  /// Ratio (eq. 37), proposal (eqs. 38–39) and epochs once every output is in.
  void finish_update(std::size_t slave);
  [[noreturn]] void stop_collapsed_run(std::size_t slave) const;
  /// The source estimate for a target at `time` (eq. 25): the newest, or the one
  /// before when the source is already past `time`.
  const OutputEstimate& estimate_for(PortReference source, Time time) const;
  Time horizon_of(std::size_t source_slave, Time estimate_time) const;
  Polynomial raw_input(std::size_t slave, std::size_t input, Time time, double scale) const;
  void prepare_inputs(std::size_t slave, StepSlot& slot);
  void record_plan(bool refresh);

  F3ornitsSettings settings_;
  const System* system_ = nullptr;
  InputSources sources_;
  F3ornitsScheduler scheduler_;
  Time start_ = 0;
  Time end_ = 0;
  double abort_step_ = 0.0;  ///< seconds: the run stops when a proposal collapses below it
  Phase phase_ = Phase::rendezvous;
  Time rendezvous_ = 0;

  std::vector<SlaveState> slaves_;
  std::vector<OutputState> outputs_;  ///< flattened, output_offset_
  std::vector<InputState> inputs_;    ///< flattened, input_offset_
  std::vector<std::size_t> output_offset_;
  std::vector<std::size_t> input_offset_;

  // Scheduler exchange, per slave.
  std::vector<Time> times_;
  std::vector<Time> proposals_;
  std::vector<Time> ends_;
  std::vector<StepLimit> limits_;

  // The run-log view.
  F3ornitsDecision decision_;
  std::vector<std::size_t> acted_;
  std::vector<F3ornitsSlaveRecord> slave_records_;
  std::vector<F3ornitsOutputRecord> output_records_;
  std::vector<F3ornitsInputRecord> input_records_;

  // Whole-run statistics for the report.
  std::uint64_t rendezvous_count_ = 0;
  std::uint64_t refresh_count_ = 0;
  std::uint64_t horizon_overruns_ = 0;
  double smallest_step_ = 0.0;
  double largest_step_ = 0.0;
};

}  // namespace couplet
