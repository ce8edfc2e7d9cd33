#include "runtime/algorithms/defect_controlled_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "couplet/errors.hpp"
#include "runtime/defects.hpp"

namespace couplet {
namespace {

// The orders of the paper's experiments (m = n ∈ {0, 1, 2}, §4) and of issue 3.
constexpr int kMaxOrder = 2;

void check_order(int order, const char* key) {
  if (order < 0 || order > kMaxOrder) {
    throw ConfigurationError(std::string("algorithm.") + key + ": must be a whole number from 0 to " +
                             std::to_string(kMaxOrder) + ", got " + std::to_string(order));
  }
}

bool monitors_connections(MonitoredDefects monitored) { return monitored != MonitoredDefects::output; }
bool monitors_outputs(MonitoredDefects monitored) { return monitored != MonitoredDefects::connection; }

}  // namespace

DefectControlledJacobi::DefectControlledJacobi(const DefectControlSettings& settings) : settings_(settings) {
  check_order(settings_.input_order, "input_order");
  check_order(settings_.output_order, "output_order");
  if (settings_.fixed_step < 0) throw ConfigurationError("algorithm.step: must be positive");
  if (settings_.fixed_step == 1) {
    throw ConfigurationError("algorithm.step: must be at least 2 ns, so that the midpoint sample lies inside the step");
  }
  if (settings_.fixed_step == 0) controller_.emplace(settings_.controller);  // validates the controller keys
}

int DefectControlledJacobi::input_derivatives() const {
  return std::min(settings_.input_order, settings_.output_order);  // eq. 15: m ≤ m_i and m ≤ n_i
}

AlgorithmRequirements DefectControlledJacobi::requirements() const {
  return {.algorithm_name = std::string(name()),
          .required_input_degree = input_derivatives(),
          .required_output_derivatives = settings_.output_order};
}

void DefectControlledJacobi::start(const RunSetup& setup, std::span<StepSlot> slots) {
  sources_ = InputSources(setup.system);
  start_ = setup.start;
  end_ = setup.end;
  time_ = start_;
  next_landing_ = 0;
  check_time_grid(setup.system, start_, end_);
  describe_system(setup.system);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    slots[s].sample_times.clear();
    if (samples_midpoint_[s]) slots[s].sample_times.reserve(1);  // the executor sizes samples from this
  }
  abort_step_ = 0.0;
  collapse_ = CollapseWatch{};
  if (settings_.fixed_step > 0) {
    next_step_ = settings_.fixed_step;
  } else {
    abort_step_ = abort_step(settings_.abort_below_step, start_, end_);
    // Steps are whole ticks, at least minimum_step_: the controller proposes no
    // less, so that its anti-windup sees the bound the run actually has.
    PiStepControllerSettings controller = settings_.controller;
    const double floor = to_seconds(minimum_step_);
    controller.min_step = std::max(controller.min_step, floor);
    controller.max_step = std::max(controller.max_step, controller.min_step);
    controller.initial_step = std::clamp(controller.initial_step, controller.min_step, controller.max_step);
    controller_.emplace(controller);
    next_step_ = round_step(controller.initial_step);
  }
  record_ = DefectControlStepRecord{};
  record_.connection_defect_rms = step_connection_rms_;
  record_.output_defect_rms = step_output_rms_;
  largest_step_defect_ = 0.0;
  smallest_step_ = 0.0;
  largest_step_ = 0.0;
  limited_steps_ = 0;
}

void DefectControlledJacobi::check_time_grid(const System& system, Time start, Time end) {
  quantum_ = 1;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const Time imposed = system.description(s).capabilities.imposed_step;
    if (imposed > 0) quantum_ = std::lcm(quantum_, imposed);
  }
  minimum_step_ = quantum_ == 1 ? 2 : quantum_;
  if ((end - start) % quantum_ != 0) {
    throw ConfigurationError("the time span is not a multiple of " + std::to_string(to_seconds(quantum_)) +
                             " s, the step the slaves impose (every macro step must be a multiple of it)");
  }
  if (end - start < minimum_step_) {
    throw ConfigurationError("the time span is shorter than one macro step with a midpoint sample (" +
                             std::to_string(minimum_step_) + " ns)");
  }
  if (settings_.fixed_step > 0 && settings_.fixed_step % quantum_ != 0) {
    throw ConfigurationError("algorithm.step: must be a multiple of " + std::to_string(to_seconds(quantum_)) +
                             " s, the step the slaves impose");
  }
}

