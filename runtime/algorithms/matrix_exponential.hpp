#pragma once
// e^M by scaling and squaring with the [13/13] Padé approximant (Higham, "The
// Scaling and Squaring Method for the Matrix Exponential Revisited", SIAM J.
// Matrix Anal. Appl. 26 (2005) 1179–1193, doi:10.1137/04061101X, algorithm 2.3
// with m = 13 only), in storage sized once: for the estimators that MISSILES
// recomputes at every macro step of a nonlinear slave, on the stepping path
// where Eigen's MatrixFunctions module would allocate its temporaries.
#include <Eigen/Dense>

namespace couplet::missiles {

class MatrixExponential {
 public:
  /// Storage for size×size matrices. Allocates.
  explicit MatrixExponential(Eigen::Index size = 0);

  /// e^{M t} into `result` (size×size, already sized): no allocation.
  void compute(const Eigen::MatrixXd& matrix, double t, Eigen::MatrixXd& result);

  Eigen::Index size() const { return scaled_.rows(); }

 private:
  Eigen::MatrixXd scaled_, square2_, square4_, square6_, u_, v_, work_;
  Eigen::PartialPivLU<Eigen::MatrixXd> factorization_;
};

}  // namespace couplet::missiles
