#include "runtime/algorithms/ifosmondi_coupling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "couplet/errors.hpp"

namespace couplet {

IfosmondiCoupling::IfosmondiCoupling(const System& system, std::optional<GivenInputs> given) {
  const std::size_t slave_count = system.slave_count();
  derivative_order_.assign(slave_count, 0);
  reports_samples_.assign(slave_count, false);
  if (given) given_polynomials_ = given->polynomials;
  for (std::size_t s = 0; s < slave_count; ++s) {
    const SlaveCapabilities& capabilities = system.description(s).capabilities;
    derivative_order_[s] = capabilities.output_derivative_order;
    reports_samples_[s] = capabilities.intermediate_samples;
    if (given && s == given->source_slave) continue;
    stepped_slaves_.push_back(s);
    for (std::size_t i = 0; i < system.description(s).inputs.size(); ++i) {
      // An Integer output's value is no unknown: the executor holds it.
      if (system.integer_source_of({s, i})) continue;
      const std::optional<PortReference> source = system.source_of({s, i});
      if (!source) throw ConfigurationError("input '" + system.input_name({s, i}) + "' is not connected");
      if (given && source->slave == given->source_slave) {
        if (source->port >= given->polynomials.size()) {
          throw std::logic_error("IfosmondiCoupling: no given polynomial for '" + system.input_name({s, i}) + "'");
        }
        given_.push_back({s, i, source->port});
      } else {
        coupled_.push_back({s, i, *source});
        coupled_names_.push_back(system.input_name({s, i}));
      }
    }
  }
  const std::size_t n = coupled_.size();
  start_.values.assign(n, 0.0);
  start_.derivatives.assign(n, 0.0);
  start_.source_outputs.assign(n, 0.0);
}

void IfosmondiCoupling::start(std::span<const StepSlot> slots) {
  for (std::size_t k = 0; k < coupled_.size(); ++k) {
    const PortReference source = coupled_[k].source;
    const double value = slots[source.slave].output(source.port, 0);
    start_.values[k] = value;
    start_.derivatives[k] = 0.0;
    start_.source_outputs[k] = value;
  }
  start_.has_derivatives = false;
}

void IfosmondiCoupling::first_iterate(std::span<double> x) const {
  const std::size_t n = coupled_.size();
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = start_.values[k];
    x[n + k] = start_.has_derivatives ? -start_.derivatives[k] : 0.0;
  }
}

Polynomial IfosmondiCoupling::coupled_polynomial(std::size_t k, Time from, Time to, std::span<const double> x,
                                                 const CouplingStart& start) const {
  const std::size_t n = coupled_.size();
  const double t0 = to_seconds(from);
  const double t1 = to_seconds(to);
  const double end_value = x[k];
  const double end_derivative = x[n + k];
  if (start.has_derivatives) {
    return Polynomial::hermite(t0, start.values[k], start.derivatives[k], t1, end_value, end_derivative);
  }
  // §3.1.3: no constraint on u̇(t⁽⁰⁾); in s = (t − t⁽⁰⁾)/h, p = c₀ + c₁ s + c₂ s² with
  // p(0) = u_init, p(1) = ũ, p'(1) = h u̇̃.
  const double step = t1 - t0;
  const double gap = end_value - start.values[k];
  const std::array<double, 3> coefficients{start.values[k], 2.0 * gap - step * end_derivative,
                                           step * end_derivative - gap};
  return Polynomial::from_coefficients(t0, step, coefficients);
}

void IfosmondiCoupling::prepare_step(std::span<StepSlot> slots, Time from, Time to, std::span<const double> x,
                                     std::span<const Time> samples) const {
  prepare_step(slots, from, to, x, start_, samples);
}

void IfosmondiCoupling::prepare_step(std::span<StepSlot> slots, Time from, Time to, std::span<const double> x,
                                     const CouplingStart& start, std::span<const Time> samples) const {
  const auto first = std::upper_bound(samples.begin(), samples.end(), from);
  const auto last = std::upper_bound(first, samples.end(), to);
  for (const std::size_t s : stepped_slaves_) {
    StepSlot& slot = slots[s];
    slot.start = from;
    slot.end = to;
    slot.sample_times.clear();
    if (reports_samples_[s]) slot.sample_times.insert(slot.sample_times.end(), first, last);
  }
  for (std::size_t k = 0; k < coupled_.size(); ++k) {
    slots[coupled_[k].slave].inputs[coupled_[k].input] = coupled_polynomial(k, from, to, x, start);
  }
  for (const GivenInput& given : given_) slots[given.slave].inputs[given.input] = given_polynomials_[given.port];
}

