#include "models/ode_slave.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "models/cvode_solver.hpp"
#include "models/euler_solver.hpp"
#include "models/exact_solver.hpp"
#include "models/solver.hpp"

namespace couplet::models {
namespace {

// Output derivatives reported at most up to this order (the brief's cap; the
// Taylor/Hermite input polynomials of the algorithms never need more).
constexpr int kMaxOutputDerivativeOrder = 3;

// An event closer than half a tick to a segment boundary is taken to be on it:
// boundaries are tick times, and a sliver segment would only make CVODE fail
// with "tout too close to t0" without changing the solution.
constexpr double kEventMergeDistance = 0.5 / static_cast<double>(kTicksPerSecond);

// Step of the central differences that linearize a model without a linear form,
// relative to max(1, |v|): the error of [f(v + h) − f(v − h)] / 2h is h² f‴/6 from
// truncation plus about ε |f| / h from rounding, smallest for h ~ ∛ε (≈ 6e-6),
// where both are ~ ε^(2/3) ≈ 4e-11 relative.
const double kDifferenceStep = std::cbrt(std::numeric_limits<double>::epsilon());

[[noreturn]] void configuration_error(const std::string& slave_name, const std::string& why) {
  throw ConfigurationError("ODE slave '" + slave_name + "': " + why);
}

SlaveDescription describe(const Model& model) {
  SlaveDescription description;
  const ModelDescription& model_description = model.description();
  for (std::size_t i = 0; i < model_description.inputs.size(); ++i) {
    const std::string unit = model_description.input_unit(i);
    const auto defined = model_description.unit_definitions.find(unit);
    description.inputs.push_back({model_description.inputs[i], unit,
                                  defined == model_description.unit_definitions.end()
                                      ? std::nullopt
                                      : std::optional<UnitDefinition>(defined->second)});
  }
  description.outputs = model_description.outputs;
  description.discrete_inputs = model_description.discrete_inputs;
  description.discrete_outputs = model_description.discrete_outputs;
  SlaveCapabilities& capabilities = description.capabilities;
  capabilities.max_input_degree = Polynomial::kMaxDegree;
  capabilities.output_derivative_order =
      std::clamp(model.output_derivative_order(), 0, kMaxOutputDerivativeOrder);
  capabilities.can_rollback = true;
  capabilities.variable_step = true;
  capabilities.intermediate_samples = true;
  // ẋ = A x + B u + e needs equations of x and u alone: a model reading input
  // derivatives (u̇ in f or g) has no such form, so it cannot be linearized.
  capabilities.can_linearize = model.input_derivative_order() == 0;
  capabilities.state_count = model.state_count();
  return description;
}

// Declared limits only remove capabilities (a device emulated by a model).
void apply_limits(const std::string& slave_name, const CapabilityLimits& limits,
                  SlaveCapabilities& capabilities) {
  if (limits.max_input_degree) {
    if (*limits.max_input_degree < 0 || *limits.max_input_degree > capabilities.max_input_degree) {
      configuration_error(slave_name, "max_input_degree must be between 0 and " +
                                          std::to_string(capabilities.max_input_degree));
    }
    capabilities.max_input_degree = *limits.max_input_degree;
  }
  if (limits.output_derivative_order) {
    if (*limits.output_derivative_order < 0 ||
        *limits.output_derivative_order > capabilities.output_derivative_order) {
      configuration_error(slave_name, "output_derivative_order must be between 0 and " +
                                          std::to_string(capabilities.output_derivative_order) +
                                          " (what its model provides)");
    }
    capabilities.output_derivative_order = *limits.output_derivative_order;
  }
  if (limits.imposed_step < 0) configuration_error(slave_name, "imposed_step must be >= 0");
  capabilities.imposed_step = limits.imposed_step;
  capabilities.variable_step = limits.imposed_step == 0;
  capabilities.can_rollback = limits.can_rollback;
  capabilities.intermediate_samples = limits.intermediate_samples;
}

void check_settings(const std::string& slave_name, const SolverSettings& settings) {
  if (!(settings.relative_tolerance > 0.0) || !std::isfinite(settings.relative_tolerance) ||
      !(settings.absolute_tolerance > 0.0) || !std::isfinite(settings.absolute_tolerance)) {
    configuration_error(slave_name, "solver tolerances must be finite and > 0");
  }
  if (!(settings.max_internal_step >= 0.0) || !std::isfinite(settings.max_internal_step)) {
    configuration_error(slave_name, "max_internal_step must be finite and >= 0 (0 = no limit)");
  }
  if (settings.euler_substeps < 1) {
    configuration_error(slave_name, "euler_substeps must be >= 1");
  }
}

void check_events(const std::string& slave_name, std::span<const double> events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (!std::isfinite(events[i]) || (i > 0 && !(events[i] > events[i - 1]))) {
      configuration_error(slave_name, "the model's time events must be finite and increasing");
    }
  }
}

std::unique_ptr<Solver> make_solver(const std::string& slave_name, const Model& model,
                                    const SolverSettings& settings, CvodeCarry& cvode_carry) {
  switch (settings.kind) {
    case SolverKind::cvode:
      return make_cvode_solver(model, settings, cvode_carry);
    case SolverKind::euler:
      if (model.event_indicator_count() > 0) {
        configuration_error(slave_name,
                            "the model has state events (event indicators), which only the 'cvode' "
                            "solver locates");
      }
      return make_euler_solver(model, settings.euler_substeps);
    case SolverKind::exact:
      // A model without states is never integrated (its outputs are g(t, u)), so
      // any solver serves it and the linear form does not matter (stimuli).
      if (model.state_count() > 0 && !has_linear_form_everywhere(model)) {
        configuration_error(slave_name, "solver 'exact' needs a linear model (model '" +
                                            model.description().name +
                                            "' has no linear form on some segment)");
      }
      return make_exact_solver(model);
  }
  configuration_error(slave_name, "unknown solver kind");
}

class OdeSlave final : public Slave, private SampleSink {
 public:
  OdeSlave(std::string name, std::unique_ptr<Model> model, const SolverSettings& settings,
           const CapabilityLimits& limits)
      : name_(std::move(name)), model_(std::move(model)) {
    if (!model_) configuration_error(name_, "no model given");
    check_settings(name_, settings);
    check_events(name_, model_->time_events());
    description_ = describe(*model_);
    apply_limits(name_, limits, description_.capabilities);
    // A discrete state the model cannot save (an FMU without state access that has
    // events) rules out rollback whatever the scenario declares.
    description_.capabilities.can_rollback =
        description_.capabilities.can_rollback && model_->can_save_discrete_state();
    solver_ = make_solver(name_, *model_, settings, cvode_carry_);
  }

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    const std::size_t states = model_->state_count();
    const std::size_t inputs = model_->input_count();
    const auto order = static_cast<std::size_t>(derivative_order());
    const auto read_order = static_cast<std::size_t>(model_->input_derivative_order());
    state_.assign(states, 0.0);
    saved_state_.assign(states, 0.0);
    inputs_now_.assign((read_order + 1) * inputs, 0.0);
    input_jet_.assign((order + read_order + 1) * inputs, 0.0);
    point_state_.assign(states, 0.0);
    point_inputs_.assign(inputs, 0.0);
    derivative_ahead_.assign(states, 0.0);
    derivative_behind_.assign(states, 0.0);
    output_ahead_.assign(model_->output_count(), 0.0);
    output_behind_.assign(model_->output_count(), 0.0);
    model_->start(to_seconds(start));
    model_->initial_state(state_);
    current_time_ = start;
    has_saved_state_ = false;
    if (states > 0) solver_->setup(to_seconds(start), state_);
    history_continues_ = false;
    saved_history_continues_ = false;
    attempt_ = 0;
    saved_cvode_carry_ = cvode_carry_;  // sized here, so that save_state does not allocate
    is_set_up_ = true;
  }

  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    require_set_up("evaluate_outputs");
    if (inputs.size() != model_->input_count()) {
      violation("evaluate_outputs with " + std::to_string(inputs.size()) +
                " input polynomials, expected " + std::to_string(model_->input_count()));
    }
    check_end_buffer(end_outputs);
    write_end_outputs(inputs, end_outputs);
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    require_set_up("step");
    check_step_request(name_, description_, current_time_, request);
    check_end_buffer(result.end_outputs);
    const std::size_t outputs = model_->output_count();
    if (result.samples.size() < request.sample_times.size() * outputs) {
      violation("sample buffer holds " + std::to_string(result.samples.size()) + " values, needs " +
                std::to_string(request.sample_times.size() * outputs));
    }
    check_discrete_buffer(result.discrete_outputs);
    step_inputs_ = request.inputs;
    step_samples_ = result.samples;
    take_discrete_inputs(request);
    integrate_macro_step(request);
    current_time_ = request.end;
    evaluate_input_jet(request.inputs, to_seconds(request.end), model_->input_derivative_order(),
                       inputs_now_);
    if (model_->completed_step(to_seconds(request.end), state_, inputs_now_))
      history_continues_ = false;  // an event changed x
    write_end_outputs(request.inputs, result.end_outputs);
    if (!result.discrete_outputs.empty())
      model_->discrete_outputs(to_seconds(request.end), result.discrete_outputs);
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    require_set_up("evaluate_discrete_outputs");
    check_discrete_buffer(discrete_outputs);
    model_->discrete_outputs(to_seconds(current_time_), discrete_outputs);
  }

  void save_state() override {
    require_set_up("save_state");
    if (!description_.capabilities.can_rollback)
      violation("save_state on a slave declared rollback-less");
    std::copy(state_.begin(), state_.end(), saved_state_.begin());
    saved_cvode_carry_ = cvode_carry_;
    model_->save_discrete_state();
    saved_time_ = current_time_;
    has_saved_state_ = true;
    // The solver's history (CvodeHistory::keep) is not saved: each attempt from
    // this state continues a history of its own (Segment::attempt).
    saved_history_continues_ = history_continues_;
    attempt_ = 0;
  }

  void restore_state() override {
    require_set_up("restore_state");
    if (!description_.capabilities.can_rollback)
      violation("restore_state on a slave declared rollback-less");
    if (!has_saved_state_) violation("restore_state without a saved state");
    // CVODE restarting at every segment start, x, t and what it carries across the
    // restart (CvodeCarry) are the whole state: the re-run is bit-identical. With
    // CvodeHistory::keep the re-run continues the history of its attempt's lane
    // instead (solver.hpp): deterministic, but not the first run's bits.
    std::copy(saved_state_.begin(), saved_state_.end(), state_.begin());
    cvode_carry_ = saved_cvode_carry_;
    model_->restore_discrete_state();
    current_time_ = saved_time_;
    history_continues_ = saved_history_continues_;
    ++attempt_;
  }

  /// x, ẋ = f(t, x, u) and A, B, C, D at the current time and state, u = the
  /// inputs' values there (LinearizationLayout). Exact from the model's linear
  /// form when it has one on the current event segment, else central differences
  /// of f and g (difference_jacobians). Touches neither x nor the solver.
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    require_set_up("linearize");
    if (!description_.capabilities.can_linearize) {
      violation("linearize, but model '" + model_->description().name +
                "' reads input derivatives, which ẋ = A x + B u + e cannot represent");
    }
    if (inputs.size() != model_->input_count()) {
      violation("linearize with " + std::to_string(inputs.size()) +
                " input polynomials, expected " + std::to_string(model_->input_count()));
    }
    const LinearizationLayout layout = LinearizationLayout::of(description_);
    if (linearization.size() < layout.size()) {
      violation("linearization buffer holds " + std::to_string(linearization.size()) +
                " values, needs " + std::to_string(layout.size()));
    }
    const double time = to_seconds(current_time_);
    evaluate_inputs(inputs, time, point_inputs_);
    std::copy(state_.begin(), state_.end(), point_state_.begin());
    if (const LinearForm* form = model_->linear_form(time)) {
      copy_linear_form(*form, layout, linearization);
    } else if (!exact_jacobians(time, layout, linearization)) {
      difference_jacobians(time, layout, linearization);
    }
    // The centre last, so that a model holding its evaluation point in an
    // instance (an FMU) is left at the slave's own point.
    std::copy(state_.begin(), state_.end(), linearization.begin());
    if (layout.states > 0) {
      model_->derivatives(time, state_, point_inputs_,
                          linearization.subspan(layout.derivative_offset(), layout.states));
    }
    check_finite(linearization.first(layout.size()), time);
  }

 private:
  int derivative_order() const { return description_.capabilities.output_derivative_order; }

  [[noreturn]] void violation(const std::string& why) const {
    throw ProtocolViolation("slave '" + name_ + "': " + why);
  }

  void require_set_up(const char* call) const { check_set_up(name_, is_set_up_, call); }

  void check_discrete_buffer(std::span<std::int64_t> values) const {
    if (values.size() != description_.discrete_outputs.size()) {
      violation("discrete output buffer holds " + std::to_string(values.size()) +
                " values, the slave has " + std::to_string(description_.discrete_outputs.size()) +
                " Integer and Boolean outputs");
    }
  }

  /// The step's discrete inputs, held over it: a change is an event at the
  /// step start (docs/algorithms.md, "Discrete signals"), after which the
  /// solver restarts.
  void take_discrete_inputs(const StepRequest& request) {
    if (request.discrete_inputs.empty()) return;
    const double start = to_seconds(request.start);
    evaluate_input_jet(request.inputs, start, model_->input_derivative_order(), inputs_now_);
    if (model_->set_discrete_inputs(start, request.discrete_inputs, state_, inputs_now_))
      history_continues_ = false;
  }

  void check_end_buffer(std::span<double> end_outputs) const {
    const std::size_t needed =
        static_cast<std::size_t>(derivative_order() + 1) * model_->output_count();
    if (end_outputs.size() < needed) {
      violation("end output buffer holds " + std::to_string(end_outputs.size()) +
                " values, needs " + std::to_string(needed));
    }
  }

  /// A, B, C, D copied from the model's affine form (exact; column-major).
  void copy_linear_form(const LinearForm& form, const LinearizationLayout& layout,
                        std::span<double> linearization) const {
    const auto has_shape = [](const Eigen::MatrixXd& matrix, std::size_t rows,
                              std::size_t columns) {
      return matrix.rows() == static_cast<Eigen::Index>(rows) &&
             matrix.cols() == static_cast<Eigen::Index>(columns);
    };
    const std::size_t n = layout.states;
    const std::size_t m = layout.inputs;
    const std::size_t q = layout.outputs;
    if (!has_shape(form.A, n, n) || !has_shape(form.B, n, m) || !has_shape(form.C, q, n) ||
        !has_shape(form.D, q, m)) {
      throw SlaveError("slave '" + name_ + "': the linear form of model '" +
                       model_->description().name + "' does not match its " + std::to_string(n) +
                       " states, " + std::to_string(m) + " inputs and " + std::to_string(q) +
                       " outputs");
    }
    const auto block = [&](std::size_t offset, const Eigen::MatrixXd& matrix) {
      Eigen::Map<Eigen::MatrixXd>(linearization.data() + offset, matrix.rows(), matrix.cols()) =
          matrix;
    };
    block(layout.a_offset(), form.A);
    block(layout.b_offset(), form.B);
    block(layout.c_offset(), form.C);
    block(layout.d_offset(), form.D);
  }

  /// A, B, C, D from the model's own exact Jacobians (Model::jacobians) at
  /// (point_state_, point_inputs_); false when it has none.
  bool exact_jacobians(double time, const LinearizationLayout& layout,
                       std::span<double> linearization) const {
    const std::size_t n = layout.states;
    const std::size_t m = layout.inputs;
    const std::size_t q = layout.outputs;
    return model_->jacobians(time, point_state_, point_inputs_,
                             linearization.subspan(layout.a_offset(), n * n),
                             linearization.subspan(layout.b_offset(), n * m),
                             linearization.subspan(layout.c_offset(), q * n),
                             linearization.subspan(layout.d_offset(), q * m));
  }

  /// Column j of [A; C] by central differences in x_j, of [B; D] in u_j, around
  /// (point_state_, point_inputs_), which are left as they were.
  void difference_jacobians(double time, const LinearizationLayout& layout,
                            std::span<double> linearization) {
    for (std::size_t j = 0; j < layout.states; ++j) {
      difference_column(
          time, point_state_, j,
          linearization.subspan(layout.a_offset() + j * layout.states, layout.states),
          linearization.subspan(layout.c_offset() + j * layout.outputs, layout.outputs));
    }
    for (std::size_t j = 0; j < layout.inputs; ++j) {
      difference_column(
          time, point_inputs_, j,
          linearization.subspan(layout.b_offset() + j * layout.states, layout.states),
          linearization.subspan(layout.d_offset() + j * layout.outputs, layout.outputs));
    }
  }

  /// ∂f/∂v_j ≈ [f(v + h e_j) − f(v − h e_j)] / 2h, likewise ∂g/∂v_j, with
  /// h = kDifferenceStep · max(1, |v_j|); divided by the width actually stepped
  /// after rounding, (v + h) − (v − h), so that rounding of v ± h adds no error.
  void difference_column(double time, std::span<double> point, std::size_t j,
                         std::span<double> derivative_column, std::span<double> output_column) {
    const double centre = point[j];
    const double step = kDifferenceStep * std::max(1.0, std::abs(centre));
    const double ahead = centre + step;
    const double behind = centre - step;
    point[j] = ahead;
    evaluate_equations(time, derivative_ahead_, output_ahead_);
    point[j] = behind;
    evaluate_equations(time, derivative_behind_, output_behind_);
    point[j] = centre;
    const double width = ahead - behind;
    for (std::size_t i = 0; i < derivative_column.size(); ++i) {
      derivative_column[i] = (derivative_ahead_[i] - derivative_behind_[i]) / width;
    }
    for (std::size_t i = 0; i < output_column.size(); ++i) {
      output_column[i] = (output_ahead_[i] - output_behind_[i]) / width;
    }
  }

  /// f and g at (point_state_, point_inputs_).
  void evaluate_equations(double time, std::span<double> derivatives, std::span<double> outputs) {
    if (!point_state_.empty()) model_->derivatives(time, point_state_, point_inputs_, derivatives);
    model_->outputs(time, point_state_, point_inputs_, outputs);
  }

  void check_finite(std::span<const double> values, double time) const {
    if (std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); }))
      return;
    std::ostringstream message;
    message.precision(17);
    message << "slave '" << name_ << "': linearization at t = " << time
            << " s has non-finite entries (model '" << model_->description().name << "')";
    throw SlaveError(message.str());
  }

  /// Cuts [start, end] at the time events strictly inside it and integrates each
  /// smooth segment in turn (the solver restarts at each; model.hpp: for t >= an
  /// event time the new equations hold).
  void integrate_macro_step(const StepRequest& request) {
    const double start = to_seconds(request.start);
    const double end = to_seconds(request.end);
    const std::span<const double> events = model_->time_events();
    auto next_event = std::upper_bound(events.begin(), events.end(), start + kEventMergeDistance);
    std::size_t first_sample = 0;
    double segment_start = start;
    // Only the first segment may continue the previous step, and not across a
    // time event at the communication time (the equations change there).
    bool continues = history_continues_ && !time_event_at(events, start);
    history_continues_ = false;
    while (segment_start < end) {
      // A time event the model announced while running (FMI nextEventTime) that
      // is already due is handled before integrating on.
      if (model_->next_time_event() <= segment_start + kEventMergeDistance) {
        handle_time_event(request, segment_start);
        continues = false;
      }
      double segment_end = end;
      if (next_event != events.end() && *next_event < end - kEventMergeDistance)
        segment_end = *next_event;
      const double announced = model_->next_time_event();
      if (announced < segment_end - kEventMergeDistance) {
        segment_end = announced;
      } else if (segment_end < end) {
        ++next_event;
      }
      const bool ends_at_announced = announced <= segment_end + kEventMergeDistance;
      std::size_t sample_count = 0;
      while (first_sample + sample_count < request.sample_times.size() &&
             to_seconds(request.sample_times[first_sample + sample_count]) <= segment_end) {
        ++sample_count;
      }
      const Segment segment{segment_start,
                            segment_end,
                            end - start,
                            request.inputs,
                            request.sample_times.subspan(first_sample, sample_count),
                            continues,
                            attempt_};
      sample_offset_ = first_sample;
      integrate_segment(segment);
      continues = false;
      // The next step may continue from here: this segment reached its end.
      history_continues_ = segment_end >= end;
      if (ends_at_announced) {
        handle_time_event(request, segment_end);
        // A sample at the event time shows the outputs after the event, as
        // the step's end outputs do: for t >= an event time the new
        // equations hold.
        if (sample_count > 0) {
          const double last = to_seconds(segment.sample_times.back());
          if (last >= segment_end - kEventMergeDistance) sample(sample_count - 1, last, state_);
        }
      }
      first_sample += sample_count;
      segment_start = segment_end;
    }
  }

  /// Whether one of the model's fixed time events lies at `time`.
  static bool time_event_at(std::span<const double> events, double time) {
    const auto near = std::lower_bound(events.begin(), events.end(), time - kEventMergeDistance);
    return near != events.end() && *near <= time + kEventMergeDistance;
  }

  /// The model's event iteration at a time event it announced.
  void handle_time_event(const StepRequest& request, double time) {
    evaluate_input_jet(request.inputs, time, model_->input_derivative_order(), inputs_now_);
    model_->handle_event(time, state_, inputs_now_);
    history_continues_ = false;  // the equations, and maybe x, changed
  }

  void integrate_segment(const Segment& segment) {
    if (state_.empty()) {
      // Nothing to integrate: outputs depend on t and u only.
      for (std::size_t k = 0; k < segment.sample_times.size(); ++k) {
        sample(k, to_seconds(segment.sample_times[k]), state_);
      }
      return;
    }
    try {
      solver_->integrate(segment, state_, *this);
    } catch (const SolverFailure& failure) {
      std::ostringstream message;
      message.precision(17);
      message << "slave '" << name_ << "' failed at t = " << failure.time()
              << " s: " << failure.what();
      throw SlaveError(message.str());
    }
  }

  /// SampleSink: outputs at a sample time inside the step, from the solver's state.
  void sample(std::size_t index, double time, std::span<const double> state) override {
    const std::size_t outputs = model_->output_count();
    evaluate_input_jet(step_inputs_, time, model_->input_derivative_order(), inputs_now_);
    model_->outputs(time, state, inputs_now_,
                    step_samples_.subspan((sample_offset_ + index) * outputs, outputs));
  }

  /// Row 0: y = g(t, x, u(t)); rows 1..order: analytic derivatives from the input jet.
  void write_end_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) {
    const double time = to_seconds(current_time_);
    const std::size_t outputs = model_->output_count();
    const std::size_t input_count = model_->input_count();
    const int order = derivative_order();
    const int read_order = model_->input_derivative_order();
    evaluate_input_jet(inputs, time, read_order, inputs_now_);
    model_->outputs(time, state_, inputs_now_, end_outputs.first(outputs));
    if (order == 0) return;
    for (int d = 0; d <= order + read_order; ++d) {
      for (std::size_t i = 0; i < input_count; ++i) {
        input_jet_[static_cast<std::size_t>(d) * input_count + i] = inputs[i].derivative(time, d);
      }
    }
    model_->output_derivatives(
        time, state_, input_jet_, order,
        end_outputs.subspan(outputs, static_cast<std::size_t>(order) * outputs));
  }

  std::string name_;
  std::unique_ptr<Model> model_;
  SlaveDescription description_;
  // What the CVODE solver carries across its restarts: part of the state, so kept
  // (and saved) here; declared before the solver, which refers to it.
  CvodeCarry cvode_carry_;
  CvodeCarry saved_cvode_carry_;
  std::unique_ptr<Solver> solver_;

  // All sized in setup, so that step() and evaluate_outputs() do not allocate.
  std::vector<double> state_;
  std::vector<double> saved_state_;
  std::vector<double>
      inputs_now_;  ///< the input jet the equations read (Model::input_derivative_order)
  std::vector<double>
      input_jet_;  ///< (order + input derivative order + 1) rows of input_count: u, u̇, ü, ...
  // Linearization scratch (linearize): the point perturbed one component at a
  // time, and f, g on either side of it.
  std::vector<double> point_state_;
  std::vector<double> point_inputs_;
  std::vector<double> derivative_ahead_;
  std::vector<double> derivative_behind_;
  std::vector<double> output_ahead_;
  std::vector<double> output_behind_;
  Time current_time_ = 0;
  Time saved_time_ = 0;
  bool has_saved_state_ = false;
  bool is_set_up_ = false;
  /// The last integration ended at current_time_ with x as it left it, and nothing
  /// changed x or the equations since: the next step may continue the solver's
  /// history (Segment::continues).
  bool history_continues_ = false;
  bool saved_history_continues_ = false;  ///< history_continues_ at save_state
  std::size_t attempt_ = 0;               ///< restore_state calls since save_state

  // The step being integrated, for the SampleSink callback.
  std::span<const Polynomial> step_inputs_;
  std::span<double> step_samples_;
  std::size_t sample_offset_ = 0;
};

}  // namespace

std::unique_ptr<Slave> make_ode_slave(std::string name, std::unique_ptr<Model> model,
                                      const SolverSettings& settings,
                                      const CapabilityLimits& limits) {
  return std::make_unique<OdeSlave>(std::move(name), std::move(model), settings, limits);
}

}  // namespace couplet::models
