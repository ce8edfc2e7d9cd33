/* Input polynomials, evaluated exactly as the host's include/couplet/polynomial.hpp
 * does (same operations in the same order), so that a device written in C and
 * the same model on the host see bit-identical inputs. */
#include "couplet_embedded.h"

double couplet_seconds(couplet_time time) {
  return (double)time / (double)COUPLET_TICKS_PER_SECOND;
}

double couplet_polynomial_value(const couplet_polynomial* polynomial, double t) {
  const double s = (t - polynomial->origin) / polynomial->scale;
  double result = 0.0;
  unsigned k = polynomial->degree + 1u;
  while (k-- > 0) result = result * s + polynomial->coefficients[k];
  return result;
}

/* d^m/dt^m = scale^-m d^m/ds^m, and d^m/ds^m s^k = k!/(k-m)! s^(k-m). */
double couplet_polynomial_derivative(const couplet_polynomial* polynomial, double t,
                                     unsigned order) {
  const double s = (t - polynomial->origin) / polynomial->scale;
  double result = 0.0;
  unsigned k;
  unsigned j;
  if (order > polynomial->degree) return 0.0;
  for (k = polynomial->degree + 1u; k-- > order;) {
    double falling_factorial = 1.0;
    for (j = k - order + 1u; j <= k; ++j) falling_factorial *= (double)j;
    result = result * s + polynomial->coefficients[k] * falling_factorial;
  }
  for (j = 0; j < order; ++j) result /= polynomial->scale;
  return result;
}
