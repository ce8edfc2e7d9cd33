#include "runtime/algorithms/ifosmondi.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace couplet {

namespace {

// The rate is the geometric mean of the last kRateSpan per-iteration reductions of
// ‖γ‖: an even span, since J_Ψ may turn the residual (the damper's eigenvalues ±iρ
// make single ratios oscillate and the two-iteration ratio ρ², docs/iterative.md).
constexpr int kRateSpan = 4;
// Beyond the iterations the measured rate predicts: 10 %, at least 5 (the rate of the
// last iterations is an estimate, and eq. 27's threshold moves with x).
constexpr double kMarginFraction = 0.1;
constexpr int kMinimumMargin = 5;
constexpr int kMostIterationsStated = 1000000000;
// A measured rate that rounds to 1 in the three digits the message shows is no
// contraction (the tolerance would need 10⁴ iterations and more).
constexpr double kContractionBelow = 0.9995;

const char* const kAlternative = "use type ifosmondi_jfm (solver newton, anderson or ngmres)";

/// x⁽ᵐ⁺¹⁾ = Ψ(x⁽ᵐ⁾) = x⁽ᵐ⁾ − γ(x⁽ᵐ⁾) (eq. 26), with the iteration budget of
/// ifosmondi.hpp.
class FixedPointSolver final : public CouplingSolver {
 public:
  explicit FixedPointSolver(const IfosmondiSettings& settings) : settings_(settings) {
    failure_.reserve(sizeof message_);  // the text of a rejection is built without allocating
  }

  void begin(std::span<const double>) override {
    evaluations_ = 0;
    limit_ = settings_.max_iterations;
  }

  Verdict next(std::span<const double> x, std::span<const double> gamma,
               std::span<double> next_x) override {
    norms_[static_cast<std::size_t>(evaluations_ % (kRateSpan + 1))] = euclidean_norm(gamma);
    ++evaluations_;
    if (evaluations_ >= limit_ && !extend(x, gamma)) return Verdict::failed;
    for (std::size_t k = 0; k < x.size(); ++k) next_x[k] = x[k] - gamma[k];
    return Verdict::evaluate;
  }

  int iterations(int evaluations) const override { return evaluations; }
  const std::string& failure() const override { return failure_; }

 private:
  double norm_back(int back) const {
    return norms_[static_cast<std::size_t>((evaluations_ - 1 - back) % (kRateSpan + 1))];
  }

  /// (‖γ_k‖ / ‖γ_{k−4}‖)^{1/4} over the last evaluations; NaN before there are enough.
  double measured_rate() const {
    if (evaluations_ <= kRateSpan) return std::numeric_limits<double>::quiet_NaN();
    return std::pow(norm_back(0) / norm_back(kRateSpan), 1.0 / kRateSpan);
  }

  /// At the budget: raise it when the rate predicts convergence within the cap, or
  /// write the failure text and return false.
  /// The iterations still needed are those of the unknown farthest from its own
  /// tolerance (the convergence test holds every unknown to it).
  bool extend(std::span<const double> x, std::span<const double> gamma) {
    const double rate = measured_rate();
    const ConvergenceTest test =
        test_convergence(x, gamma, settings_.absolute_tolerance, settings_.relative_tolerance);
    const double residual = test.worst_residual;
    const double threshold = test.worst_tolerance;
    if (!(rate < kContractionBelow)) {
      describe(rate, 0);
      return false;
    }
    const int needed = fixed_point_iterations_needed(evaluations_, residual, threshold, rate);
    const int margin =
        std::max(kMinimumMargin, static_cast<int>(std::ceil(kMarginFraction * needed)));
    if (settings_.iteration_cap > 0 && needed <= settings_.iteration_cap - margin) {
      limit_ = needed + margin;
      return true;
    }
    describe(rate, needed);
    return false;
  }

  void describe(double rate, int needed) {
    const int length = std::snprintf(message_, sizeof message_,
                                     "%d fixed-point iterations without convergence", evaluations_);
    const std::size_t used = static_cast<std::size_t>(length);
    const std::size_t left = sizeof message_ - used;
    char* tail = message_ + used;
    if (std::isnan(rate)) {
      // fewer iterations than the rate needs: nothing to add
    } else if (!(rate < kContractionBelow)) {
      std::snprintf(tail, left,
                    "; contraction rate %.3f measured: the fixed point needs a rate below 1; %s",
                    rate, kAlternative);
    } else if (settings_.iteration_cap > 0) {
      std::snprintf(tail, left,
                    "; contraction rate %.3f measured, reaching the tolerance needs about %d "
                    "iterations, more than "
                    "the %d an attempt takes without algorithm.max_iterations: set "
                    "algorithm.max_iterations or %s",
                    rate, needed, settings_.iteration_cap, kAlternative);
    } else {
      std::snprintf(tail, left,
                    "; contraction rate %.3f measured, reaching the tolerance needs about %d "
                    "iterations: raise "
                    "algorithm.max_iterations or %s",
                    rate, needed, kAlternative);
    }
    failure_.assign(message_);
  }

  IfosmondiSettings settings_;
  int evaluations_ = 0;
  int limit_ = 0;
  std::array<double, kRateSpan + 1> norms_{};  ///< the last ‖γ‖, a ring indexed by evaluation
  char message_[400] = {};
  std::string failure_;
};

}  // namespace

int fixed_point_iterations_needed(int done, double residual, double threshold, double rate) {
  if (!(residual > threshold)) return done;
  if (!(rate < 1.0)) return kMostIterationsStated;
  if (!(rate > 0.0)) return done + 1;
  const double more = std::ceil(std::log(threshold / residual) / std::log(rate));
  if (!(more < kMostIterationsStated - done)) return kMostIterationsStated;
  return done + static_cast<int>(more);
}

std::unique_ptr<CouplingSolver> Ifosmondi::make_solver(std::size_t) {
  return std::make_unique<FixedPointSolver>(settings());
}

}  // namespace couplet
