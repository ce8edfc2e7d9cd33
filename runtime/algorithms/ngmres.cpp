#include "runtime/algorithms/ngmres.hpp"

#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace couplet {

namespace {

// Singular values of the scaled Gram matrix below this fraction of the largest are
// dropped: residual differences closer to dependent than 1e-6 (its square root) add
// no direction, only noise (the near-converged differences are at the level of the
// slaves' integration error).
constexpr double kGramThreshold = 1e-12;
// Line search: the combination is taken when it reduces ‖γ_k‖ by 10 % at least; less
// is stagnation (see trial_evaluated).
constexpr double kSufficientDecrease = 0.9;

using GramMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxNgmresWindow, kMaxNgmresWindow>;
using GramVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxNgmresWindow, 1>;
using Vector = Eigen::VectorXd;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;
using VectorMap = Eigen::Map<Eigen::VectorXd>;

class NgmresSolver final : public CouplingSolver {
 public:
  NgmresSolver(std::size_t unknowns, const NgmresSettings& settings, int max_iterations)
      : line_search_(settings.line_search),
        window_(static_cast<int>(
            std::min<std::size_t>(static_cast<std::size_t>(settings.window), unknowns))),
        max_iterations_(max_iterations),
        iterates_(static_cast<Eigen::Index>(unknowns), window_),
        residuals_(static_cast<Eigen::Index>(unknowns), window_),
        differences_(static_cast<Eigen::Index>(unknowns), window_),
        candidate_(static_cast<Eigen::Index>(unknowns)),
        candidate_residual_(static_cast<Eigen::Index>(unknowns)),
        direction_(static_cast<Eigen::Index>(unknowns)),
        combined_(static_cast<Eigen::Index>(unknowns)),
        gram_(window_, window_),
        right_side_(window_),
        coefficients_(window_),
        scales_(window_),
        svd_(window_, window_, Eigen::ComputeFullU | Eigen::ComputeFullV),
        failure_(std::to_string(max_iterations) + " N-GMRES iterations without convergence") {
    svd_.setThreshold(kGramThreshold);
  }

  void begin(std::span<const double>) override {
    stored_ = 0;
    newest_ = -1;
    iterations_ = 0;
    phase_ = Phase::first_iterate;
  }

  Verdict next(std::span<const double> x, std::span<const double> gamma,
               std::span<double> next_x) override {
    const ConstVectorMap point(x.data(), static_cast<Eigen::Index>(x.size()));
    const ConstVectorMap residual(gamma.data(), static_cast<Eigen::Index>(gamma.size()));
    VectorMap next_point(next_x.data(), static_cast<Eigen::Index>(next_x.size()));
    switch (phase_) {
      case Phase::first_iterate:
        return accept_iterate(point, residual, next_point);
      case Phase::candidate:
        return candidate_evaluated(residual, next_point);
      case Phase::trial:
        return trial_evaluated(point, residual, next_point);
    }
    return Verdict::failed;
  }

  int iterations(int) const override { return iterations_; }
  const std::string& failure() const override { return failure_; }

 private:
  enum class Phase { first_iterate, candidate, trial };

  /// x_k with γ_k joins the window; step I of the next iteration: x̄ = x_k − γ_k.
  template <typename Point, typename Residual>
  Verdict accept_iterate(const Point& point, const Residual& residual, VectorMap& next_point) {
    iterate_norm_ = residual.norm();
    newest_ = (newest_ + 1) % window_;
    iterates_.col(newest_) = point;
    residuals_.col(newest_) = residual;
    stored_ = std::min(stored_ + 1, window_);
    if (iterations_ >= max_iterations_) return Verdict::failed;
    ++iterations_;
    candidate_ = point - residual;
    next_point = candidate_;
    phase_ = Phase::candidate;
    return Verdict::evaluate;
  }

  /// γ̄ known: step II, then the first point of step III.
  Verdict candidate_evaluated(const ConstVectorMap& residual, VectorMap& next_point) {
    candidate_residual_ = residual;
    candidate_norm_ = candidate_residual_.norm();
    combine();
    if (direction_.isZero(0.0)) return accept_iterate(candidate_, candidate_residual_, next_point);
    trials_ = 1;
    next_point = candidate_ + direction_;
    phase_ = Phase::trial;
    return Verdict::evaluate;
  }

