// The analytic stimuli of the catalog (docs/models.md, "Stimuli"): constant,
// step, ramp, sine and pulse. Each has output `y`, no state and no input; the
// unit of `y` (and of the levels) is that of the input it drives.
#include "models/stimulus.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"

namespace couplet::models {

void Stimulus::outputs(double t, std::span<const double>, std::span<const double>,
                       std::span<double> y) const {
  values(t, y);
}

void Stimulus::output_derivatives(double t, std::span<const double>, std::span<const double>,
                                  int order, std::span<double> derivatives) const {
  const std::size_t outputs = output_count();
  for (int k = 1; k <= order; ++k) {
    derivative(t, k, derivatives.subspan(static_cast<std::size_t>(k - 1) * outputs, outputs));
  }
}

namespace {

constexpr const char* kOutputMeaning = "in the unit of the input it drives";

[[noreturn]] void invalid_parameter(std::string_view model, std::string_view parameter,
                                    std::string_view rule, double value) {
  std::ostringstream message;
  message.precision(17);
  message << "parameter '" << parameter << "' of model '" << model << "' must " << rule << ", got "
          << value;
  throw ConfigurationError(message.str());
}

std::string text(double value) {
  std::ostringstream stream;
  stream.precision(17);
  stream << value;
  return stream.str();
}

ModelDescription stimulus_description(const char* name, const char* summary,
                                      std::vector<ParameterDescription> parameters) {
  return ModelDescription{.name = name,
                          .summary = std::string(summary) + "; y " + kOutputMeaning,
                          .inputs = {},
                          .outputs = {{.name = "y"}},
                          .states = {},
                          .parameters = std::move(parameters)};
}

/// A stimulus that is one smooth function of t between fixed breakpoints.
class ScalarStimulus : public Stimulus {
 public:
  ScalarStimulus(ModelDescription description, std::vector<double> breakpoints)
      : description_(std::move(description)), breakpoints_(std::move(breakpoints)) {}

  const ModelDescription& description() const override { return description_; }
  std::span<const double> time_events() const override { return breakpoints_; }

 protected:
  void values(double t, std::span<double> y) const override { y[0] = value(t); }
  void derivative(double t, int k, std::span<double> y) const override { y[0] = derivative(t, k); }
  virtual double value(double t) const = 0;
  virtual double derivative(double t, int k) const = 0;

 private:
  ModelDescription description_;
  std::vector<double> breakpoints_;
};

// --- stimulus.constant -------------------------------------------------------

constexpr const char* kConstant = "stimulus.constant";

ModelDescription constant_description() {
  return stimulus_description(kConstant, "a constant: y = value",
                              {{"value", 1.0, "the output [unit of the driven input]"}});
}

class Constant final : public ScalarStimulus {
 public:
  explicit Constant(const ParameterValues& values)
      : ScalarStimulus(constant_description(), {}),
        value_(parameter_value(values, "value", kConstant)) {}

 private:
  double value(double) const override { return value_; }
  double derivative(double, int) const override { return 0.0; }
  double value_;
};

// --- stimulus.step -----------------------------------------------------------

constexpr const char* kStep = "stimulus.step";

ModelDescription step_description() {
  return stimulus_description(kStep, "a step: y = initial before `time`, final from `time` on",
                              {{"time", 1.0, "when the step happens [s]"},
                               {"initial", 0.0, "the output before `time` [driven unit]"},
                               {"final", 1.0, "the output from `time` on [driven unit]"}});
}

class Step final : public ScalarStimulus {
 public:
  explicit Step(const ParameterValues& values)
      : ScalarStimulus(step_description(), {parameter_value(values, "time", kStep)}),
        time_(parameter_value(values, "time", kStep)),
        initial_(parameter_value(values, "initial", kStep)),
        final_(parameter_value(values, "final", kStep)) {}

