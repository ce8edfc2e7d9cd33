#pragma once
// What IFOSMONDI (fixed point) and IFOSMONDI-JFM (KINSOL) share: the iterative macro
// step of the IFOSMONDI-JFM paper §3 (docs/references.md, docs/iterative.md) as a
// sequence of plans.
//
// A macro step τ = [t⁽ᴺ⁾, t⁽ᴺ⁺¹⁾]:
//   1. save every slave's state at t⁽ᴺ⁾ and step it over τ with the first iterate
//      x⁰ (eq. 20) — the first call of γ, made before the solver (§3.3);
//   2. test eq. 27 on γ(x) = x − Ψ(x) (eq. 24); if it fails, the solver chooses the
//      next x, every slave is restored (rollback) and re-steps τ with it;
//   3. converged: the slaves already stand at t⁽ᴺ⁺¹⁾ after a step with the converged
//      x — the last call of γ that §3.3 asks for is the one that converged, so it is
//      not repeated — and the next step is 30 % longer, at most δt_ref (eq. 28);
//   4. the solver fails (max_iterations, divergence, KINSOL's own failures): the step
//      is rejected, halved and retried from the saved states (eq. 28); below
//      min_step the run ends with a CouplingFailure naming the step and ‖γ‖.
// Divergence: ‖γ‖ more than 10⁴ times its first value on the attempt (PETSc's SNES
// divergence tolerance, which the paper's runs used), or not finite.
//
// The plans obey the Algorithm contract: the algorithm never calls a slave; a plan
// mixes restore and step actions, carried out in order. Counters (summary.json):
// iterations, integrations (evaluations of γ = steps of every slave over τ),
// rejected_steps, converged_steps, replayed_integrations. Per-step figures go to an
// observer (for the run log) as IfosmondiStepRecord.
//
// For a composite slave (runtime/composite_slave.hpp) the algorithm also takes given
// inputs, a horizon its steps may not cross, output refreshes, and an anchor: a
// rollback point of the composite itself. While anchored, the slaves' single save
// slot holds the anchor, so a retry of a later step restores to the anchor and
// replays the converged steps since (bit-identical, as the slaves are deterministic).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/algorithms/ifosmondi_coupling.hpp"
#include "runtime/algorithms/ifosmondi_step_control.hpp"
#include "couplet/errors.hpp"

namespace couplet {

struct IfosmondiSettings {
  Time reference_step = 0;            ///< δt_ref: first and largest step (eq. 28)
  Time min_step = 0;                  ///< a failed step is not halved below it
  double absolute_tolerance = 1e-4;   ///< ε_abs (eq. 27)
  double relative_tolerance = 1e-4;   ///< ε_rel (eq. 27)
  int max_iterations = 50;            ///< per step attempt
  /// Fixed point (ifosmondi) only; 0: off. When set, max_iterations is the budget an
  /// attempt starts with, and an attempt that still contracts may go on for the
  /// iterations its measured contraction rate needs, up to this many (ifosmondi.hpp).
  int iteration_cap = 0;
  /// Times (ticks, increasing) a step lands on instead of crossing them — the
  /// breakpoints of stimuli, whose jumps the coupling polynomials would
  /// otherwise smear over a whole step. A landing closer than min_step to the
  /// step start is crossed; the step control's step is kept for the steps after.
  std::vector<Time> landing_times;
};

/// One attempt at a macro step, converged or rejected.
struct IfosmondiStepRecord {
  Time start = 0;
  Time end = 0;
  int iterations = 0;     ///< as the solver counts them (fixed point: = integrations)
  int integrations = 0;   ///< evaluations of γ on this attempt
  double residual = 0.0;  ///< ‖γ‖ at the last evaluation
  double threshold = 0.0; ///< right-hand side of eq. 27 there
  bool converged = false;
};

/// Receives every IfosmondiStepRecord, on the stepping thread (for the run log).
class IfosmondiObserver {
 public:
  virtual ~IfosmondiObserver() = default;
  virtual void step_finished(const IfosmondiStepRecord& record) = 0;
  /// After every evaluation of γ: the attempt so far (`converged` not yet decided).
  virtual void residual_evaluated(const IfosmondiStepRecord&) {}
};

/// Called when a step converged, with the slots of its converged evaluation (their
/// outputs and samples); for a composite slave, which reports its members' samples.
class IfosmondiStepListener {
 public:
  virtual ~IfosmondiStepListener() = default;
  virtual void step_converged(std::span<const StepSlot> slots, Time start, Time end) = 0;
};

/// The run cannot go on: the iteration failed on a step that cannot be halved.
class CouplingFailure final : public SlaveError {
 public:
  using SlaveError::SlaveError;
};

/// Chooses the iterates of one step attempt from the residuals.
class CouplingSolver {
 public:
  enum class Verdict { evaluate, failed };
  virtual ~CouplingSolver() = default;
  /// A new attempt; x⁰ is being evaluated.
  virtual void begin(std::span<const double> first_iterate) = 0;
  /// γ(x) of the latest iterate x did not pass eq. 27: the next iterate, or failure.
  virtual Verdict next(std::span<const double> x, std::span<const double> gamma, std::span<double> next_x) = 0;
  /// Iterations that led to the latest evaluated iterate, `evaluations` being the
  /// evaluations of the attempt so far.
  virtual int iterations(int evaluations) const = 0;
  /// Why the latest `failed`.
  virtual const std::string& failure() const = 0;
};

class IfosmondiAlgorithm : public Algorithm {
 public:
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
  void report(AlgorithmReport& report) const override;
  std::vector<std::string> internal_quantities() const override;
  void internal_values(std::span<double> values) const override;

