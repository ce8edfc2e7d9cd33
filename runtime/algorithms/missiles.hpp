#pragma once
// MISSILES (Éguillon, Lacabanne, Tromeur-Dervout, "MISSILES: an Efficient
// Resolution of the Co-simulation Coupling Constraint on Nearly Linear
// Differential Systems through a Global Linear Formulation", J. Comput. Appl.
// Math. 424 (2023) 115013, doi:10.1016/j.cam.2022.115013): the implicit
// coupling constraint of IFOSMONDI solved without rollback. Per macro step
// [tᴺ, tᴺ⁺¹] of fixed size δt (eq. 56):
//   1. every slave is linearized at tᴺ (state x̃, ẋ, A, B, C, D; eq. 4), with
//      its inputs at their left values u(tᴺ) — one batch of linearize actions;
//   2. the COSTARICA estimators of each slave (eqs. 10–14, computed exactly,
//      runtime/algorithms/costarica_estimator.hpp) and the Hermite inputs (eqs.
//      35, 54; first step eq. 55) make the coupling constraint one linear system
//      in the outputs' values and derivatives at tᴺ⁺¹ (eq. 53,
//      missiles_coupling.hpp), solved once;
//   3. every slave integrates the step once with the inputs u_valid (eq. 35)
//      made of the solution (dispatch û = Φᵀŷ, eq. 38) — one batch of steps, no
//      rollback. û and u̇̂ are the next step's left constraints, so the inputs
//      are C¹ across communication times.
// Exact for linear slaves up to the slaves' own integration error; for
// nonlinear ones the linearization error shows as the mismatch between the
// estimated and the returned outputs, recorded per output and per step.
// Algebraic loops through direct feedthrough are part of the linear system.
//
// Real-time boundary: start() allocates; plan_next() and accept() do not. The
// estimators of a slave are recomputed only when its linearization or δt
// changes — once for linear slaves, every step for nonlinear ones — and, like
// the coupled system, in storage sized at start().
#include <memory>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/algorithms/costarica_estimator.hpp"
#include "runtime/algorithms/missiles_coupling.hpp"

namespace couplet {

struct MissilesSettings {
  Time step = 0;  ///< δt, in ticks
};

class Missiles final : public Algorithm {
 public:
  explicit Missiles(const MissilesSettings& settings);
  std::string_view name() const override { return "missiles"; }
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
  void report(AlgorithmReport& report) const override;
  std::vector<std::string> internal_quantities() const override;
  void internal_values(std::span<double> values) const override;

 private:
  enum class Phase { linearize, step };

  /// Per slave: its ports in the global output numbering and the step's data.
  struct SlaveState {
    std::size_t first_output = 0;               ///< index of its first output in ŷ
    std::vector<std::size_t> input_sources;     ///< global output index per input
    missiles::SlaveLinearization linearization;
    std::unique_ptr<missiles::CostaricaWorkspace> estimators;  ///< the operators, and room to recompute them
    std::vector<double> operator_key;           ///< A, B, C, D the operators were made of
    double operator_step = 0.0;                 ///< δt they were made for (0: none yet)
    Eigen::VectorXd start_value;                ///< u(tᴺ)
    Eigen::VectorXd start_derivative;           ///< u̇(tᴺ)
  };

  void plan_linearization(std::span<StepSlot> slots, Plan& plan);
  void plan_steps(std::span<StepSlot> slots, Plan& plan);
  void take_linearization(std::size_t slave, const StepSlot& slot);
  void refresh_operators(SlaveState& state, std::span<const double> linearization, double step);
  void take_step_results(std::span<const StepSlot> slots);
  Time step_end() const { return std::min(time_ + settings_.step, end_); }

  MissilesSettings settings_;
  const System* system_ = nullptr;
  Time time_ = 0;
  Time end_ = 0;
  Phase phase_ = Phase::linearize;
  bool first_step_ = true;
  std::vector<SlaveState> slaves_;
  std::vector<missiles::CoupledSlave> coupled_;
  missiles::CouplingSolver solver_;
  const missiles::CouplingSolution* solution_ = nullptr;  ///< the current step's, in solver_
  std::vector<std::string> output_names_;

  // What the log records after each plan (internal_values).
  double step_seconds_ = 0.0;
  double reciprocal_condition_ = 0.0;
  std::vector<double> mismatch_;  ///< returned minus estimated output value, per output

  // Whole-run figures for summary.json.
  std::uint64_t estimator_refreshes_ = 0;
  double largest_mismatch_ = 0.0;
  double smallest_reciprocal_condition_ = 1.0;
};

}  // namespace couplet
