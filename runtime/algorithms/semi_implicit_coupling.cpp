#include "runtime/algorithms/semi_implicit_coupling.hpp"

#include <algorithm>
#include <cmath>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

// Stateless with direct feedthrough on every output. A slave that cannot
// linearize does not tell its state count: it counts as a coupling element
// when its outputs say so (and is then refused for not linearizing).
bool is_coupling(const SlaveDescription& description) {
  const bool all_feedthrough =
      !description.outputs.empty() &&
      std::all_of(description.outputs.begin(), description.outputs.end(),
                  [](const OutputDescription& output) { return output.direct_feedthrough; });
  const bool stateless =
      !description.capabilities.can_linearize || description.capabilities.state_count == 0;
  return all_feedthrough && stateless && !description.inputs.empty();
}

}  // namespace

SemiImplicitCoupling::SemiImplicitCoupling(const System& system, std::string_view algorithm)
    : sources_(system), input_lambda_(system.slave_count()) {
  const std::string who = "algorithm '" + std::string(algorithm) + "'";
  std::vector<bool> coupling(system.slave_count(), false);
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription& description = system.description(s);
    coupling[s] = is_coupling(description);
    if (!coupling[s]) {
      if (!description.capabilities.can_rollback) {
        throw ConfigurationError(
            "slave '" + system.slave_name(s) + "' is a subsystem for " + who +
            " (it has state or outputs without direct feedthrough), but cannot save and "
            "restore its state (the predictor steps are repeated from the saved state)");
      }
      subsystems_.push_back(s);
      continue;
    }
    if (!description.capabilities.can_linearize) {
      throw ConfigurationError(
          "slave '" + system.slave_name(s) + "' is a coupling element for " + who +
          " (all its outputs have direct feedthrough), but cannot linearize: the "
          "linearized coupling condition (eq. 5) needs its derivatives d output / d input");
    }
    lambda_begin_.push_back(lambdas_.size());
    couplings_.push_back(s);
    layouts_.push_back(LinearizationLayout::of(description));
    for (std::size_t o = 0; o < description.outputs.size(); ++o) lambdas_.push_back({s, o});
    coupling_input_begin_.push_back(coupling_input_begin_.back() + description.inputs.size());
  }
  std::vector<std::size_t> lambda_index_begin(system.slave_count(), 0);
  for (std::size_t k = 0; k < couplings_.size(); ++k)
    lambda_index_begin[couplings_[k]] = lambda_begin_[k];
  for (const std::size_t s : couplings_) {
    for (std::size_t i = 0; i < sources_.input_count(s); ++i) {
      if (sources_.held(s, i)) {
        throw ConfigurationError("input '" + system.input_name({s, i}) + "' of coupling element '" +
                                 system.slave_name(s) + "' is driven by Integer output '" +
                                 system.discrete_output_name(sources_.source(s, i)) + "'; " + who +
                                 " linearizes coupling elements in Real subsystem outputs only");
      }
      if (coupling[sources_.source(s, i).slave]) {
        throw ConfigurationError("input '" + system.input_name({s, i}) + "' of coupling element '" +
                                 system.slave_name(s) + "' is fed by another coupling element; " +
                                 who + " needs coupling inputs from subsystems");
      }
    }
  }
  for (const std::size_t s : subsystems_) {
    input_lambda_[s].resize(sources_.input_count(s));
    for (std::size_t i = 0; i < sources_.input_count(s); ++i) {
      if (sources_.held(s, i)) continue;  // no λ: the executor holds the Integer value
      const PortReference source = sources_.source(s, i);
      if (!coupling[source.slave]) {
        throw ConfigurationError("input '" + system.input_name({s, i}) + "' of subsystem '" +
                                 system.slave_name(s) + "' is fed by '" +
                                 system.output_name(source) + "', not by a coupling element; " +
                                 who + " couples subsystems through coupling elements only");
      }
      input_lambda_[s][i] = lambda_index_begin[source.slave] + source.port;
    }
  }
  if (couplings_.empty()) {
    throw ConfigurationError(
        who +
        " found no coupling element (a stateless slave whose outputs all have direct "
        "feedthrough, such as chain.coupling)");
  }
}

void SemiImplicitCoupling::gather_inputs(std::span<const StepSlot> slots,
                                         std::span<double> values) const {
  for (std::size_t k = 0; k < couplings_.size(); ++k) {
    const std::size_t c = couplings_[k];
    for (std::size_t i = 0; i < sources_.input_count(c); ++i) {
      const PortReference source = sources_.source(c, i);
      values[coupling_input_begin_[k] + i] = slots[source.slave].output(source.port);
    }
  }
}

void SemiImplicitCoupling::slopes(std::span<const StepSlot> slots,
                                  std::span<const double> predicted_inputs,
                                  std::span<const double> perturbed_inputs, double perturbation,
                                  std::span<double> slope) const {
  for (std::size_t k = 0; k < couplings_.size(); ++k) {
    const LinearizationLayout& layout = layouts_[k];
    const std::span<const double> linearization = slots[couplings_[k]].linearization;
    for (std::size_t o = 0; o < layout.outputs; ++o) {
      double sum = 0.0;
      for (std::size_t i = 0; i < layout.inputs; ++i) {
        const std::size_t flat = coupling_input_begin_[k] + i;
        const double sensitivity =
            (perturbed_inputs[flat] - predicted_inputs[flat]) / perturbation;  // eq. 4
        sum += linearization[layout.d_offset() + i * layout.outputs + o] *
               sensitivity;  // D column-major
      }
      slope[lambda_begin_[k] + o] = sum;
    }
  }
}

bool solve_linearized_coupling(double predicted, double evaluated, double slope,
                               double& corrected) {
  const double denominator = 1.0 - slope;
  if (denominator == 0.0) return false;
  corrected = predicted + (evaluated - predicted) / denominator;
  return std::isfinite(corrected);
}

}  // namespace couplet
