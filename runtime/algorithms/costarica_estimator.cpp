#include "runtime/algorithms/costarica_estimator.hpp"


namespace couplet::missiles {

CostaricaWorkspace::CostaricaWorkspace(Eigen::Index states, Eigen::Index inputs, Eigen::Index outputs)
    : exponential(2 * states + (kInputDegree + 1) * inputs),
      generator(Eigen::MatrixXd::Zero(exponential.size(), exponential.size())),
      propagated(Eigen::MatrixXd::Zero(exponential.size(), exponential.size())),
      output_state(Eigen::MatrixXd::Zero(outputs, states)),
      state_input(Eigen::MatrixXd::Zero(states, inputs)) {
  operators.value_from_state.setZero(outputs, states);
  operators.derivative_from_state.setZero(outputs, states);
  operators.value_from_affine.setZero(outputs, states);
  operators.derivative_from_affine.setZero(outputs, states);
  for (std::size_t p = 0; p <= kInputDegree; ++p) {
    operators.value_from_input[p].setZero(outputs, inputs);
    operators.derivative_from_input[p].setZero(outputs, inputs);
  }
}

void compute_costarica_operators(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                 const Eigen::MatrixXd& C, const Eigen::MatrixXd& D, double step,
                                 CostaricaWorkspace& workspace) {
  const Eigen::Index states = A.rows();
  const Eigen::Index inputs = B.cols();
  const Eigen::Index affine_column = states + (kInputDegree + 1) * inputs;

  // ż = M z for z = (x, w₀, …, w₃, c): ẋ = A x + B w₀ + c, w_k' = w_{k+1}, w₃' = 0,
  // c' = 0. Then w₀(τ) = Σ_k w_k(0) τᵏ/k!, and the first block row of e^{Mδt} is
  // [e^{Aδt}, Φ₀B, Φ₁B, Φ₂B, Φ₃B, Φ₀] with Φ_k = ∫₀^δt e^{A(δt−τ)} τᵏ/k! dτ.
  Eigen::MatrixXd& generator = workspace.generator;
  generator.setZero();
  generator.topLeftCorner(states, states) = A;
  generator.block(0, states, states, inputs) = B;
  generator.block(0, affine_column, states, states).setIdentity();
  for (int k = 0; k < kInputDegree; ++k) {
    generator.block(states + k * inputs, states + (k + 1) * inputs, inputs, inputs).setIdentity();
  }
  workspace.exponential.compute(generator, step, workspace.propagated);
  const auto propagator = workspace.propagated.topLeftCorner(states, states);  // e^{Aδt}

  CostaricaOperators& operators = workspace.operators;
  operators.step = step;
  operators.value_from_state.noalias() = C * propagator;
  workspace.output_state.noalias() = C * A;
  operators.derivative_from_state.noalias() = workspace.output_state * propagator;
  operators.value_from_affine.noalias() = C * workspace.propagated.block(0, affine_column, states, states);
  operators.derivative_from_affine = operators.value_from_state;  // R_D = C e^{Aδt}
  double factorial = 1.0;                                         // p!
  double power = 1.0;                                             // δtᵖ
  for (int p = 0; p <= kInputDegree; ++p) {
    if (p > 0) factorial *= p;
    // ∫₀^δt e^{A(δt−τ)} τᵖ dτ B = p! Φ_p B
    const auto convolution = workspace.propagated.block(0, states + p * inputs, states, inputs);
    Eigen::MatrixXd& value = operators.value_from_input[static_cast<std::size_t>(p)];
    Eigen::MatrixXd& derivative = operators.derivative_from_input[static_cast<std::size_t>(p)];
    value.noalias() = C * convolution;
    value *= factorial;
    value += D * power;
    workspace.state_input.noalias() = A * convolution;
    workspace.state_input *= factorial;
    workspace.state_input += B * power;
    derivative.noalias() = C * workspace.state_input;
    if (p > 0) derivative += D * (p * power / step);  // p D δt^{p−1}
    power *= step;
  }
}

CostaricaOperators costarica_operators(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                       const Eigen::MatrixXd& C, const Eigen::MatrixXd& D,
                                       double step) {
  CostaricaWorkspace workspace(A.rows(), B.cols(), C.rows());
  compute_costarica_operators(A, B, C, D, step, workspace);
  return workspace.operators;
}

OutputEstimate estimate_outputs(const CostaricaOperators& operators,
                                const SlaveLinearization& slave, const InputCoefficients& input) {
  const Eigen::Index outputs = operators.value_from_state.rows();
  OutputEstimate estimate{Eigen::VectorXd(outputs), Eigen::VectorXd(outputs)};
  estimate_outputs(operators, slave, input, estimate);
  return estimate;
}

void estimate_outputs(const CostaricaOperators& operators, const SlaveLinearization& slave,
                      const InputCoefficients& input, OutputEstimate& estimate) {
  estimate.value = slave.output_offset;
  estimate.value.noalias() += operators.value_from_state * slave.state;
  estimate.value.noalias() += operators.value_from_affine * slave.affine;
  estimate.derivative.noalias() = operators.derivative_from_state * slave.state;
  estimate.derivative.noalias() += operators.derivative_from_affine * slave.affine;
  for (std::size_t p = 0; p <= kInputDegree; ++p) {
    estimate.value.noalias() += operators.value_from_input[p] * input[p];
    estimate.derivative.noalias() += operators.derivative_from_input[p] * input[p];
  }
}

}  // namespace couplet::missiles