  struct Totals {
    std::uint64_t iterations = 0;
    std::uint64_t integrations = 0;
    std::uint64_t rejected_steps = 0;
    std::uint64_t converged_steps = 0;
    std::uint64_t replayed_integrations = 0;
  };
  const Totals& totals() const { return totals_; }
  const IfosmondiSettings& settings() const { return settings_; }
  const IfosmondiStepRecord& last_record() const { return record_; }
  /// Not owned; may be null.
  void set_observer(IfosmondiObserver* observer) { observer_ = observer; }

  // --- for a composite slave ---
  /// Before start(): inputs fed by `given.source_slave` are not iterated (see
  /// IfosmondiCoupling); that slave is never planned.
  void use_given_inputs(GivenInputs given) { given_ = given; }
  /// Steps end at `horizon` at the latest (clipped, eq. 28 unchanged); plan_next
  /// returns false once the slaves stand there. Default: the end of the run.
  void set_horizon(Time horizon);
  /// Re-evaluate the slaves' outputs at the current communication time (given inputs
  /// changed): before the first step, as many passes as there are outputs (the
  /// executor's consistent start); after, one pass with the inputs' C¹ state.
  void request_output_refresh();
  /// The current communication time becomes the rollback point: the next plan saves
  /// every slave. Only between steps.
  void set_anchor();
  /// Back to the anchor (algorithm state and, by the next plan, every slave).
  void rollback_to_anchor();
  /// Samples every slave that reports samples at these times (increasing) as the
  /// steps pass them; the listener gets them from the converged evaluations. The
  /// span must stay valid while the algorithm runs.
  void set_sample_times(std::span<const Time> times) { sample_times_ = times; }
  void set_step_listener(IfosmondiStepListener* listener) { listener_ = listener; }
  Time time() const { return time_; }

 protected:
  explicit IfosmondiAlgorithm(const IfosmondiSettings& settings);
  /// The solver for `unknowns` unknowns (> 0), made in start().
  virtual std::unique_ptr<CouplingSolver> make_solver(std::size_t unknowns) = 0;
  /// The most evaluations of γ one step attempt may take.
  virtual int max_evaluations(std::size_t unknowns) const = 0;

 private:
  enum class Phase { idle, iterating };
  enum class PlanKind { none, refresh, anchor, replay, evaluation };
  struct ConvergedStep {  ///< for replays while anchored
    Time start = 0;
    Time end = 0;
    CouplingStart from;
    std::vector<double> x;
  };
  struct Anchor {
    Time time = 0;
    CouplingStart coupling;
    Time step = 0;
    bool started = false;
  };

  void add_all(Plan& plan, SlaveAction action) const;
  void begin_step(std::span<const StepSlot> slots);
  void begin_attempt();
  void plan_refresh(std::span<StepSlot> slots, Plan& plan);
  bool plan_positioning(std::span<StepSlot> slots, Plan& plan);
  void plan_evaluation(std::span<StepSlot> slots, Plan& plan);
  void evaluated(std::span<const StepSlot> slots);
  void finish_step();
  void reject(std::string_view reason);
  void notify(bool converged);
  [[noreturn]] void fail(std::string_view reason) const;
  std::string worst_unknown_text() const;

  IfosmondiSettings settings_;
  std::optional<GivenInputs> given_;
  IfosmondiCoupling coupling_;
  IfosmondiStepControl control_;
  std::unique_ptr<CouplingSolver> solver_;
  int max_evaluations_ = 0;

  Time time_ = 0;      ///< t⁽ᴺ⁾: every slave has converged up to here
  Time end_ = 0;
  Time horizon_ = 0;
  Time step_end_from(Time start) const;
  bool started_ = false;  ///< u⁽ⁱⁿⁱᵗ⁾ taken (first step begun)
  Phase phase_ = Phase::idle;
  PlanKind last_plan_ = PlanKind::none;
  Time step_start_ = 0;
  Time step_end_ = 0;
  Time members_time_ = 0;  ///< where the slaves stand once the planned actions ran
  Time saved_time_ = std::numeric_limits<Time>::min();  ///< their saved state's time

  std::vector<double> x_, psi_, gamma_, next_;
  int attempt_evaluations_ = 0;
  double initial_residual_ = 0.0;
  double residual_ = 0.0;
  double threshold_ = 0.0;
  ConvergenceTest convergence_;  ///< of the latest evaluation

  std::size_t refresh_passes_left_ = 0;
  std::size_t initial_refresh_passes_ = 1;
  bool anchored_ = false;
  bool anchor_save_pending_ = false;
  bool anchor_restore_pending_ = false;
  Anchor anchor_;
  std::vector<ConvergedStep> since_anchor_;

  Totals totals_;
  IfosmondiStepRecord record_;
  IfosmondiObserver* observer_ = nullptr;
  IfosmondiStepListener* listener_ = nullptr;
  std::span<const Time> sample_times_;
};

}  // namespace couplet
