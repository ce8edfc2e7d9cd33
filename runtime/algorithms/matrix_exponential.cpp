#include "runtime/algorithms/matrix_exponential.hpp"

#include <array>
#include <cmath>

namespace couplet::missiles {

namespace {

// b_k of the [13/13] Padé approximant of eˣ (Higham 2005, eq. 2.11 and table 2.3).
constexpr std::array<double, 14> kPade13 = {
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
    1323241920.0,        40840800.0,          960960.0,           16380.0,
    182.0,               1.0};

// θ₁₃: the largest 1-norm for which the [13/13] approximant is accurate to
// double precision (Higham 2005, table 2.3).
constexpr double kTheta13 = 5.371920351148152;

}  // namespace

MatrixExponential::MatrixExponential(Eigen::Index size)
    : scaled_(Eigen::MatrixXd::Zero(size, size)),
      square2_(Eigen::MatrixXd::Zero(size, size)),
      square4_(Eigen::MatrixXd::Zero(size, size)),
      square6_(Eigen::MatrixXd::Zero(size, size)),
      u_(Eigen::MatrixXd::Zero(size, size)),
      v_(Eigen::MatrixXd::Zero(size, size)),
      work_(Eigen::MatrixXd::Zero(size, size)),
      factorization_(size) {}

void MatrixExponential::compute(const Eigen::MatrixXd& matrix, double t, Eigen::MatrixXd& result) {
  const Eigen::Index n = matrix.rows();
  if (n == 0) return;
  const double norm = std::abs(t) * matrix.cwiseAbs().colwise().sum().maxCoeff();
  // M t = 2ˢ · (scaled), with ‖scaled‖₁ ≤ θ₁₃.
  const int squarings = norm > kTheta13 ? static_cast<int>(std::ceil(std::log2(norm / kTheta13))) : 0;
  scaled_ = matrix * (t / std::ldexp(1.0, squarings));
  square2_.noalias() = scaled_ * scaled_;
  square4_.noalias() = square2_ * square2_;
  square6_.noalias() = square4_ * square2_;
  const auto& b = kPade13;
  // U = A [A⁶(b₁₃A⁶ + b₁₁A⁴ + b₉A²) + b₇A⁶ + b₅A⁴ + b₃A² + b₁I]
  work_ = b[13] * square6_ + b[11] * square4_ + b[9] * square2_;
  u_.noalias() = square6_ * work_;
  u_ += b[7] * square6_ + b[5] * square4_ + b[3] * square2_;
  u_.diagonal().array() += b[1];
  work_.noalias() = scaled_ * u_;
  u_ = work_;
  // V = A⁶(b₁₂A⁶ + b₁₀A⁴ + b₈A²) + b₆A⁶ + b₄A⁴ + b₂A² + b₀I
  work_ = b[12] * square6_ + b[10] * square4_ + b[8] * square2_;
  v_.noalias() = square6_ * work_;
  v_ += b[6] * square6_ + b[4] * square4_ + b[2] * square2_;
  v_.diagonal().array() += b[0];
  // r₁₃ = (V − U)⁻¹ (V + U), then squared s times.
  work_ = v_ - u_;
  factorization_.compute(work_);
  work_ = v_ + u_;
  result = factorization_.solve(work_);
  for (int k = 0; k < squarings; ++k) {
    work_.noalias() = result * result;
    result = work_;
  }
}

}  // namespace couplet::missiles
