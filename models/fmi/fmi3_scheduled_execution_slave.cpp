// FMI 3.0 scheduled execution (§5) as a slave: the partitions' activations of
// one communication step in time order — the next tick of any periodic input
// clock, found by integer arithmetic on nanosecond ticks, so nothing is
// allocated and every run makes the same activations at the same times.
#include "models/fmi/fmi3_scheduled_execution_slave.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/fmi/fmi3_instance.hpp"
#include "models/fmi/fmi3_port_values.hpp"
#include "models/scheduled_activations.hpp"

namespace couplet::models::fmi3 {
namespace {

constexpr std::size_t kNoPort = std::numeric_limits<std::size_t>::max();

/// One input clock and the ports of its model partition: their places among
/// the slave's ports, and the exchange with the FMU.
struct Partition {
  std::uint32_t clock = 0;  ///< value reference
  std::string name;
  std::uint32_t priority = 0;
  bool is_periodic = false;
  bool is_countdown = false;  ///< ticks when the FMU sets its interval (§2.3.4)
  bool is_changing = false;   ///< ticks again `interval` after each tick, the FMU's latest
  bool ask_interval = false;  ///< fixed or tunable without intervalDecimal: asked in setup()
  std::optional<Time> countdown;  ///< countdown: its pending tick
  std::optional<Time> changing_tick;  ///< changing: its next tick
  Time interval = 0;          ///< periodic: > 0 once known
  Time shift = 0;
  std::size_t trigger_port = kNoPort;  ///< triggered: its Boolean input port
  std::vector<std::size_t> inputs, discrete_inputs, outputs, discrete_outputs;
  std::optional<PortValues> input_values, discrete_input_values, output_values,
      discrete_output_values;
  std::vector<double> real_in, real_out;
  std::vector<std::int64_t> discrete_in, discrete_out;

  bool periodic() const { return is_periodic; }

