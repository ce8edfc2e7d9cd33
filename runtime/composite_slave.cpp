#include "runtime/composite_slave.hpp"

#include <algorithm>
#include <limits>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

// The outside world inside the group: one output per composite input, whose value is
// that input's polynomial. The algorithm gives its targets the polynomials themselves
// (GivenInputs) and never steps it; it exists so that the inner System is complete
// (every input connected) and the executor's consistent start sees the inputs.
class OutsideSlave final : public Slave {
 public:
  OutsideSlave(std::vector<OutputDescription> outputs, std::span<const Polynomial> polynomials)
      : polynomials_(polynomials) {
    description_.outputs = std::move(outputs);
    SlaveCapabilities& capabilities = description_.capabilities;
    capabilities.max_input_degree = Polynomial::kMaxDegree;
    capabilities.output_derivative_order = kDerivativeOrder;
    capabilities.can_rollback = true;  // stateless: its "state" is its time
    capabilities.variable_step = true;
    capabilities.intermediate_samples = true;
  }

  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial>, std::span<double> end_outputs) override { write(end_outputs); }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    for (std::size_t k = 0; k < request.sample_times.size(); ++k) {
      for (std::size_t j = 0; j < polynomials_.size(); ++j) {
        result.samples[k * polynomials_.size() + j] = polynomials_[j].value(to_seconds(request.sample_times[k]));
      }
    }
    time_ = request.end;
    write(result.end_outputs);
  }
  void save_state() override { saved_time_ = time_; }
  void restore_state() override { time_ = saved_time_; }

 private:
  static constexpr int kDerivativeOrder = 3;

  void write(std::span<double> end_outputs) const {
    const std::size_t count = polynomials_.size();
    for (int d = 0; d <= kDerivativeOrder; ++d) {
      for (std::size_t j = 0; j < count; ++j) {
        end_outputs[static_cast<std::size_t>(d) * count + j] = polynomials_[j].derivative(to_seconds(time_), d);
      }
    }
  }

  SlaveDescription description_;
  std::span<const Polynomial> polynomials_;
  Time time_ = 0;
  Time saved_time_ = 0;
};

// The inner run has no end of its own: the outer master sets the horizon step by step.
constexpr Time kInnerEnd = std::numeric_limits<Time>::max() / 4;

}  // namespace

CompositeSlave::CompositeSlave(std::string name, std::vector<CompositeMember> members,
                               const std::vector<CompositeConnection>& connections,
                               std::unique_ptr<IfosmondiAlgorithm> algorithm)
    : name_(std::move(name)), algorithm_(std::move(algorithm)) {
  const auto in_group = [&](const std::string& why) { return ConfigurationError("group '" + name_ + "': " + why); };
  if (!algorithm_) throw in_group("no algorithm");
  if (members.empty()) throw in_group("no member slaves");
  try {
    for (CompositeMember& member : members) system_.add_slave(member.name, std::move(member.slave));
    for (const CompositeConnection& connection : connections) system_.connect(connection.from, connection.to);
  } catch (const ConfigurationError& error) {
    throw in_group(error.what());
  }
  if (!system_.integer_to_real_connections().empty()) {
    const Connection& first = system_.integer_to_real_connections().front();
    throw in_group("'" + system_.discrete_output_name(first.source) + "' (Integer) -> '" +
                   system_.input_name(first.target) +
                   "' (Real): its iteration couples Real outputs only; connect them outside "
                   "the group");
  }
  // The inputs nobody inside drives are the composite's inputs.
  std::vector<OutputDescription> outside_outputs;
  std::vector<PortReference> outside_targets;
  for (std::size_t s = 0; s < system_.slave_count(); ++s) {
    for (std::size_t i = 0; i < system_.description(s).inputs.size(); ++i) {
      if (system_.source_of({s, i})) continue;
      outside_outputs.push_back({system_.input_name({s, i}), false});
      outside_targets.push_back({s, i});
    }
  }
  outside_polynomials_.assign(outside_targets.size(), Polynomial{});
  describe();  // before the stand-in joins: it describes the members only
  outside_ = system_.add_slave("(outside)", std::make_unique<OutsideSlave>(outside_outputs, outside_polynomials_));
  for (std::size_t k = 0; k < outside_targets.size(); ++k) {
    system_.connect("(outside)." + outside_outputs[k].name, system_.input_name(outside_targets[k]));
  }
  algorithm_->use_given_inputs(GivenInputs{outside_, outside_polynomials_});
  algorithm_->set_step_listener(this);
  try {
    system_.validate(algorithm_->requirements());
  } catch (const ConfigurationError& error) {
    throw in_group(error.what());
  }
}

CompositeSlave::~CompositeSlave() = default;

