#pragma once
// Co-simulation defects of one macro step (Glumac & Kovačić, Defect Analysis,
// §3; docs/references.md, docs/defect-control.md):
// the connection defect δu = ũ − ỹ (eq. 17), the output-defect estimate from the
// midpoint sample (eqs. 30–32) and the RMS of such defect polynomials over a step.
//
// Every RMS is exact: the integral of the squared polynomial over the step divided
// by the step, never a sum over sample points of the signal. Allocation-free, so
// the defect-controlled algorithm can call it on the real-time path.
#include "couplet/polynomial.hpp"

namespace couplet {

/// (1/(to − from)) ∫_from^to p(t)² dt, exactly up to rounding: Gauss–Legendre with
/// degree + 1 nodes integrates polynomials up to degree 2·degree + 1 exactly, and
/// its positive weights times squares cannot cancel (the monomial form
/// Σ c_i c_j/(i + j + 1) is a Hilbert matrix and can). Requires to > from.
double mean_square(const Polynomial& polynomial, double from, double to);

/// sqrt(mean_square(...)): the RMS of a polynomial over [from, to].
double root_mean_square(const Polynomial& polynomial, double from, double to);

/// p − q as one polynomial around `origin` with `scale` (both operands re-expanded
/// there first, so their origins may differ).
Polynomial polynomial_difference(const Polynomial& minuend, const Polynomial& subtrahend, double origin,
                                 double scale);

/// The connection defect of one connection on the step [step_start, step_start + step]
/// (eq. 17): the target's input polynomial ũ (eq. 14, built at the step start) minus
/// its source's output polynomial ỹ (eq. 12, the Taylor polynomial at the step end).
Polynomial connection_defect(const Polynomial& input, const Polynomial& output, double step_start,
                             double step);

/// The output-defect estimate on a step ending at `step_end` (eq. 32 with the
/// Hermite correction of eq. 30):
///   δ̂y(t) = ỹ(t) − ŷ(t) = (ỹ(t_mid) − y_mid) · ((T_k − t) / (T_k − t_mid))^{n+1},
/// with ỹ the output Taylor polynomial of order n at T_k (eq. 12), y_mid the output
/// the slave sampled at t_mid, n = `order`. The paper puts t_mid at T_k − H_k/2; a
/// step of an odd number of ticks puts it half a tick early, and this form stays
/// exact for any t_mid < T_k. Origin T_k, scale T_k − t_mid.
Polynomial output_defect_estimate(double taylor_at_midpoint, double sample_at_midpoint, double midpoint,
                                  double step_end, int order);

/// RMS of output_defect_estimate over the step [T_k − step, T_k], closed form:
///   |ỹ(t_mid) − y_mid| · (H / (T_k − t_mid))^{n+1} / √(2n + 3),
/// which for t_mid = T_k − H/2 is |y_mid − P_n(T_k − H/2)|·2^{n+1}/√(2n+3)
/// (from (1/H)∫_0^H (s/a)^{2n+2} ds = (H/a)^{2n+2}/(2n+3) with a = T_k − t_mid).
double output_defect_rms(double taylor_at_midpoint, double sample_at_midpoint, double step,
                         double midpoint_to_end, int order);

}  // namespace couplet
