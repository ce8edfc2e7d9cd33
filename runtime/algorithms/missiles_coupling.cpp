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

Eigen::VectorXd gather(const Eigen::VectorXd& outputs, std::span<const std::size_t> sources) {
  Eigen::VectorXd inputs(static_cast<Eigen::Index>(sources.size()));
  for (std::size_t i = 0; i < sources.size(); ++i)
    inputs[static_cast<Eigen::Index>(i)] = outputs[static_cast<Eigen::Index>(sources[i])];
  return inputs;
}

}  // namespace

InputCoefficients input_coefficients(const Eigen::Matrix4d& weights,
                                     const Eigen::VectorXd& start_value,
                                     const Eigen::VectorXd& start_derivative,
                                     const Eigen::VectorXd& end_value,
                                     const Eigen::VectorXd& end_derivative) {
  InputCoefficients coefficients;
  for (int p = 0; p <= kInputDegree; ++p) {
    coefficients[p] = weights(p, 0) * start_value + weights(p, 1) * start_derivative +
                      weights(p, 2) * end_value + weights(p, 3) * end_derivative;
  }
  return coefficients;
}

CouplingSolution solve_coupling(std::span<const CoupledSlave> slaves,
                                const Eigen::Matrix4d& weights) {
  const Eigen::Index outputs = output_total(slaves);
  // Unknowns z = (ŷ, dŷ); rows: the value equations, then the derivative equations.
  Eigen::MatrixXd matrix = Eigen::MatrixXd::Identity(2 * outputs, 2 * outputs);
  Eigen::VectorXd right_side(2 * outputs);
  Eigen::Index row = 0;
  for (const CoupledSlave& slave : slaves) {
    const SlaveLinearization& linear = *slave.linearization;
    const CostaricaOperators& operators = *slave.operators;
    const Eigen::Index count = linear.C.rows();
    // The known part: state, affine remainder, output offset and the left constraints.
    const InputCoefficients known =
        input_coefficients(weights, slave.start_value, slave.start_derivative,
                           Eigen::VectorXd::Zero(slave.start_value.size()),
                           Eigen::VectorXd::Zero(slave.start_value.size()));
    const OutputEstimate constant = estimate_outputs(operators, linear, known);
    right_side.segment(row, count) = constant.value;
    right_side.segment(outputs + row, count) = constant.derivative;
    // The part linear in the end constraints û = Φᵀŷ, u̇̂ = Φᵀdŷ.
    for (std::size_t input = 0; input < slave.input_sources.size(); ++input) {
      const Eigen::Index column = static_cast<Eigen::Index>(input);
      const Eigen::Index source = static_cast<Eigen::Index>(slave.input_sources[input]);
      for (int p = 0; p <= kInputDegree; ++p) {
        const auto value_column = operators.value_from_input[p].col(column);
        const auto derivative_column = operators.derivative_from_input[p].col(column);
        matrix.block(row, source, count, 1) -= weights(p, 2) * value_column;
        matrix.block(row, outputs + source, count, 1) -= weights(p, 3) * value_column;
        matrix.block(outputs + row, source, count, 1) -= weights(p, 2) * derivative_column;
        matrix.block(outputs + row, outputs + source, count, 1) -=
            weights(p, 3) * derivative_column;
      }
    }
    row += count;
  }

  const Eigen::PartialPivLU<Eigen::MatrixXd> factorization(matrix);
  CouplingSolution solution;
  solution.reciprocal_condition = factorization.rcond();
  if (!(solution.reciprocal_condition >= 1e-14)) {
    throw SlaveError("MISSILES: the coupled linear problem is singular (reciprocal condition " +
                     std::to_string(solution.reciprocal_condition) +
                     "): the linearized slaves admit no unique coupled solution at this step size");
  }
  const Eigen::VectorXd unknowns = factorization.solve(right_side);
  solution.output_value = unknowns.head(outputs);
  solution.output_derivative = unknowns.tail(outputs);
  solution.inputs.reserve(slaves.size());
  for (const CoupledSlave& slave : slaves) {
    solution.inputs.push_back(
        input_coefficients(weights, slave.start_value, slave.start_derivative,
                           gather(solution.output_value, slave.input_sources),
                           gather(solution.output_derivative, slave.input_sources)));
  }
  return solution;
}

}  // namespace couplet::missiles
