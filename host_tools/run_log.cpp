#include "host_tools/run_log.hpp"

#include <memory>
#include <stdexcept>

#include "protocol/wire_conversions.hpp"

namespace couplet::tools {

namespace {

CallKind call_kind(couplet_wire_SlaveCallKind kind) {
  switch (kind) {
    case couplet_wire_SlaveCallKind_CALL_SETUP:
      return CallKind::setup;
    case couplet_wire_SlaveCallKind_CALL_EVALUATE_OUTPUTS:
      return CallKind::evaluate_outputs;
    case couplet_wire_SlaveCallKind_CALL_STEP:
      return CallKind::step;
    case couplet_wire_SlaveCallKind_CALL_SAVE_STATE:
      return CallKind::save_state;
    case couplet_wire_SlaveCallKind_CALL_RESTORE_STATE:
      return CallKind::restore_state;
  }
  throw std::runtime_error("unknown slave call kind " + std::to_string(static_cast<int>(kind)));
}

LoggedCall to_call(const couplet_wire_SlaveCall& wire_call) {
  LoggedCall call;
  call.plan = wire_call.plan;
  call.slave = wire_call.slave;
  call.kind = call_kind(wire_call.kind);
  call.start = wire_call.start_ns;
  call.end = wire_call.end_ns;
  for (pb_size_t i = 0; i < wire_call.inputs_count; ++i)
    call.inputs.push_back(wire::from_wire(wire_call.inputs[i]));
  call.sample_times.assign(wire_call.sample_times_ns,
                           wire_call.sample_times_ns + wire_call.sample_times_ns_count);
  call.derivative_order = static_cast<int>(wire_call.derivative_order);
  call.end_outputs.assign(wire_call.end_outputs,
                          wire_call.end_outputs + wire_call.end_outputs_count);
  call.samples.assign(wire_call.samples, wire_call.samples + wire_call.samples_count);
  call.missed = wire_call.status == couplet_wire_Status_STATUS_LATE;
  call.began_ns = wire_call.began_ns;
  call.ended_ns = wire_call.ended_ns;
  call.retransmissions = wire_call.retransmissions;
  call.input_lateness_ns = wire_call.input_lateness_ns;
  return call;
}

LoggedPlan to_plan(const couplet_wire_LogPlan& wire_plan) {
  LoggedPlan plan;
  plan.plan = wire_plan.plan;
  plan.macro_steps = wire_plan.macro_steps;
  plan.frontier = wire_plan.frontier_ns;
  plan.internals.assign(wire_plan.internals, wire_plan.internals + wire_plan.internals_count);
  plan.pacer_lateness_ns = wire_plan.pacer_lateness_ns;
  plan.wall_ns = wire_plan.wall_ns;
  return plan;
}

LoggedEnd to_end(const couplet_wire_LogEnd& wire_end) {
  return {wire_end.status == couplet_wire_RunStatus_RUN_COMPLETED,
          wire_end.message,
          wire_end.decision_hash,
          wire_end.plans,
          wire_end.macro_steps,
          wire_end.slave_steps,
          wire_end.rollbacks,
          wire_end.records_waited};
}

void read_header(const couplet_wire_LogHeader& header, RunLog& log) {
  if (header.version != couplet_wire_Version_VERSION_CURRENT) {
    throw std::runtime_error("run log '" + log.path + "' has format version " +
                             std::to_string(header.version) + "; this couplet reads version " +
                             std::to_string(couplet_wire_Version_VERSION_CURRENT));
  }
  log.scenario_source = header.scenario_source;
  log.scenario_text = header.scenario_text;
  log.start = header.start_ns;
  log.end = header.end_ns;
  log.algorithm = header.algorithm;
  log.wall_clock_start_ns = header.wall_clock_start_ns;
}

// A record that contradicts the structure (a call for a slave that does not
// exist, ...) ends reading like a corrupted frame: the CRC held, the content did not.
bool consistent(const protocol::LogRecord& record, const RunLog& log) {
  if (record.which_body == couplet_wire_LogRecord_call_tag) {
    const couplet_wire_SlaveCall& call = record.body.call;
    const bool carries_inputs = call.kind == couplet_wire_SlaveCallKind_CALL_STEP ||
                                call.kind == couplet_wire_SlaveCallKind_CALL_EVALUATE_OUTPUTS;
    return call.slave < log.slaves.size() &&
           (!carries_inputs ||
            call.inputs_count == log.slaves[call.slave].description.inputs.size());
  }
  if (record.which_body == couplet_wire_LogRecord_plan_tag) {
    return record.body.plan.internals_count == log.internal_quantities.size();
  }
  return record.which_body == couplet_wire_LogRecord_end_tag ||
         (record.which_body == couplet_wire_LogRecord_quantities_tag &&
          log.internal_quantities.empty() && log.plans.empty());
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
  }
  return "unknown";
}

std::string RunLog::output_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.outputs.at(port).name;
}

