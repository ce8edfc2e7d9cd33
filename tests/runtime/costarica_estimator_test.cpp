// The building blocks of MISSILES: the closed-form COSTARICA estimators against
// a brute-force integration of the linearized slave (stable and singular A),
// the Hermite input weights against their end constraints, and the coupled
// linear problem against the exact monolithic solution of the MISSILES linear
// mechanical case (local error of order δt⁵, consistent with its own estimates).
#include "runtime/algorithms/costarica_estimator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unsupported/Eigen/MatrixFunctions>

#include "runtime/algorithms/hermite_step_inputs.hpp"
#include "runtime/algorithms/missiles_coupling.hpp"

namespace couplet::missiles {
namespace {

Eigen::MatrixXd random_matrix(std::mt19937& generator, Eigen::Index rows, Eigen::Index columns) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Eigen::MatrixXd matrix(rows, columns);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < columns; ++j) matrix(i, j) = uniform(generator);
  return matrix;
}

Eigen::VectorXd input_at(const InputCoefficients& xi, double tau) {
  Eigen::VectorXd u = Eigen::VectorXd::Zero(xi[0].size());
  for (int p = kInputDegree; p >= 0; --p) u = u * tau + xi[p];
  return u;
}

Eigen::VectorXd input_rate_at(const InputCoefficients& xi, double tau) {
  Eigen::VectorXd du = Eigen::VectorXd::Zero(xi[0].size());
  for (int p = kInputDegree; p >= 1; --p) du = du * tau + p * xi[p];
  return du;
}