  /// The first tick at or after `time`.
  Time next_tick(Time time) const {
    if (time <= shift) return shift;
    return shift + (time - shift + interval - 1) / interval * interval;
  }
};

bool belongs_to(const Variable& variable, std::uint32_t clock) {
  return std::find(variable.clocks.begin(), variable.clocks.end(), clock) != variable.clocks.end();
}

class ScheduledExecutionSlave final : public Slave, public ScheduledActivations {
 public:
  ScheduledExecutionSlave(std::shared_ptr<Package> package, const fmi::FmuSettings& settings)
      : package_(std::move(package)),
        functions_(package_->load(Interface::scheduled_execution)),
        slave_name_(settings.slave_name),
        log_(std::make_unique<LogRing>()),
        layout_(array_layout(*package_, settings)) {
    const std::vector<std::string> clock_names = read_clocks(settings);
    fmi::FmuSettings port_settings = settings;
    if (port_settings.coupled_inputs) {  // a triggered clock's port is no FMU variable
      std::erase_if(*port_settings.coupled_inputs, [&clock_names](const std::string& name) {
        return std::find(clock_names.begin(), clock_names.end(), name) != clock_names.end();
      });
    }
    const PortElements ports = port_elements(*package_, port_settings, layout_);
    PortDescriptions described = describe_ports(*package_, layout_, ports, settings);
    description_.inputs = std::move(described.inputs);
    description_.outputs = std::move(described.outputs);
    description_.discrete_inputs = std::move(described.discrete_inputs);
    description_.discrete_outputs = std::move(described.discrete_outputs);
    for (Partition& partition : partitions_) {
      const bool coupled =
          !settings.coupled_inputs ||
          std::find(settings.coupled_inputs->begin(), settings.coupled_inputs->end(),
                    partition.name) != settings.coupled_inputs->end();
      if (partition.periodic() || partition.is_countdown || partition.is_changing || !coupled)
        continue;
      partition.trigger_port = description_.discrete_inputs.size();
      description_.discrete_inputs.push_back({partition.name, DiscreteType::boolean, "", 0});
    }
    first_clock_output_ = description_.discrete_outputs.size();
    for (const std::string& name : output_clock_names_)
      description_.discrete_outputs.push_back({name, DiscreteType::boolean, "", 0});
    output_clock_values_ = std::make_unique<fmi3Clock[]>(output_clocks_.size());
    assign_ports(ports, settings);
    description_.capabilities = capabilities_of(settings);
    real_outputs_.assign(description_.outputs.size(), 0.0);
    discrete_outputs_.assign(description_.discrete_outputs.size(), 0);
    held_triggers_.assign(description_.discrete_inputs.size(), 0);
    saved_real_outputs_ = real_outputs_;
    saved_discrete_outputs_ = discrete_outputs_;
    saved_triggers_ = held_triggers_;
    saved_countdowns_.assign(partitions_.size(), std::nullopt);
    saved_changing_ticks_.assign(partitions_.size(), std::nullopt);
    saved_intervals_.assign(partitions_.size(), 0);
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
    const double at = to_seconds(start);
    setup_check(functions_.EnterInitializationMode(instance_, fmi3False, 0.0, at, fmi3False, 0.0),
                "fmi3EnterInitializationMode");
    for (Partition& partition : partitions_) {
      read_outputs(partition, at);  // the initial values
      if (partition.ask_interval) ask_interval(partition, at);
      if (partition.is_changing) partition.changing_tick = std::max(start, partition.shift);
    }
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
    for (Partition& partition : partitions_) {
      if (partition.trigger_port == kNoPort) continue;
      const std::int64_t value = request.discrete_inputs[partition.trigger_port];
      const bool rises = value != 0 && held_triggers_[partition.trigger_port] == 0;
      held_triggers_[partition.trigger_port] = value;
      if (rises) activate(partition, request.start, request);
    }
    std::size_t sample = 0;
    Time cursor = request.start;
    while (true) {
      const Time next = next_activation(cursor);
      if (next >= request.end) break;
      // A sample at the time of an activation shows the outputs before it.
      for (; sample < request.sample_times.size() && request.sample_times[sample] <= next; ++sample)
        write_sample(result.samples.subspan(sample * outputs, outputs));
      for (Partition& partition : partitions_) {  // in priority order
        const bool ticks = partition.periodic()
                               ? partition.next_tick(cursor) == next
                               : partition.changing_tick && *partition.changing_tick <= next;
        if (ticks) activate(partition, next, request);
      }
      // Countdown ticks of this instant, those set by its activations included.
      for (bool again = true; again;) {
        again = false;
        for (Partition& partition : partitions_) {
          if (!partition.countdown || *partition.countdown > next) continue;
          partition.countdown.reset();
          activate(partition, next, request);
          again = true;
        }
      }
      cursor = next + 1;
    }
    for (; sample < request.sample_times.size(); ++sample)
      write_sample(result.samples.subspan(sample * outputs, outputs));
    std::copy(real_outputs_.begin(), real_outputs_.end(), result.end_outputs.begin());
    std::copy(discrete_outputs_.begin(), discrete_outputs_.end(), result.discrete_outputs.begin());
    current_time_ = request.end;
  }

  Time next_activation(Time time) const override {
    Time next = std::numeric_limits<Time>::max();
    for (const Partition& partition : partitions_) {
      if (partition.periodic() && partition.interval > 0)
        next = std::min(next, partition.next_tick(time));
      if (partition.countdown) next = std::min(next, std::max(*partition.countdown, time));
      if (partition.changing_tick) next = std::min(next, std::max(*partition.changing_tick, time));
    }
    return next;
  }

  void latch_output_clocks() override { latch_output_clocks_ = true; }