void CompositeSlave::describe() {
  const std::size_t member_count = system_.slave_count();
  SlaveCapabilities& capabilities = description_.capabilities;
  capabilities.max_input_degree = Polynomial::kMaxDegree;
  capabilities.output_derivative_order = std::numeric_limits<int>::max();
  capabilities.can_rollback = true;
  capabilities.variable_step = true;
  capabilities.imposed_step = 0;
  capabilities.intermediate_samples = true;
  std::vector<std::size_t> first_output(member_count + 1, 0);
  for (std::size_t s = 0; s < member_count; ++s) {
    const SlaveDescription& member = system_.description(s);
    capabilities.can_rollback = capabilities.can_rollback && member.capabilities.can_rollback;
    capabilities.intermediate_samples = capabilities.intermediate_samples && member.capabilities.intermediate_samples;
    for (std::size_t i = 0; i < member.inputs.size(); ++i) {
      if (system_.source_of({s, i})) continue;
      description_.inputs.push_back({system_.input_name({s, i}), member.inputs[i].unit});
      capabilities.max_input_degree = std::min(capabilities.max_input_degree, member.capabilities.max_input_degree);
    }
    if (!member.outputs.empty()) {
      capabilities.output_derivative_order =
          std::min(capabilities.output_derivative_order, member.capabilities.output_derivative_order);
    }
    for (std::size_t j = 0; j < member.outputs.size(); ++j) {
      description_.outputs.push_back({system_.output_name({s, j}), false, member.outputs[j].unit});
      outputs_.push_back({s, j});
    }
    first_output[s + 1] = first_output[s] + member.outputs.size();
  }
  if (description_.outputs.empty()) capabilities.output_derivative_order = 0;
  // Feedthrough from a composite input: the member's output feeds through and one of
  // its inputs is a composite input or comes from an output that is (fixed point over
  // the member graph; at most one pass per output).
  for (std::size_t pass = 0; pass <= description_.outputs.size(); ++pass) {
    for (std::size_t k = 0; k < outputs_.size(); ++k) {
      const PortReference output = outputs_[k];
      const SlaveDescription& member = system_.description(output.slave);
      if (!member.outputs[output.port].direct_feedthrough || description_.outputs[k].direct_feedthrough) continue;
      for (std::size_t i = 0; i < member.inputs.size(); ++i) {
        const auto source = system_.source_of({output.slave, i});
        if (!source || description_.outputs[first_output[source->slave] + source->port].direct_feedthrough) {
          description_.outputs[k].direct_feedthrough = true;
        }
      }
    }
  }
}

void CompositeSlave::violation(const std::string& why) const {
  throw ProtocolViolation("composite slave '" + name_ + "': " + why);
}

void CompositeSlave::setup(Time start) {
  time_ = start;
  saved_ = false;
  executor_ = std::make_unique<Executor>(system_, *algorithm_, start, kInnerEnd, std::vector<Time>{});
  executor_->initialize();
  algorithm_->set_horizon(start);
}

void CompositeSlave::run_plans() {
  try {
    while (executor_->advance()) {
    }
  } catch (const SlaveError& error) {
    throw SlaveError("group '" + name_ + "': " + error.what());
  }
}

void CompositeSlave::take_inputs(std::span<const Polynomial> inputs) {
  if (inputs.size() != outside_polynomials_.size()) {
    violation(std::to_string(inputs.size()) + " input polynomials, expected " +
              std::to_string(outside_polynomials_.size()));
  }
  std::copy(inputs.begin(), inputs.end(), outside_polynomials_.begin());
}

void CompositeSlave::evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) {
  if (!executor_) violation("evaluate_outputs before setup");
  take_inputs(inputs);
  algorithm_->request_output_refresh();
  run_plans();
  write_outputs(end_outputs);
}

void CompositeSlave::step(const StepRequest& request, const OutputBuffers& result) {
  if (!executor_) violation("step before setup");
  check_step_request(name_, description_, time_, request);
  take_inputs(request.inputs);
  sample_times_.assign(request.sample_times.begin(), request.sample_times.end());
  samples_ = result.samples;
  algorithm_->set_sample_times(sample_times_);
  algorithm_->set_horizon(request.end);
  run_plans();
  algorithm_->set_sample_times({});
  samples_ = {};
  time_ = request.end;
  write_outputs(result.end_outputs);
}

// The samples inside [start, end] of the outer request, from the converged inner step.
void CompositeSlave::step_converged(std::span<const StepSlot> slots, Time start, Time end) {
  const auto first = std::upper_bound(sample_times_.begin(), sample_times_.end(), start);
  const auto last = std::upper_bound(first, sample_times_.end(), end);
  const std::size_t count = outputs_.size();
  for (auto it = first; it != last; ++it) {
    const auto global = static_cast<std::size_t>(it - sample_times_.begin());
    const auto local = static_cast<std::size_t>(it - first);
    for (std::size_t k = 0; k < count; ++k) {
      samples_[global * count + k] = slots[outputs_[k].slave].sample(local, outputs_[k].port);
    }
  }
}

void CompositeSlave::save_state() {
  if (!executor_) violation("save_state before setup");
  if (!description_.capabilities.can_rollback) violation("save_state, but a member cannot roll back");
  algorithm_->set_anchor();
  run_plans();  // saves every member now
  saved_time_ = time_;
  saved_ = true;
}

void CompositeSlave::restore_state() {
  if (!executor_) violation("restore_state before setup");
  if (!description_.capabilities.can_rollback) violation("restore_state, but a member cannot roll back");
  if (!saved_) violation("restore_state without a saved state");
  algorithm_->rollback_to_anchor();
  run_plans();  // restores every member now
  time_ = saved_time_;
}

void CompositeSlave::write_outputs(std::span<double> end_outputs) const {
  const std::span<const StepSlot> slots = executor_->slots();
  const std::size_t count = outputs_.size();
  const int order = description_.capabilities.output_derivative_order;
  if (end_outputs.size() < static_cast<std::size_t>(order + 1) * count) violation("output buffer too small");
  for (int d = 0; d <= order; ++d) {
    for (std::size_t k = 0; k < count; ++k) {
      end_outputs[static_cast<std::size_t>(d) * count + k] = slots[outputs_[k].slave].output(outputs_[k].port, d);
    }
  }
}

}  // namespace couplet
