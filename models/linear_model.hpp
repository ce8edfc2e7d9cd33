#pragma once
// A model given by piecewise-affine equations, one LinearForm per event segment:
//   ẋ = A x + B u + e,   y = C x + D u + h        (Defect Analysis eqs. 40–41,
//                                                  docs/references.md)
// Segment k holds for t in [event_{k-1}, event_k); the first segment extends to
// −∞, the last to +∞. At exactly an event time the new segment holds (model.hpp).
//
// Output derivatives are analytic, from the input jet u, u̇, ü, u⃛ (Glumac §4:
// x⁽ᵏ⁾ = A x⁽ᵏ⁻¹⁾ + B u⁽ᵏ⁻¹⁾, y⁽ᵏ⁾ = C x⁽ᵏ⁾ + D u⁽ᵏ⁾). Unrolled, with x⁽¹⁾ = A x + B u + e,
//   y⁽ᵏ⁾ = C Aᵏ x + C Aᵏ⁻¹ e + Σ_{j<k} C Aᵏ⁻¹⁻ʲ B u⁽ʲ⁾ + D u⁽ᵏ⁾,
// so the products C Aʲ, C Aʲ B, C Aʲ e are precomputed per segment and the hot
// methods (derivatives, outputs, output_derivatives) neither allocate nor need
// scratch space: they are const and safe to call concurrently.
#include <Eigen/Dense>
#include <cstddef>
#include <span>
#include <vector>

#include "models/model.hpp"

namespace couplet::models {

/// A LinearForm of the given sizes with every matrix and vector zero.
LinearForm zero_linear_form(std::size_t state_count, std::size_t input_count,
                            std::size_t output_count);

class LinearModel final : public Model {
 public:
  static constexpr int max_output_derivative_order = 3;

  /// `forms` holds event_times.size() + 1 segments; `event_times` is strictly
  /// increasing and finite. The direct-feedthrough flag of each output in
  /// `description` is overwritten: it is set when that row of D is nonzero in any
  /// segment. Throws ConfigurationError (naming the model) on inconsistent sizes.
  LinearModel(ModelDescription description, std::vector<LinearForm> forms,
              std::vector<double> event_times, Eigen::VectorXd initial_state);

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override;
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override;
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override;
  std::span<const double> time_events() const override { return event_times_; }
  int output_derivative_order() const override { return max_output_derivative_order; }
  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override;
  const LinearForm* linear_form(double t) const override;

 private:
  /// Products needed by output_derivatives, for one segment; index j = power of A.
  struct DerivativeOperators {
    std::vector<Eigen::MatrixXd> output_state;   ///< C Aʲ⁺¹, j = 0..max_order-1
    std::vector<Eigen::VectorXd> output_offset;  ///< C Aʲ e,  j = 0..max_order-1
    std::vector<Eigen::MatrixXd> output_input;   ///< C Aʲ B,  j = 0..max_order-1
  };

  std::size_t segment_index(double t) const;
  void check_sizes() const;
  void set_feedthrough_flags();
  static DerivativeOperators derivative_operators(const LinearForm& form);

  ModelDescription description_;
  std::vector<LinearForm> forms_;
  std::vector<double> event_times_;
  Eigen::VectorXd initial_state_;
  std::vector<DerivativeOperators> operators_;  ///< one per segment
};

}  // namespace couplet::models