// The connections in the system's order; every output of a slave that reports
// intermediate samples. An output-defect estimate needs the midpoint sample, so a
// slave without them is an error when output defects are monitored, and its
// outputs are only left out when they are not.
void DefectControlledJacobi::describe_system(const System& system) {
  connections_.clear();
  connection_names_.clear();
  for (const Connection& connection : system.connections()) {
    connections_.push_back({connection.source, connection.target});
    connection_names_.push_back(system.input_name(connection.target));
  }
  outputs_.clear();
  output_names_.clear();
  samples_midpoint_.assign(system.slave_count(), false);
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription& description = system.description(s);
    if (description.outputs.empty()) continue;
    if (!description.capabilities.intermediate_samples) {
      if (monitors_outputs(settings_.monitored)) {
        throw ConfigurationError("slave '" + system.slave_name(s) +
                                 "' does not report intermediate samples, which the output-defect estimate "
                                 "needs (Glumac eqs. 30-32): set algorithm.defect to 'connection'");
      }
      continue;
    }
    samples_midpoint_[s] = true;
    const int order = std::min(settings_.output_order, description.capabilities.output_derivative_order);
    for (std::size_t j = 0; j < description.outputs.size(); ++j) {
      outputs_.push_back({{s, j}, order});
      output_names_.push_back(system.output_name({s, j}));
    }
  }
  step_connection_rms_.assign(connections_.size(), 0.0);
  step_output_rms_.assign(outputs_.size(), 0.0);
  connection_square_integral_.assign(connections_.size(), 0.0);
  output_square_integral_.assign(outputs_.size(), 0.0);
}

Time DefectControlledJacobi::round_step(double seconds) const {
  // No step is longer than the whole span: this also keeps the conversion in range.
  const double bounded = std::min(seconds, to_seconds(end_ - start_));
  const Time ticks = step_to_ticks(bounded);
  const Time multiple = (ticks + quantum_ / 2) / quantum_ * quantum_;
  return std::max(multiple, minimum_step_);
}

// The last step ends exactly at t_end; a remainder shorter than the minimum step
// is absorbed into the step before it rather than left as a sliver.
Time DefectControlledJacobi::clip_to_end(Time from, Time step) const {
  const Time remaining = end_ - from;
  if (step >= remaining || remaining - step < minimum_step_) return remaining;
  return step;
}

// A step that would cross the next landing time ends there instead, when a
// step there is possible: on the imposed grid, with room for a midpoint, and
// leaving no sliver before t_end. The controller's proposal stays as it was.
Time DefectControlledJacobi::clip_to_landing(Time from, Time step) {
  const std::vector<Time>& landings = settings_.landing_times;
  while (next_landing_ < landings.size() && landings[next_landing_] <= from) ++next_landing_;
  if (next_landing_ == landings.size()) return step;
  const Time landing = landings[next_landing_];
  const Time distance = landing - from;
  const Time after = end_ - landing;
  const bool possible = distance % quantum_ == 0 && distance >= minimum_step_ &&
                        (after == 0 || after >= minimum_step_);
  return possible && distance < step ? distance : step;
}

