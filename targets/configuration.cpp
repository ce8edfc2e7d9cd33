#include "targets/configuration.hpp"

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

models::SolverKind from_wire(couplet_wire_SolverKind kind) {
  switch (kind) {
    case couplet_wire_SolverKind_SOLVER_CVODE:
      return models::SolverKind::cvode;
    case couplet_wire_SolverKind_SOLVER_EULER:
      return models::SolverKind::euler;
    case couplet_wire_SolverKind_SOLVER_EXACT:
      return models::SolverKind::exact;
  }
  throw ConfigurationError("configure: unknown solver kind " +
                           std::to_string(static_cast<int>(kind)));
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
  const models::SolverSettings& solver = configuration.solver;
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
  configuration.slave_name = wire.slave_name;
  configuration.model = wire.model;
  for (std::size_t k = 0; k < wire.parameters_count; ++k) {
    configuration.parameters[wire.parameters[k].name] = wire.parameters[k].value;
  }
  if (wire.has_solver) {
    models::SolverSettings& solver = configuration.solver;
    solver.kind = from_wire(wire.solver.kind);
    solver.method = wire.solver.method == couplet_wire_CvodeMethod_CVODE_ADAMS
                        ? models::CvodeMethod::adams
                        : models::CvodeMethod::bdf;
    solver.relative_tolerance = wire.solver.relative_tolerance;
    solver.absolute_tolerance = wire.solver.absolute_tolerance;
    solver.max_internal_step = wire.solver.max_internal_step;
    if (wire.solver.euler_substeps > 1'000'000)
      throw ConfigurationError("configure: euler_substeps out of range");
    solver.euler_substeps = static_cast<int>(wire.solver.euler_substeps);
  }
  if (wire.has_limits) {
    models::CapabilityLimits& limits = configuration.limits;
    if (wire.limits.has_max_input_degree)
      limits.max_input_degree =
          static_cast<int>(std::min<std::uint32_t>(wire.limits.max_input_degree, 1000));
    if (wire.limits.has_output_derivative_order) {
      limits.output_derivative_order =
          static_cast<int>(std::min<std::uint32_t>(wire.limits.output_derivative_order, 1000));
    }
    limits.imposed_step = wire.limits.imposed_step_ns;
    limits.can_rollback = wire.limits.can_rollback;
    limits.intermediate_samples = wire.limits.intermediate_samples;
  }
  if (wire.coupled_inputs_listed) {
    configuration.coupled_inputs.emplace();
    for (std::size_t k = 0; k < wire.coupled_inputs_count; ++k)
      configuration.coupled_inputs->push_back(wire.coupled_inputs[k]);
  }
  return configuration;
}

}  // namespace couplet::targets
