// FMI 3.0 scheduled execution (§5) as a slave: the partitions' activations of
// one communication step in time order, at the ticks of their input clocks
// (fmi3_clocks.hpp).
#include "models/fmi/fmi3_scheduled_execution_slave.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_clocks.hpp"
#include "models/fmi/fmi3_instance.hpp"
#include "models/scheduled_activations.hpp"

namespace couplet::models::fmi3 {
namespace {

class ScheduledExecutionSlave final : public Slave, public ScheduledActivations {
 public:
  ScheduledExecutionSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings)
      : package_(std::move(package)),
        functions_(package_->load(Interface::scheduled_execution)),
        slave_name_(settings.slave_name),
        log_(std::make_unique<LogRing>()),
        layout_(array_layout(*package_, settings)),
        clocks_(*package_, functions_, *log_, settings, "scheduled execution") {
    const PortElements ports =
        port_elements(*package_, without_clock_ports(*package_, settings), layout_);
    PortDescriptions described = describe_ports(*package_, layout_, ports, settings);
    description_.inputs = std::move(described.inputs);
    description_.outputs = std::move(described.outputs);
    description_.discrete_inputs = std::move(described.discrete_inputs);
    description_.discrete_outputs = std::move(described.discrete_outputs);
    clocks_.add_clock_ports(description_, settings);
    clocks_.assign_ports(layout_, ports, settings);
    description_.capabilities = capabilities_of(settings);
    real_outputs_.assign(description_.outputs.size(), 0.0);
    discrete_outputs_.assign(description_.discrete_outputs.size(), 0);
    saved_real_outputs_ = real_outputs_;
    saved_discrete_outputs_ = discrete_outputs_;
    const Description& description = package_->description();
    const std::string resources = package_->resource_path();
    log_->context = this;
    instance_ = functions_.InstantiateScheduledExecution(
        slave_name_.c_str(), description.instantiation_token.c_str(), resources.c_str(), fmi3False,
        fmi3True, log_.get(), &LogRing::log, &clock_update, nullptr, nullptr);
    if (instance_ == nullptr) {
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': fmi3InstantiateScheduledExecution returned NULL "
                               "(instantiation token " +
                               description.instantiation_token + ")" + log_->recent());
    }
    try {
      set_start_values(*package_, instance_, layout_, settings, *log_);
    } catch (...) {
      functions_.FreeInstance(instance_);  // the destructor does not run for a throwing constructor
      throw;
    }
  }

