#include "runtime/algorithms/ifosmondi.hpp"

#include <string>

namespace couplet {

namespace {

/// x⁽ᵐ⁺¹⁾ = Ψ(x⁽ᵐ⁾) = x⁽ᵐ⁾ − γ(x⁽ᵐ⁾) (eq. 26).
class FixedPointSolver final : public CouplingSolver {
 public:
  explicit FixedPointSolver(int max_iterations)
      : max_iterations_(max_iterations),
        failure_(std::to_string(max_iterations) + " fixed-point iterations without convergence") {}

  void begin(std::span<const double>) override { evaluations_ = 0; }

  Verdict next(std::span<const double> x, std::span<const double> gamma, std::span<double> next_x) override {
    ++evaluations_;
    if (evaluations_ >= max_iterations_) return Verdict::failed;
    for (std::size_t k = 0; k < x.size(); ++k) next_x[k] = x[k] - gamma[k];
    return Verdict::evaluate;
  }

  int iterations(int evaluations) const override { return evaluations; }
  const std::string& failure() const override { return failure_; }

 private:
  int max_iterations_;
  int evaluations_ = 0;
  std::string failure_;
};

}  // namespace

std::unique_ptr<CouplingSolver> Ifosmondi::make_solver(std::size_t) {
  return std::make_unique<FixedPointSolver>(settings().max_iterations);
}

}  // namespace couplet
