#include "runtime/run_log_projection.hpp"

#include <pb_encode.h>

#include <algorithm>
#include <memory>

#include "protocol/run_log_frame.hpp"

namespace couplet {
namespace {

/// CLOCK_MONOTONIC of a machine up for a day: the size of the timing fields.
constexpr std::uint64_t kTypicalMonotonicNs = std::uint64_t{86'400} * 1'000'000'000;

std::uint64_t frame_bytes(const protocol::LogRecord& record) {
  std::size_t size = 0;
  pb_get_encoded_size(&size, couplet_wire_LogRecord_fields, &record);
  return size + protocol::kLogFrameOverhead;
}

/// Values that encode at their typical size: a double is 8 bytes anywhere but
/// 0 (not encoded at all); times and counts are varints sized by their value.
template <typename Count, std::size_t Size, typename Value>
void fill(Value (&field)[Size], Count& count, std::size_t wanted, Value value) {
  count = static_cast<Count>(std::min(wanted, Size));
  std::fill_n(field, count, value);
}

std::uint64_t step_call_bytes(const SlaveDescription& description, const RunLogRun& run,
                              std::uint32_t slave, protocol::LogRecord& record) {
  record = protocol::LogRecord{};
  record.which_body = couplet_wire_LogRecord_call_tag;
  couplet_wire_SlaveCall& call = record.body.call;
  call.plan = run.macro_steps / 2;
  call.slave = slave;
  call.kind = couplet_wire_SlaveCallKind_CALL_STEP;
  call.start_ns = call.end_ns = run.end;
  call.inputs_count = static_cast<pb_size_t>(
      std::min(description.inputs.size(), sizeof call.inputs / sizeof call.inputs[0]));
  for (pb_size_t i = 0; i < call.inputs_count; ++i) {
    call.inputs[i].origin = call.inputs[i].scale = 1.0;
    fill(call.inputs[i].coefficients, call.inputs[i].coefficients_count,
         static_cast<std::size_t>(run.input_degree) + 1, 1.0);
  }
  const int derivatives = description.capabilities.output_derivative_order;
  call.derivative_order = static_cast<std::uint32_t>(derivatives);
  fill(call.end_outputs, call.end_outputs_count,
       description.outputs.size() * (static_cast<std::size_t>(derivatives) + 1), 1.0);
  fill(call.discrete_inputs, call.discrete_inputs_count, description.discrete_inputs.size(),
       std::int64_t{1});
  fill(call.discrete_outputs, call.discrete_outputs_count, description.discrete_outputs.size(),
       std::int64_t{1});
  call.began_ns = kTypicalMonotonicNs;
  call.ended_ns = kTypicalMonotonicNs;
  return frame_bytes(record);
}

std::uint64_t plan_bytes(const RunLogRun& run, protocol::LogRecord& record) {
  record = protocol::LogRecord{};
  record.which_body = couplet_wire_LogRecord_plan_tag;
  couplet_wire_LogPlan& plan = record.body.plan;
  plan.plan = plan.macro_steps = run.macro_steps / 2;
  plan.frontier_ns = run.end;
  plan.wall_ns = kTypicalMonotonicNs;
  return frame_bytes(record);
}

/// A varint's bytes for `value` (zigzag-encoded when signed in the schema).
std::uint64_t varint_bytes(std::uint64_t value) {
  std::uint64_t bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

}  // namespace

std::uint64_t least_run_log_bytes(const System& system, const RunLogRun& run) {
  // One record on the heap: a LogRecord is ~100 KB.
  const auto record = std::make_unique<protocol::LogRecord>();
  std::uint64_t per_macro_step = plan_bytes(run, *record);
  std::uint64_t per_grid_point = 0;
  const std::uint64_t sample_time = varint_bytes(static_cast<std::uint64_t>(run.end) << 1);
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription& description = system.description(s);
    per_macro_step += step_call_bytes(description, run, static_cast<std::uint32_t>(s), *record);
    if (!description.outputs.empty())
      per_grid_point += sample_time + 8 * description.outputs.size();
  }
  const double bytes = static_cast<double>(run.macro_steps) * static_cast<double>(per_macro_step) +
                       static_cast<double>(run.grid_points) * static_cast<double>(per_grid_point);
  return static_cast<std::uint64_t>(std::min(bytes, 1e18));
}

}  // namespace couplet
