#include "models/model.hpp"

#include <limits>

#include "couplet/errors.hpp"

namespace couplet::models {

void Model::output_derivatives(double, std::span<const double>, std::span<const double>, int,
                               std::span<double>) const {
  throw ProtocolViolation("model '" + description().name + "' has no analytic output derivatives");
}

const LinearForm* Model::linear_form(double) const {
  return nullptr;
}

bool Model::jacobians(double, std::span<const double>, std::span<const double>, std::span<double>,
                      std::span<double>, std::span<double>, std::span<double>) const {
  return false;
}

double Model::next_time_event() const {
  return std::numeric_limits<double>::infinity();
}

}  // namespace couplet::models
