#pragma once
// The semi-implicit co-simulation scheme with one corrector step (B. Schweizer,
// D. Lu, "Semi-implicit co-simulation approach for solver coupling", Archive of
// Applied Mechanics 84(12), 2014; J. Kraft, B. Schweizer, "Reduction of
// Computation Time by Parallelization and Incorporating Co-Simulation
// Techniques", §2.4), at a constant macro step H. Roles of the slaves, and eq. 4/5
// for a general system: runtime/algorithms/semi_implicit_coupling.hpp.
//
// One macro step T_N → T_N+1, as plans (every slave at most once per plan, so the
// actions of a plan are independent and may run concurrently):
//   1. save the subsystems (joined to the previous step's last plan);
//   2. predictor: step the subsystems with λ^p(t), the Lagrange extrapolation of
//      order k through λ(T_N), ..., λ(T_N−k) (order reduced while fewer exist);
//   3. evaluate the coupling elements at the predicted outputs u^p: f(u^p);
//   4. linearize them there (the D rows of eq. 5) | restore the subsystems;
//   5. perturbed predictor: step the subsystems with λ^Δ(t), the polynomial through
//      λ^p(T_N+1) + Δλ and λ(T_N), ..., λ(T_N−k+1) — the corrector's family, so
//      that eq. 4 is the derivative of what the corrector is given; for every
//      λ its value at T_N+1 is λ^p + Δλ, as in the paper;
//   6. eq. 4 and eq. 5 give λ^c | restore the subsystems | evaluate the coupling
//      elements at u(T_N) again (their outputs return to λ(T_N), the start of the
//      update step below);
//   7. corrector: step the subsystems with the polynomial through λ^c at T_N+1 and
//      λ(T_N), ..., λ(T_N−k+1);
//   8. update (eq. 3 at the corrected states): step the coupling elements over
//      [T_N, T_N+1] with their inputs linear between u(T_N) and u(T_N+1); their
//      outputs λ(T_N+1) join the history | save the subsystems for the next step.
// Each step therefore integrates every subsystem three times (two predictors,
// one corrector), as in the paper's eq. 6 estimate (two of them in parallel there).
//
// Run log (internal quantities, compared by replay): max_correction = max |λ^c −
// λ^p|, max_update = max |λ(T_N+1) − λ^c| (how far eq. 3 moved the corrected
// forces), max_slope = max |J| of eq. 5.
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/algorithms/semi_implicit_coupling.hpp"
#include "runtime/communication_history.hpp"

namespace couplet {

struct SemiImplicitSettings {
  Time step = 0;              ///< H, in ticks
  int input_order = 0;        ///< k: order of the λ polynomials
  double perturbation = 1.0;  ///< Δλ of eq. 4, in the units of the coupling variables
  /// Values of coupling outputs before the start (see OutputHistorySeed).
  std::vector<OutputHistorySeed> history;
};

class SemiImplicit final : public Algorithm {
 public:
  explicit SemiImplicit(const SemiImplicitSettings& settings);
  std::string_view name() const override { return "semi_implicit"; }
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
  void report(AlgorithmReport& report) const override;
  std::vector<std::string> internal_quantities() const override;
  void internal_values(std::span<double> values) const override;

  /// λ^p and λ^c of the latest step, per coupling output (SemiImplicitCoupling order).
  std::span<const double> predicted() const { return predicted_; }
  std::span<const double> corrected() const { return corrected_; }

 private:
  enum class Phase : std::uint8_t {
    idle,
    save,
    predict,
    evaluate_predicted,
    linearize,
    perturbed,
    restore,
    correct,
    update
  };

  void plan_phase(std::span<StepSlot> slots, Plan& plan);
  void prepare_subsystems(std::span<StepSlot> slots, Phase phase);
  void set_constant_inputs(std::span<StepSlot> slots, std::span<const double> values) const;
  void set_update_inputs(std::span<StepSlot> slots) const;
  void correct(std::span<const StepSlot> slots);
  void finish_step(std::span<const StepSlot> slots);

  SemiImplicitSettings settings_;
  const System* system_ = nullptr;
  SemiImplicitCoupling coupling_;
  CommunicationHistory history_;  ///< of the coupling outputs λ
  Time time_ = 0;                 ///< T_N: every slave stands here between steps
  Time end_ = 0;
  Time step_end_ = 0;  ///< T_N+1
  Time saved_time_ = std::numeric_limits<Time>::min();
  Phase phase_ = Phase::idle;

  // Per coupling output λ_l.
  std::vector<double> predicted_, evaluated_, slope_, corrected_;
  // Per coupling input (flattened, SemiImplicitCoupling::input_begin).
  std::vector<double> inputs_now_;        ///< u(T_N)
  std::vector<double> inputs_predicted_;  ///< u^p(T_N+1)
  std::vector<double> inputs_perturbed_;  ///< u^Δ(T_N+1)
  std::vector<double> inputs_corrected_;  ///< u(T_N+1)

  double max_correction_ = 0.0;
  double max_update_ = 0.0;
  double max_slope_ = 0.0;
  std::uint64_t macro_steps_ = 0;
  std::uint64_t integrations_ = 0;
};

}  // namespace couplet