 private:
  double value(double t) const override { return at_or_after(t, time_) ? final_ : initial_; }
  double derivative(double, int) const override { return 0.0; }
  double time_, initial_, final_;
};

// --- stimulus.ramp -----------------------------------------------------------

constexpr const char* kRamp = "stimulus.ramp";

ModelDescription ramp_description() {
  return stimulus_description(
      kRamp, "a ramp: initial until `start`, linear to final at `stop`, then final",
      {{"start", 0.0, "when the ramp leaves `initial` [s]"},
       {"stop", 1.0, "when the ramp reaches `final`, after `start` [s]"},
       {"initial", 0.0, "the output until `start` [driven unit]"},
       {"final", 1.0, "the output from `stop` on [driven unit]"}});
}

class Ramp final : public ScalarStimulus {
 public:
  explicit Ramp(const ParameterValues& values)
      : ScalarStimulus(ramp_description(), checked_breakpoints(values)),
        start_(parameter_value(values, "start", kRamp)),
        stop_(parameter_value(values, "stop", kRamp)),
        initial_(parameter_value(values, "initial", kRamp)),
        final_(parameter_value(values, "final", kRamp)),
        slope_((final_ - initial_) / (stop_ - start_)) {}

 private:
  static std::vector<double> checked_breakpoints(const ParameterValues& values) {
    const double start = parameter_value(values, "start", kRamp);
    const double stop = parameter_value(values, "stop", kRamp);
    if (!(stop - start > 2 * kBreakpointResolution))
      invalid_parameter(kRamp, "stop", "be after 'start' (" + text(start) + " s)", stop);
    return {start, stop};
  }
  bool on_ramp(double t) const { return at_or_after(t, start_) && !at_or_after(t, stop_); }
  double value(double t) const override {
    if (at_or_after(t, stop_)) return final_;
    if (!at_or_after(t, start_)) return initial_;
    // Clamped: within half a tick of `start`, t may lie just before it.
    const double fraction = std::max(0.0, (t - start_) / (stop_ - start_));
    return initial_ + (final_ - initial_) * fraction;
  }
  double derivative(double t, int k) const override { return k == 1 && on_ramp(t) ? slope_ : 0.0; }
  double start_, stop_, initial_, final_, slope_;
};

// --- stimulus.sine -----------------------------------------------------------

constexpr const char* kSine = "stimulus.sine";

ModelDescription sine_description() {
  return stimulus_description(kSine, "a sine: y = offset + amplitude sin(2 pi frequency t + phase)",
                              {{"amplitude", 1.0, "of the oscillation [driven unit]"},
                               {"frequency", 1.0, "oscillations per second, >= 0 [Hz]"},
                               {"phase", 0.0, "the angle at t = 0 [rad]"},
                               {"offset", 0.0, "the mean value [driven unit]"}});
}

class Sine final : public ScalarStimulus {
 public:
  explicit Sine(const ParameterValues& values)
      : ScalarStimulus(sine_description(), {}),
        amplitude_(parameter_value(values, "amplitude", kSine)),
        angular_frequency_(2 * std::numbers::pi * checked_frequency(values)),
        phase_(parameter_value(values, "phase", kSine)),
        offset_(parameter_value(values, "offset", kSine)) {}

 private:
  static double checked_frequency(const ParameterValues& values) {
    const double frequency = parameter_value(values, "frequency", kSine);
    if (!(frequency >= 0.0)) invalid_parameter(kSine, "frequency", "be >= 0", frequency);
    return frequency;
  }
  double value(double t) const override {
    return offset_ + amplitude_ * std::sin(angular_frequency_ * t + phase_);
  }
  /// d^k/dt^k sin(ωt + φ) = ω^k sin(ωt + φ + kπ/2), written out per quarter
  /// turn so that no rounding of π/2 enters.
  double derivative(double t, int k) const override {
    const double angle = angular_frequency_ * t + phase_;
    const double scale = amplitude_ * std::pow(angular_frequency_, k);
    switch (k % 4) {
      case 0:
        return scale * std::sin(angle);
      case 1:
        return scale * std::cos(angle);
      case 2:
        return -scale * std::sin(angle);
      default:
        return -scale * std::cos(angle);
    }
  }
  double amplitude_, angular_frequency_, phase_, offset_;
};

// --- stimulus.pulse ----------------------------------------------------------

constexpr const char* kPulse = "stimulus.pulse";

ModelDescription pulse_description() {
  return stimulus_description(
      kPulse,
      "a pulse train: low before `start`; from `start` on, high for `width` of every `period`",
      {{"period", 1.0, "from one rising edge to the next, > 0 [s]"},
       {"width", 0.5, "time high in each period, in (0, period] [s]"},
       {"low", 0.0, "the output outside the pulses [driven unit]"},
       {"high", 1.0, "the output during a pulse [driven unit]"},
       {"start", 0.0, "the first rising edge [s]"}});
}

/// An unbounded train of edges, so its time events are announced one at a time
/// (Model::next_time_event, as an FMU announces nextEventTime): at start and at
/// each event the next edge after it. Edges are start + n·period (rising) and
/// start + n·period + width (falling), each computed by that one expression, so
/// that the level and the announced event agree bit for bit.
class Pulse final : public ScalarStimulus {
 public:
  explicit Pulse(const ParameterValues& values)
      : ScalarStimulus(pulse_description(), {}),
        period_(checked_period(values)),
        width_(checked_width(values, period_)),
        low_(parameter_value(values, "low", kPulse)),
        high_(parameter_value(values, "high", kPulse)),
        start_(parameter_value(values, "start", kPulse)) {}