/// Classic RK4 on ẋ = A x + B u(τ) + f̃ with `steps` steps, then y and ẏ at δt.
OutputEstimate brute_force(const SlaveLinearization& s, const InputCoefficients& xi, double step,
                           int steps) {
  const auto rate = [&](double tau, const Eigen::VectorXd& x) -> Eigen::VectorXd {
    return s.A * x + s.B * input_at(xi, tau) + s.affine;
  };
  Eigen::VectorXd x = s.state;
  const double h = step / steps;
  for (int i = 0; i < steps; ++i) {
    const double tau = i * h;
    const Eigen::VectorXd k1 = rate(tau, x);
    const Eigen::VectorXd k2 = rate(tau + h / 2, x + h / 2 * k1);
    const Eigen::VectorXd k3 = rate(tau + h / 2, x + h / 2 * k2);
    const Eigen::VectorXd k4 = rate(tau + h, x + h * k3);
    x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return {s.C * x + s.D * input_at(xi, step) + s.output_offset,
          s.C * rate(step, x) + s.D * input_rate_at(xi, step)};
}

SlaveLinearization random_slave(std::mt19937& generator, Eigen::MatrixXd A) {
  const Eigen::Index n = A.rows(), m = 2, q = 3;
  return {std::move(A),
          random_matrix(generator, n, m),
          random_matrix(generator, q, n),
          random_matrix(generator, q, m),
          random_matrix(generator, n, 1),
          random_matrix(generator, n, 1),
          random_matrix(generator, q, 1)};
}

void expect_estimates_match_integration(const SlaveLinearization& slave, std::mt19937& generator) {
  const double step = 0.3;
  InputCoefficients xi;
  for (auto& coefficient : xi) coefficient = random_matrix(generator, slave.B.cols(), 1);
  const CostaricaOperators operators =
      costarica_operators(slave.A, slave.B, slave.C, slave.D, step);
  const OutputEstimate closed = estimate_outputs(operators, slave, xi);
  const OutputEstimate integrated = brute_force(slave, xi, step, 3000);
  EXPECT_LT((closed.value - integrated.value).norm(), 1e-10 * (1.0 + integrated.value.norm()));
  EXPECT_LT((closed.derivative - integrated.derivative).norm(),
            1e-10 * (1.0 + integrated.derivative.norm()));
}

TEST(CostaricaEstimator, MatchesIntegrationForRandomStableA) {
  std::mt19937 generator(11);
  for (int trial = 0; trial < 5; ++trial) {
    // Shifted left so that every eigenvalue has a negative real part.
    Eigen::MatrixXd A = random_matrix(generator, 4, 4) - 3.0 * Eigen::MatrixXd::Identity(4, 4);
    expect_estimates_match_integration(random_slave(generator, A), generator);
  }
}

TEST(CostaricaEstimator, MatchesIntegrationForSingularA) {
  std::mt19937 generator(12);
  // A chain of integrators (nilpotent) and a rank-deficient random matrix: the
  // Laplace-domain formulas would divide by A; the block exponential does not.
  Eigen::MatrixXd chain = Eigen::MatrixXd::Zero(3, 3);
  chain(0, 1) = chain(1, 2) = 1.0;
  expect_estimates_match_integration(random_slave(generator, chain), generator);
  const Eigen::MatrixXd low_rank = random_matrix(generator, 4, 1) * random_matrix(generator, 1, 4);
  expect_estimates_match_integration(random_slave(generator, low_rank), generator);
  expect_estimates_match_integration(random_slave(generator, Eigen::MatrixXd::Zero(2, 2)),
                                     generator);
}

TEST(HermiteStepInputs, CubicMeetsBothEnds) {
  const double step = 0.7;
  const Eigen::Vector4d constraints(1.5, -2.0, 0.25, 3.0);  // u(0), u̇(0), û, u̇̂
  const Eigen::Vector4d xi = hermite_weights(step) * constraints;
  const auto value = [&](double t) { return xi[0] + t * (xi[1] + t * (xi[2] + t * xi[3])); };
  const auto rate = [&](double t) { return xi[1] + t * (2 * xi[2] + t * 3 * xi[3]); };
  EXPECT_NEAR(value(0), 1.5, 1e-14);
  EXPECT_NEAR(rate(0), -2.0, 1e-14);
  EXPECT_NEAR(value(step), 0.25, 1e-13);
  EXPECT_NEAR(rate(step), 3.0, 1e-13);
}

TEST(HermiteStepInputs, FirstStepQuadraticIgnoresTheStartDerivative) {
  const double step = 0.7;
  const Eigen::Vector4d xi = first_step_weights(step) * Eigen::Vector4d(1.5, 99.0, 0.25, 3.0);
  EXPECT_EQ(xi[3], 0.0);
  EXPECT_NEAR(xi[0], 1.5, 1e-14);
  EXPECT_NEAR(xi[0] + step * (xi[1] + step * xi[2]), 0.25, 1e-13);
  EXPECT_NEAR(xi[1] + 2 * step * xi[2], 3.0, 1e-13);
}

// The MISSILES linear mechanical case (doi:10.1016/j.cam.2022.115013, table 3):
// wall –c1,d1– m1 –c2,d2– m2 –c3,d3– wall; the right system owns the coupling
// spring and damper and returns their force f = c2 (x2 − x1) + d2 (v2 − v1) to the
// left mass (direct feedthrough from x1, v1).
struct LinearCase {
  double m1 = 5, c1 = 1e4, d1 = 10, m2 = 80, c2 = 1e4, d2 = 10, c3 = 1e5, d3 = 40;

  Eigen::Matrix4d monolithic() const {  // state (x1, v1, x2, v2)
    Eigen::Matrix4d a = Eigen::Matrix4d::Zero();
    a(0, 1) = a(2, 3) = 1.0;
    a.row(1) << (-c1 - c2) / m1, (-d1 - d2) / m1, c2 / m1, d2 / m1;
    a.row(3) << c2 / m2, d2 / m2, (-c3 - c2) / m2, (-d3 - d2) / m2;
    return a;
  }
  // Coupling variables (x1, v1, f) of a monolithic state and their rates.
  Eigen::Vector3d coupling(const Eigen::Vector4d& z) const {
    return {z[0], z[1], c2 * (z[2] - z[0]) + d2 * (z[3] - z[1])};
  }
  SlaveLinearization left(const Eigen::Vector4d& z) const {
    SlaveLinearization s;
    s.A = (Eigen::Matrix2d() << 0, 1, -c1 / m1, -d1 / m1).finished();
    s.B = (Eigen::Matrix<double, 2, 1>() << 0, 1 / m1).finished();
    s.C = Eigen::Matrix2d::Identity();
    s.D = Eigen::Matrix<double, 2, 1>::Zero();
    s.state = z.head<2>();
    s.affine = Eigen::Vector2d::Zero();
    s.output_offset = Eigen::Vector2d::Zero();
    return s;
  }
  SlaveLinearization right(const Eigen::Vector4d& z) const {
    SlaveLinearization s;
    s.A = (Eigen::Matrix2d() << 0, 1, (-c3 - c2) / m2, (-d3 - d2) / m2).finished();
    s.B = (Eigen::Matrix2d() << 0, 0, c2 / m2, d2 / m2).finished();
    s.C = (Eigen::Matrix<double, 1, 2>() << c2, d2).finished();
    s.D = (Eigen::Matrix<double, 1, 2>() << -c2, -d2).finished();
    s.state = z.tail<2>();
    s.affine = Eigen::Vector2d::Zero();
    s.output_offset = Eigen::VectorXd::Zero(1);
    return s;
  }
};

/// One MISSILES step of the linear case from the exact state at t = 0.4 s, with
/// exact left constraints: the largest error of the coupling variables at the
/// step end against the exact solution, relative to their scale.
struct StepOutcome {
  double error = 0.0;
  double consistency = 0.0;  ///< |estimate under the solution's inputs − ŷ|, relative
};

StepOutcome missiles_step(double step) {
  const LinearCase mechanics;
  const Eigen::Matrix4d a = mechanics.monolithic();
  const Eigen::Vector4d z0 = (a * 0.4).exp() * Eigen::Vector4d(-1, 0, -3, 0);
  const Eigen::Vector4d z1 = (a * step).exp() * z0;
  const Eigen::Vector3d y0 = mechanics.coupling(z0), dy0 = mechanics.coupling(a * z0);
  const Eigen::Vector3d y1 = mechanics.coupling(z1);

  const SlaveLinearization left = mechanics.left(z0), right = mechanics.right(z0);
  const CostaricaOperators left_ops = costarica_operators(left.A, left.B, left.C, left.D, step);
  const CostaricaOperators right_ops =
      costarica_operators(right.A, right.B, right.C, right.D, step);
  const std::size_t left_sources[] = {2};      // f
  const std::size_t right_sources[] = {0, 1};  // x1, v1
  const CoupledSlave slaves[] = {
      {&left, &left_ops, left_sources, Eigen::VectorXd::Constant(1, y0[2]),
       Eigen::VectorXd::Constant(1, dy0[2])},
      {&right, &right_ops, right_sources, y0.head<2>(), dy0.head<2>()}};
  const CouplingSolution solution = solve_coupling(slaves, hermite_weights(step));

  const Eigen::Vector3d scale(3.0, 3.0 * 45.0, 3.0e4);  // |x|, |ω x|, |c2 Δx|
  StepOutcome outcome;
  outcome.error = ((solution.output_value - y1).array() / scale.array()).abs().maxCoeff();
  Eigen::VectorXd estimated(3);
  estimated << estimate_outputs(left_ops, left, solution.inputs[0]).value,
      estimate_outputs(right_ops, right, solution.inputs[1]).value;
  outcome.consistency =
      ((estimated - solution.output_value).array() / scale.array()).abs().maxCoeff();
  return outcome;
}

TEST(MissilesCoupling, SolutionReproducesItsOwnEstimates) {
  const StepOutcome outcome = missiles_step(2e-3);
  EXPECT_LT(outcome.consistency, 1e-12);
}

TEST(MissilesCoupling, LocalErrorIsOfOrderFiveAgainstTheExactSolution) {
  // Cubic Hermite inputs are O(δt⁴) off the true coupling variables; integrated
  // over the step that is a local error O(δt⁵): halving δt divides it by ~32.
  const StepOutcome coarse = missiles_step(8e-3), fine = missiles_step(4e-3),
                    finer = missiles_step(2e-3);
  EXPECT_LT(coarse.error, 1e-4);
  const double order_coarse = std::log2(coarse.error / fine.error);
  const double order_fine = std::log2(fine.error / finer.error);
  EXPECT_GT(order_coarse, 4.5) << coarse.error << " " << fine.error;
  EXPECT_GT(order_fine, 4.5) << fine.error << " " << finer.error;
  EXPECT_LT(order_fine, 5.5);
}

}  // namespace
}  // namespace couplet::missiles

namespace couplet::missiles {
namespace {

// The allocation-free exponential against Eigen's MatrixFunctions, from norms
// that need no scaling to norms that need many squarings, singular included.
TEST(MatrixExponential, AgreesWithEigenAcrossNorms) {
  std::mt19937 generator(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const double scale : {1e-3, 0.5, 4.0, 60.0}) {
    Eigen::MatrixXd matrix(7, 7);
    for (Eigen::Index i = 0; i < matrix.size(); ++i) matrix(i) = scale * normal(generator);
    matrix.col(3).setZero();  // singular
    MatrixExponential exponential(7);
    Eigen::MatrixXd result(7, 7);
    const double t = 0.3;
    exponential.compute(matrix, t, result);
    const Eigen::MatrixXd expected = (matrix * t).exp();
    EXPECT_LT((result - expected).norm(), 1e-12 * expected.norm()) << "scale " << scale;
  }
}

}  // namespace
}  // namespace couplet::missiles
