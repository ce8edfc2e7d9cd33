#pragma once
// COSTARICA estimators of one slave over a macro step, the building block of
// MISSILES (Éguillon, Lacabanne, Tromeur-Dervout, "MISSILES: an Efficient
// Resolution of the Co-simulation Coupling Constraint on Nearly Linear
// Differential Systems through a Global Linear Formulation", J. Comput. Appl.
// Math. 424 (2023) 115013, doi:10.1016/j.cam.2022.115013, eqs. 10–14).
//
// A slave linearized at the start of a macro step (local time τ ∈ [0, δt]),
//   ẋ = A x + B u(τ) + f̃_C,   y = C x + D u + h,          (eqs. 4, 14; h: eq. 10 omits it)
// driven by a cubic input u(τ) = Σ_{p=0}^{3} ξ_p τᵖ, has at τ = δt
//   y(δt) = P_V x̃ + R_V f̃_C + Σ_p G_{V,p} ξ_p + h,
//   ẏ(δt) = P_D x̃ + R_D f̃_C + Σ_p G_{D,p} ξ_p,           (eq. 10)
// with P_V = C e^{Aδt}, P_D = C A e^{Aδt}, R_V = C ∫₀^δt e^{Aτ}dτ, R_D = C e^{Aδt},
//   G_{V,p} = C ∫₀^δt e^{A(δt−τ)} τᵖ dτ B + D δtᵖ,
//   G_{D,p} = C (A ∫₀^δt e^{A(δt−τ)} τᵖ dτ + δtᵖ I) B + p D δt^{p−1}.   (eqs. 11–13)
// The paper obtains these by numerical Laplace inversion (and names it as an
// error source); here they are exact: every convolution integral is a block of
// one matrix exponential (Van Loan's construction), which needs no inverse of A
// and so holds for singular A too.
#include <Eigen/Dense>
#include <array>

#include "runtime/algorithms/matrix_exponential.hpp"

namespace couplet::missiles {

/// Highest input degree the estimators cover: the Hermite inputs are cubic (eq. 35).
inline constexpr int kInputDegree = 3;

/// A slave's linearization at the start of a macro step (eqs. 4, 10, 14).
struct SlaveLinearization {
  Eigen::MatrixXd A, B, C, D;     ///< n×n, n×m, q×n, q×m
  Eigen::VectorXd state;          ///< x̃ (n)
  Eigen::VectorXd affine;         ///< f̃_C = f̃ − A x̃ − B u(tᴺ⁻) (n), eq. 14
  Eigen::VectorXd output_offset;  ///< h = g − C x̃ − D u(tᴺ⁻) (q)
};

/// The linear parts of eq. 10 for one step size.
struct CostaricaOperators {
  double step = 0.0;                                                    ///< δt, seconds
  Eigen::MatrixXd value_from_state;                                     ///< P_V (q×n)
  Eigen::MatrixXd derivative_from_state;                                ///< P_D (q×n)
  Eigen::MatrixXd value_from_affine;                                    ///< R_V (q×n)
  Eigen::MatrixXd derivative_from_affine;                               ///< R_D (q×n)
  std::array<Eigen::MatrixXd, kInputDegree + 1> value_from_input;       ///< G_{V,p} (q×m)
  std::array<Eigen::MatrixXd, kInputDegree + 1> derivative_from_input;  ///< G_{D,p} (q×m)
};

/// Input polynomial coefficients ξ_p (m each), in local time τ from the step start.
using InputCoefficients = std::array<Eigen::VectorXd, kInputDegree + 1>;

/// Output value and time derivative at the end of the step.
struct OutputEstimate {
  Eigen::VectorXd value;       ///< ŷ (q)
  Eigen::VectorXd derivative;  ///< dŷ/dt (q)
};

/// The operators of eqs. 11–13 for `step` > 0, from one exponential of the block
/// matrix [[A, B, 0, 0, 0, I], [0, 0, I, 0, 0, 0], …] (sizes n + 4m + n).
/// Precondition: consistent sizes (A square, B and C matching, D q×m).
CostaricaOperators costarica_operators(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                       const Eigen::MatrixXd& C, const Eigen::MatrixXd& D,
                                       double step);

/// Storage for the operators of one slave size (n states, m inputs, q
/// outputs), so that recomputing them (a nonlinear slave, every macro step)
/// does not allocate.
struct CostaricaWorkspace {
  CostaricaWorkspace(Eigen::Index states, Eigen::Index inputs, Eigen::Index outputs);
  MatrixExponential exponential;
  Eigen::MatrixXd generator;     ///< the block matrix M
  Eigen::MatrixXd propagated;    ///< e^{Mδt}
  Eigen::MatrixXd output_state;  ///< C A
  Eigen::MatrixXd state_input;   ///< A ∫e^{A(δt−τ)}τᵖdτ B + δtᵖ B
  CostaricaOperators operators;  ///< sized for the slave
};

/// costarica_operators into `workspace.operators`: no allocation.
void compute_costarica_operators(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B,
                                 const Eigen::MatrixXd& C, const Eigen::MatrixXd& D, double step,
                                 CostaricaWorkspace& workspace);

/// Eq. 10: the outputs at the end of the step under the cubic input ξ.
OutputEstimate estimate_outputs(const CostaricaOperators& operators,
                                const SlaveLinearization& slave, const InputCoefficients& input);

/// The same into `estimate`, whose vectors already have q rows: no allocation.
void estimate_outputs(const CostaricaOperators& operators, const SlaveLinearization& slave,
                      const InputCoefficients& input, OutputEstimate& estimate);

}  // namespace couplet::missiles