bool DefectControlledJacobi::plan_next(std::span<StepSlot> slots, Plan& plan) {
  if (time_ >= end_) return false;
  const Time step = settings_.fixed_step > 0 ? clip_to_end(time_, next_step_)
                                             : clip_to_landing(time_, clip_to_end(time_, next_step_));
  const Time to = time_ + step;
  planned_end_ = to;
  midpoint_ = time_ + step / 2;  // an odd step puts it half a tick early; defects.hpp copes
  const double scale = to_seconds(step);
  // Every input first, from the outputs at T_{k−1}, before any slave steps (Jacobi).
  for (std::size_t s = 0; s < slots.size(); ++s) {
    StepSlot& slot = slots[s];
    slot.start = time_;
    slot.end = to;
    assign_taylor_inputs(s, sources_, slots, input_derivatives(), scale);
    slot.sample_times.clear();
    if (samples_midpoint_[s]) slot.sample_times.push_back(midpoint_);
    plan.add(s);
  }
  return true;
}

void DefectControlledJacobi::measure_connections(std::span<const StepSlot> slots, double step_start,
                                                 double step) {
  for (std::size_t c = 0; c < connections_.size(); ++c) {
    const MonitoredConnection& connection = connections_[c];
    const Polynomial& input = slots[connection.target.slave].inputs[connection.target.port];
    // ỹ on this step: the Taylor polynomial of order n at T_k of the source (eq. 12).
    const Polynomial output =
        taylor_from_outputs(slots[connection.source.slave], connection.source.port, settings_.output_order, step);
    const double square = mean_square(connection_defect(input, output, step_start, step), step_start, step_start + step);
    step_connection_rms_[c] = std::sqrt(square);
    connection_square_integral_[c] += square * step;
  }
}

void DefectControlledJacobi::measure_outputs(std::span<const StepSlot> slots, double midpoint,
                                             double midpoint_to_end, double step) {
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    const MonitoredOutput& output = outputs_[o];
    const StepSlot& slot = slots[output.port.slave];
    const Polynomial taylor = taylor_from_outputs(slot, output.port.port, output.order, step);
    const double rms = output_defect_rms(taylor.value(midpoint), slot.sample(0, output.port.port), step,
                                         midpoint_to_end, output.order);
    step_output_rms_[o] = rms;
    output_square_integral_[o] += rms * rms * step;
  }
}

// Eq. 38: the largest RMS over the monitored connections and outputs.
double DefectControlledJacobi::controlled_defect() const {
  double defect = 0.0;
  if (monitors_connections(settings_.monitored)) {
    for (const double rms : step_connection_rms_) defect = std::max(defect, rms);
  }
  if (monitors_outputs(settings_.monitored)) {
    for (const double rms : step_output_rms_) defect = std::max(defect, rms);
  }
  return defect;
}

void DefectControlledJacobi::accept(std::span<const StepSlot> slots, const Plan&) {
  const Time from = time_;
  const Time to = planned_end_;
  const double step = to_seconds(to - from);
  // Lengths from tick differences, exact; times as the slots' polynomials have them.
  measure_connections(slots, to_seconds(from), step);
  measure_outputs(slots, to_seconds(midpoint_), to_seconds(to - midpoint_), step);
  const double defect = controlled_defect();

  const bool clipped = to - from != next_step_;
  record_.index += 1;
  record_.start = from;
  record_.end = to;
  record_.midpoint = midpoint_;
  record_.defect = defect;
  largest_step_defect_ = std::max(largest_step_defect_, defect);
  // A last step cut short at t_end says nothing about the controller: the smallest
  // step counts it only when it is the only step.
  if (!clipped || record_.index == 1) {
    smallest_step_ = record_.index == 1 ? step : std::min(smallest_step_, step);
  }
  largest_step_ = std::max(largest_step_, step);
  time_ = to;
  choose_next_step(step);
}

void DefectControlledJacobi::choose_next_step(double step_seconds) {
  if (settings_.fixed_step > 0) {
    record_.controlled = false;
    record_.next_step = settings_.fixed_step;
    next_step_ = settings_.fixed_step;
    return;
  }
  record_.controlled = true;
  record_.controller = controller_->next(record_.defect, step_seconds);
  if (record_.controller.limited) ++limited_steps_;
  // The step after the last is never taken.
  if (time_ < end_ && collapse_.collapsed(record_.controller.step, abort_step_)) stop_collapsed_run();
  next_step_ = round_step(record_.controller.step);
  record_.next_step = next_step_;
}