  void clear_output_clocks() override {
    std::fill(discrete_outputs_.begin() + static_cast<std::ptrdiff_t>(first_clock_output_),
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
    saved_triggers_ = held_triggers_;
    for (std::size_t k = 0; k < partitions_.size(); ++k)
      saved_countdowns_[k] = partitions_[k].countdown;
    for (std::size_t k = 0; k < partitions_.size(); ++k) {
      saved_changing_ticks_[k] = partitions_[k].changing_tick;
      saved_intervals_[k] = partitions_[k].interval;
    }
  }

  void restore_state() override {
    require_rollback("restore_state");
    if (saved_state_ == nullptr) violation("restore_state without a saved state");
    check(functions_.SetFMUState(instance_, saved_state_), "fmi3SetFMUState",
          to_seconds(saved_time_));
    current_time_ = saved_time_;
    real_outputs_ = saved_real_outputs_;
    discrete_outputs_ = saved_discrete_outputs_;
    held_triggers_ = saved_triggers_;
    for (std::size_t k = 0; k < partitions_.size(); ++k)
      partitions_[k].countdown = saved_countdowns_[k];
    for (std::size_t k = 0; k < partitions_.size(); ++k) {
      partitions_[k].changing_tick = saved_changing_ticks_[k];
      partitions_[k].interval = saved_intervals_[k];
    }
  }

 private:
  /// The input clocks, sorted by priority then value reference; their names.
  std::vector<std::string> read_clocks(const fmi::FmuSettings& settings) {
    const Description& description = package_->description();
    std::vector<std::string> names;
    for (const Variable& variable : description.variables) {
      if (!variable.clock) continue;
      const ClockProperties& clock = *variable.clock;
      const auto refuse = [&](const std::string& why) {
        configuration_error(
            settings, *package_,
            "clock " + fmi::single_quoted(variable.name) + ": " + why + " (docs/fmi.md, FMI 3.0)");
      };
      if (variable.causality == Causality::output) {
        output_clocks_.push_back(variable.value_reference);
        output_clock_names_.push_back(variable.name);
        continue;
      }
      if (variable.causality != Causality::input)
        refuse("only input and output clocks are supported in scheduled execution");
      Partition partition;
      partition.clock = variable.value_reference;
      partition.name = variable.name;
      partition.priority = clock.priority.value_or(0);
      switch (clock.interval_variability) {
        case IntervalVariability::constant:
        case IntervalVariability::fixed:
        case IntervalVariability::tunable: {
          partition.is_periodic = true;
          partition.shift = to_ticks(clock.shift_decimal.value_or(0.0));
          if (partition.shift < 0) refuse("its shift must not be negative");
          if (!clock.interval_decimal) {
            // The FMU tells it in Initialization Mode (§2.3.4).
            if (clock.interval_variability == IntervalVariability::constant)
              refuse("a constant clock needs an intervalDecimal");
            if (functions_.GetIntervalDecimal == nullptr)
              refuse("it has no intervalDecimal and the FMU lacks fmi3GetIntervalDecimal");
            partition.ask_interval = true;
            break;
          }
          partition.interval = to_ticks(*clock.interval_decimal);
          if (partition.interval <= 0) refuse("its interval must be at least 1 ns");
          break;
        }
        case IntervalVariability::triggered:
          break;
        case IntervalVariability::countdown:
          if (functions_.GetIntervalDecimal == nullptr)
            refuse("a countdown clock needs fmi3GetIntervalDecimal, which the FMU lacks");
          partition.is_countdown = true;
          break;
        case IntervalVariability::changing:
          // Ticks at its shift, then an interval later each time: the
          // intervalDecimal or what the FMU tells in Initialization Mode
          // first, after each tick what fmi3GetIntervalDecimal says then.
          if (functions_.GetIntervalDecimal == nullptr)
            refuse("a changing clock needs fmi3GetIntervalDecimal, which the FMU lacks");
          partition.is_changing = true;
          partition.shift = to_ticks(clock.shift_decimal.value_or(0.0));
          if (partition.shift < 0) refuse("its shift must not be negative");
          if (clock.interval_decimal) {
            partition.interval = to_ticks(*clock.interval_decimal);
            if (partition.interval <= 0) refuse("its interval must be at least 1 ns");
          } else {
            partition.ask_interval = true;
          }
          break;
      }
      partitions_.push_back(std::move(partition));
      names.push_back(variable.name);
    }
    std::sort(partitions_.begin(), partitions_.end(), [](const Partition& a, const Partition& b) {
      return a.priority != b.priority ? a.priority < b.priority : a.clock < b.clock;
    });
    if (!output_clocks_.empty() && functions_.GetClock == nullptr) {
      configuration_error(settings, *package_,
                          "output clock " + fmi::single_quoted(output_clock_names_.front()) +
                              ": the FMU lacks fmi3GetClock");
    }
    return names;
  }

  /// Each port into the partitions of the clocks it belongs to; a port of no
  /// clock is exchanged at every activation.
  void assign_ports(const PortElements& ports, const fmi::FmuSettings& settings) {
    const Description& description = package_->description();
    const auto assign = [&](const std::vector<Element>& elements, auto member) {
      for (std::size_t port = 0; port < elements.size(); ++port) {
        const Variable& variable = description.variables[elements[port].variable];
        bool placed = false;
        for (Partition& partition : partitions_) {
          if (!belongs_to(variable, partition.clock)) continue;
          (partition.*member).push_back(port);
          placed = true;
        }
        if (!placed) (always_.*member).push_back(port);
      }
    };
    assign(ports.inputs, &Partition::inputs);
    assign(ports.discrete_inputs, &Partition::discrete_inputs);
    assign(ports.outputs, &Partition::outputs);
    assign(ports.discrete_outputs, &Partition::discrete_outputs);
    const auto pick = [](const std::vector<Element>& elements,
                         const std::vector<std::size_t>& indices) {
      std::vector<Element> picked;
      for (const std::size_t k : indices) picked.push_back(elements[k]);
      return picked;
    };
    const auto prepare = [&](Partition& p) {
      p.input_values.emplace(*package_, layout_, pick(ports.inputs, p.inputs), settings.parameters);
      p.discrete_input_values.emplace(
          *package_, layout_, pick(ports.discrete_inputs, p.discrete_inputs), settings.parameters);
      p.output_values.emplace(*package_, layout_, pick(ports.outputs, p.outputs));
      p.discrete_output_values.emplace(*package_, layout_,
                                       pick(ports.discrete_outputs, p.discrete_outputs));
      p.real_in.assign(p.inputs.size(), 0.0);
      p.real_out.assign(p.outputs.size(), 0.0);
      p.discrete_in.assign(p.discrete_inputs.size(), 0);
      p.discrete_out.assign(p.discrete_outputs.size(), 0);
    };
    for (Partition& p : partitions_) prepare(p);
    prepare(always_);
  }

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

  /// The interval of a periodic clock that the FMU tells (fmi3GetIntervalDecimal).
  void ask_interval(Partition& partition, double at) {
    fmi3Float64 interval = 0.0;
    fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
    setup_check(
        functions_.GetIntervalDecimal(instance_, &partition.clock, 1, &interval, &qualifier),
        "fmi3GetIntervalDecimal");
    partition.interval = qualifier == fmi3IntervalNotYetKnown ? 0 : to_ticks(interval);
    if (partition.interval <= 0) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", interval);
      throw ConfigurationError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                               "': fmi3GetIntervalDecimal gave clock " +
                               fmi::single_quoted(partition.name) +
                               (qualifier == fmi3IntervalNotYetKnown
                                    ? std::string(" no interval (fmi3IntervalNotYetKnown)")
                                    : " the interval " + std::string(text) + " s") +
                               " at t = " + seconds_text(to_ticks(at)) +
                               " s: a periodic clock needs one of at least 1 ns");
    }
  }

