#include "couplet/slave.hpp"

#include <string>

namespace couplet {

namespace {

// Apart, so that a slave without discrete inputs pays one test for them.
void check_discrete_inputs(const std::string& slave_name, const SlaveDescription& description,
                           const StepRequest& request) {
  const auto fail = [&](const std::string& why) {
    throw ProtocolViolation("step request to slave '" + slave_name + "': " + why);
  };
  if (request.discrete_inputs.size() != description.discrete_inputs.size()) {
    fail("wrong number of discrete inputs");
  }
  for (std::size_t i = 0; i < request.discrete_inputs.size(); ++i) {
    const std::int64_t value = request.discrete_inputs[i];
    if (description.discrete_inputs[i].type == DiscreteType::boolean && value != 0 && value != 1) {
      fail("Boolean input '" + description.discrete_inputs[i].name + "' is " +
           std::to_string(value) + ", not 0 or 1");
    }
  }
}

}  // namespace

void check_set_up(const std::string& slave_name, bool is_set_up, const char* call) {
  if (!is_set_up)
    throw ProtocolViolation("slave '" + slave_name + "': " + std::string(call) + " before setup");
}

void check_rollback(const std::string& slave_name, const SlaveDescription& description,
                    bool is_set_up, const char* call) {
  check_set_up(slave_name, is_set_up, call);
  if (!description.capabilities.can_rollback) {
    throw ProtocolViolation("slave '" + slave_name + "': " + std::string(call) +
                            " on a slave that cannot roll back");
  }
}

void check_step_request(const std::string& slave_name, const SlaveDescription& description,
                        Time current_time, const StepRequest& request) {
  const auto fail = [&](const std::string& why) {
    throw ProtocolViolation("step request to slave '" + slave_name + "': " + why);
  };
  const SlaveCapabilities& caps = description.capabilities;
  if (request.start != current_time) {
    fail("starts at " + std::to_string(request.start) + " ns but the slave is at " +
         std::to_string(current_time) + " ns");
  }
  if (request.end <= request.start) fail("empty or negative step");
  if (request.inputs.size() != description.inputs.size()) fail("wrong number of input polynomials");
  for (std::size_t i = 0; i < request.inputs.size(); ++i) {
    if (request.inputs[i].degree() > caps.max_input_degree) {
      fail("input '" + description.inputs[i].name + "' has degree " +
           std::to_string(request.inputs[i].degree()) + " but the slave accepts at most " +
           std::to_string(caps.max_input_degree));
    }
  }
  if (caps.imposed_step > 0 && (request.end - request.start) % caps.imposed_step != 0) {
    fail("step is not a multiple of the imposed step " + std::to_string(caps.imposed_step) + " ns");
  }
  if (!request.sample_times.empty() && !caps.intermediate_samples) {
    fail("sample times requested but the slave does not report intermediate samples");
  }
  Time previous = request.start;
  for (const Time sample : request.sample_times) {
    if (sample <= previous || sample > request.end)
      fail("sample times not increasing inside the step");
    previous = sample;
  }
  if (!request.discrete_inputs.empty() || !description.discrete_inputs.empty())
    check_discrete_inputs(slave_name, description, request);
}

const char* to_string(DiscreteType type) {
  return type == DiscreteType::boolean ? "Boolean" : "Integer";
}

void check_end_outputs(const std::string& slave_name, const SlaveDescription& description,
                       std::span<const double> end_outputs) {
  const auto rows = static_cast<std::size_t>(description.capabilities.output_derivative_order + 1);
  if (end_outputs.size() < rows * description.outputs.size())
    throw ProtocolViolation("slave '" + slave_name + "': end output buffer too small");
}

void check_discrete_outputs(const std::string& slave_name, const SlaveDescription& description,
                            std::span<const std::int64_t> discrete_outputs) {
  if (discrete_outputs.size() != description.discrete_outputs.size())
    throw ProtocolViolation("slave '" + slave_name + "': discrete output buffer of the wrong size");
}

}  // namespace couplet
