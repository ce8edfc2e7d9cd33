#include "runtime/algorithms/missiles_coupling.hpp"

#include <string>

#include "couplet/errors.hpp"

namespace couplet::missiles {

namespace {

Eigen::Index output_total(std::span<const CoupledSlave> slaves) {
  Eigen::Index total = 0;
  for (const CoupledSlave& slave : slaves) total += slave.linearization->C.rows();
  return total;
}

void gather(const Eigen::VectorXd& outputs, std::span<const std::size_t> sources, Eigen::VectorXd& inputs) {
  for (std::size_t i = 0; i < sources.size(); ++i)
    inputs[static_cast<Eigen::Index>(i)] = outputs[static_cast<Eigen::Index>(sources[i])];
}

InputCoefficients sized_coefficients(Eigen::Index inputs) {
  InputCoefficients coefficients;
  for (Eigen::VectorXd& coefficient : coefficients) coefficient.setZero(inputs);
  return coefficients;
}

}  // namespace

void input_coefficients(const Eigen::Matrix4d& weights, const Eigen::VectorXd& start_value,
                        const Eigen::VectorXd& start_derivative, const Eigen::VectorXd& end_value,
                        const Eigen::VectorXd& end_derivative, InputCoefficients& coefficients) {
  for (int p = 0; p <= kInputDegree; ++p) {
    coefficients[static_cast<std::size_t>(p)] = weights(p, 0) * start_value + weights(p, 1) * start_derivative +
                                                weights(p, 2) * end_value + weights(p, 3) * end_derivative;
  }
}

InputCoefficients input_coefficients(const Eigen::Matrix4d& weights,
                                     const Eigen::VectorXd& start_value,
                                     const Eigen::VectorXd& start_derivative,
                                     const Eigen::VectorXd& end_value,
                                     const Eigen::VectorXd& end_derivative) {
  InputCoefficients coefficients = sized_coefficients(start_value.size());
  input_coefficients(weights, start_value, start_derivative, end_value, end_derivative, coefficients);
  return coefficients;
}

void CouplingSolver::reserve(std::span<const CoupledSlave> slaves) {
  const Eigen::Index unknowns = 2 * output_total(slaves);
  matrix_.setZero(unknowns, unknowns);
  right_side_.setZero(unknowns);
  unknowns_.setZero(unknowns);
  factorization_ = Eigen::PartialPivLU<Eigen::MatrixXd>(unknowns);
  for (Eigen::VectorXd* vector : {&estimate_, &sign_, &previous_sign_, &work_}) vector->setZero(unknowns);
  known_inputs_.clear();
  known_outputs_.clear();
  end_values_.clear();
  end_derivatives_.clear();
  solution_.inputs.clear();
  for (const CoupledSlave& slave : slaves) {
    const auto inputs = static_cast<Eigen::Index>(slave.input_sources.size());
    const Eigen::Index outputs = slave.linearization->C.rows();
    known_inputs_.push_back(sized_coefficients(inputs));
    known_outputs_.push_back({Eigen::VectorXd::Zero(outputs), Eigen::VectorXd::Zero(outputs)});
    end_values_.push_back(Eigen::VectorXd::Zero(inputs));
    end_derivatives_.push_back(Eigen::VectorXd::Zero(inputs));
    solution_.inputs.push_back(sized_coefficients(inputs));
  }
  solution_.output_value.setZero(unknowns / 2);
  solution_.output_derivative.setZero(unknowns / 2);
}

// Unknowns z = (ŷ, dŷ); rows: the value equations, then the derivative equations.
void CouplingSolver::assemble(std::span<const CoupledSlave> slaves, const Eigen::Matrix4d& weights) {
  const Eigen::Index outputs = matrix_.rows() / 2;
  matrix_.setIdentity();
  Eigen::Index row = 0;
  for (std::size_t s = 0; s < slaves.size(); ++s) {
    const CoupledSlave& slave = slaves[s];
    const CostaricaOperators& operators = *slave.operators;
    const Eigen::Index count = slave.linearization->C.rows();
    // The known part: state, affine remainder, output offset and the left constraints.
    end_values_[s].setZero();
    input_coefficients(weights, slave.start_value, slave.start_derivative, end_values_[s], end_values_[s],
                       known_inputs_[s]);
    estimate_outputs(operators, *slave.linearization, known_inputs_[s], known_outputs_[s]);
    right_side_.segment(row, count) = known_outputs_[s].value;
    right_side_.segment(outputs + row, count) = known_outputs_[s].derivative;
    // The part linear in the end constraints û = Φᵀŷ, u̇̂ = Φᵀdŷ.
    for (std::size_t input = 0; input < slave.input_sources.size(); ++input) {
      const auto column = static_cast<Eigen::Index>(input);
      const auto source = static_cast<Eigen::Index>(slave.input_sources[input]);
      for (int p = 0; p <= kInputDegree; ++p) {
        const auto value_column = operators.value_from_input[static_cast<std::size_t>(p)].col(column);
        const auto derivative_column = operators.derivative_from_input[static_cast<std::size_t>(p)].col(column);
        matrix_.block(row, source, count, 1) -= weights(p, 2) * value_column;
        matrix_.block(row, outputs + source, count, 1) -= weights(p, 3) * value_column;
        matrix_.block(outputs + row, source, count, 1) -= weights(p, 2) * derivative_column;
        matrix_.block(outputs + row, outputs + source, count, 1) -= weights(p, 3) * derivative_column;
      }
    }
    row += count;
  }
}

const CouplingSolution& CouplingSolver::solve(std::span<const CoupledSlave> slaves,
                                              const Eigen::Matrix4d& weights) {
  assemble(slaves, weights);
  factorization_.compute(matrix_);
  solution_.reciprocal_condition = reciprocal_condition();
  if (!(solution_.reciprocal_condition >= 1e-14)) {
    throw SlaveError("MISSILES: the coupled linear problem is singular (reciprocal condition " +
                     std::to_string(solution_.reciprocal_condition) +
                     "): the linearized slaves admit no unique coupled solution at this step size");
  }
  unknowns_ = factorization_.solve(right_side_);
  const Eigen::Index outputs = matrix_.rows() / 2;
  solution_.output_value = unknowns_.head(outputs);
  solution_.output_derivative = unknowns_.tail(outputs);
  for (std::size_t s = 0; s < slaves.size(); ++s) {
    const CoupledSlave& slave = slaves[s];
    gather(solution_.output_value, slave.input_sources, end_values_[s]);
    gather(solution_.output_derivative, slave.input_sources, end_derivatives_[s]);
    input_coefficients(weights, slave.start_value, slave.start_derivative, end_values_[s], end_derivatives_[s],
                       solution_.inputs[s]);
  }
  return solution_;
}

// matrixᵀ x = b with matrix = Pᵀ L U: x = Pᵀ L⁻ᵀ U⁻ᵀ b, in the preallocated
// `work_` (Eigen's transposed solve permutes in place, which allocates).
void CouplingSolver::solve_transposed(const Eigen::VectorXd& right_side, Eigen::VectorXd& solution) {
  work_ = right_side;
  factorization_.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(work_);
  factorization_.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(work_);
  solution.noalias() = factorization_.permutationP().transpose() * work_;
}

// 1 / (‖M‖₁ ‖M⁻¹‖₁), ‖M⁻¹‖₁ by Hager's estimator with Higham's safeguard, as
// Eigen's PartialPivLU::rcond() computes it, but in preallocated vectors.
double CouplingSolver::reciprocal_condition() {
  const Eigen::Index n = matrix_.rows();
  if (n == 0) return 1.0;
  const double norm = matrix_.cwiseAbs().colwise().sum().maxCoeff();
  if (norm == 0.0) return 0.0;
  if (n == 1) return 1.0;
  sign_.setConstant(1.0 / static_cast<double>(n));
  estimate_ = factorization_.solve(sign_);
  double lower_bound = estimate_.lpNorm<1>();
  double old_lower_bound = lower_bound;
  Eigen::Index old_index = -1;
  for (int k = 0; k < 4; ++k) {
    for (Eigen::Index i = 0; i < n; ++i) sign_[i] = estimate_[i] < 0.0 ? -1.0 : 1.0;
    if (k > 0 && sign_ == previous_sign_) break;
    solve_transposed(sign_, estimate_);
    Eigen::Index index = 0;
    estimate_.cwiseAbs().maxCoeff(&index);
    if (index == old_index) break;
    previous_sign_ = sign_;
    sign_.setZero();
    sign_[index] = 1.0;
    estimate_ = factorization_.solve(sign_);
    lower_bound = estimate_.lpNorm<1>();
    if (lower_bound <= old_lower_bound) break;
    old_index = index;
    old_lower_bound = lower_bound;
  }
  double alternating = 1.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    sign_[i] = alternating * (1.0 + static_cast<double>(i) / static_cast<double>(n - 1));
    alternating = -alternating;
  }
  estimate_ = factorization_.solve(sign_);
  const double inverse_norm =
      std::max(lower_bound, 2.0 * estimate_.lpNorm<1>() / (3.0 * static_cast<double>(n)));
  return inverse_norm == 0.0 ? 0.0 : (1.0 / inverse_norm) / norm;
}

CouplingSolution solve_coupling(std::span<const CoupledSlave> slaves, const Eigen::Matrix4d& weights) {
  CouplingSolver solver;
  solver.reserve(slaves);
  return solver.solve(slaves, weights);
}

}  // namespace couplet::missiles
