#include "models/linear_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "couplet/errors.hpp"

namespace couplet::models {
namespace {

using ConstVectorMap = Eigen::Map<const Eigen::VectorXd>;
using VectorMap = Eigen::Map<Eigen::VectorXd>;

Eigen::Index as_index(std::size_t size) { return static_cast<Eigen::Index>(size); }

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

/// Throws ConfigurationError unless `matrix` is rows×cols and finite.
void check_block(const std::string& model, std::size_t segment, const char* block,
                 const Eigen::MatrixXd& matrix, Eigen::Index rows, Eigen::Index cols) {
  const std::string where =
      "model '" + model + "': " + block + " of segment " + std::to_string(segment);
  if (matrix.rows() != rows || matrix.cols() != cols) {
    throw ConfigurationError(where + " is " + shape(matrix.rows(), matrix.cols()) +
                             ", expected " + shape(rows, cols));
  }
  if (!matrix.allFinite()) {
    throw ConfigurationError(where + " has non-finite entries; check the model's parameters");
  }
}

/// The hot methods check their buffers so that a wrong call fails loudly; the
/// message is built only on failure, so the success path does not allocate.
void require_size(std::size_t actual, std::size_t expected, const ModelDescription& description,
                  const char* what) {
  if (actual != expected) {
    throw ProtocolViolation("model '" + description.name + "': " + what + " has " +
                            std::to_string(actual) + " values, expected " +
                            std::to_string(expected));
  }
}

}  // namespace

LinearForm zero_linear_form(std::size_t state_count, std::size_t input_count,
                            std::size_t output_count) {
  const Eigen::Index n = as_index(state_count);
  const Eigen::Index m = as_index(input_count);
  const Eigen::Index p = as_index(output_count);
  return LinearForm{Eigen::MatrixXd::Zero(n, n), Eigen::MatrixXd::Zero(n, m),
                    Eigen::MatrixXd::Zero(p, n), Eigen::MatrixXd::Zero(p, m),
                    Eigen::VectorXd::Zero(n),    Eigen::VectorXd::Zero(p)};
}

LinearModel::LinearModel(ModelDescription description, std::vector<LinearForm> forms,
                         std::vector<double> event_times, Eigen::VectorXd initial_state)
    : description_(std::move(description)),
      forms_(std::move(forms)),
      event_times_(std::move(event_times)),
      initial_state_(std::move(initial_state)) {
  check_sizes();
  set_feedthrough_flags();
  operators_.reserve(forms_.size());
  for (const LinearForm& form : forms_) operators_.push_back(derivative_operators(form));
}

void LinearModel::check_sizes() const {
  const std::string& name = description_.name;
  if (forms_.size() != event_times_.size() + 1) {
    throw ConfigurationError("model '" + name + "': " + std::to_string(event_times_.size()) +
                             " time events need " + std::to_string(event_times_.size() + 1) +
                             " linear forms, got " + std::to_string(forms_.size()));
  }
  for (std::size_t k = 0; k < event_times_.size(); ++k) {
    const bool increasing = k == 0 || event_times_[k] > event_times_[k - 1];
    if (!std::isfinite(event_times_[k]) || !increasing) {
      throw ConfigurationError("model '" + name +
                               "': time events must be finite and strictly increasing");
    }
  }
  const Eigen::Index n = as_index(state_count());
  const Eigen::Index m = as_index(input_count());
  const Eigen::Index p = as_index(output_count());
  for (std::size_t k = 0; k < forms_.size(); ++k) {
    const LinearForm& form = forms_[k];
    check_block(name, k, "A", form.A, n, n);
    check_block(name, k, "B", form.B, n, m);
    check_block(name, k, "C", form.C, p, n);
    check_block(name, k, "D", form.D, p, m);
    check_block(name, k, "e", form.e, n, 1);
    check_block(name, k, "h", form.h, p, 1);
  }
  if (initial_state_.size() != n || !initial_state_.allFinite()) {
    throw ConfigurationError("model '" + name + "': the initial state must hold " +
                             std::to_string(n) + " finite values");
  }
}

// An output has direct feedthrough when some input enters it algebraically, i.e.
// its row of D is nonzero on some segment: the master needs this to detect
// algebraic loops (runtime/system.cpp).
void LinearModel::set_feedthrough_flags() {
  for (std::size_t i = 0; i < description_.outputs.size(); ++i) {
    const Eigen::Index row = as_index(i);
    description_.outputs[i].direct_feedthrough =
        std::any_of(forms_.begin(), forms_.end(), [row](const LinearForm& form) {
          return (form.D.row(row).array() != 0.0).any();
        });
  }
}

LinearModel::DerivativeOperators LinearModel::derivative_operators(const LinearForm& form) {
  DerivativeOperators operators;
  Eigen::MatrixXd output_times_power = form.C;  // C Aʲ, starting at j = 0
  for (int j = 0; j < max_output_derivative_order; ++j) {
    operators.output_offset.push_back(output_times_power * form.e);
    operators.output_input.push_back(output_times_power * form.B);
    output_times_power = (output_times_power * form.A).eval();
    operators.output_state.push_back(output_times_power);
  }
  return operators;
}

std::size_t LinearModel::segment_index(double t) const {
  // Number of events <= t: at exactly an event time the new segment holds.
  const auto after = std::upper_bound(event_times_.begin(), event_times_.end(), t);
  return static_cast<std::size_t>(after - event_times_.begin());
}

const LinearForm* LinearModel::linear_form(double t) const { return &forms_[segment_index(t)]; }

void LinearModel::initial_state(std::span<double> x) const {
  require_size(x.size(), state_count(), description_, "the state buffer");
  VectorMap(x.data(), initial_state_.size()) = initial_state_;
}

void LinearModel::derivatives(double t, std::span<const double> x, std::span<const double> u,
                              std::span<double> dxdt) const {
  require_size(x.size(), state_count(), description_, "the state");
  require_size(u.size(), input_count(), description_, "the input");
  require_size(dxdt.size(), state_count(), description_, "the derivative buffer");
  const LinearForm& form = forms_[segment_index(t)];
  VectorMap rate(dxdt.data(), as_index(dxdt.size()));
  // noalias: the products go straight into the caller's buffer, no temporary.
  rate.noalias() = form.A * ConstVectorMap(x.data(), as_index(x.size()));
  rate.noalias() += form.B * ConstVectorMap(u.data(), as_index(u.size()));
  rate += form.e;
}

void LinearModel::outputs(double t, std::span<const double> x, std::span<const double> u,
                          std::span<double> y) const {
  require_size(x.size(), state_count(), description_, "the state");
  require_size(u.size(), input_count(), description_, "the input");
  require_size(y.size(), output_count(), description_, "the output buffer");
  const LinearForm& form = forms_[segment_index(t)];
  VectorMap output(y.data(), as_index(y.size()));
  output.noalias() = form.C * ConstVectorMap(x.data(), as_index(x.size()));
  output.noalias() += form.D * ConstVectorMap(u.data(), as_index(u.size()));
  output += form.h;
}

// y⁽ᵏ⁾ = C Aᵏ x + C Aᵏ⁻¹ e + Σ_{j<k} C Aᵏ⁻¹⁻ʲ B u⁽ʲ⁾ + D u⁽ᵏ⁾ (see the header): the
// recursion x⁽ᵏ⁾ = A x⁽ᵏ⁻¹⁾ + B u⁽ᵏ⁻¹⁾ of Glumac §4 unrolled, so no state-derivative
// scratch is needed.
void LinearModel::output_derivatives(double t, std::span<const double> x,
                                     std::span<const double> input_jet, int order,
                                     std::span<double> derivatives) const {
  if (order < 0 || order > max_output_derivative_order) {
    throw ProtocolViolation("model '" + description_.name + "': output derivatives of order " +
                            std::to_string(order) + " requested, at most " +
                            std::to_string(max_output_derivative_order) + " available");
  }
  const std::size_t rows = static_cast<std::size_t>(order);
  const Eigen::Index m = as_index(input_count());
  const Eigen::Index p = as_index(output_count());
  require_size(x.size(), state_count(), description_, "the state");
  require_size(input_jet.size(), (rows + 1) * input_count(), description_, "the input jet");
  require_size(derivatives.size(), rows * output_count(), description_,
               "the output-derivative buffer");

  const std::size_t segment = segment_index(t);
  const LinearForm& form = forms_[segment];
  const DerivativeOperators& operators = operators_[segment];
  const ConstVectorMap state(x.data(), as_index(x.size()));
  const auto input_derivative = [&](int j) { return ConstVectorMap(input_jet.data() + j * m, m); };

  for (int k = 1; k <= order; ++k) {
    const auto power = static_cast<std::size_t>(k - 1);
    VectorMap output_derivative(derivatives.data() + (k - 1) * p, p);
    output_derivative.noalias() = operators.output_state[power] * state;
    output_derivative += operators.output_offset[power];
    for (int j = 0; j < k; ++j) {
      output_derivative.noalias() +=
          operators.output_input[static_cast<std::size_t>(k - 1 - j)] * input_derivative(j);
    }
    output_derivative.noalias() += form.D * input_derivative(k);
  }
}

}  // namespace couplet::models