  /// γ(x̂), then with line search γ at the step toward the candidate: step III.
  Verdict trial_evaluated(const ConstVectorMap& point, const ConstVectorMap& residual,
                          VectorMap& next_point) {
    const double norm = residual.norm();
    if (!line_search_ || trials_ == 2 || norm <= kSufficientDecrease * iterate_norm_) {
      return accept_iterate(point, residual, next_point);
    }
    if (!(norm < candidate_norm_))
      return accept_iterate(candidate_, candidate_residual_, next_point);
    // Stagnation: x̂ barely improves on x_k, so the next candidate would repeat this
    // one's direction. A step toward x̄, of the size of ‖γ_k‖ in the linear model,
    // gives the next candidate a new one.
    const double toward = std::min(1.0, iterate_norm_ / (candidate_residual_ - residual).norm());
    combined_ = point;
    next_point = combined_ + toward * (candidate_ - combined_);
    trials_ = 2;
    return Verdict::evaluate;
  }

  /// direction_ = x̂ − x̄ = Σ_j α_j (x̄ − x_j), α from the normal equations
  /// (DᵀD) α = −Dᵀγ̄ of min ‖γ̄ + D α‖, D = [γ̄ − γ_j], its columns scaled to norm 1.
  void combine() {
    const int columns = stored_;
    for (int j = 0; j < columns; ++j) {
      differences_.col(j) = candidate_residual_ - residuals_.col(slot(j));
      const double norm = differences_.col(j).norm();
      scales_(j) = norm > 0.0 ? 1.0 / norm : 0.0;
      differences_.col(j) *= scales_(j);
    }
    gram_.resize(columns, columns);
    right_side_.resize(columns);
    for (int i = 0; i < columns; ++i) {
      for (int j = 0; j <= i; ++j)
        gram_(i, j) = gram_(j, i) = differences_.col(i).dot(differences_.col(j));
      right_side_(i) = -differences_.col(i).dot(candidate_residual_);
    }
    svd_.compute(gram_);
    coefficients_ = svd_.solve(right_side_);
    direction_.setZero();
    for (int j = 0; j < columns; ++j) {
      direction_ += (coefficients_(j) * scales_(j)) * (candidate_ - iterates_.col(slot(j)));
    }
  }

  /// The window's column of the j-th newest iterate.
  int slot(int j) const { return (newest_ - j + window_) % window_; }

  bool line_search_;
  int window_;
  int max_iterations_;
  Eigen::MatrixXd iterates_;   ///< x_j, a ring of window_ columns
  Eigen::MatrixXd residuals_;  ///< γ_j
  Eigen::MatrixXd differences_;
  Vector candidate_, candidate_residual_, direction_, combined_;
  GramMatrix gram_;
  GramVector right_side_, coefficients_, scales_;
  Eigen::JacobiSVD<GramMatrix> svd_;
  std::string failure_;

  Phase phase_ = Phase::first_iterate;
  int stored_ = 0;
  int newest_ = -1;
  int iterations_ = 0;
  int trials_ = 0;
  double candidate_norm_ = 0.0;
  double iterate_norm_ = 0.0;  ///< ‖γ_k‖
};

}  // namespace

std::unique_ptr<CouplingSolver> make_ngmres_solver(std::size_t unknowns,
                                                   const NgmresSettings& settings,
                                                   int max_iterations) {
  if (unknowns == 0) throw std::invalid_argument("N-GMRES: no unknowns");
  return std::make_unique<NgmresSolver>(unknowns, settings, max_iterations);
}

IfosmondiNgmres::IfosmondiNgmres(const IfosmondiSettings& settings, const NgmresSettings& ngmres)
    : IfosmondiAlgorithm(settings), ngmres_(ngmres) {
  if (ngmres.window < 1 || ngmres.window > kMaxNgmresWindow) {
    throw ConfigurationError("algorithm.ngmres_window must be in [1, " +
                             std::to_string(kMaxNgmresWindow) + "]");
  }
}

std::unique_ptr<CouplingSolver> IfosmondiNgmres::make_solver(std::size_t unknowns) {
  return make_ngmres_solver(unknowns, ngmres_, settings().max_iterations);
}

// The first iterate, then per iteration the candidate and at most the line-search
// trials; one more so that the solver's own limit, with its message, comes first.
int IfosmondiNgmres::max_evaluations(std::size_t) const {
  const int per_iteration = 1 + (ngmres_.line_search ? kNgmresLineSearchTrials : 1);
  return 2 + settings().max_iterations * per_iteration;
}

}  // namespace couplet
