#include "host_tools/runlog/run_log.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "couplet/errors.hpp"
#include "protocol/wire_conversions.hpp"

namespace couplet::tools {

namespace {

// Every check below returns what is wrong with a record, "" when nothing: the
// caller prefixes the file, the frame and its byte offset. Records arrive in the
// order of docs/run-log.md: header, slaves, connections, the initialization's
// calls, quantities, per plan its calls and its plan record, the end.

/// What the records read so far allow next.
struct ReadingState {
  bool have_header = false;
  std::size_t scenario_parts_due = 0;  ///< LogScenarioText records the header announced
  bool connections_begun = false;      ///< a connections record with `continued` came
  bool have_connections = false;       ///< the last connections record came
  bool have_quantities = false;
  /// Which inputs the connections so far drive, per slave (Real, discrete).
  std::vector<std::vector<bool>> driven, discrete_driven;
  /// Plan records read, and the last one's frontier and macro steps: what the
  /// next records are checked against (a streaming reader drops the plans).
  std::uint64_t plans = 0;
  Time frontier = 0;
  std::uint64_t macro_steps = 0;
};

/// The most LogScenarioText records a reader takes: the scenario file cap
/// (host_tools/scenario/scenario_limits.hpp) twice over, in parts of 32 KiB.
constexpr std::size_t kMaxScenarioTextParts = 256;

/// An enum field within its proto enum (nanopb's _MIN.._MAX: the enums are
/// contiguous). Read as an integer: proto3 enums are open, any int32 arrives.
template <typename Enum>
bool enum_in_range(const Enum& field, std::int32_t min, std::int32_t max) {
  const std::int32_t value = wire::enum_value(field);
  return value >= min && value <= max;
}

std::string time_problem(const std::string& field, std::int64_t ns) {
  if (wire::time_in_range(ns)) return {};
  return field + " = " + std::to_string(ns) + " ns lies outside ±2^61 ns";
}

template <std::size_t Size>
std::string text_field_problem(const std::string& field, const char (&text)[Size]) {
  const std::string problem = wire::text_problem(std::span<const char>(text, Size));
  return problem.empty() ? problem : field + " " + problem;
}

std::string header_problem(const couplet_wire_LogHeader& header) {
  if (header.version != couplet_wire_Version_VERSION_CURRENT) {
    return "the header has format version " + std::to_string(header.version) +
           "; this couplet reads version " + std::to_string(couplet_wire_Version_VERSION_CURRENT);
  }
  if (std::string problem = time_problem("header start_ns", header.start_ns); !problem.empty())
    return problem;
  if (std::string problem = time_problem("header end_ns", header.end_ns); !problem.empty())
    return problem;
  if (header.start_ns >= header.end_ns) {
    return "header start_ns = " + std::to_string(header.start_ns) +
           " ns is not before end_ns = " + std::to_string(header.end_ns) + " ns";
  }
  if (header.algorithm[0] == '\0') return "the header names no algorithm";
  if (std::string problem = text_field_problem("header algorithm", header.algorithm);
      !problem.empty())
    return problem;
  return text_field_problem("header scenario_source", header.scenario_source);
}

std::string take_header(const couplet_wire_LogHeader& header, RunLog& log, ReadingState& state) {
  if (state.have_header) return "a second header record: a run log has one, at its start";
  if (std::string problem = header_problem(header); !problem.empty()) return problem;
  if (header.scenario_text_parts > kMaxScenarioTextParts) {
    return "the header announces " + std::to_string(header.scenario_text_parts) +
           " scenario text parts; a run log has at most " + std::to_string(kMaxScenarioTextParts);
  }
  log.scenario_source = header.scenario_source;
  log.scenario_text = header.scenario_text;
  state.scenario_parts_due = header.scenario_text_parts;
  log.start = header.start_ns;
  log.end = header.end_ns;
  log.algorithm = header.algorithm;
  log.wall_clock_start_ns = header.wall_clock_start_ns;
  state.have_header = true;
  return {};
}

std::string take_scenario_text(const couplet_wire_LogScenarioText& part, RunLog& log,
                               ReadingState& state) {
  if (state.scenario_parts_due == 0) return "a scenario text record the header does not announce";
  log.scenario_text += part.text;
  --state.scenario_parts_due;
  return {};
}

std::string slave_name_problem(const couplet_wire_LogSlave& slave, const RunLog& log) {
  if (std::string problem = text_field_problem("slave name", slave.name); !problem.empty())
    return problem;
  const std::string name = slave.name;
  if (name.empty() || name.find('.') != std::string::npos)
    return "slave name '" + name + "' must be non-empty and contain no '.'";
  for (const LoggedSlave& earlier : log.slaves) {
    if (earlier.name == name) return "slave '" + name + "' is logged twice";
  }
  return text_field_problem("link of slave '" + name + "'", slave.link);
}

std::string take_slave(const couplet_wire_LogSlave& slave, RunLog& log, const ReadingState& state) {
  if (state.connections_begun) return "a slave record after the connections";
  if (state.scenario_parts_due > 0) {
    return "a slave record where " + std::to_string(state.scenario_parts_due) +
           " more scenario text record(s) come next";
  }
  if (slave.index != log.slaves.size()) {
    return "a slave record with index " + std::to_string(slave.index) + " where index " +
           std::to_string(log.slaves.size()) + " comes next (slave records out of order)";
  }
  if (std::string problem = slave_name_problem(slave, log); !problem.empty()) return problem;
  if (!slave.has_description) return "slave '" + std::string(slave.name) + "' has no description";
  // from_wire keeps can_linearize and state_count, checked so that a
  // linearization fits one record (wire::linearization_fits).
  try {
    log.slaves.push_back(
        {slave.name, wire::from_wire(slave.description, slave.name), slave.link, std::nullopt});
  } catch (const SlaveError& error) {
    return error.what();
  }
  return {};
}

/// "slave 7, but the log has 3 slaves", or nothing when both ends' slaves exist.
std::string slave_problem(const couplet_wire_LogConnection& connection, const RunLog& log) {
  const std::size_t slaves = log.slaves.size();
  if (connection.source_slave < slaves && connection.target_slave < slaves) return {};
  return "slave " + std::to_string(std::max(connection.source_slave, connection.target_slave)) +
         ", but the log has " + std::to_string(slaves) + " slaves";
}

/// The target of a connection into a Real input: in range, driven once.
std::string real_target_problem(const couplet_wire_LogConnection& connection, const RunLog& log,
                                const std::vector<std::vector<bool>>& driven) {
  const LoggedSlave& target = log.slaves[connection.target_slave];
  if (connection.target_port >= target.description.inputs.size()) {
    return "input " + std::to_string(connection.target_port) + " of slave '" + target.name +
           "', which has " + std::to_string(target.description.inputs.size()) + " inputs";
  }
  if (driven[connection.target_slave][connection.target_port])
    return "input '" + log.input_name(connection.target_slave, connection.target_port) +
           "' is driven twice";
  return {};
}

std::string connection_problem(const couplet_wire_LogConnection& connection, const RunLog& log,
                               const std::vector<std::vector<bool>>& driven) {
  if (std::string problem = slave_problem(connection, log); !problem.empty()) return problem;
  const LoggedSlave& source = log.slaves[connection.source_slave];
  if (connection.source_port >= source.description.outputs.size()) {
    return "output " + std::to_string(connection.source_port) + " of slave '" + source.name +
           "', which has " + std::to_string(source.description.outputs.size()) + " outputs";
  }
  return real_target_problem(connection, log, driven);
}

std::string discrete_connection_problem(const couplet_wire_LogConnection& connection,
                                        const RunLog& log,
                                        const std::vector<std::vector<bool>>& driven) {
  if (std::string problem = slave_problem(connection, log); !problem.empty()) return problem;
  const SlaveDescription& source = log.slaves[connection.source_slave].description;
  const SlaveDescription& target = log.slaves[connection.target_slave].description;
  if (connection.source_port >= source.discrete_outputs.size()) {
    return "discrete output " + std::to_string(connection.source_port) + " of slave '" +
           log.slaves[connection.source_slave].name + "', which has " +
           std::to_string(source.discrete_outputs.size());
  }
  if (connection.target_port >= target.discrete_inputs.size()) {
    return "discrete input " + std::to_string(connection.target_port) + " of slave '" +
           log.slaves[connection.target_slave].name + "', which has " +
           std::to_string(target.discrete_inputs.size());
  }
  if (source.discrete_outputs[connection.source_port].type !=
      target.discrete_inputs[connection.target_port].type) {
    return "ports of different types";
  }
  if (driven[connection.target_slave][connection.target_port]) return "an input driven twice";
  return {};
}

/// A Real output to an Integer input, with a rounding rule.
std::string rounded_connection_problem(const couplet_wire_LogConnection& connection,
                                       const RunLog& log,
                                       const std::vector<std::vector<bool>>& driven) {
  if (std::string problem = slave_problem(connection, log); !problem.empty()) return problem;
  const SlaveDescription& source = log.slaves[connection.source_slave].description;
  const SlaveDescription& target = log.slaves[connection.target_slave].description;
  if (connection.source_port >= source.outputs.size()) {
    return "output " + std::to_string(connection.source_port) + " of slave '" +
           log.slaves[connection.source_slave].name + "', which has " +
           std::to_string(source.outputs.size());
  }
  if (connection.target_port >= target.discrete_inputs.size() ||
      target.discrete_inputs[connection.target_port].type != DiscreteType::integer) {
    return "input " + std::to_string(connection.target_port) + " of slave '" +
           log.slaves[connection.target_slave].name + "', which is no Integer input";
  }
  if (connection.rounding < couplet_wire_Rounding_ROUNDING_NEAREST ||
      connection.rounding > couplet_wire_Rounding_ROUNDING_TRUNCATE) {
    return "rounding " + std::to_string(static_cast<int>(connection.rounding)) +
           ", which is none of nearest, floor, ceil and truncate";
  }
  if (driven[connection.target_slave][connection.target_port]) return "an input driven twice";
  return {};
}

/// An Integer output to a Real input, held.
std::string integer_to_real_problem(const couplet_wire_LogConnection& connection, const RunLog& log,
                                    const std::vector<std::vector<bool>>& driven) {
  if (std::string problem = slave_problem(connection, log); !problem.empty()) return problem;
  const SlaveDescription& source = log.slaves[connection.source_slave].description;
  if (connection.source_port >= source.discrete_outputs.size() ||
      source.discrete_outputs[connection.source_port].type != DiscreteType::integer) {
    return "output " + std::to_string(connection.source_port) + " of slave '" +
           log.slaves[connection.source_slave].name + "', which is no Integer output";
  }
  return real_target_problem(connection, log, driven);
}

/// One connections record; the structure is complete after the last one
/// (not `continued`), when every Real input must be driven.
std::string take_connections(const couplet_wire_LogConnections& connections, RunLog& log,
                             ReadingState& state) {
  if (state.have_connections) return "a second connections record";
  if (log.slaves.empty()) return "a connections record before any slave record";
  if (!state.connections_begun) {
    for (const LoggedSlave& slave : log.slaves) {
      state.driven.emplace_back(slave.description.inputs.size());
      state.discrete_driven.emplace_back(slave.description.discrete_inputs.size());
    }
    state.connections_begun = true;
  }
  for (pb_size_t c = 0; c < connections.connections_count; ++c) {
    const couplet_wire_LogConnection& connection = connections.connections[c];
    if (std::string problem = connection_problem(connection, log, state.driven); !problem.empty())
      return "connection " + std::to_string(log.connections.size()) + " names " + problem;
    state.driven[connection.target_slave][connection.target_port] = true;
    log.connections.push_back({{connection.source_slave, connection.source_port},
                               {connection.target_slave, connection.target_port}});
  }
  for (pb_size_t c = 0; c < connections.discrete_connections_count; ++c) {
    const couplet_wire_LogConnection& connection = connections.discrete_connections[c];
    if (std::string problem = discrete_connection_problem(connection, log, state.discrete_driven);
        !problem.empty())
      return "discrete connection " + std::to_string(log.discrete_connections.size()) + " names " +
             problem;
    state.discrete_driven[connection.target_slave][connection.target_port] = true;
    log.discrete_connections.push_back({{connection.source_slave, connection.source_port},
                                        {connection.target_slave, connection.target_port}});
  }
  for (pb_size_t c = 0; c < connections.rounded_connections_count; ++c) {
    const couplet_wire_LogConnection& connection = connections.rounded_connections[c];
    if (std::string problem = rounded_connection_problem(connection, log, state.discrete_driven);
        !problem.empty())
      return "rounded connection " + std::to_string(log.rounded_connections.size()) + " names " +
             problem;
    state.discrete_driven[connection.target_slave][connection.target_port] = true;
    log.rounded_connections.push_back({{connection.source_slave, connection.source_port},
                                       {connection.target_slave, connection.target_port},
                                       static_cast<Rounding>(connection.rounding)});
  }
  for (pb_size_t c = 0; c < connections.integer_to_real_connections_count; ++c) {
    const couplet_wire_LogConnection& connection = connections.integer_to_real_connections[c];
    if (std::string problem = integer_to_real_problem(connection, log, state.driven);
        !problem.empty())
      return "Integer to Real connection " +
             std::to_string(log.integer_to_real_connections.size()) + " names " + problem;
    state.driven[connection.target_slave][connection.target_port] = true;
    log.integer_to_real_connections.push_back({{connection.source_slave, connection.source_port},
                                               {connection.target_slave, connection.target_port}});
  }
  if (connections.continued) return {};
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (std::size_t i = 0; i < state.driven[s].size(); ++i) {
      if (!state.driven[s][i]) return "input '" + log.input_name(s, i) + "' is not connected";
    }
  }
  state.have_connections = true;
  state.driven.clear();
  state.discrete_driven.clear();
  return {};
}

std::string take_quantities(const couplet_wire_LogQuantities& quantities, RunLog& log,
                            ReadingState& state) {
  if (state.have_quantities) return "a second internal quantities record";
  for (pb_size_t q = 0; q < quantities.names_count; ++q) {
    const std::string field = "internal quantity " + std::to_string(q);
    if (std::string problem = text_field_problem(field, quantities.names[q]); !problem.empty())
      return problem;
    if (quantities.names[q][0] == '\0') return field + " has no name";
    log.internal_quantities.emplace_back(quantities.names[q]);
  }
  state.have_quantities = true;
  return {};
}

/// CALL_STEP_SAMPLES: the sample rows of a step that did not fit its call
/// record, continued in order in records of their own (runtime/recorder.hpp).
/// Merged into the step's LoggedCall.
constexpr std::int32_t kStepSamplesKind = couplet_wire_SlaveCallKind_CALL_STEP_SAMPLES;

CallKind call_kind(std::int32_t kind) {
  switch (kind) {
    case couplet_wire_SlaveCallKind_CALL_SETUP:
      return CallKind::setup;
    case couplet_wire_SlaveCallKind_CALL_EVALUATE_OUTPUTS:
      return CallKind::evaluate_outputs;
    case couplet_wire_SlaveCallKind_CALL_STEP:
      return CallKind::step;
    case couplet_wire_SlaveCallKind_CALL_SAVE_STATE:
      return CallKind::save_state;
    case couplet_wire_SlaveCallKind_CALL_LINEARIZE:
      return CallKind::linearize;
    case couplet_wire_SlaveCallKind_CALL_DISCRETE_OUTPUTS:
      return CallKind::discrete_outputs;
    default:  // checked: in range, and CALL_STEP_SAMPLES is taken before
      return CallKind::restore_state;
  }
}

std::string inputs_problem(const couplet_wire_SlaveCall& call, const RunLog& log) {
  const SlaveDescription& description = log.slaves[call.slave].description;
  if (call.inputs_count != description.inputs.size()) {
    return std::to_string(call.inputs_count) + " input polynomials for the slave's " +
           std::to_string(description.inputs.size()) + " inputs";
  }
  for (pb_size_t i = 0; i < call.inputs_count; ++i) {
    const std::string problem =
        wire::polynomial_problem(call.inputs[i], description.capabilities.max_input_degree);
    if (!problem.empty()) return "input '" + log.input_name(call.slave, i) + "'" + problem;
  }
  return {};
}

std::string end_outputs_problem(const couplet_wire_SlaveCall& call, const RunLog& log) {
  const SlaveDescription& description = log.slaves[call.slave].description;
  const auto reported =
      static_cast<std::uint32_t>(description.capabilities.output_derivative_order);
  if (call.derivative_order > reported) {
    return "derivative order " + std::to_string(call.derivative_order) + ", above the " +
           std::to_string(reported) + " the slave reports";
  }
  // Both factors are bounded: order ≤ 63 (checked with the description), ≤ 16 outputs.
  const std::size_t expected =
      (std::size_t{call.derivative_order} + 1) * description.outputs.size();
  if (call.end_outputs_count != expected) {
    return std::to_string(call.end_outputs_count) + " end output values, not (derivative order " +
           std::to_string(call.derivative_order) + " + 1) × " +
           std::to_string(description.outputs.size()) + " outputs";
  }
  return {};
}

/// Sample times increasing within the step, after `previous`; one row of
/// values per sample time.
std::string samples_problem(const couplet_wire_SlaveCall& call, const RunLog& log,
                            std::int64_t previous) {
  for (pb_size_t k = 0; k < call.sample_times_ns_count; ++k) {
    const std::int64_t sample = call.sample_times_ns[k];
    if (sample <= previous || sample > call.end_ns) {
      return "sample time " + std::to_string(k) + " = " + std::to_string(sample) +
             " ns does not increase within the step (" + std::to_string(call.start_ns) + ", " +
             std::to_string(call.end_ns) + "] ns";
    }
    previous = sample;
  }
  const std::size_t expected =
      std::size_t{call.sample_times_ns_count} * log.slaves[call.slave].description.outputs.size();
  if (call.samples_count != expected) {
    return std::to_string(call.samples_count) + " sample values for " +
           std::to_string(call.sample_times_ns_count) + " sample times × " +
           std::to_string(log.slaves[call.slave].description.outputs.size()) + " outputs";
  }
  return {};
}

/// The values of a linearize call: its slave's LinearizationLayout, all finite
/// (a slave that cannot linearize at its point throws SlaveError; it never
/// hands NaN or infinity to the master).
std::string linearization_problem(const couplet_wire_SlaveCall& call, const RunLog& log) {
  const SlaveDescription& description = log.slaves[call.slave].description;
  const LinearizationLayout layout = LinearizationLayout::of(description);
  if (call.linearization_count != layout.size()) {
    return std::to_string(call.linearization_count) + " linearization values, not the " +
           std::to_string(layout.size()) + " of x, ẋ, A, B, C, D for " +
           std::to_string(layout.states) + " states, " + std::to_string(layout.inputs) +
           " inputs and " + std::to_string(layout.outputs) + " outputs";
  }
  for (pb_size_t k = 0; k < call.linearization_count; ++k) {
    if (!std::isfinite(call.linearization[k])) {
      return "linearization value " + std::to_string(k) + " is " +
             (std::isnan(call.linearization[k]) ? "NaN" : "infinite");
    }
  }
  return {};
}

bool carries_inputs(CallKind kind) {
  return kind == CallKind::step || kind == CallKind::evaluate_outputs ||
         kind == CallKind::linearize;
}

bool carries_end_outputs(CallKind kind) {
  return kind == CallKind::step || kind == CallKind::evaluate_outputs;
}

/// A step's discrete inputs and outputs, and the discrete-outputs call's: one
/// value per port of the logged description, a Boolean's 0 or 1.
std::string discrete_problem(const std::int64_t* values, std::size_t count,
                             const std::vector<DiscretePortDescription>& ports, const char* what) {
  if (count != ports.size()) {
    return std::to_string(count) + " " + what + " values for the slave's " +
           std::to_string(ports.size()) + " " + what;
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (ports[k].type == DiscreteType::boolean && values[k] != 0 && values[k] != 1) {
      return std::string(what) + " '" + ports[k].name + "' is Boolean but holds " +
             std::to_string(values[k]);
    }
  }
  return {};
}

std::string discrete_arrays_problem(const couplet_wire_SlaveCall& call, CallKind kind,
                                    const RunLog& log) {
  const SlaveDescription& description = log.slaves[call.slave].description;
  if (kind == CallKind::step) {
    if (std::string problem = discrete_problem(call.discrete_inputs, call.discrete_inputs_count,
                                               description.discrete_inputs, "discrete inputs");
        !problem.empty())
      return problem;
  } else if (call.discrete_inputs_count != 0) {
    return "it carries discrete inputs, which only a step has";
  }
  if (kind == CallKind::step || kind == CallKind::discrete_outputs) {
    return discrete_problem(call.discrete_outputs, call.discrete_outputs_count,
                            description.discrete_outputs, "discrete outputs");
  }
  if (call.discrete_outputs_count != 0)
    return "it carries discrete outputs, which only a step or a discrete_outputs call has";
  return {};
}

/// The request and result arrays of a call, by kind.
std::string call_arrays_problem(const couplet_wire_SlaveCall& call, CallKind kind,
                                const RunLog& log) {
  if (std::string problem = discrete_arrays_problem(call, kind, log); !problem.empty())
    return problem;
  if (kind == CallKind::linearize && !log.slaves[call.slave].description.capabilities.can_linearize)
    return "the slave's logged description cannot linearize (capabilities.can_linearize unset)";
  if (carries_inputs(kind)) {
    if (std::string problem = inputs_problem(call, log); !problem.empty()) return problem;
  } else if (call.inputs_count != 0) {
    return "it carries input polynomials, which this kind of call has not";
  }
  if (carries_end_outputs(kind)) {
    if (std::string problem = end_outputs_problem(call, log); !problem.empty()) return problem;
  } else if (call.end_outputs_count != 0 || call.derivative_order != 0) {
    return "it carries outputs, which this kind of call has not";
  }
  if (kind == CallKind::linearize) {
    if (std::string problem = linearization_problem(call, log); !problem.empty()) return problem;
  } else if (call.linearization_count != 0) {
    return "it carries a linearization, which only a linearize call has";
  }
  if (kind == CallKind::step) return samples_problem(call, log, call.start_ns);
  if (call.sample_times_ns_count != 0 || call.samples_count != 0)
    return "it carries samples, which only a step has";
  return {};
}

/// The arrays and times of a call, by kind (SlaveCall in protocol/couplet.proto).
std::string call_content_problem(const couplet_wire_SlaveCall& call, CallKind kind,
                                 const RunLog& log) {
  if (std::string problem = time_problem("start_ns", call.start_ns); !problem.empty())
    return problem;
  if (std::string problem = time_problem("end_ns", call.end_ns); !problem.empty()) return problem;
  if (call.began_ns > call.ended_ns) {
    return "it ended (" + std::to_string(call.ended_ns) + " ns) before it began (" +
           std::to_string(call.began_ns) + " ns)";
  }
  if (kind == CallKind::step && call.start_ns >= call.end_ns) {
    return "the step from " + std::to_string(call.start_ns) + " ns does not end after it (" +
           std::to_string(call.end_ns) + " ns)";
  }
  return call_arrays_problem(call, kind, log);
}

/// A CALL_STEP_SAMPLES record: more sample rows of the step recorded just before.
std::string take_step_samples(const couplet_wire_SlaveCall& call, RunLog& log) {
  const std::string what = "a step samples record on slave '" + log.slaves[call.slave].name + "'";
  if (log.calls.empty() || log.calls.back().kind != CallKind::step ||
      log.calls.back().slave != call.slave || log.calls.back().plan != call.plan ||
      log.calls.back().start != call.start_ns || log.calls.back().end != call.end_ns) {
    return what + " that does not follow the record of its step";
  }
  if (call.inputs_count != 0 || call.end_outputs_count != 0 || call.derivative_order != 0 ||
      call.linearization_count != 0 || call.discrete_inputs_count != 0 ||
      call.discrete_outputs_count != 0)
    return what + ": it carries inputs or outputs, which only the step's own record has";
  LoggedCall& step = log.calls.back();
  const std::int64_t previous = step.sample_times.empty() ? step.start : step.sample_times.back();
  if (std::string problem = samples_problem(call, log, previous); !problem.empty())
    return what + ": " + problem;
  step.sample_times.insert(step.sample_times.end(), call.sample_times_ns,
                           call.sample_times_ns + call.sample_times_ns_count);
  step.samples.insert(step.samples.end(), call.samples, call.samples + call.samples_count);
  return {};
}

std::string take_call(const couplet_wire_SlaveCall& call, RunLog& log, const ReadingState& state) {
  // A call's plan index counts the plans completed before it (the recorder's
  // numbering): 0 for the initialization and the first plan.
  if (call.plan != state.plans) {
    return "a slave call with plan index " + std::to_string(call.plan) + " after " +
           std::to_string(state.plans) + " plan records (it must be " +
           std::to_string(state.plans) + ")";
  }
  if (call.slave >= log.slaves.size()) {
    return "a slave call on slave " + std::to_string(call.slave) + ", but the log has " +
           std::to_string(log.slaves.size()) + " slaves";
  }
  if (!enum_in_range(call.kind, _couplet_wire_SlaveCallKind_MIN, _couplet_wire_SlaveCallKind_MAX))
    return "a slave call of unknown kind " + std::to_string(wire::enum_value(call.kind));
  if (!enum_in_range(call.status, _couplet_wire_Status_MIN, _couplet_wire_Status_MAX))
    return "a slave call with unknown status " + std::to_string(wire::enum_value(call.status));
  if (wire::enum_value(call.kind) == kStepSamplesKind) return take_step_samples(call, log);
  const CallKind kind = call_kind(wire::enum_value(call.kind));
  if (std::string problem = call_content_problem(call, kind, log); !problem.empty()) {
    return (kind == CallKind::evaluate_outputs ? "an " : "a ") + std::string(call_kind_name(kind)) +
           " call on slave '" + log.slaves[call.slave].name + "': " + problem;
  }
  LoggedCall& logged = log.calls.emplace_back();
  logged.plan = call.plan;
  logged.slave = call.slave;
  logged.kind = kind;
  logged.start = call.start_ns;
  logged.end = call.end_ns;
  for (pb_size_t i = 0; i < call.inputs_count; ++i)
    logged.inputs.push_back(wire::from_wire(call.inputs[i]));
  logged.sample_times.assign(call.sample_times_ns,
                             call.sample_times_ns + call.sample_times_ns_count);
  logged.derivative_order = static_cast<int>(call.derivative_order);  // ≤ 63, checked
  logged.end_outputs.assign(call.end_outputs, call.end_outputs + call.end_outputs_count);
  logged.samples.assign(call.samples, call.samples + call.samples_count);
  logged.linearization.assign(call.linearization, call.linearization + call.linearization_count);
  logged.discrete_inputs.assign(call.discrete_inputs,
                                call.discrete_inputs + call.discrete_inputs_count);
  logged.discrete_outputs.assign(call.discrete_outputs,
                                 call.discrete_outputs + call.discrete_outputs_count);
  logged.missed = wire::enum_value(call.status) == couplet_wire_Status_STATUS_LATE;
  logged.began_ns = call.began_ns;
  logged.ended_ns = call.ended_ns;
  logged.retransmissions = call.retransmissions;
  logged.input_lateness_ns = call.input_lateness_ns;
  return {};
}

std::string plan_problem(const couplet_wire_LogPlan& plan, const RunLog& log,
                         const ReadingState& state) {
  if (plan.plan != state.plans + 1) {
    return "plan record " + std::to_string(plan.plan) + " where plan " +
           std::to_string(state.plans + 1) + " comes next";
  }
  if (plan.internals_count != log.internal_quantities.size()) {
    return "plan " + std::to_string(plan.plan) + " holds " + std::to_string(plan.internals_count) +
           " internal values for " + std::to_string(log.internal_quantities.size()) + " quantities";
  }
  const Time previous_frontier = state.plans == 0 ? log.start : state.frontier;
  const std::uint64_t previous_steps = state.macro_steps;
  if (plan.frontier_ns < previous_frontier || plan.frontier_ns > log.end) {
    return "plan " + std::to_string(plan.plan) + " frontier " + std::to_string(plan.frontier_ns) +
           " ns lies outside [" + std::to_string(previous_frontier) + ", " +
           std::to_string(log.end) + "] ns (the previous frontier, the end)";
  }
  // The executor counts a macro step each time the frontier advances.
  const bool advanced = plan.frontier_ns > previous_frontier;
  if (plan.macro_steps < previous_steps || (plan.macro_steps > previous_steps) != advanced) {
    return "plan " + std::to_string(plan.plan) + " counts " + std::to_string(plan.macro_steps) +
           " macro steps after " + std::to_string(previous_steps) + ", but its frontier " +
           (advanced ? "advanced" : "did not advance");
  }
  return {};
}

std::string take_plan(const couplet_wire_LogPlan& plan, RunLog& log, ReadingState& state) {
  if (!state.have_quantities) return "a plan record before the internal quantities record";
  if (std::string problem = plan_problem(plan, log, state); !problem.empty()) return problem;
  ++state.plans;
  state.frontier = plan.frontier_ns;
  state.macro_steps = plan.macro_steps;
  log.plans.push_back({plan.plan, plan.macro_steps, plan.frontier_ns,
                       std::vector<double>(plan.internals, plan.internals + plan.internals_count),
                       plan.pacer_lateness_ns, plan.wall_ns});
  return {};
}

std::string take_end(const couplet_wire_LogEnd& end, RunLog& log, const ReadingState& state) {
  if (!enum_in_range(end.status, _couplet_wire_RunStatus_MIN, _couplet_wire_RunStatus_MAX))
    return "an end record with unknown status " + std::to_string(wire::enum_value(end.status));
  if (end.plans != state.plans) {
    return "the end record counts " + std::to_string(end.plans) + " plans, the log has " +
           std::to_string(state.plans);
  }
  const bool completed = wire::enum_value(end.status) == couplet_wire_RunStatus_RUN_COMPLETED;
  if (completed &&
      (state.plans == 0 || state.frontier != log.end || state.macro_steps != end.macro_steps)) {
    return "the end record says the run completed, but its last plan did not reach the end "
           "time with the end record's " +
           std::to_string(end.macro_steps) + " macro steps";
  }
  static constexpr const char* kStatusNames[] = {"completed", "failed", "interrupted", "stopped"};
  static_assert(std::size(kStatusNames) == _couplet_wire_RunStatus_MAX + 1);
  log.end_record = LoggedEnd{kStatusNames[wire::enum_value(end.status)],
                             end.message,
                             end.decision_hash,
                             end.plans,
                             end.macro_steps,
                             end.slave_steps,
                             end.rollbacks,
                             end.records_waited};
  return {};
}

/// A link totals record's counters.
drivers::LinkCounters link_counters_of(const couplet_wire_LogLinkTotals& totals) {
  drivers::LinkCounters counters;
  counters.requests = totals.requests;
  counters.retransmissions = totals.retransmissions;
  counters.duplicates = totals.duplicates;
  counters.working = totals.working;
  counters.drops = totals.drops;
  counters.foreign = totals.foreign;
  counters.unauthenticated = totals.unauthenticated;
  counters.replayed = totals.replayed;
  counters.late_results = totals.late_results;
  counters.missed_results = totals.missed_results;
  counters.stale_inputs = totals.stale_inputs;
  counters.host_stalls = totals.host_stalls;
  counters.host_stall_longest_ns = totals.host_stall_longest_ns;
  return counters;
}

std::string take_link_totals(const couplet_wire_LogLinkTotals& totals, RunLog& log) {
  if (totals.slave >= log.slaves.size()) {
    return "link totals of slave " + std::to_string(totals.slave) + " of " +
           std::to_string(log.slaves.size());
  }
  LoggedSlave& slave = log.slaves[totals.slave];
  if (slave.link.empty()) return "link totals of slave '" + slave.name + "', which has no link";
  if (slave.link_totals) return "a second link totals record of slave '" + slave.name + "'";
  if (totals.host_stall_longest_ns < 0) {
    return "link totals of slave '" + slave.name + "' with a negative longest stall";
  }
  slave.link_totals = link_counters_of(totals);
  return {};
}

const char* record_name(pb_size_t which_body) {
  switch (which_body) {
    case couplet_wire_LogRecord_slave_tag:
      return "slave";
    case couplet_wire_LogRecord_connections_tag:
      return "connections";
    case couplet_wire_LogRecord_call_tag:
      return "slave call";
    case couplet_wire_LogRecord_plan_tag:
      return "plan";
    case couplet_wire_LogRecord_end_tag:
      return "end";
    case couplet_wire_LogRecord_quantities_tag:
      return "internal quantities";
    case couplet_wire_LogRecord_link_totals_tag:
      return "link totals";
    case couplet_wire_LogRecord_scenario_text_tag:
      return "scenario text";
    default:
      return "header";
  }
}

/// Checks `record` against the records before it and adds it to `log`.
std::string take_record(const protocol::LogRecord& record, RunLog& log, ReadingState& state) {
  if (log.end_record) return "a record after the end record";
  const pb_size_t which = record.which_body;
  if (which == couplet_wire_LogRecord_header_tag)
    return take_header(record.body.header, log, state);
  if (!state.have_header)
    return std::string("a ") + record_name(which) + " record before the header";
  if (which == couplet_wire_LogRecord_scenario_text_tag)
    return take_scenario_text(record.body.scenario_text, log, state);
  if (which == couplet_wire_LogRecord_slave_tag) return take_slave(record.body.slave, log, state);
  if (which == couplet_wire_LogRecord_connections_tag)
    return take_connections(record.body.connections, log, state);
  if (!state.have_connections) {
    return std::string("a ") + record_name(which) +
           " record before the slaves and connections are complete";
  }
  switch (which) {
    case couplet_wire_LogRecord_quantities_tag:
      return take_quantities(record.body.quantities, log, state);
    case couplet_wire_LogRecord_call_tag:
      return take_call(record.body.call, log, state);
    case couplet_wire_LogRecord_plan_tag:
      return take_plan(record.body.plan, log, state);
    case couplet_wire_LogRecord_end_tag:
      return take_end(record.body.end, log, state);
    case couplet_wire_LogRecord_link_totals_tag:
      return take_link_totals(record.body.link_totals, log);
    default:
      return "a record of unknown type " + std::to_string(which);
  }
}

}  // namespace

