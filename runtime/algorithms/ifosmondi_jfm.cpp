#include "runtime/algorithms/ifosmondi_jfm.hpp"

#include <cmath>

namespace couplet {

namespace {

class KinsolSolver final : public CouplingSolver {
 public:
  KinsolSolver(std::size_t unknowns, const KinsolSettings& settings, std::size_t max_evaluations)
      : replay_(unknowns, settings, max_evaluations) {}

  void begin(std::span<const double> first_iterate) override { replay_.begin(first_iterate); }

  Verdict next(std::span<const double> x, std::span<const double> gamma, std::span<double> next_x) override {
    return replay_.next(x, gamma, next_x) == KinsolReplay::Outcome::evaluate ? Verdict::evaluate : Verdict::failed;
  }

  int iterations(int) const override { return replay_.iterations_of_latest(); }
  const std::string& failure() const override { return replay_.stop_reason(); }

 private:
  KinsolReplay replay_;
};

}  // namespace

const char* kinsol_method_name(KinsolMethod method) {
  switch (method) {
    case KinsolMethod::newton: return "newton";
    case KinsolMethod::anderson: return "anderson";
    case KinsolMethod::fixed_point: return "fixed_point";
  }
  return "?";
}

IfosmondiJfm::IfosmondiJfm(const IfosmondiJfmSettings& settings)
    : IfosmondiAlgorithm(settings.coupling), kinsol_(settings.kinsol) {
  kinsol_.max_iterations = settings.coupling.max_iterations;
  if (!(kinsol_.krylov_tolerance > 0.0) || !(kinsol_.krylov_tolerance < 1.0)) {
    throw ConfigurationError("algorithm.krylov_tolerance must be in (0, 1)");
  }
  if (kinsol_.krylov_dimension < 0) throw ConfigurationError("algorithm.krylov_dimension must be >= 0 (0: automatic)");
  if (kinsol_.anderson_depth < 1) throw ConfigurationError("algorithm.anderson_depth must be at least 1");
  if (!(kinsol_.residual_relative_error > 0.0) || !(kinsol_.residual_relative_error < 1.0)) {
    throw ConfigurationError("algorithm.residual_relative_error must be in (0, 1)");
  }
}

std::unique_ptr<CouplingSolver> IfosmondiJfm::make_solver(std::size_t unknowns) {
  return std::make_unique<KinsolSolver>(unknowns, kinsol_, static_cast<std::size_t>(max_evaluations(unknowns)));
}

// Newton: per iteration at most a full Krylov space of products, a handful of line-
// search trials; the fixed points: one evaluation per iteration.
int IfosmondiJfm::max_evaluations(std::size_t unknowns) const {
  const int iterations = settings().max_iterations;
  if (kinsol_.method != KinsolMethod::newton) return iterations + 1;
  const int krylov = kinsol_.krylov_dimension > 0 ? kinsol_.krylov_dimension : static_cast<int>(unknowns);
  return 1 + iterations * (krylov + 10);
}

}  // namespace couplet
