#pragma once
// Non-iterative Jacobi co-simulation with defect control: Algorithm 1 of Glumac &
// Kovačić, Defect Analysis (eqs. 12–39 of that paper; docs/references.md,
// docs/defect-control.md).
//
// Per macro step k on [T_{k−1}, T_k], H_k = T_k − T_{k−1}:
//  1. every input is the Taylor polynomial at T_{k−1} of its source's output, of
//     order min(m, n) (eqs. 14–15), from the outputs and derivatives the source
//     reported at T_{k−1} (at t₀: the executor's consistent initial outputs);
//  2. every slave steps once over the whole macro step and samples its outputs at
//     the midpoint (a requested sample time, never a split step or a rollback), then
//     reports outputs and n derivatives at T_k. Those end outputs are
//     g(x̃(T_k), ũ(T_k)) with the extrapolated input (eq. 18): feedthrough outputs are
//     deliberately not re-evaluated from the sources' new outputs as the fixed-step
//     Jacobi does; the mismatch is exactly what the connection defect measures;
//  3. output polynomial ỹ: the Taylor polynomial of order n at T_k (eq. 12);
//  4. connection defect δu = ũ − ỹ (eq. 17) and output-defect estimate (eqs. 30–32),
//     each with its exact RMS over the step;
//  5. ε_k = max of the monitored RMS values (eq. 38);
//  6. variable step: H_{k+1} from the PI controller (eq. 39); fixed-step variant:
//     H_{k+1} = H. No step is ever rejected.
// Ours: a variable-step run whose steps stay below the floor of
// runtime/algorithms/step_floor.hpp stops with a SlaveError naming the
// connection or output whose defect held them down.
// Steps are whole ticks (at least 2, so that the midpoint is strictly inside), a
// multiple of every slave's imposed step, and the last one ends exactly at t_end.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/algorithm.hpp"
#include "runtime/algorithms/pi_step_controller.hpp"
#include "runtime/algorithms/step_floor.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

/// Which defects enter ε (eq. 38); all of them are computed and recorded anyway.
enum class MonitoredDefects : std::uint8_t { connection, output, both };

struct DefectControlSettings {
  int input_order = 0;   ///< m (0–2); inputs use min(m, n) derivatives (eq. 15)
  int output_order = 0;  ///< n (0–2): output Taylor order (eq. 12)
  MonitoredDefects monitored = MonitoredDefects::both;
  Time fixed_step = 0;   ///< > 0: the fixed-step variant with H_k = fixed_step
  PiStepControllerSettings controller;  ///< the variable-step variant (fixed_step == 0)
  /// Variable step: the run stops when H_{k+1} collapses below this (seconds; 0:
  /// never); unset: the default of step_floor.hpp.
  std::optional<double> abort_below_step;
};

/// One macro step as the run log will take it: decision, defects, controller state.
/// The spans point into the algorithm and stay valid until its next accept().
struct DefectControlStepRecord {
  std::uint64_t index = 0;  ///< k, from 1
  Time start = 0;           ///< T_{k−1}
  Time end = 0;             ///< T_k
  Time midpoint = 0;        ///< the sample time inside the step
  double defect = 0.0;      ///< ε_k (eq. 38) over the monitored defects
  std::span<const double> connection_defect_rms;  ///< per connection (connection_names order)
  std::span<const double> output_defect_rms;      ///< per estimated output (output_names order)
  bool controlled = false;  ///< false in the fixed-step variant: `controller` unused
  PiStepDecision controller;  ///< eq. 39 after this step: e_k, H̄, H_{k+1}, I_k
  Time next_step = 0;       ///< H_{k+1} in ticks, before clipping at t_end
};

class DefectControlledJacobi final : public Algorithm {
 public:
  /// Throws ConfigurationError naming the algorithm key of a bad setting.
  explicit DefectControlledJacobi(const DefectControlSettings& settings);

  std::string_view name() const override { return "defect_control"; }
  AlgorithmRequirements requirements() const override;
  void start(const RunSetup& setup, std::span<StepSlot> slots) override;
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override;
  void accept(std::span<const StepSlot> slots, const Plan& plan) override;
  void report(AlgorithmReport& report) const override;
  std::vector<std::string> internal_quantities() const override;
  void internal_values(std::span<double> values) const override;

  const DefectControlSettings& settings() const { return settings_; }
  /// The step accepted last (index 0 before the first).
  const DefectControlStepRecord& last_step_record() const { return record_; }
  /// "slave.input" of each connection's target, in the record's order.
  std::span<const std::string> connection_names() const { return connection_names_; }
  /// "slave.output" of each output whose defect is estimated, in the record's order.
  std::span<const std::string> output_names() const { return output_names_; }

 private:
  struct MonitoredConnection {
    PortReference source;  ///< output ỹ
    PortReference target;  ///< input ũ
  };
  struct MonitoredOutput {
    PortReference port;
    int order = 0;  ///< n for this output: min(n, what its slave reports)
  };

  int input_derivatives() const;
  void describe_system(const System& system);
  void check_time_grid(const System& system, Time start, Time end);
  Time round_step(double seconds) const;
  Time clip_to_end(Time from, Time step) const;
  void measure_connections(std::span<const StepSlot> slots, double step_start, double step);
  void measure_outputs(std::span<const StepSlot> slots, double midpoint, double midpoint_to_end, double step);
  double controlled_defect() const;
  std::string largest_defect_name() const;
  void choose_next_step(double step_seconds);
  [[noreturn]] void stop_collapsed_run() const;

  DefectControlSettings settings_;
  std::optional<PiStepController> controller_;
  InputSources sources_;
  Time time_ = 0;  ///< T_{k−1}: the communication time every slave has reached
  Time start_ = 0;
  Time end_ = 0;
  Time quantum_ = 1;        ///< every step is a multiple: lcm of the imposed steps
  Time minimum_step_ = 2;   ///< ticks: room for a midpoint strictly inside
  double abort_step_ = 0.0; ///< seconds: the run stops when the step collapses below it
  CollapseWatch collapse_;
  Time next_step_ = 0;      ///< H_k for the step plan_next prepares, in ticks
  Time planned_end_ = 0;    ///< T_k of the planned step
  Time midpoint_ = 0;       ///< of the planned step
  std::vector<bool> samples_midpoint_;  ///< per slave: asked for the midpoint sample

  std::vector<MonitoredConnection> connections_;
  std::vector<MonitoredOutput> outputs_;
  std::vector<std::string> connection_names_;
  std::vector<std::string> output_names_;
  std::vector<double> step_connection_rms_;  ///< this step, per connection
  std::vector<double> step_output_rms_;      ///< this step, per output
  std::vector<double> connection_square_integral_;  ///< Σ_k ∫ δu² dt, per connection
  std::vector<double> output_square_integral_;      ///< Σ_k ∫ δ̂y² dt, per output
  DefectControlStepRecord record_;

  // Whole-run statistics for the report.
  double largest_step_defect_ = 0.0;
  double smallest_step_ = 0.0;
  double largest_step_ = 0.0;
  std::uint64_t limited_steps_ = 0;
};

}  // namespace couplet