std::string RunLog::input_name(std::size_t slave, std::size_t port) const {
  return slaves.at(slave).name + "." + slaves.at(slave).description.inputs.at(port).name;
}

RunLog read_run_log(const std::string& path) {
  RunLog log;
  log.path = path;
  protocol::RunLogReader reader(path);
  const auto record = std::make_unique<protocol::LogRecord>();
  const auto structure_error = [&](const std::string& what) {
    return std::runtime_error("run log '" + path + "': " + what);
  };

  // The structure: header, slaves, connections. Without it nothing can be read.
  bool have_connections = false;
  while (!have_connections) {
    const protocol::LogReadStatus status = reader.next(*record);
    if (status != protocol::LogReadStatus::record) {
      throw structure_error(status == protocol::LogReadStatus::end
                                ? "ends before its header, slaves and connections are complete"
                                : reader.problem());
    }
    switch (record->which_body) {
      case couplet_wire_LogRecord_header_tag:
        read_header(record->body.header, log);
        break;
      case couplet_wire_LogRecord_slave_tag: {
        const couplet_wire_LogSlave& slave = record->body.slave;
        if (slave.index != log.slaves.size()) throw structure_error("slave records out of order");
        log.slaves.push_back(
            {slave.name, wire::from_wire(slave.description, slave.name), slave.link});
        break;
      }
      case couplet_wire_LogRecord_connections_tag: {
        const couplet_wire_LogConnections& connections = record->body.connections;
        for (pb_size_t c = 0; c < connections.connections_count; ++c) {
          const couplet_wire_LogConnection& connection = connections.connections[c];
          if (connection.source_slave >= log.slaves.size() ||
              connection.target_slave >= log.slaves.size()) {
            throw structure_error("a connection names a slave that is not in the log");
          }
          log.connections.push_back({{connection.source_slave, connection.source_port},
                                     {connection.target_slave, connection.target_port}});
        }
        have_connections = true;
        break;
      }
      default:
        throw structure_error("a run record comes before the header, slaves and connections");
    }
  }
  if (log.algorithm.empty()) throw structure_error("no header record");

  for (;;) {
    const protocol::LogReadStatus status = reader.next(*record);
    if (status != protocol::LogReadStatus::record) {
      log.tail = status;
      log.tail_problem = reader.problem();
      break;
    }
    if (!consistent(*record, log)) {
      log.tail = protocol::LogReadStatus::malformed;
      log.tail_problem = "frame " + std::to_string(reader.frames_read()) + " before byte " +
                         std::to_string(reader.offset()) +
                         ": a record that does not fit the logged system";
      break;
    }
    if (record->which_body == couplet_wire_LogRecord_quantities_tag) {
      const couplet_wire_LogQuantities& quantities = record->body.quantities;
      for (pb_size_t q = 0; q < quantities.names_count; ++q)
        log.internal_quantities.emplace_back(quantities.names[q]);
    } else if (record->which_body == couplet_wire_LogRecord_call_tag) {
      log.calls.push_back(to_call(record->body.call));
    } else if (record->which_body == couplet_wire_LogRecord_plan_tag) {
      log.plans.push_back(to_plan(record->body.plan));
    } else {
      log.end_record = to_end(record->body.end);
    }
  }
  log.frames = reader.frames_read();
  return log;
}

}  // namespace couplet::tools
