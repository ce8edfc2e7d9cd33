#pragma once
// Stimuli: sources with no state and no input whose output `y` is a known
// function of time (docs/models.md, "Stimuli"). They report exact output
// derivatives, so every input order of a master (zero-order hold, Taylor,
// defect control, F3ORNITS) reads them without a difference quotient, and they
// announce their breakpoints as time events, so that solvers and variable-step
// masters stop exactly there.
#include <span>

#include "models/model.hpp"

namespace couplet::models {

/// Every master time is a whole number of ticks (1 ns): a time within half a
/// tick of a breakpoint is the breakpoint, so that a breakpoint given in
/// decimal seconds and the same instant converted from ticks agree, whatever
/// rounding either took.
inline constexpr double kBreakpointResolution = 0.5e-9;

/// Whether `t` lies at or after `breakpoint` (the new value holds from the
/// breakpoint on).
inline bool at_or_after(double t, double breakpoint) {
  return t >= breakpoint - kBreakpointResolution;
}

/// The base of the stimuli: no state, no input, outputs and their derivatives
/// from closed forms of t. Up to order 3, as the ODE slave reports.
class Stimulus : public Model {
 public:
  static constexpr int kDerivativeOrder = 3;

  void initial_state(std::span<double> /*x*/) const override {}
  void derivatives(double /*t*/, std::span<const double> /*x*/, std::span<const double> /*u*/,
                   std::span<double> /*dxdt*/) const override {}
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override;
  int output_derivative_order() const override { return kDerivativeOrder; }
  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override;

 protected:
  /// The outputs at t (one value per output, in description order).
  virtual void values(double t, std::span<double> y) const = 0;
  /// d^k y / dt^k at t, k >= 1; at a breakpoint, that of the segment starting there.
  virtual void derivative(double t, int k, std::span<double> y) const = 0;
};

}  // namespace couplet::models
