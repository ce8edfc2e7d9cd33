#include "targets/configuration.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "protocol/limits.hpp"
#include "couplet/errors.hpp"
#include "protocol/wire_conversions.hpp"

namespace couplet::targets {

namespace {

couplet_wire_SolverKind to_wire(models::SolverKind kind) {
  switch (kind) {
    case models::SolverKind::cvode:
      return couplet_wire_SolverKind_SOLVER_CVODE;
    case models::SolverKind::euler:
      return couplet_wire_SolverKind_SOLVER_EULER;
    case models::SolverKind::exact:
      return couplet_wire_SolverKind_SOLVER_EXACT;
  }
  return couplet_wire_SolverKind_SOLVER_CVODE;
}

// A Configure that no master sends: a ProtocolViolation (the target answers
// ERROR_BAD_REQUEST) naming the field.
[[noreturn]] void bad_field(const std::string& why) { throw ProtocolViolation("configure: Configure." + why); }

models::SolverKind from_wire(const couplet_wire_SolverKind& field) {  // by reference: a copy would load an out-of-range enum
  // nanopb decodes an enum as any int32: read it as one.
  const std::int32_t kind = wire::enum_value(field);
  switch (kind) {
    case couplet_wire_SolverKind_SOLVER_CVODE:
      return models::SolverKind::cvode;
    case couplet_wire_SolverKind_SOLVER_EULER:
      return models::SolverKind::euler;
    case couplet_wire_SolverKind_SOLVER_EXACT:
      return models::SolverKind::exact;
  }
  // nanopb decodes an enum as any int.
  bad_field("solver.kind = " + std::to_string(kind) + " is not a solver kind (0 to 2)");
}

models::CvodeMethod from_wire(const couplet_wire_CvodeMethod& field) {
  const std::int32_t method = wire::enum_value(field);
  switch (method) {
    case couplet_wire_CvodeMethod_CVODE_BDF:
      return models::CvodeMethod::bdf;
    case couplet_wire_CvodeMethod_CVODE_ADAMS:
      return models::CvodeMethod::adams;
  }
  bad_field("solver.method = " + std::to_string(method) + " is not a CVODE method (0 or 1)");
}

/// A name a peer sent: terminated, without control characters, not empty.
std::string name_from_wire(std::span<const char> field, const std::string& what, bool may_be_empty) {
  if (const std::string problem = wire::text_problem(field); !problem.empty()) bad_field(what + " " + problem);
  std::string name(field.data());
  if (name.empty() && !may_be_empty) bad_field(what + " is empty");
  return name;
}

template <std::size_t Size>
std::string name_from_wire(const char (&field)[Size], const std::string& what, bool may_be_empty = false) {
  return name_from_wire(std::span<const char>(field, Size), what, may_be_empty);
}

void require_positive(double value, const char* what) {
  if (!std::isfinite(value) || !(value > 0.0)) {
    bad_field(std::string(what) + " = " + wire::number_text(value) + " must be finite and > 0");
  }
}

}  // namespace

void to_wire(const SlaveConfiguration& configuration, couplet_wire_Configure& wire) {
  wire = couplet_wire_Configure{};
  wire::copy_name(wire.slave_name, configuration.slave_name, "slave name");
  wire::copy_name(wire.model, configuration.model, "model name");
  if (configuration.parameters.size() > protocol::kMaxParameters) {
    throw ConfigurationError("slave '" + configuration.slave_name + "': more than " +
                             std::to_string(protocol::kMaxParameters) +
                             " parameters for a remote slave");
  }
  wire.parameters_count = static_cast<pb_size_t>(configuration.parameters.size());
  std::size_t k = 0;
  for (const auto& [name, value] : configuration.parameters) {
    wire::copy_name(wire.parameters[k].name, name, "parameter name");
    wire.parameters[k].value = value;
    ++k;
  }
  if (configuration.text_parameters.size() > protocol::kMaxTextParameters) {
    throw ConfigurationError("slave '" + configuration.slave_name + "': more than " +
                             std::to_string(protocol::kMaxTextParameters) +
                             " String and Binary parameters for a remote slave");
  }
  wire.text_parameters_count = static_cast<pb_size_t>(configuration.text_parameters.size());
  k = 0;
  for (const auto& [name, text] : configuration.text_parameters) {
    wire::copy_name(wire.text_parameters[k].name, name, "parameter name");
    wire::copy_name(wire.text_parameters[k].text, text, "the text of parameter '" + name + "',");
    ++k;
  }
  const models::SolverSettings& solver = configuration.solver;
  if (solver.history != models::CvodeHistory::restart) {
    // The Configure message has no field for it: refuse rather than drop it.
    throw ConfigurationError("slave '" + configuration.slave_name +
                             "': solver history 'keep' is not available on a remote slave");
  }
  wire.has_solver = true;
  wire.solver.kind = to_wire(solver.kind);
  wire.solver.method = solver.method == models::CvodeMethod::adams
                           ? couplet_wire_CvodeMethod_CVODE_ADAMS
                           : couplet_wire_CvodeMethod_CVODE_BDF;
  wire.solver.relative_tolerance = solver.relative_tolerance;
  wire.solver.absolute_tolerance = solver.absolute_tolerance;
  wire.solver.max_internal_step = solver.max_internal_step;
  wire.solver.euler_substeps = static_cast<std::uint32_t>(solver.euler_substeps);
  const models::CapabilityLimits& limits = configuration.limits;
  wire.has_limits = true;
  wire.limits.has_max_input_degree = limits.max_input_degree.has_value();
  wire.limits.max_input_degree = static_cast<std::uint32_t>(limits.max_input_degree.value_or(0));
  wire.limits.has_output_derivative_order = limits.output_derivative_order.has_value();
  wire.limits.output_derivative_order =
      static_cast<std::uint32_t>(limits.output_derivative_order.value_or(0));
  wire.limits.imposed_step_ns = limits.imposed_step;
  wire.limits.can_rollback = limits.can_rollback;
  wire.limits.intermediate_samples = limits.intermediate_samples;
  if (configuration.coupled_inputs) {
    if (configuration.coupled_inputs->size() > protocol::kMaxPorts) {
      throw ConfigurationError("slave '" + configuration.slave_name + "': more than " +
                               std::to_string(protocol::kMaxPorts) +
                               " coupled inputs for a remote slave");
    }
    wire.coupled_inputs_listed = true;
    wire.coupled_inputs_count = static_cast<pb_size_t>(configuration.coupled_inputs->size());
    for (std::size_t i = 0; i < configuration.coupled_inputs->size(); ++i) {
      wire::copy_name(wire.coupled_inputs[i], (*configuration.coupled_inputs)[i], "input name");
    }
  }
}

SlaveConfiguration from_wire(const couplet_wire_Configure& wire) {
  SlaveConfiguration configuration;
  configuration.slave_name = name_from_wire(wire.slave_name, "slave_name", true);
  configuration.model = name_from_wire(wire.model, "model", true);
  if (wire.parameters_count > protocol::kMaxParameters) {
    bad_field("parameters has " + std::to_string(wire.parameters_count) + " entries, more than the " +
              std::to_string(protocol::kMaxParameters) + " the protocol carries");
  }
  for (std::size_t k = 0; k < wire.parameters_count; ++k) {
    const std::string field = "parameters[" + std::to_string(k) + "]";
    const std::string name = name_from_wire(wire.parameters[k].name, field + ".name");
    const double value = wire.parameters[k].value;
    if (!std::isfinite(value)) {
      bad_field(field + ".value = " + wire::number_text(value) + " (parameter '" + name + "') is not finite");
    }
    if (!configuration.parameters.emplace(name, value).second) {
      bad_field(field + ".name '" + name + "' is given twice");
    }
  }
  if (wire.text_parameters_count > protocol::kMaxTextParameters) {
    bad_field("text_parameters has " + std::to_string(wire.text_parameters_count) +
              " entries, more than the " + std::to_string(protocol::kMaxTextParameters) +
              " the protocol carries");
  }
  for (std::size_t k = 0; k < wire.text_parameters_count; ++k) {
    const std::string field = "text_parameters[" + std::to_string(k) + "]";
    const std::string name = name_from_wire(wire.text_parameters[k].name, field + ".name");
    std::string text = name_from_wire(wire.text_parameters[k].text, field + ".text", true);
    // A quoted number is in both maps, as on the host (models::SlaveSettings).
    if (!configuration.text_parameters.emplace(name, std::move(text)).second) {
      bad_field(field + ".name '" + name + "' is given twice");
    }
  }
  if (wire.has_solver) {
    models::SolverSettings& solver = configuration.solver;
    solver.kind = from_wire(wire.solver.kind);
    solver.method = from_wire(wire.solver.method);
    require_positive(wire.solver.relative_tolerance, "solver.relative_tolerance");
    require_positive(wire.solver.absolute_tolerance, "solver.absolute_tolerance");
    solver.relative_tolerance = wire.solver.relative_tolerance;
    solver.absolute_tolerance = wire.solver.absolute_tolerance;
    if (!std::isfinite(wire.solver.max_internal_step) || !(wire.solver.max_internal_step >= 0.0)) {
      bad_field("solver.max_internal_step = " + wire::number_text(wire.solver.max_internal_step) +
                " must be finite and >= 0 (0: no limit)");
    }
    solver.max_internal_step = wire.solver.max_internal_step;
    if (wire.solver.euler_substeps < 1) bad_field("solver.euler_substeps = 0 must be at least 1");
    // A scenario may ask for more; this target refuses (a configuration error, not a bad request).
    if (wire.solver.euler_substeps > kMaxEulerSubsteps) {
      throw ConfigurationError("configure: solver.euler_substeps = " + std::to_string(wire.solver.euler_substeps) +
                               " is more than this target takes (" + std::to_string(kMaxEulerSubsteps) + ")");
    }
    solver.euler_substeps = static_cast<int>(wire.solver.euler_substeps);
  }
  if (wire.has_limits) {
    models::CapabilityLimits& limits = configuration.limits;
    // Limits only remove capabilities: anything above what a slave has is
    // refused by the slave itself (models/ode_slave.hpp); 1000 keeps it an int.
    if (wire.limits.has_max_input_degree)
      limits.max_input_degree =
          static_cast<int>(std::min<std::uint32_t>(wire.limits.max_input_degree, 1000));
    if (wire.limits.has_output_derivative_order) {
      limits.output_derivative_order =
          static_cast<int>(std::min<std::uint32_t>(wire.limits.output_derivative_order, 1000));
    }
    if (wire.limits.imposed_step_ns < 0 || !wire::time_in_range(wire.limits.imposed_step_ns)) {
      bad_field("limits.imposed_step_ns = " + std::to_string(wire.limits.imposed_step_ns) +
                " must be >= 0 (0: none) and below 2^61 ns");
    }
    limits.imposed_step = wire.limits.imposed_step_ns;
    limits.can_rollback = wire.limits.can_rollback;
    limits.intermediate_samples = wire.limits.intermediate_samples;
  }
  if (wire.coupled_inputs_listed) {
    if (wire.coupled_inputs_count > protocol::kMaxPorts) {
      bad_field("coupled_inputs has " + std::to_string(wire.coupled_inputs_count) + " names, more than the " +
                std::to_string(protocol::kMaxPorts) + " the protocol carries");
    }
    configuration.coupled_inputs.emplace();
    for (std::size_t k = 0; k < wire.coupled_inputs_count; ++k) {
      const std::string field = "coupled_inputs[" + std::to_string(k) + "]";
      std::string name = name_from_wire(wire.coupled_inputs[k], field);
      if (std::find(configuration.coupled_inputs->begin(), configuration.coupled_inputs->end(), name) !=
          configuration.coupled_inputs->end()) {
        bad_field(field + " '" + name + "' is given twice");
      }
      configuration.coupled_inputs->push_back(std::move(name));
    }
  }
  return configuration;
}

}  // namespace couplet::targets