// The connection or output with the largest monitored defect this step: the one
// that held the step down.
std::string DefectControlledJacobi::largest_defect_name() const {
  std::string name;
  double largest = -1.0;
  if (monitors_connections(settings_.monitored)) {
    for (std::size_t c = 0; c < connections_.size(); ++c) {
      if (step_connection_rms_[c] > largest) {
        largest = step_connection_rms_[c];
        name = "the connection defect of input " + connection_names_[c];
      }
    }
  }
  if (monitors_outputs(settings_.monitored)) {
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      if (step_output_rms_[o] > largest) {
        largest = step_output_rms_[o];
        name = "the output defect of " + output_names_[o];
      }
    }
  }
  return name.empty() ? "the defect" : name;
}

void DefectControlledJacobi::stop_collapsed_run() const {
  char numbers[256];
  std::snprintf(numbers, sizeof numbers,
                "defect control: %u steps in a row below algorithm.abort_below_step (%.3g s), the last %.3g s at "
                "t = %.9g s; the largest defect is ",
                static_cast<unsigned>(kCollapsedSteps), abort_step_, record_.controller.step, to_seconds(time_));
  char defect[128];
  std::snprintf(defect, sizeof defect, " (%.3g against algorithm.tol %.3g)", record_.defect,
                settings_.controller.tolerance);
  throw SlaveError(std::string(numbers) + largest_defect_name() + defect +
                   ". Raise algorithm.tol, set algorithm.min_step to go on at a bounded step, or lower "
                   "algorithm.abort_below_step (0: never stop)");
}

void DefectControlledJacobi::report(AlgorithmReport& report) const {
  const double span = to_seconds(time_ - start_);
  if (record_.index == 0 || !(span > 0.0)) return;
  // Whole-run RMS: sqrt(Σ_k ∫ δ² dt / (t_end − t₀)), per connection and output.
  double monitored = 0.0;
  for (std::size_t c = 0; c < connections_.size(); ++c) {
    const double rms = std::sqrt(connection_square_integral_[c] / span);
    report.connection_defect_rms[connection_names_[c]] = rms;
    if (monitors_connections(settings_.monitored)) monitored = std::max(monitored, rms);
  }
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    const double rms = std::sqrt(output_square_integral_[o] / span);
    report.output_defect_rms[output_names_[o]] = rms;
    if (monitors_outputs(settings_.monitored)) monitored = std::max(monitored, rms);
  }
  report.counters["whole_run_defect_rms"] = monitored;
  report.counters["max_step_defect"] = largest_step_defect_;
  report.counters["min_step_s"] = smallest_step_;
  report.counters["mean_step_s"] = span / static_cast<double>(record_.index);
  report.counters["max_step_s"] = largest_step_;
  if (settings_.fixed_step == 0) report.counters["limited_steps"] = static_cast<double>(limited_steps_);
}

// The run log's view of last_step_record(): ε_k against tol, the controller
// state of eq. 39 and the per-step RMS defects.
std::vector<std::string> DefectControlledJacobi::internal_quantities() const {
  std::vector<std::string> names = {"step_s", "defect", "tolerance", "error_log", "integral", "next_step_s"};
  for (const std::string& name : connection_names_) names.push_back("connection_defect_rms:" + name);
  for (const std::string& name : output_names_) names.push_back("output_defect_rms:" + name);
  return names;
}

void DefectControlledJacobi::internal_values(std::span<double> values) const {
  const DefectControlStepRecord& record = record_;
  std::size_t k = 0;
  values[k++] = to_seconds(record.end - record.start);
  values[k++] = record.defect;
  values[k++] = record.controlled ? settings_.controller.tolerance : 0.0;
  values[k++] = record.controller.error_log;
  values[k++] = record.controller.integral;
  values[k++] = to_seconds(record.next_step);
  for (const double rms : record.connection_defect_rms) values[k++] = rms;
  for (const double rms : record.output_defect_rms) values[k++] = rms;
}

}  // namespace couplet