  /// The partition's inputs at `time`, fmi3ActivateModelPartition, its outputs.
  void activate(Partition& partition, Time time, const StepRequest& request) {
    const double at = to_seconds(time);
    set_inputs(always_, at, request);
    set_inputs(partition, at, request);
    check(functions_.ActivateModelPartition(instance_, partition.clock, at),
          "fmi3ActivateModelPartition", at);
    if (partition.is_changing) schedule_changing(partition, time);
    read_outputs(partition, at);
    read_outputs(always_, at);
    after_activation(time);
  }

  /// A changing clock's next tick, after its tick at `time`: its interval
  /// later, the one fmi3GetIntervalDecimal says changed, else the last.
  void schedule_changing(Partition& partition, Time time) {
    const double at = to_seconds(time);
    fmi3Float64 interval = 0.0;
    fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
    check(functions_.GetIntervalDecimal(instance_, &partition.clock, 1, &interval, &qualifier),
          "fmi3GetIntervalDecimal", at);
    if (qualifier == fmi3IntervalChanged) {
      const Time ticks = interval > 0.0 && interval < 1e8 ? to_ticks(interval) : 0;
      if (ticks <= 0) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", interval);
        throw SlaveError("slave '" + slave_name_ + "': FMU '" + package_->path() +
                         "': fmi3GetIntervalDecimal gave the changing clock " +
                         fmi::single_quoted(partition.name) + " the interval " + text +
                         " s at t = " + seconds_text(time) +
                         " s: its next tick needs one of at least 1 ns");
      }
      partition.interval = ticks;
    }
    partition.changing_tick = time + partition.interval;
  }