const char* call_kind_name(CallKind kind) {
  switch (kind) {
    case CallKind::setup:
      return "setup";
    case CallKind::evaluate_outputs:
      return "evaluate_outputs";
    case CallKind::step:
      return "step";
    case CallKind::save_state:
      return "save_state";
    case CallKind::restore_state:
      return "restore_state";
    case CallKind::linearize:
      return "linearize";
    case CallKind::discrete_outputs:
      return "discrete_outputs";
  }
  return "unknown";
}

std::string RunLog::discrete_output_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.discrete_outputs.at(port).name;
}

std::string RunLog::discrete_input_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.discrete_inputs.at(port).name;
}

std::string RunLog::output_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.outputs.at(port).name;
}

std::string RunLog::input_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.inputs.at(port).name;
}

struct RunLogReading::Impl {
  explicit Impl(const std::string& path) : file("run log '" + path + "': ") {
    try {
      reader.emplace(path);
    } catch (const std::runtime_error& error) {
      throw RunLogError(error.what());
    }
  }

  std::string file;  ///< "run log 'PATH': ", the prefix of every message
  std::optional<protocol::RunLogReader> reader;
  const std::unique_ptr<protocol::LogRecord> record = std::make_unique<protocol::LogRecord>();
  ReadingState state;
  std::string refused;  ///< why a record was refused: reading stops there
};

