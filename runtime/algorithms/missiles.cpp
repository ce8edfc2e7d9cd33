#include "runtime/algorithms/missiles.hpp"

#include <algorithm>
#include <cmath>

#include "couplet/errors.hpp"
#include "runtime/algorithms/hermite_step_inputs.hpp"
#include "runtime/input_coupling.hpp"

namespace couplet {

namespace {

using ConstMatrixMap = Eigen::Map<const Eigen::MatrixXd>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;

ConstMatrixMap block(std::span<const double> values, std::size_t offset, std::size_t rows,
                     std::size_t columns) {
  return ConstMatrixMap(values.data() + offset, static_cast<Eigen::Index>(rows),
                        static_cast<Eigen::Index>(columns));
}

}  // namespace

Missiles::Missiles(const MissilesSettings& settings) : settings_(settings) {
  if (settings.step <= 0) throw ConfigurationError("algorithm.step must be positive");
}

AlgorithmRequirements Missiles::requirements() const {
  // Cubic Hermite inputs (eq. 54); no output derivatives (the estimators give
  // them, eq. 10); loops through feedthrough are solved in eq. 53; no rollback.
  return {.algorithm_name = std::string(name()),
          .required_input_degree = missiles::kInputDegree,
          .resolves_algebraic_loops = true,
          .needs_linearization = true,
          // Its coupled system (eq. 53) takes every input from a linearized output.
          .real_sources_only = true};
}

void Missiles::start(const RunSetup& setup, std::span<StepSlot> slots) {
  system_ = &setup.system;
  time_ = setup.start;
  end_ = setup.end;
  const System& system = setup.system;
  const InputSources sources(system);

  std::vector<std::size_t> first_output(system.slave_count() + 1, 0);
  output_names_.clear();
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    first_output[s + 1] = first_output[s] + system.description(s).outputs.size();
    for (std::size_t j = 0; j < system.description(s).outputs.size(); ++j)
      output_names_.push_back(system.output_name({s, j}));
  }

  slaves_.clear();
  slaves_.resize(system.slave_count());
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    SlaveState& state = slaves_[s];
    const LinearizationLayout layout = LinearizationLayout::of(system.description(s));
    const auto states = static_cast<Eigen::Index>(layout.states);
    const auto inputs = static_cast<Eigen::Index>(layout.inputs);
    const auto outputs = static_cast<Eigen::Index>(layout.outputs);
    state.first_output = first_output[s];
    state.input_sources.resize(layout.inputs);
    // Left constraints of the first step: the sources' consistent initial
    // outputs; eq. 55 needs no derivative.
    state.start_value = Eigen::VectorXd::Zero(inputs);
    state.start_derivative = Eigen::VectorXd::Zero(inputs);
    for (std::size_t i = 0; i < layout.inputs; ++i) {
      const PortReference source = sources.source(s, i);
      state.input_sources[i] = first_output[source.slave] + source.port;
      state.start_value[static_cast<Eigen::Index>(i)] = slots[source.slave].output(source.port);
    }
    missiles::SlaveLinearization& linear = state.linearization;
    linear.A.setZero(states, states);
    linear.B.setZero(states, inputs);
    linear.C.setZero(outputs, states);
    linear.D.setZero(outputs, inputs);
    linear.state.setZero(states);
    linear.affine.setZero(states);
    linear.output_offset.setZero(outputs);
    state.operator_key.assign(layout.size() - layout.a_offset(), 0.0);
    state.estimators = std::make_unique<missiles::CostaricaWorkspace>(states, inputs, outputs);
  }
  coupled_.clear();
  for (const SlaveState& state : slaves_) {
    coupled_.push_back({&state.linearization, &state.estimators->operators, state.input_sources, state.start_value,
                        state.start_derivative});
  }
  solver_.reserve(coupled_);
  mismatch_.assign(output_names_.size(), 0.0);
  phase_ = Phase::linearize;
  first_step_ = true;
}

bool Missiles::plan_next(std::span<StepSlot> slots, Plan& plan) {
  if (time_ >= end_) return false;
  if (phase_ == Phase::linearize) {
    plan_linearization(slots, plan);
  } else {
    plan_steps(slots, plan);
  }
  return true;
}

// Step 1: every slave linearized at tᴺ with its inputs at their left values.
void Missiles::plan_linearization(std::span<StepSlot> slots, Plan& plan) {
  const double now = to_seconds(time_);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    const Eigen::VectorXd& values = slaves_[s].start_value;
    for (std::size_t i = 0; i < slots[s].inputs.size(); ++i)
      slots[s].inputs[i] = Polynomial::constant(now, values[static_cast<Eigen::Index>(i)]);
    plan.add(s, SlaveAction::linearize);
  }
}

// Step 3: the inputs u_valid of eq. 35, ξ_p in local time τ = t − tᴺ, stored in
// s = τ/δt (coefficient ξ_p δtᵖ) for conditioning.
void Missiles::plan_steps(std::span<StepSlot> slots, Plan& plan) {
  const Time to = step_end();
  const double step = to_seconds(to - time_);
  const double origin = to_seconds(time_);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    StepSlot& slot = slots[s];
    slot.start = time_;
    slot.end = to;
    const missiles::InputCoefficients& xi = solution_->inputs[s];
    for (std::size_t i = 0; i < slot.inputs.size(); ++i) {
      std::array<double, missiles::kInputDegree + 1> coefficients{};
      double power = 1.0;
      for (int p = 0; p <= missiles::kInputDegree; ++p) {
        coefficients[static_cast<std::size_t>(p)] = xi[static_cast<std::size_t>(p)][static_cast<Eigen::Index>(i)] * power;
        power *= step;
      }
      slot.inputs[i] = Polynomial::from_coefficients(origin, step, coefficients);
    }
    plan.add(s, SlaveAction::step);
  }
}