  /// What an activation may have set: countdown clocks' next ticks
  /// (fmi3GetIntervalDecimal) and output clocks' ticks (fmi3GetClock, when
  /// the FMU called clockUpdate).
  void after_activation(Time time) {
    const double at = to_seconds(time);
    for (Partition& partition : partitions_) {
      if (!partition.is_countdown) continue;
      fmi3Float64 interval = 0.0;
      fmi3IntervalQualifier qualifier = fmi3IntervalNotYetKnown;
      check(functions_.GetIntervalDecimal(instance_, &partition.clock, 1, &interval, &qualifier),
            "fmi3GetIntervalDecimal", at);
      if (qualifier == fmi3IntervalChanged && interval >= 0.0)
        partition.countdown = time + to_ticks(interval);
    }
    if (!clock_updated_) return;
    clock_updated_ = false;
    check(functions_.GetClock(instance_, output_clocks_.data(), output_clocks_.size(),
                              output_clock_values_.get()),
          "fmi3GetClock", at);
    for (std::size_t k = 0; k < output_clocks_.size(); ++k)
      if (output_clock_values_[k]) discrete_outputs_[first_clock_output_ + k] = 1;
  }

  void set_inputs(Partition& partition, double at, const StepRequest& request) {
    if (!partition.inputs.empty()) {
      for (std::size_t i = 0; i < partition.inputs.size(); ++i)
        partition.real_in[i] = request.inputs[partition.inputs[i]].value(at);
      check(partition.input_values->set(instance_, partition.real_in), at);
    }
    if (!partition.discrete_inputs.empty()) {
      for (std::size_t i = 0; i < partition.discrete_inputs.size(); ++i)
        partition.discrete_in[i] = request.discrete_inputs[partition.discrete_inputs[i]];
      check(partition.discrete_input_values->set(instance_, partition.discrete_in, slave_name_),
            at);
    }
  }

  void read_outputs(Partition& partition, double at) {
    if (!partition.outputs.empty()) {
      check(partition.output_values->get(instance_, partition.real_out), at);
      for (std::size_t i = 0; i < partition.outputs.size(); ++i)
        real_outputs_[partition.outputs[i]] = partition.real_out[i];
    }
    if (!partition.discrete_outputs.empty()) {
      check(partition.discrete_output_values->get(instance_, partition.discrete_out, slave_name_),
            at);
      for (std::size_t i = 0; i < partition.discrete_outputs.size(); ++i)
        discrete_outputs_[partition.discrete_outputs[i]] = partition.discrete_out[i];
    }
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

  void check(const std::optional<PortValues::Failure>& failure, double time) const {
    if (failure) check(failure->status, failure->call, time);
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
  std::vector<Partition> partitions_;  ///< by priority, then value reference
  Partition always_;                   ///< the ports of no clock: exchanged at every activation
  std::vector<fmi3ValueReference> output_clocks_;
  std::vector<std::string> output_clock_names_;
  std::unique_ptr<fmi3Clock[]> output_clock_values_;  ///< not std::vector: fmi3Clock is bool
  std::size_t first_clock_output_ = 0;                ///< the output clocks' ports, after the FMU's
  bool latch_output_clocks_ = false;  ///< steps keep the output clocks (a real-time target)
  bool clock_updated_ = false;
  fmi3Instance instance_ = nullptr;
  SlaveDescription description_;
  // The outputs as the latest activation of their partitions left them, and
  // the triggers' held values; sized at construction.
  std::vector<double> real_outputs_, saved_real_outputs_;
  std::vector<std::int64_t> discrete_outputs_, saved_discrete_outputs_;
  std::vector<std::int64_t> held_triggers_, saved_triggers_;
  std::vector<std::optional<Time>> saved_countdowns_;  ///< the countdown clocks' pending ticks
  std::vector<std::optional<Time>> saved_changing_ticks_;  ///< the changing clocks' next ticks
  std::vector<Time> saved_intervals_;                      ///< and their intervals
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
