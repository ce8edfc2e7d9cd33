// Cost of one macro step of a CVODE slave (issue 14) and the share of it that is
// the restart at the communication time: CVODE is re-initialized at every step
// start (the inputs jump there), which throws away its step size, its order and
// its Jacobian. Three ways of covering the same time span with the same slave:
//   BM_CvodeMacroSteps/…/inputs:0  macro steps of H with a zero-order hold of
//                                  sin(2 t) (a new input value at every step);
//   BM_CvodeMacroSteps/…/inputs:1  macro steps of H with an unchanged input;
//   BM_CvodeOneIntegration         one step over the whole span with the
//                                  unchanged input and a sample every H (no
//                                  restart; what the restart is compared with).
// The restart share is 1 − OneIntegration / MacroSteps(inputs:1). Counters per
// macro step (per H for OneIntegration): ns, right-hand-side evaluations
// (counted in the model, so the difference quotients of the Jacobian count too).
// Models: 0 = translational.mass (linear: analytic Jacobian; the tolerances of
// scenarios/two_mass_switch.yaml), 1 = car.vehicle (nonlinear: difference-quotient
// Jacobian; the tolerances of scenarios/car_speed_control.yaml).
//   build/bench/cvode_step_bench
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/catalog.hpp"
#include "models/ode_slave.hpp"

namespace couplet {
namespace {

/// Forwards everything to the catalog model and counts the evaluations of
/// ẋ = f(t, x, u): the work a restart costs shows up as extra evaluations.
class CountingModel final : public models::Model {
 public:
  CountingModel(std::unique_ptr<models::Model> inner, std::int64_t& evaluations)
      : inner_(std::move(inner)), evaluations_(evaluations) {}

  const models::ModelDescription& description() const override { return inner_->description(); }
  void initial_state(std::span<double> x) const override { inner_->initial_state(x); }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    ++evaluations_;
    inner_->derivatives(t, x, u, dxdt);
  }
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    inner_->outputs(t, x, u, y);
  }
  int input_derivative_order() const override { return inner_->input_derivative_order(); }
  std::span<const double> time_events() const override { return inner_->time_events(); }
  int output_derivative_order() const override { return inner_->output_derivative_order(); }
  void output_derivatives(double t, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    inner_->output_derivatives(t, x, input_jet, order, derivatives);
  }
  const models::LinearForm* linear_form(double t) const override { return inner_->linear_form(t); }
  void start(double time) const override { inner_->start(time); }
  std::size_t event_indicator_count() const override { return inner_->event_indicator_count(); }
  void event_indicators(double t, std::span<const double> x, std::span<const double> u,
                        std::span<double> indicators) const override {
    inner_->event_indicators(t, x, u, indicators);
  }
  bool handle_event(double t, std::span<double> x, std::span<const double> u) const override {
    return inner_->handle_event(t, x, u);
  }
  double next_time_event() const override { return inner_->next_time_event(); }
  bool completed_step(double t, std::span<double> x, std::span<const double> u) const override {
    return inner_->completed_step(t, x, u);
  }
  bool can_save_discrete_state() const override { return inner_->can_save_discrete_state(); }
  void save_discrete_state() const override { inner_->save_discrete_state(); }
  void restore_discrete_state() const override { inner_->restore_discrete_state(); }

 private:
  std::unique_ptr<models::Model> inner_;
  std::int64_t& evaluations_;
};

struct BenchModel {
  const char* name;
  double relative_tolerance;
  double absolute_tolerance;
};
constexpr std::array<BenchModel, 2> kModels{
    {{"translational.mass", 1e-9, 1e-11}, {"car.vehicle", 1e-9, 1e-9}}};

// The same simulated span for every H, so that runs of one row are comparable.
constexpr double kSpan = 20.0;  // s

std::unique_ptr<Slave> make_slave(const BenchModel& model, std::int64_t& evaluations) {
  models::SolverSettings settings;
  settings.kind = models::SolverKind::cvode;
  settings.relative_tolerance = model.relative_tolerance;
  settings.absolute_tolerance = model.absolute_tolerance;
  auto inner = models::ModelCatalog::builtin().create(model.name, {});
  return models::make_ode_slave(
      "bench", std::make_unique<CountingModel>(std::move(inner), evaluations), settings);
}

/// A force that makes both models move: sin(2 t), held over each step.
double input_at(double t) {
  return std::sin(2.0 * t);
}

std::vector<double> end_buffer(const Slave& slave) {
  const SlaveCapabilities& capabilities = slave.description().capabilities;
  return std::vector<double>(static_cast<std::size_t>(capabilities.output_derivative_order + 1) *
                                 slave.description().outputs.size(),
                             0.0);
}

void report(benchmark::State& state, std::int64_t steps, std::int64_t evaluations) {
  state.SetItemsProcessed(steps);
  state.counters["ns_per_macro_step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["rhs_per_macro_step"] =
      static_cast<double>(evaluations) / static_cast<double>(steps);
}

// Args: model, H in µs, inputs (0: a new held value every step, 1: unchanged).
void BM_CvodeMacroSteps(benchmark::State& state) {
  const BenchModel& model = kModels.at(static_cast<std::size_t>(state.range(0)));
  const Time step = static_cast<Time>(state.range(1)) * 1'000;
  const bool unchanged = state.range(2) == 1;
  const Time end = to_ticks(kSpan);
  std::int64_t evaluations = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::int64_t counted = 0;
    auto slave = make_slave(model, counted);
    slave->setup(0);
    std::vector<double> outputs = end_buffer(*slave);
    std::array<Polynomial, 1> inputs{Polynomial::constant(0.0, input_at(0.0))};
    counted = 0;
    state.ResumeTiming();
    for (Time t = 0; t < end; t += step) {
      if (!unchanged) inputs[0] = Polynomial::constant(to_seconds(t), input_at(to_seconds(t)));
      slave->step({t, t + step, inputs, {}}, {outputs, {}});
      ++steps;
    }
    benchmark::DoNotOptimize(outputs.data());
    evaluations += counted;
  }
  report(state, steps, evaluations);
}

// Args: model, H in µs (the sample spacing; one step over the whole span).
void BM_CvodeOneIntegration(benchmark::State& state) {
  const BenchModel& model = kModels.at(static_cast<std::size_t>(state.range(0)));
  const Time step = static_cast<Time>(state.range(1)) * 1'000;
  const Time end = to_ticks(kSpan);
  std::vector<Time> sample_times;
  for (Time t = step; t <= end; t += step) sample_times.push_back(t);
  std::int64_t evaluations = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::int64_t counted = 0;
    auto slave = make_slave(model, counted);
    slave->setup(0);
    std::vector<double> outputs = end_buffer(*slave);
    std::vector<double> samples(sample_times.size() * slave->description().outputs.size(), 0.0);
    const std::array<Polynomial, 1> inputs{Polynomial::constant(0.0, input_at(0.0))};
    counted = 0;
    state.ResumeTiming();
    slave->step({0, end, inputs, sample_times}, {outputs, samples});
    steps += static_cast<std::int64_t>(sample_times.size());
    benchmark::DoNotOptimize(samples.data());
    evaluations += counted;
  }
  report(state, steps, evaluations);
}

BENCHMARK(BM_CvodeMacroSteps)
    ->ArgNames({"model", "H_us", "inputs"})
    ->ArgsProduct({{0, 1}, {10'000, 1'000}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CvodeOneIntegration)
    ->ArgNames({"model", "H_us"})
    ->ArgsProduct({{0, 1}, {10'000, 1'000}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace couplet

BENCHMARK_MAIN();
