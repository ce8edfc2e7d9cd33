#pragma once
// The global linear coupling problem of MISSILES (Éguillon, Lacabanne,
// Tromeur-Dervout, J. Comput. Appl. Math. 424 (2023) 115013,
// doi:10.1016/j.cam.2022.115013, eqs. 37–40, 53): the values ŷ and derivatives
// dŷ of every output at the end of the macro step such that each slave's
// COSTARICA estimate (eq. 10), driven by the Hermite inputs (eqs. 35, 54/55)
// that the dispatch û = Φᵀŷ (eq. 38) makes of them, returns them:
//   ŷ_k = P_V,k x̃_k + R_V,k f̃_k + h_k + Σ_p G_V,p,k ξ_p,k(u_k(0), u̇_k(0), Φ_kᵀŷ, Φ_kᵀdŷ)
//   dŷ_k = P_D,k x̃_k + R_D,k f̃_k + Σ_p G_D,p,k ξ_p,k(…)
// — 2·n_out equations, linear in (ŷ, dŷ). Algebraic loops through direct
// feedthrough (D ≠ 0) are part of the system and need no iteration.
#include <Eigen/Dense>
#include <cstddef>
#include <span>
#include <vector>

#include "runtime/algorithms/costarica_estimator.hpp"

namespace couplet::missiles {

/// One slave of the coupled problem.
struct CoupledSlave {
  const SlaveLinearization* linearization;  ///< at the step start
  const CostaricaOperators* operators;      ///< for the step size
  /// For each input, the global index of the output that feeds it (outputs are
  /// numbered slave after slave, in port order).
  std::span<const std::size_t> input_sources;
  Eigen::VectorXd start_value;       ///< u(0), the left constraint (m)
  Eigen::VectorXd start_derivative;  ///< u̇(0) (m); unused by first_step_weights
};

/// The solution: outputs at the step end and each slave's input coefficients
/// (u_valid, eq. 35) to integrate the step with.
struct CouplingSolution {
  Eigen::VectorXd output_value;           ///< ŷ (all outputs)
  Eigen::VectorXd output_derivative;      ///< dŷ
  std::vector<InputCoefficients> inputs;  ///< ξ per slave
  double reciprocal_condition = 0.0;      ///< of the system matrix (LU estimate)
};

/// Assembles and solves eq. 53 with the Hermite weights W (hermite_weights or
/// first_step_weights of the step), in storage sized once by reserve(): solve()
/// does not allocate for the slaves it was reserved for. Throws SlaveError when
/// the system is numerically singular (reciprocal condition below 1e-14): the
/// step size or the linearizations make the coupling ill-posed.
class CouplingSolver {
 public:
  /// Sizes the storage for `slaves` (their port counts). Allocates.
  void reserve(std::span<const CoupledSlave> slaves);
  const CouplingSolution& solve(std::span<const CoupledSlave> slaves, const Eigen::Matrix4d& weights);

 private:
  void assemble(std::span<const CoupledSlave> slaves, const Eigen::Matrix4d& weights);
  double reciprocal_condition();
  void solve_transposed(const Eigen::VectorXd& right_side, Eigen::VectorXd& solution);

  Eigen::MatrixXd matrix_;
  Eigen::VectorXd right_side_;
  Eigen::PartialPivLU<Eigen::MatrixXd> factorization_;
  Eigen::VectorXd unknowns_;
  std::vector<InputCoefficients> known_inputs_;  ///< ξ from the left constraints alone
  std::vector<OutputEstimate> known_outputs_;    ///< eq. 10 under them
  std::vector<Eigen::VectorXd> end_values_, end_derivatives_;  ///< Φ_kᵀŷ, Φ_kᵀdŷ
  Eigen::VectorXd estimate_, sign_, previous_sign_, work_;     ///< condition estimate
  CouplingSolution solution_;
};

/// One-off form of CouplingSolver (allocates).
CouplingSolution solve_coupling(std::span<const CoupledSlave> slaves,
                                const Eigen::Matrix4d& weights);

/// ξ_p of one slave's inputs from its left constraints and end values (eq. 35),
/// into `coefficients` whose vectors have the inputs' size: no allocation.
void input_coefficients(const Eigen::Matrix4d& weights, const Eigen::VectorXd& start_value,
                        const Eigen::VectorXd& start_derivative, const Eigen::VectorXd& end_value,
                        const Eigen::VectorXd& end_derivative, InputCoefficients& coefficients);

/// The same, returned (allocates).
InputCoefficients input_coefficients(const Eigen::Matrix4d& weights,
                                     const Eigen::VectorXd& start_value,
                                     const Eigen::VectorXd& start_derivative,
                                     const Eigen::VectorXd& end_value,
                                     const Eigen::VectorXd& end_derivative);

}  // namespace couplet::missiles