RunLogReading::RunLogReading(const std::string& path) : impl_(std::make_unique<Impl>(path)) {
  log_.path = path;
}

RunLogReading::~RunLogReading() = default;
RunLogReading::RunLogReading(RunLogReading&&) noexcept = default;

bool RunLogReading::has_internal_quantities() const {
  return impl_->state.have_quantities;
}

bool RunLogReading::read_record() {
  if (!impl_->refused.empty()) throw RunLogError(impl_->refused);  // nothing after it is read
  if (ended_) return false;
  try {
    return read_next();
  } catch (const RunLogError& error) {
    impl_->refused = error.what();
    throw;
  }
}

bool RunLogReading::resume() {
  if (!ended_ || log_.end_record || !impl_->refused.empty()) return false;
  if (!impl_->reader->resume()) return false;
  ended_ = false;
  log_.tail = protocol::LogReadStatus::end;
  log_.tail_problem.clear();
  return true;
}

bool RunLogReading::read_next() {
  protocol::RunLogReader& reader = *impl_->reader;
  const protocol::LogReadStatus status = reader.next(*impl_->record);
  if (status == protocol::LogReadStatus::record) {
    if (const std::string problem = take_record(*impl_->record, log_, impl_->state);
        !problem.empty())
      throw RunLogError(impl_->file + reader.record_position() + ": " + problem);
    last_was_call_ = impl_->record->which_body == couplet_wire_LogRecord_call_tag;
    log_.frames = reader.frames_read();
    return true;
  }
  // A frame whose checksum holds but which does not decode was written so:
  // not damage from a crash, and nothing after it can be trusted.
  if (status == protocol::LogReadStatus::malformed)
    throw RunLogError(impl_->file + reader.problem());
  // Without the structure nothing can be read.
  if (!impl_->state.have_connections) {
    throw RunLogError(impl_->file +
                      (status == protocol::LogReadStatus::end
                           ? "ends at byte offset " + std::to_string(reader.offset()) +
                                 ", before its header, slaves and connections are "
                                 "complete"
                           : reader.problem()));
  }
  log_.tail = status;
  if (status != protocol::LogReadStatus::end) log_.tail_problem = reader.problem();
  log_.frames = reader.frames_read();
  ended_ = true;
  // last_was_call_ stays: a log still being written may go on (resume()) with
  // the samples of that call.
  return false;
}

void RunLogReading::read_structure() {
  while (!impl_->state.have_connections && read_record()) {
  }
}

RunLog read_run_log(const std::string& path) {
  RunLogReading reading(path);
  while (reading.read_record()) {
  }
  return std::move(reading.log());
}

}  // namespace couplet::tools