  void start(double time) const override { next_edge_ = edge_after(time); }
  bool handle_event(double t, std::span<double>, std::span<const double>) const override {
    next_edge_ = edge_after(t);
    return false;
  }
  double next_time_event() const override { return next_edge_; }
  void save_discrete_state() const override { saved_next_edge_ = next_edge_; }
  void restore_discrete_state() const override { next_edge_ = saved_next_edge_; }

 private:
  static double checked_period(const ParameterValues& values) {
    const double period = parameter_value(values, "period", kPulse);
    if (!(period > 2 * kBreakpointResolution))
      invalid_parameter(kPulse, "period", "be > 0", period);
    return period;
  }
  static double checked_width(const ParameterValues& values, double period) {
    const double width = parameter_value(values, "width", kPulse);
    if (!(width > kBreakpointResolution && width <= period))
      invalid_parameter(kPulse, "width", "lie in (0, period] = (0, " + text(period) + "]", width);
    return width;
  }

  double rise(double cycle) const { return start_ + cycle * period_; }
  double fall(double cycle) const { return rise(cycle) + width_; }
  bool always_high() const { return width_ == period_; }

  /// The period t lies in (t at or after start): its rising edge is the last at or before t.
  double cycle_of(double t) const {
    double cycle = std::floor((t - start_) / period_);
    // The division may round across an edge; the edges themselves decide.
    if (at_or_after(t, rise(cycle + 1))) cycle += 1;
    if (cycle > 0 && !at_or_after(t, rise(cycle))) cycle -= 1;
    return std::max(cycle, 0.0);
  }

  double value(double t) const override {
    if (!at_or_after(t, start_)) return low_;
    if (always_high()) return high_;
    return at_or_after(t, fall(cycle_of(t))) ? low_ : high_;
  }
  double derivative(double, int) const override { return 0.0; }

  /// The first edge after t (t itself excluded when it is one).
  double edge_after(double t) const {
    if (!at_or_after(t, start_)) return start_;
    if (always_high()) return std::numeric_limits<double>::infinity();
    const double cycle = cycle_of(t);
    return at_or_after(t, fall(cycle)) ? rise(cycle + 1) : fall(cycle);
  }

  double period_, width_, low_, high_, start_;
  // The discrete state: the edge announced last (and its saved copy for rollback).
  mutable double next_edge_ = std::numeric_limits<double>::infinity();
  mutable double saved_next_edge_ = std::numeric_limits<double>::infinity();
};

template <class Concrete>
std::unique_ptr<Model> make(const ParameterValues& values) {
  return std::make_unique<Concrete>(values);
}

}  // namespace

void add_stimulus_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(constant_description(), make<Constant>));
  entries.push_back(make_entry(step_description(), make<Step>));
  entries.push_back(make_entry(ramp_description(), make<Ramp>));
  entries.push_back(make_entry(sine_description(), make<Sine>));
  entries.push_back(make_entry(pulse_description(), make<Pulse>));
}

}  // namespace couplet::models
