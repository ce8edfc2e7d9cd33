#include "models/euler_solver.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace couplet::models {
namespace {

// Slack when counting how many nominal substeps fit in a segment, so that a
// segment of exactly k·h (up to rounding) is not given k + 1 substeps.
constexpr double kSubstepCountSlack = 1e-9;

class EulerSolver final : public Solver {
 public:
  EulerSolver(const Model& model, int substeps) : model_(model), substeps_(substeps) {}

  void setup(double, std::span<const double> state) override {
    slope_.assign(state.size(), 0.0);
    sample_state_.assign(state.size(), 0.0);
    inputs_.assign(input_jet_size(model_), 0.0);
  }

  /// x_{j+1} = x_j + h f(t_j, x_j, u(t_j)) (Glumac eq. 45: u taken at the substep
  /// start). The numerical solution is the polygon through the x_j, so a sample at
  /// s in (t_j, t_{j+1}] is x_j + (s - t_j) f_j; at s = t_{j+1} that is x_{j+1} bit
  /// for bit, because both use the same expression.
  void integrate(const Segment& segment, std::span<double> state, SampleSink& sink) override {
    const double length = segment.end - segment.start;
    const double nominal_substep = segment.macro_step / static_cast<double>(substeps_);
    const double count_real = std::ceil(length / nominal_substep - kSubstepCountSlack);
    const long count = std::max(1L, static_cast<long>(count_real));
    const double substep = length / static_cast<double>(count);
    std::size_t next_sample = 0;
    for (long j = 0; j < count; ++j) {
      const double substep_start = segment.start + static_cast<double>(j) * substep;
      const double substep_end =
          j + 1 == count ? segment.end : segment.start + static_cast<double>(j + 1) * substep;
      evaluate_input_jet(segment.inputs, substep_start, model_.input_derivative_order(), inputs_);
      model_.derivatives(model_time_in_segment(substep_start, segment), state, inputs_, slope_);
      check_finite(substep_start);
      for (; next_sample < segment.sample_times.size(); ++next_sample) {
        const double sample_time = to_seconds(segment.sample_times[next_sample]);
        if (sample_time > substep_end) break;
        advance(state, sample_time - substep_start, sample_state_);
        sink.sample(next_sample, sample_time, sample_state_);
      }
      advance(state, substep_end - substep_start, state);
    }
  }

 private:
  /// target = state + duration · slope (target may alias state).
  void advance(std::span<const double> state, double duration, std::span<double> target) const {
    for (std::size_t i = 0; i < state.size(); ++i) target[i] = state[i] + duration * slope_[i];
  }

  void check_finite(double time) const {
    for (const double value : slope_) {
      if (!std::isfinite(value)) throw SolverFailure(time, "Euler: the derivatives are not finite");
    }
  }

  const Model& model_;
  const int substeps_;
  // Sized in setup: integrate() does not allocate.
  std::vector<double> slope_;
  std::vector<double> sample_state_;
  std::vector<double> inputs_;
};

}  // namespace

std::unique_ptr<Solver> make_euler_solver(const Model& model, int substeps) {
  return std::make_unique<EulerSolver>(model, substeps);
}

}  // namespace couplet::models