void Missiles::accept(std::span<const StepSlot> slots, const Plan& plan) {
  if (phase_ == Phase::step) {
    take_step_results(slots);
    phase_ = Phase::linearize;
    return;
  }
  (void)plan;
  const double step = to_seconds(step_end() - time_);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    take_linearization(s, slots[s]);
    refresh_operators(slaves_[s], slots[s].linearization, step);
  }
  // Step 2: eq. 53 with the Hermite weights of eq. 54 (first step: eq. 55).
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    coupled_[s].start_value = slaves_[s].start_value;
    coupled_[s].start_derivative = slaves_[s].start_derivative;
  }
  const Eigen::Matrix4d weights =
      first_step_ ? missiles::first_step_weights(step) : missiles::hermite_weights(step);
  solution_ = &solver_.solve(coupled_, weights);
  reciprocal_condition_ = solution_->reciprocal_condition;
  smallest_reciprocal_condition_ = std::min(smallest_reciprocal_condition_, reciprocal_condition_);
  phase_ = Phase::step;
}

// x̃, A, B, C, D as returned; the affine remainder f̃_C = ẋ − A x̃ − B u (eq.
// 14) and the output offset h = y − C x̃ − D u, u the inputs the slave was
// linearized with and y its outputs at tᴺ (returned by the step that ended
// there, or the consistent initial outputs).
void Missiles::take_linearization(std::size_t slave, const StepSlot& slot) {
  SlaveState& state = slaves_[slave];
  const LinearizationLayout layout = LinearizationLayout::of(system_->description(slave));
  const std::span<const double> values = slot.linearization;
  missiles::SlaveLinearization& linear = state.linearization;
  linear.A = block(values, layout.a_offset(), layout.states, layout.states);
  linear.B = block(values, layout.b_offset(), layout.states, layout.inputs);
  linear.C = block(values, layout.c_offset(), layout.outputs, layout.states);
  linear.D = block(values, layout.d_offset(), layout.outputs, layout.inputs);
  linear.state = ConstVectorMap(values.data(), static_cast<Eigen::Index>(layout.states));
  const ConstVectorMap derivative(values.data() + layout.derivative_offset(),
                                  static_cast<Eigen::Index>(layout.states));
  const ConstVectorMap outputs(slot.outputs.data(), static_cast<Eigen::Index>(layout.outputs));
  linear.affine = derivative;
  linear.affine.noalias() -= linear.A * linear.state;
  linear.affine.noalias() -= linear.B * state.start_value;
  linear.output_offset = outputs;
  linear.output_offset.noalias() -= linear.C * linear.state;
  linear.output_offset.noalias() -= linear.D * state.start_value;
}

// The estimators depend only on A, B, C, D and δt (eqs. 11–13): kept while
// those do not change, so linear slaves compute them once per step size.
void Missiles::refresh_operators(SlaveState& state, std::span<const double> linearization,
                                 double step) {
  const std::span<const double> matrices = linearization.subspan(2 * state.linearization.state.size());
  if (step == state.operator_step && std::equal(matrices.begin(), matrices.end(), state.operator_key.begin())) {
    return;
  }
  const missiles::SlaveLinearization& linear = state.linearization;
  missiles::compute_costarica_operators(linear.A, linear.B, linear.C, linear.D, step, *state.estimators);
  std::copy(matrices.begin(), matrices.end(), state.operator_key.begin());
  state.operator_step = step;
  ++estimator_refreshes_;
}

// Step 3's results: the mismatch between returned and estimated outputs, and
// the next left constraints û = Φᵀŷ, u̇̂ = Φᵀdŷ (the values the inputs just
// ended on, so the inputs stay C¹).
void Missiles::take_step_results(std::span<const StepSlot> slots) {
  step_seconds_ = to_seconds(step_end() - time_);
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    SlaveState& state = slaves_[s];
    for (std::size_t j = 0; j < slots[s].output_count; ++j) {
      const std::size_t global = state.first_output + j;
      mismatch_[global] = slots[s].output(j) - solution_->output_value[static_cast<Eigen::Index>(global)];
      largest_mismatch_ = std::max(largest_mismatch_, std::abs(mismatch_[global]));
    }
    for (std::size_t i = 0; i < state.input_sources.size(); ++i) {
      const auto source = static_cast<Eigen::Index>(state.input_sources[i]);
      state.start_value[static_cast<Eigen::Index>(i)] = solution_->output_value[source];
      state.start_derivative[static_cast<Eigen::Index>(i)] = solution_->output_derivative[source];
    }
  }
  time_ = step_end();
  first_step_ = false;
}

void Missiles::report(AlgorithmReport& report) const {
  report.counters["estimator_refreshes"] = static_cast<double>(estimator_refreshes_);
  report.counters["largest_output_mismatch"] = largest_mismatch_;
  report.counters["smallest_reciprocal_condition"] = smallest_reciprocal_condition_;
}

std::vector<std::string> Missiles::internal_quantities() const {
  std::vector<std::string> names = {"step_s", "reciprocal_condition"};
  for (const std::string& output : output_names_) names.push_back("mismatch:" + output);
  return names;
}

void Missiles::internal_values(std::span<double> values) const {
  values[0] = step_seconds_;
  values[1] = reciprocal_condition_;
  std::copy(mismatch_.begin(), mismatch_.end(), values.begin() + 2);
}

}  // namespace couplet
