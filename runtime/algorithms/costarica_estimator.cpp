#include "runtime/algorithms/costarica_estimator.hpp"

#include <unsupported/Eigen/MatrixFunctions>

namespace couplet::missiles {

CostaricaOperators costarica_operators(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                       const Eigen::MatrixXd& C, const Eigen::MatrixXd& D,
                                       double step) {
  const Eigen::Index states = A.rows();
  const Eigen::Index inputs = B.cols();
  const Eigen::Index chain = (kInputDegree + 1) * inputs;
  const Eigen::Index affine_column = states + chain;

  // ż = M z for z = (x, w₀, …, w₃, c): ẋ = A x + B w₀ + c, w_k' = w_{k+1}, w₃' = 0,
  // c' = 0. Then w₀(τ) = Σ_k w_k(0) τᵏ/k!, and the first block row of e^{Mδt} is
  // [e^{Aδt}, Φ₀B, Φ₁B, Φ₂B, Φ₃B, Φ₀] with Φ_k = ∫₀^δt e^{A(δt−τ)} τᵏ/k! dτ.
  Eigen::MatrixXd generator = Eigen::MatrixXd::Zero(affine_column + states, affine_column + states);
  generator.topLeftCorner(states, states) = A;
  generator.block(0, states, states, inputs) = B;
  generator.block(0, affine_column, states, states).setIdentity();
  for (int k = 0; k < kInputDegree; ++k) {
    generator.block(states + k * inputs, states + (k + 1) * inputs, inputs, inputs).setIdentity();
  }
  const Eigen::MatrixXd exponential = (generator * step).exp();
  const Eigen::MatrixXd propagator = exponential.topLeftCorner(states, states);  // e^{Aδt}

  CostaricaOperators operators;
  operators.step = step;
  operators.value_from_state = C * propagator;
  operators.derivative_from_state = C * A * propagator;
  operators.value_from_affine = C * exponential.block(0, affine_column, states, states);
  operators.derivative_from_affine = operators.value_from_state;  // R_D = C e^{Aδt}
  double factorial = 1.0;                                         // p!
  double power = 1.0;                                             // δtᵖ
  for (int p = 0; p <= kInputDegree; ++p) {
    if (p > 0) factorial *= p;
    // ∫₀^δt e^{A(δt−τ)} τᵖ dτ B = p! Φ_p B
    const Eigen::MatrixXd convolution =
        factorial * exponential.block(0, states + p * inputs, states, inputs);
    operators.value_from_input[p] = C * convolution + D * power;
    operators.derivative_from_input[p] = C * (A * convolution + B * power);
    if (p > 0) operators.derivative_from_input[p] += D * (p * power / step);  // p D δt^{p−1}
    power *= step;
  }
  return operators;
}

OutputEstimate estimate_outputs(const CostaricaOperators& operators,
                                const SlaveLinearization& slave, const InputCoefficients& input) {
  OutputEstimate estimate{operators.value_from_state * slave.state +
                              operators.value_from_affine * slave.affine + slave.output_offset,
                          operators.derivative_from_state * slave.state +
                              operators.derivative_from_affine * slave.affine};
  for (int p = 0; p <= kInputDegree; ++p) {
    estimate.value += operators.value_from_input[p] * input[p];
    estimate.derivative += operators.derivative_from_input[p] * input[p];
  }
  return estimate;
}

}  // namespace couplet::missiles
