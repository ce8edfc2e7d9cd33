#pragma once
// What Jacobi and Gauss–Seidel share: a fixed communication step H, the last
// step clipped to end exactly at the end time, inputs that are Taylor
// polynomials of order m of the sources' reported outputs (m = 0: ZOH; Glumac
// eqs. 14–15), and outputs made consistent at every communication time: after a
// round of steps, slaves with direct-feedthrough outputs re-evaluate them from
// the fresh outputs of their sources, as an FMI master does by setting inputs
// before reading outputs. Without it, a feedthrough output would be reported
// with the input extrapolated from the previous communication time.
//
// The re-evaluation is one pass in dependency order, each feedthrough slave
// evaluated once per macro step: start() groups the feedthrough slaves into
// levels (Kahn's topological sort), a slave reading feedthrough outputs (and,
// with Taylor inputs, derivatives of other outputs, where the graph allows)
// only of lower levels; one plan per level, whose evaluations are independent
// and go out concurrently over links. Passes over all feedthrough slaves would
// settle a chain of k only after k passes: k² evaluations, k round trips.
//
// Input modes: `taylor` (the default) uses the derivatives the sources report;
// `extrapolated` is the explicit scheme of Kraft & Schweizer, "Reduction of
// Computation Time by Parallelization and Incorporating Co-Simulation
// Techniques" (§2.3): each input is the Lagrange polynomial of order k through
// the source's last k + 1 communication values (order reduced while fewer
// exist), those values taken after the feedthrough refresh, so that coupling
// forces follow the coupling condition (their eq. 3) at every communication time.
#include <cstdint>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/communication_history.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

enum class InputMode : std::uint8_t {
  taylor,        ///< Taylor polynomial of the reported derivatives (Glumac eqs. 14–15)
  extrapolated,  ///< Lagrange extrapolation through past communication values
};

struct FixedStepSettings {
  Time step = 0;         ///< H, in ticks
  int input_order = 0;   ///< m: 0 = ZOH, k = polynomial of order k
  InputMode inputs = InputMode::taylor;
  /// Extrapolated inputs only: communication values before the start (a run that
  /// continues a known history: the local error of one macro step).
  std::vector<OutputHistorySeed> history;
};

class FixedStepAlgorithm : public Algorithm {
 public:
  explicit FixedStepAlgorithm(const FixedStepSettings& settings);
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;

 protected:
  /// End of the macro step that starts at `time`.
  bool extrapolated() const { return settings_.inputs == InputMode::extrapolated; }
  /// After `plan` ran: its stepped slaves' new communication values join the
  /// history, its re-evaluated ones replace theirs (extrapolated inputs only).
  void record_history(std::span<const StepSlot> slots, const Plan& plan);
  Time step_end(Time time) const { return std::min(time + settings_.step, end_); }
  void prepare_step(std::size_t slave, std::span<StepSlot> slots, Time from, Time to) const;

  /// Plans the re-evaluation of the next pending level of feedthrough slaves.
  bool plan_output_refresh(std::span<StepSlot> slots, Plan& plan);
  /// After a round of steps: every level once, lowest first.
  void request_output_refresh() { next_refresh_level_ = 0; }
  static bool is_refresh(const Plan& plan) {
    return !plan.empty() && plan.actions().front().action == SlaveAction::evaluate_outputs;
  }

  FixedStepSettings settings_;
  InputSources sources_;
  CommunicationHistory history_;  ///< extrapolated inputs only
  Time time_ = 0;  ///< the communication time all slaves have reached
  Time end_ = 0;

 private:
  void check_imposed_steps(const System& system) const;
  void compute_refresh_levels(const System& system);
  void assign_inputs(std::size_t slave, std::span<StepSlot> slots, double scale) const;
  std::size_t refresh_level_count() const { return level_begin_.size() - 1; }

  /// Slaves with inputs and a feedthrough output, level by level: level n is
  /// refresh_order_[level_begin_[n], level_begin_[n + 1]).
  std::vector<std::size_t> refresh_order_;
  std::vector<std::size_t> level_begin_{0};
  std::size_t next_refresh_level_ = 0;  ///< == the level count: no refresh pending
};

}  // namespace couplet