  ~ScheduledExecutionSlave() override {
    if (saved_state_ != nullptr) functions_.FreeFMUState(instance_, &saved_state_);
    functions_.FreeInstance(instance_);
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    setup_check(functions_.EnterInitializationMode(instance_, fmi3False, 0.0, to_seconds(start),
                                                   fmi3False, 0.0),
                "fmi3EnterInitializationMode");
    clocks_.read_initial_outputs(instance_, start, real_outputs_, discrete_outputs_);
    clocks_.set_up(instance_, start);
    setup_check(functions_.ExitInitializationMode(instance_), "fmi3ExitInitializationMode");
    current_time_ = start;
    is_set_up_ = true;
  }

  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    require_set_up("evaluate_outputs");
    if (inputs.size() != description_.inputs.size())
      violation("evaluate_outputs with a wrong number of inputs");
    check_end_outputs(slave_name_, description_, end_outputs);
    std::copy(real_outputs_.begin(), real_outputs_.end(), end_outputs.begin());
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> values) override {
    require_set_up("evaluate_discrete_outputs");
    check_discrete_outputs(slave_name_, description_, values);
    std::copy(discrete_outputs_.begin(), discrete_outputs_.end(), values.begin());
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    require_set_up("step");
    check_step_request(slave_name_, description_, current_time_, request);
    check_end_outputs(slave_name_, description_, result.end_outputs);
    check_discrete_outputs(slave_name_, description_, result.discrete_outputs);
    const std::size_t outputs = description_.outputs.size();
    if (result.samples.size() < request.sample_times.size() * outputs)
      violation("sample buffer too small");
    // An output clock's port says whether it ticked during the step.
    if (!latch_output_clocks_) clear_output_clocks();
    // Triggered clocks first: a rise at the communication point.
    if (clocks_.take_triggers(request.discrete_inputs)) {
      for (InputClock& clock : clocks_.inputs())
        if (std::exchange(clock.triggered, false)) activate(clock, request.start, request);
    }
    std::size_t sample = 0;
    Time cursor = request.start;
    while (true) {
      const Time next = clocks_.next_tick(cursor);
      if (next >= request.end) break;
      // A sample at the time of an activation shows the outputs before it.
      for (; sample < request.sample_times.size() && request.sample_times[sample] <= next; ++sample)
        write_sample(result.samples.subspan(sample * outputs, outputs));
      for (InputClock& clock : clocks_.inputs()) {  // in priority order
        if (Clocks::ticks_at(clock, cursor, next)) activate(clock, next, request);
      }
      // Countdown ticks of this instant, those set by its activations included.
      while (InputClock* due = clocks_.due_countdown(next)) activate(*due, next, request);
      cursor = next + 1;
    }
    for (; sample < request.sample_times.size(); ++sample)
      write_sample(result.samples.subspan(sample * outputs, outputs));
    std::copy(real_outputs_.begin(), real_outputs_.end(), result.end_outputs.begin());
    std::copy(discrete_outputs_.begin(), discrete_outputs_.end(), result.discrete_outputs.begin());
    current_time_ = request.end;
  }

  Time next_activation(Time time) const override { return clocks_.next_tick(time); }

  void latch_output_clocks() override { latch_output_clocks_ = true; }

  void clear_output_clocks() override {
    std::fill(discrete_outputs_.begin() + static_cast<std::ptrdiff_t>(clocks_.output_clock_port()),
              discrete_outputs_.end(), 0);
  }

  void save_state() override {
    require_rollback("save_state");
    // An existing state is overwritten in place (§2.3.6), no new one made.
    check(functions_.GetFMUState(instance_, &saved_state_), "fmi3GetFMUState",
          to_seconds(current_time_));
    saved_time_ = current_time_;
    saved_real_outputs_ = real_outputs_;  // same sizes: no allocation
    saved_discrete_outputs_ = discrete_outputs_;
    clocks_.save();
  }

  void restore_state() override {
    require_rollback("restore_state");
    if (saved_state_ == nullptr) violation("restore_state without a saved state");
    check(functions_.SetFMUState(instance_, saved_state_), "fmi3SetFMUState",
          to_seconds(saved_time_));
    current_time_ = saved_time_;
    real_outputs_ = saved_real_outputs_;
    discrete_outputs_ = saved_discrete_outputs_;
    clocks_.restore();
  }

 private:
  /// Input polynomials are evaluated at each activation: any degree up to 3
  /// (1 unless the scenario says otherwise).
  SlaveCapabilities capabilities_of(const fmi::FmuSettings& settings) const {
    const ScheduledExecutionInterface& se = *package_->description().scheduled_execution;
    SlaveCapabilities capabilities =
        fmi::co_simulation_capabilities({0, se.capabilities.can_get_and_set_fmu_state, true,
                                         package_->description().default_experiment.step_size},
                                        settings.limits, slave_name_, package_->path());
    const int degree = settings.limits.max_input_degree.value_or(1);
    if (degree < 0 || degree > fmi::kMaxFmuInputDegree) {
      configuration_error(settings, *package_,
                          "capabilities.max_input_degree " + std::to_string(degree) +
                              " is more than couplet gives an FMU (" +
                              std::to_string(fmi::kMaxFmuInputDegree) + ")");
    }
    capabilities.max_input_degree = degree;
    return capabilities;
  }

  /// The partition's inputs at `time`, fmi3ActivateModelPartition, its
  /// outputs; then what the activation may have set: countdown clocks' next
  /// ticks and, when the FMU called clockUpdate, output clocks' ticks.
  void activate(InputClock& clock, Time time, const StepRequest& request) {
    clocks_.set_inputs(instance_, clocks_.unclocked(), time, request);
    clocks_.set_inputs(instance_, clock.ports, time, request);
    check(functions_.ActivateModelPartition(instance_, clock.reference, to_seconds(time)),
          "fmi3ActivateModelPartition", to_seconds(time));
    if (clock.is_changing) clocks_.schedule_changing(instance_, clock, time);
    read_outputs(clock.ports, time);
    read_outputs(clocks_.unclocked(), time);
    clocks_.ask_countdowns(instance_, time);
    if (!clock_updated_) return;
    clock_updated_ = false;
    clocks_.read_output_clocks(instance_, time, real_outputs_, discrete_outputs_);
  }

  void read_outputs(ClockedPorts& ports, Time time) {
    clocks_.read_outputs(instance_, ports, time, real_outputs_, discrete_outputs_);
  }

  void write_sample(std::span<double> sample) const {
    std::copy(real_outputs_.begin(), real_outputs_.end(), sample.begin());
  }

  /// fmi3ClockUpdateCallback, inside an activation: an output clock ticked or
  /// a countdown clock's interval is set; noted, and asked after it returns.
  static void clock_update(fmi3InstanceEnvironment environment) {
    if (environment == nullptr) return;
    static_cast<ScheduledExecutionSlave*>(static_cast<LogRing*>(environment)->context)
        ->clock_updated_ = true;
  }

  void check(fmi3Status status, const char* call, double time) const {
    check_status(status, call, time, slave_name_, *package_, *log_);
  }
  void setup_check(fmi3Status status, const char* call) const {
    check_status(status, call, std::nullopt, slave_name_, *package_, *log_);
  }
  [[noreturn]] void violation(const std::string& why) const {
    throw ProtocolViolation("slave '" + slave_name_ + "': " + why);
  }
  void require_set_up(const char* call) const { check_set_up(slave_name_, is_set_up_, call); }
  void require_rollback(const char* call) const {
    check_rollback(slave_name_, description_, is_set_up_, call);
  }

  std::shared_ptr<Package> package_;
  const Functions& functions_;
  std::string slave_name_;
  std::unique_ptr<LogRing> log_;  ///< stable address for the callback
  ArrayLayout layout_;
  Clocks clocks_;
  bool latch_output_clocks_ = false;  ///< steps keep the output clocks (a real-time target)
  bool clock_updated_ = false;
  fmi3Instance instance_ = nullptr;
  SlaveDescription description_;
  // The outputs as the latest activation of their partitions left them;
  // sized at construction.
  std::vector<double> real_outputs_, saved_real_outputs_;
  std::vector<std::int64_t> discrete_outputs_, saved_discrete_outputs_;
  fmi3FMUState saved_state_ = nullptr;
  Time current_time_ = 0;
  Time saved_time_ = 0;
  bool is_set_up_ = false;
};

}  // namespace

std::unique_ptr<Slave> make_scheduled_execution_slave(std::shared_ptr<Package> package,
                                                      const fmi::FmuSettings& settings) {
  return std::make_unique<ScheduledExecutionSlave>(std::move(package), settings);
}

}  // namespace couplet::models::fmi3
