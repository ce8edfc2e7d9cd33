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
/// first_step_weights of the step). Throws SlaveError when the system is
/// numerically singular (reciprocal condition below 1e-14): the step size or the
/// linearizations make the coupling ill-posed.
CouplingSolution solve_coupling(std::span<const CoupledSlave> slaves,
                                const Eigen::Matrix4d& weights);

/// ξ_p of one slave's inputs from its left constraints and end values (eq. 35).
InputCoefficients input_coefficients(const Eigen::Matrix4d& weights,
                                     const Eigen::VectorXd& start_value,
                                     const Eigen::VectorXd& start_derivative,
                                     const Eigen::VectorXd& end_value,
                                     const Eigen::VectorXd& end_derivative);

}  // namespace couplet::missiles