void IfosmondiCoupling::gather(std::span<const StepSlot> slots, Time from, Time to, std::span<double> psi) const {
  const std::size_t n = coupled_.size();
  const double step = to_seconds(to) - to_seconds(from);
  for (std::size_t k = 0; k < n; ++k) {
    const PortReference source = coupled_[k].source;
    const StepSlot& slot = slots[source.slave];
    const double end_value = slot.output(source.port, 0);
    psi[k] = end_value;
    if (derivative_order_[source.slave] >= 1) {
      psi[n + k] = slot.output(source.port, 1);
      continue;
    }
    psi[n + k] = (end_value - start_.source_outputs[k]) / step;
  }
}

void IfosmondiCoupling::prepare_output_refresh(std::span<StepSlot> slots, Time now, bool started) const {
  for (std::size_t k = 0; k < coupled_.size(); ++k) {
    Polynomial& input = slots[coupled_[k].slave].inputs[coupled_[k].input];
    if (started) {
      const std::array<double, 2> jet{start_.values[k], start_.derivatives[k]};
      input = Polynomial::taylor(to_seconds(now), std::span<const double>(jet.data(), start_.has_derivatives ? 2 : 1));
    } else {
      const PortReference source = coupled_[k].source;
      input = Polynomial::constant(to_seconds(now), slots[source.slave].output(source.port, 0));
    }
  }
  for (const GivenInput& given : given_) slots[given.slave].inputs[given.input] = given_polynomials_[given.port];
}

void IfosmondiCoupling::advance(std::span<const double> x, std::span<const double> psi) {
  const std::size_t n = coupled_.size();
  for (std::size_t k = 0; k < n; ++k) {
    start_.values[k] = x[k];
    start_.derivatives[k] = x[n + k];
    start_.source_outputs[k] = psi[k];
  }
  start_.has_derivatives = true;
}

std::string IfosmondiCoupling::unknown_name(std::size_t k) const {
  const std::size_t n = coupled_.size();
  if (k >= 2 * n) throw std::out_of_range("IfosmondiCoupling: no unknown " + std::to_string(k));
  return coupled_names_[k % n] + (k < n ? " (value)" : " (derivative)");
}

double euclidean_norm(std::span<const double> values) {
  double sum = 0.0;
  for (const double value : values) sum += value * value;
  return std::sqrt(sum);
}

void coupling_residual(std::span<const double> x, std::span<const double> psi, std::span<double> gamma) {
  for (std::size_t k = 0; k < x.size(); ++k) gamma[k] = x[k] - psi[k];
}

double convergence_threshold(std::span<const double> x, double absolute_tolerance, double relative_tolerance) {
  return euclidean_norm(x) * relative_tolerance +
         std::sqrt(static_cast<double>(x.size())) * absolute_tolerance;
}

ConvergenceTest test_convergence(std::span<const double> x, std::span<const double> gamma, double absolute_tolerance,
                                 double relative_tolerance) {
  ConvergenceTest test{.residual = euclidean_norm(gamma),
                       .threshold = convergence_threshold(x, absolute_tolerance, relative_tolerance)};
  // A NaN ratio (γ or x not finite) counts as infinitely far, so it is the one
  // reported and, NaN comparing false, the test does not pass.
  double worst_ratio = -1.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double residual = std::abs(gamma[k]);
    const double tolerance = relative_tolerance * std::abs(x[k]) + absolute_tolerance;
    const double ratio = residual / tolerance;
    if (k == 0 || ratio > worst_ratio || std::isnan(ratio)) {
      test.worst_unknown = k;
      test.worst_residual = residual;
      test.worst_tolerance = tolerance;
      worst_ratio = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
    }
  }
  return test;
}

}  // namespace couplet
