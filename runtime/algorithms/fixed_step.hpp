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
#include "runtime/algorithm.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

struct FixedStepSettings {
  Time step = 0;         ///< H, in ticks
  int input_order = 0;   ///< m: 0 = ZOH, k = Taylor polynomial of order k
};

class FixedStepAlgorithm : public Algorithm {
 public:
  explicit FixedStepAlgorithm(const FixedStepSettings& settings);
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;

 protected:
  /// End of the macro step that starts at `time`.
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
  Time time_ = 0;  ///< the communication time all slaves have reached
  Time end_ = 0;

 private:
  void check_imposed_steps(const System& system) const;
  void compute_refresh_levels(const System& system);
  std::size_t refresh_level_count() const { return level_begin_.size() - 1; }

  /// Slaves with inputs and a feedthrough output, level by level: level n is
  /// refresh_order_[level_begin_[n], level_begin_[n + 1]).
  std::vector<std::size_t> refresh_order_;
  std::vector<std::size_t> level_begin_{0};
  std::size_t next_refresh_level_ = 0;  ///< == the level count: no refresh pending
};

}  // namespace couplet
