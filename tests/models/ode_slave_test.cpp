// The ODE slave with its three solvers against closed-form solutions, events,
// rollback, protocol checks, solver failures and the no-allocation promise.
#include "models/ode_slave.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/linear_model.hpp"

// Heap-allocation counter (support/malloc_counter.hpp): every allocation of the
// process, SUNDIALS' and Eigen's included, also under the sanitizers.
#include "support/malloc_counter.hpp"
namespace {
std::atomic<bool>& counting_allocations = couplet::testing::counting_mallocs;
std::atomic<long>& allocation_count = couplet::testing::malloc_count;
}  // namespace

namespace couplet::models {
namespace {

// ---------------------------------------------------------------------------
// Test models.

/// ẋ = a(t) x + b u,  y = [x, x + d u];  a(t) = a_before for t < event, a_after from
/// the event on (no event when event_time is NaN). Analytic output derivatives up
/// to order 3: x⁽ᵏ⁾ = a x⁽ᵏ⁻¹⁾ + b u⁽ᵏ⁻¹⁾.
class ScalarModel final : public Model {
 public:
  struct Parameters {
    double a_before = -0.8;
    double a_after = -0.8;
    double event_time = std::numeric_limits<double>::quiet_NaN();
    double b = 1.5;
    double d = 0.5;
    double x0 = 0.7;
    bool linear = true;  ///< whether linear_form is provided
  };

  explicit ScalarModel(Parameters parameters) : parameters_(parameters) {
    description_.name = "test.scalar";
    description_.inputs = {"u"};
    description_.outputs = {{"x", false}, {"x_plus_du", true}};
    description_.states = {"x"};
    if (!std::isnan(parameters_.event_time)) events_[0] = parameters_.event_time;
    forms_[0] = form(parameters_.a_before);
    forms_[1] = form(parameters_.a_after);
  }

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = parameters_.x0; }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = a(t) * x[0] + parameters_.b * u[0];
  }
  void outputs(double, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    y[0] = x[0];
    y[1] = x[0] + parameters_.d * u[0];
  }
  std::span<const double> time_events() const override {
    return std::isnan(parameters_.event_time) ? std::span<const double>{}
                                              : std::span<const double>{events_};
  }
  int output_derivative_order() const override { return 3; }
  void output_derivatives(double t, std::span<const double> x, std::span<const double> jet,
                          int order, std::span<double> derivatives) const override {
    double previous = x[0];  // x^(k-1)
    for (int k = 1; k <= order; ++k) {
      const auto row = static_cast<std::size_t>(k - 1);
      const double current = a(t) * previous + parameters_.b * jet[row];
      derivatives[row * 2] = current;
      derivatives[row * 2 + 1] = current + parameters_.d * jet[row + 1];
      previous = current;
    }
  }
  const LinearForm* linear_form(double t) const override {
    if (!parameters_.linear) return nullptr;
    return &forms_[after_event(t) ? 1 : 0];
  }

 private:
  bool after_event(double t) const {
    return !std::isnan(parameters_.event_time) && t >= parameters_.event_time;
  }
  double a(double t) const { return after_event(t) ? parameters_.a_after : parameters_.a_before; }
  LinearForm form(double a_value) const {
    LinearForm f;
    f.A = Eigen::MatrixXd::Constant(1, 1, a_value);
    f.B = Eigen::MatrixXd::Constant(1, 1, parameters_.b);
    f.C = Eigen::MatrixXd::Constant(2, 1, 1.0);
    f.D = Eigen::MatrixXd(2, 1);
    f.D << 0.0, parameters_.d;
    f.e = Eigen::VectorXd::Zero(1);
    f.h = Eigen::VectorXd::Zero(2);
    return f;
  }

  Parameters parameters_;
  ModelDescription description_;
  std::array<double, 1> events_{};
  std::array<LinearForm, 2> forms_;
};

/// Mass-spring-damper: ṗ = v, m v̇ = −k p − c v + u + f0;  y = [p, v].
class OscillatorModel final : public Model {
 public:
  OscillatorModel() {
    description_.name = "test.oscillator";
    description_.inputs = {"force"};
    description_.outputs = {{"p", false}, {"v", false}};
    description_.states = {"p", "v"};
    form_.A = Eigen::MatrixXd(2, 2);
    form_.A << 0.0, 1.0, -k_ / m_, -c_ / m_;
    form_.B = Eigen::MatrixXd(2, 1);
    form_.B << 0.0, 1.0 / m_;
    form_.C = Eigen::MatrixXd::Identity(2, 2);
    form_.D = Eigen::MatrixXd::Zero(2, 1);
    form_.e = Eigen::VectorXd(2);
    form_.e << 0.0, f0_ / m_;
    form_.h = Eigen::VectorXd::Zero(2);
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override {
    x[0] = 0.2;
    x[1] = -0.1;
  }
  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = (-k_ * x[0] - c_ * x[1] + u[0] + f0_) / m_;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
    y[1] = x[1];
  }
  const LinearForm* linear_form(double) const override { return &form_; }

 private:
  double m_ = 1.2, k_ = 4.0, c_ = 0.3, f0_ = 0.25;
  ModelDescription description_;
  LinearForm form_;
};

/// ẋ = −x, but NaN from `failure_time` on: CVODE cannot get past it.
class NanModel final : public Model {
 public:
  explicit NanModel(double failure_time) : failure_time_(failure_time) {
    description_.name = "test.nan";
    description_.outputs = {{"x", false}};
    description_.states = {"x"};
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = 1.0; }
  void derivatives(double t, std::span<const double> x, std::span<const double>,
                   std::span<double> dxdt) const override {
    dxdt[0] = t >= failure_time_ ? std::numeric_limits<double>::quiet_NaN() : -x[0];
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }

 private:
  double failure_time_;
  ModelDescription description_;
};

/// ẋ = −x, throws from the derivatives after `failure_time`.
class ThrowingModel final : public Model {
 public:
  ThrowingModel() {
    description_.name = "test.throwing";
    description_.outputs = {{"x", false}};
    description_.states = {"x"};
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { x[0] = 1.0; }
  void derivatives(double t, std::span<const double> x, std::span<const double>,
                   std::span<double> dxdt) const override {
    if (t > 0.5) throw std::domain_error("model left its domain");
    dxdt[0] = -x[0];
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    y[0] = x[0];
  }

 private:
  ModelDescription description_;
};

/// A ScalarModel that records every time its derivatives are evaluated at.
class ProbedScalarModel final : public Model {
 public:
  explicit ProbedScalarModel(ScalarModel::Parameters parameters) : inner_(parameters) {}
  const ModelDescription& description() const override { return inner_.description(); }
  void initial_state(std::span<double> x) const override { inner_.initial_state(x); }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    times->push_back(t);
    inner_.derivatives(t, x, u, dxdt);
  }
  void outputs(double t, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    inner_.outputs(t, x, u, y);
  }
  std::span<const double> time_events() const override { return inner_.time_events(); }
  const LinearForm* linear_form(double t) const override { return inner_.linear_form(t); }

  std::shared_ptr<std::vector<double>> times = std::make_shared<std::vector<double>>();

 private:
  ScalarModel inner_;
};

// ---------------------------------------------------------------------------
// Closed forms.

/// u(t) = c0 + c1 t + c2 t² and the solution of ẋ = a x + b u, x(0) = x0:
/// x = x_p + (x0 − x_p(0)) e^{a t} with the polynomial particular solution x_p.
struct QuadraticInputSolution {
  double a, b, x0;
  std::array<double, 3> c;

  std::array<double, 3> particular() const {
    const double p2 = -b * c[2] / a;
    const double p1 = (2.0 * p2 - b * c[1]) / a;
    const double p0 = (p1 - b * c[0]) / a;
    return {p0, p1, p2};
  }
  /// k-th time derivative of x at t, k = 0..3.
  double x(double t, int k = 0) const {
    const auto p = particular();
    const double homogeneous = (x0 - p[0]) * std::pow(a, k) * std::exp(a * t);
    switch (k) {
      case 0:
        return p[0] + p[1] * t + p[2] * t * t + homogeneous;
      case 1:
        return p[1] + 2.0 * p[2] * t + homogeneous;
      case 2:
        return 2.0 * p[2] + homogeneous;
      default:
        return homogeneous;
    }
  }
  double u(double t, int k = 0) const {
    switch (k) {
      case 0:
        return c[0] + c[1] * t + c[2] * t * t;
      case 1:
        return c[1] + 2.0 * c[2] * t;
      case 2:
        return 2.0 * c[2];
      default:
        return 0.0;
    }
  }
  /// The input as a Polynomial around the step start (what a master sends).
  Polynomial polynomial_around(double origin, double scale) const {
    const std::array<double, 3> global{c[0], c[1], c[2]};
    return Polynomial::from_coefficients(0.0, 1.0, global).shifted(origin, scale);
  }
};

/// ẋ = a x + b u with constant u: x(t) = −b u/a + (x0 + b u/a) e^{a t}.
double constant_input_solution(double a, double b, double u, double x0, double t) {
  const double rest = -b * u / a;
  return rest + (x0 - rest) * std::exp(a * t);
}

// ---------------------------------------------------------------------------
// Driving a slave.

struct StepOutputs {
  std::vector<double> samples;
  std::vector<double> end;
};

/// One step; the input polynomials as given, samples at the given times.
StepOutputs run_step(Slave& slave, Time start, Time end, std::span<const Polynomial> inputs,
                     std::span<const Time> sample_times = {}) {
  const SlaveDescription& description = slave.description();
  const std::size_t outputs = description.outputs.size();
  StepOutputs result;
  result.samples.assign(sample_times.size() * outputs, 0.0);
  result.end.assign(
      static_cast<std::size_t>(description.capabilities.output_derivative_order + 1) * outputs,
      0.0);
  StepRequest request;
  request.start = start;
  request.end = end;
  request.inputs = inputs;
  request.sample_times = sample_times;
  slave.step(request, {result.end, result.samples});
  return result;
}

SolverSettings settings_for(SolverKind kind) {
  SolverSettings settings;
  settings.kind = kind;
  settings.relative_tolerance = 1e-10;
  settings.absolute_tolerance = 1e-12;
  return settings;
}

const QuadraticInputSolution kQuadratic{-0.8, 1.5, 0.7, {0.3, -0.4, 0.25}};

std::unique_ptr<Slave> scalar_slave(SolverSettings settings,
                                    ScalarModel::Parameters parameters = {}) {
  return make_ode_slave("scalar", std::make_unique<ScalarModel>(parameters), settings);
}

/// Steps the scalar model over [0, 1] in 4 macro steps of 0.25 s with the quadratic
/// input (re-expanded around each step start); returns the largest relative error
/// of x at samples (quarter and middle of each step) and step ends.
double scalar_error(const SolverSettings& settings) {
  auto slave = scalar_slave(settings);
  slave->setup(0);
  double worst = 0.0;
  const auto check = [&](double t, double value) {
    worst = std::max(worst, std::abs(value - kQuadratic.x(t)) / std::abs(kQuadratic.x(t)));
  };
  const Time step = to_ticks(0.25);
  for (Time start = 0; start < to_ticks(1.0); start += step) {
    const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(to_seconds(start), 0.25)};
    const std::array<Time, 2> samples{start + step / 4, start + step / 2};
    const StepOutputs out = run_step(*slave, start, start + step, inputs, samples);
    check(to_seconds(samples[0]), out.samples[0]);
    check(to_seconds(samples[1]), out.samples[2]);
    check(to_seconds(start + step), out.end[0]);
  }
  return worst;
}

// ---------------------------------------------------------------------------
// Tests.

TEST(OdeSlave, DescribesTheModelAndItsCapabilities) {
  auto slave = scalar_slave(settings_for(SolverKind::cvode));
  const SlaveDescription& description = slave->description();
  ASSERT_EQ(description.inputs.size(), 1u);
  EXPECT_EQ(description.inputs[0].name, "u");
  ASSERT_EQ(description.outputs.size(), 2u);
  EXPECT_EQ(description.outputs[1].name, "x_plus_du");
  EXPECT_TRUE(description.outputs[1].direct_feedthrough);
  EXPECT_EQ(description.capabilities.max_input_degree, Polynomial::kMaxDegree);
  EXPECT_EQ(description.capabilities.output_derivative_order, 3);
  EXPECT_TRUE(description.capabilities.can_rollback);
  EXPECT_TRUE(description.capabilities.variable_step);
  EXPECT_TRUE(description.capabilities.intermediate_samples);

  auto oscillator =
      make_ode_slave("osc", std::make_unique<OscillatorModel>(), settings_for(SolverKind::euler));
  EXPECT_EQ(oscillator->description().capabilities.output_derivative_order, 0);
}

TEST(OdeSlave, CvodeMatchesTheClosedFormUnderAQuadraticInput) {
  EXPECT_LT(scalar_error(settings_for(SolverKind::cvode)), 1e-7);
  SolverSettings adams = settings_for(SolverKind::cvode);
  adams.method = CvodeMethod::adams;
  EXPECT_LT(scalar_error(adams), 1e-7);
}

TEST(OdeSlave, CvodeWithoutLinearFormUsesDifferenceQuotientsAndStillMatches) {
  auto slave = scalar_slave(settings_for(SolverKind::cvode), {.linear = false});
  slave->setup(0);
  const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 1.0)};
  const StepOutputs out = run_step(*slave, 0, to_ticks(1.0), inputs);
  EXPECT_NEAR(out.end[0], kQuadratic.x(1.0), 1e-7 * std::abs(kQuadratic.x(1.0)));
}

TEST(OdeSlave, CvodeHonoursMaxInternalStep) {
  SolverSettings settings = settings_for(SolverKind::cvode);
  settings.max_internal_step = 1e-3;
  EXPECT_LT(scalar_error(settings), 1e-7);
}

TEST(OdeSlave, ExactMatchesTheClosedFormUnderAQuadraticInput) {
  EXPECT_LT(scalar_error(settings_for(SolverKind::exact)), 1e-12);
}

TEST(OdeSlave, EulerConvergesWithOrderOne) {
  const auto error_at_end = [](int substeps) {
    SolverSettings settings = settings_for(SolverKind::euler);
    settings.euler_substeps = substeps;
    auto slave = scalar_slave(settings);
    slave->setup(0);
    StepOutputs out;
    const Time step = to_ticks(0.25);
    for (Time start = 0; start < to_ticks(1.0); start += step) {
      const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(to_seconds(start), 0.25)};
      out = run_step(*slave, start, start + step, inputs);
    }
    return std::abs(out.end[0] - kQuadratic.x(1.0));
  };
  const double coarse = error_at_end(16);
  const double fine = error_at_end(32);
  EXPECT_GT(coarse, 1e-5);  // an Euler error, not an exact solution
  EXPECT_NEAR(std::log2(coarse / fine), 1.0, 0.2);
}

TEST(OdeSlave, EulerSamplesInterpolateLinearlyBetweenSubsteps) {
  // One substep of 1 s from x0: the polygon is x0 + s f(0, x0, u(0)).
  SolverSettings settings = settings_for(SolverKind::euler);
  auto slave = scalar_slave(settings);
  slave->setup(0);
  const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 1.0)};
  const std::array<Time, 2> samples{to_ticks(0.3), to_ticks(1.0)};
  const StepOutputs out = run_step(*slave, 0, to_ticks(1.0), inputs, samples);
  const double slope = kQuadratic.a * kQuadratic.x0 + kQuadratic.b * kQuadratic.u(0.0);
  EXPECT_NEAR(out.samples[0], kQuadratic.x0 + 0.3 * slope, 1e-15);
  EXPECT_EQ(out.samples[2], out.end[0]);
  EXPECT_NEAR(out.end[0], kQuadratic.x0 + slope, 1e-15);
}

TEST(OdeSlave, OutputsAndDerivativesAtTheStepEndMatchTheClosedForm) {
  for (const SolverKind kind : {SolverKind::cvode, SolverKind::exact}) {
    SCOPED_TRACE(static_cast<int>(kind));
    auto slave = scalar_slave(settings_for(kind));
    slave->setup(0);
    const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 0.6)};
    const StepOutputs out = run_step(*slave, 0, to_ticks(0.6), inputs);
    const double t = 0.6;
    const double d = ScalarModel::Parameters{}.d;
    ASSERT_EQ(out.end.size(), 8u);  // 4 rows of 2 outputs
    for (int k = 0; k <= 3; ++k) {
      const auto row = static_cast<std::size_t>(k);
      const double tolerance = 1e-7 * (1.0 + std::abs(kQuadratic.x(t, k)));
      EXPECT_NEAR(out.end[row * 2], kQuadratic.x(t, k), tolerance) << "derivative " << k;
      EXPECT_NEAR(out.end[row * 2 + 1], kQuadratic.x(t, k) + d * kQuadratic.u(t, k), tolerance)
          << "derivative " << k;
    }
  }
}

TEST(OdeSlave, EvaluateOutputsGivesOutputsAndDerivativesAtTheCurrentTime) {
  auto slave = scalar_slave(settings_for(SolverKind::cvode));
  slave->setup(0);
  const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 1.0)};
  std::array<double, 8> end{};
  slave->evaluate_outputs(inputs, end);
  const double d = ScalarModel::Parameters{}.d;
  for (int k = 0; k <= 3; ++k) {
    const auto row = static_cast<std::size_t>(k);
    EXPECT_NEAR(end[row * 2], kQuadratic.x(0.0, k), 1e-12) << "derivative " << k;
    EXPECT_NEAR(end[row * 2 + 1], kQuadratic.x(0.0, k) + d * kQuadratic.u(0.0, k), 1e-12);
  }
}

TEST(OdeSlave, OscillatorExactAndCvodeAgreeAtSamplesInsideTheStep) {
  auto exact =
      make_ode_slave("exact", std::make_unique<OscillatorModel>(), settings_for(SolverKind::exact));
  auto cvode =
      make_ode_slave("cvode", std::make_unique<OscillatorModel>(), settings_for(SolverKind::cvode));
  exact->setup(0);
  cvode->setup(0);
  const Time step = to_ticks(0.5);
  for (Time start = 0; start < to_ticks(2.0); start += step) {
    const double t0 = to_seconds(start);
    const std::array<double, 2> coefficients{std::sin(t0), 0.8 * std::cos(t0)};  // degree 1
    const std::array<Polynomial, 1> inputs{Polynomial::from_coefficients(t0, 0.5, coefficients)};
    const std::array<Time, 3> samples{start + to_ticks(0.1), start + to_ticks(0.25),
                                      start + to_ticks(0.4)};
    const StepOutputs a = run_step(*exact, start, start + step, inputs, samples);
    const StepOutputs b = run_step(*cvode, start, start + step, inputs, samples);
    for (std::size_t i = 0; i < a.samples.size(); ++i)
      EXPECT_NEAR(a.samples[i], b.samples[i], 1e-6);
    for (std::size_t i = 0; i < a.end.size(); ++i) EXPECT_NEAR(a.end[i], b.end[i], 1e-6);
  }
  // And the exact solver is really moving: the oscillator is not at rest.
  std::array<double, 2> now{};
  const std::array<Polynomial, 1> zero{Polynomial::constant(2.0, 0.0)};
  exact->evaluate_outputs(zero, now);
  EXPECT_GT(std::abs(now[0] - 0.2), 1e-2);
}

// The event model: a switches from −0.5 to 1.2 at t_e = 0.37 s inside the step [0, 1].
constexpr double kEventTime = 0.37;
const ScalarModel::Parameters kEventParameters{.a_before = -0.5,
                                               .a_after = 1.2,
                                               .event_time = kEventTime,
                                               .b = 1.0,
                                               .d = 0.0,
                                               .x0 = 0.7,
                                               .linear = true};
constexpr double kEventInput = 0.8;

double piecewise_solution(double t) {
  const auto& p = kEventParameters;
  if (t < kEventTime) return constant_input_solution(p.a_before, p.b, kEventInput, p.x0, t);
  const double at_event = constant_input_solution(p.a_before, p.b, kEventInput, p.x0, kEventTime);
  return constant_input_solution(p.a_after, p.b, kEventInput, at_event, t - kEventTime);
}

const std::array<Time, 3> kEventSamples{to_ticks(0.2), to_ticks(kEventTime), to_ticks(0.6)};

StepOutputs run_event_step(Slave& slave) {
  slave.setup(0);
  const std::array<Polynomial, 1> inputs{Polynomial::constant(0.0, kEventInput)};
  return run_step(slave, 0, to_ticks(1.0), inputs, kEventSamples);
}

TEST(OdeSlave, TimeEventInsideAStepMatchesThePiecewiseClosedForm) {
  for (const auto& [kind, tolerance] :
       {std::pair{SolverKind::cvode, 1e-7}, std::pair{SolverKind::exact, 1e-12}}) {
    SCOPED_TRACE(static_cast<int>(kind));
    auto slave = scalar_slave(settings_for(kind), kEventParameters);
    const StepOutputs out = run_event_step(*slave);
    for (std::size_t k = 0; k < kEventSamples.size(); ++k) {
      const double expected = piecewise_solution(to_seconds(kEventSamples[k]));
      EXPECT_NEAR(out.samples[k * 2], expected, tolerance * std::abs(expected)) << "sample " << k;
    }
    EXPECT_NEAR(out.end[0], piecewise_solution(1.0), tolerance * std::abs(piecewise_solution(1.0)));
  }
}

TEST(OdeSlave, CvodeStopsAtTheEventAndRestartsThere) {
  // Once CVODE has evaluated the new equations (t >= t_e) it never goes back before
  // t_e: it did not step across the event and reject back over it.
  auto model = std::make_unique<ProbedScalarModel>(kEventParameters);
  const auto times = model->times;
  auto slave = make_ode_slave("probed", std::move(model), settings_for(SolverKind::cvode));
  const StepOutputs out = run_event_step(*slave);
  ASSERT_FALSE(times->empty());
  bool seen_new_equations = false;
  for (const double t : *times) {
    if (t >= kEventTime) seen_new_equations = true;
    EXPECT_FALSE(seen_new_equations && t < kEventTime)
        << "evaluated at " << t << " after crossing the event";
  }
  EXPECT_TRUE(seen_new_equations);
  EXPECT_NEAR(out.end[0], piecewise_solution(1.0), 1e-7 * std::abs(piecewise_solution(1.0)));
}

TEST(OdeSlave, EulerSplitsItsSubstepAtTheEvent) {
  // k = 1: one Euler step to t_e with the old slope, one to 1 s with the new one.
  auto slave = scalar_slave(settings_for(SolverKind::euler), kEventParameters);
  const StepOutputs out = run_event_step(*slave);
  const auto& p = kEventParameters;
  const double slope_before = p.a_before * p.x0 + p.b * kEventInput;
  const double at_event = p.x0 + kEventTime * slope_before;
  const double slope_after = p.a_after * at_event + p.b * kEventInput;
  EXPECT_NEAR(out.samples[0], p.x0 + 0.2 * slope_before, 1e-14);
  EXPECT_NEAR(out.samples[2], at_event, 1e-14);
  EXPECT_NEAR(out.samples[4], at_event + (0.6 - kEventTime) * slope_after, 1e-14);
  EXPECT_NEAR(out.end[0], at_event + (1.0 - kEventTime) * slope_after, 1e-14);
}

TEST(OdeSlave, WrapsTheCatalogsLinearModelLikeAHandWrittenOne) {
  // The same equations as a LinearModel (the catalog's building block): the input
  // jet and derivative layouts of slave and model agree.
  const auto& p = kEventParameters;
  ModelDescription description;
  description.name = "test.linear_scalar";
  description.inputs = {"u"};
  description.outputs = {{"x", false}, {"x_plus_du", false}};
  description.states = {"x"};
  std::vector<LinearForm> forms;
  for (const double a : {p.a_before, p.a_after}) {
    LinearForm form = zero_linear_form(1, 1, 2);
    form.A(0, 0) = a;
    form.B(0, 0) = p.b;
    form.C << 1.0, 1.0;
    form.D << 0.0, 0.5;
    forms.push_back(form);
  }
  auto linear = std::make_unique<LinearModel>(description, forms, std::vector<double>{kEventTime},
                                              Eigen::VectorXd::Constant(1, p.x0));
  ScalarModel::Parameters hand_written = kEventParameters;
  hand_written.d = 0.5;
  auto reference = scalar_slave(settings_for(SolverKind::exact), hand_written);
  auto slave = make_ode_slave("linear", std::move(linear), settings_for(SolverKind::exact));
  EXPECT_EQ(slave->description().capabilities.output_derivative_order, 3);
  EXPECT_TRUE(slave->description().outputs[1].direct_feedthrough);
  reference->setup(0);
  slave->setup(0);
  const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 1.0)};
  const std::array<Time, 2> samples{to_ticks(0.3), to_ticks(0.5)};
  const StepOutputs expected = run_step(*reference, 0, to_ticks(1.0), inputs, samples);
  const StepOutputs actual = run_step(*slave, 0, to_ticks(1.0), inputs, samples);
  for (std::size_t i = 0; i < expected.samples.size(); ++i) {
    EXPECT_NEAR(actual.samples[i], expected.samples[i], 1e-12);
  }
  for (std::size_t i = 0; i < expected.end.size(); ++i) {
    EXPECT_NEAR(actual.end[i], expected.end[i], 1e-12 * (1.0 + std::abs(expected.end[i])))
        << "row " << i / 2;
  }
}

class RollbackTest : public ::testing::TestWithParam<SolverKind> {};

TEST_P(RollbackTest, RestoreThenRerunIsBitIdentical) {
  SolverSettings settings = settings_for(GetParam());
  settings.euler_substeps = 7;
  auto slave =
      scalar_slave(settings, kEventParameters);  // the event at 0.37 s cuts the second step
  slave->setup(0);
  const std::array<Polynomial, 1> first{Polynomial::constant(0.0, 0.5)};
  run_step(*slave, 0, to_ticks(0.3), first);

  slave->save_state();
  const std::array<double, 3> a{0.4, -0.3, 0.9};
  const std::array<double, 3> b{-1.0, 2.0, 0.1};
  const std::array<Polynomial, 1> inputs_a{Polynomial::from_coefficients(0.3, 0.5, a)};
  const std::array<Polynomial, 1> inputs_b{Polynomial::from_coefficients(0.3, 0.5, b)};
  const std::array<Time, 2> samples{to_ticks(0.35), to_ticks(0.55)};
  const StepOutputs original = run_step(*slave, to_ticks(0.3), to_ticks(0.8), inputs_a, samples);
  slave->restore_state();
  const StepOutputs other = run_step(*slave, to_ticks(0.3), to_ticks(0.8), inputs_b, samples);
  slave->restore_state();
  const StepOutputs rerun = run_step(*slave, to_ticks(0.3), to_ticks(0.8), inputs_a, samples);

  ASSERT_EQ(original.samples.size(), rerun.samples.size());
  for (std::size_t i = 0; i < original.samples.size(); ++i)
    EXPECT_EQ(original.samples[i], rerun.samples[i]);
  for (std::size_t i = 0; i < original.end.size(); ++i) EXPECT_EQ(original.end[i], rerun.end[i]);
  EXPECT_NE(original.end[0], other.end[0]);  // the other inputs really did something
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, RollbackTest,
                         ::testing::Values(SolverKind::cvode, SolverKind::euler,
                                           SolverKind::exact));

TEST(OdeSlave, RequestsOutsideTheContractAreProtocolViolations) {
  auto slave = scalar_slave(settings_for(SolverKind::cvode));
  const std::array<Polynomial, 1> inputs{Polynomial::constant(0.0, 1.0)};
  std::array<double, 8> end{};
  EXPECT_THROW(slave->evaluate_outputs(inputs, end), ProtocolViolation);  // before setup
  slave->setup(0);
  EXPECT_THROW(run_step(*slave, to_ticks(0.1), to_ticks(0.2), inputs),
               ProtocolViolation);                                          // wrong start
  EXPECT_THROW(run_step(*slave, 0, 0, inputs), ProtocolViolation);          // empty step
  EXPECT_THROW(run_step(*slave, 0, to_ticks(0.1), {}), ProtocolViolation);  // no input
  const std::array<Time, 1> outside{to_ticks(0.2)};
  EXPECT_THROW(run_step(*slave, 0, to_ticks(0.1), inputs, outside), ProtocolViolation);
  EXPECT_THROW(slave->restore_state(), ProtocolViolation);  // nothing saved
  std::array<double, 2> too_small{};
  EXPECT_THROW(slave->evaluate_outputs(inputs, too_small), ProtocolViolation);
  try {
    run_step(*slave, to_ticks(0.1), to_ticks(0.2), inputs);
  } catch (const ProtocolViolation& violation) {
    EXPECT_NE(std::string(violation.what()).find("scalar"), std::string::npos) << violation.what();
  }
  // A polynomial cannot exceed Polynomial::kMaxDegree, which is the capability: the
  // highest degree is accepted (and check_step_request rejects anything above it).
  std::array<double, Polynomial::kMaxDegree + 1> coefficients{};
  coefficients.back() = 1e-3;
  const std::array<Polynomial, 1> highest{Polynomial::from_coefficients(0.0, 1.0, coefficients)};
  EXPECT_NO_THROW(run_step(*slave, 0, to_ticks(0.1), highest));
}

TEST(OdeSlave, ADegreeAboveTheCapabilityIsAProtocolViolation) {
  // The OdeSlave accepts every representable degree, so exercise the same check
  // (check_step_request, called first in step) on a description that accepts less.
  auto slave = scalar_slave(settings_for(SolverKind::cvode));
  SlaveDescription limited = slave->description();
  limited.capabilities.max_input_degree = 1;
  const std::array<double, 3> quadratic{1.0, 2.0, 3.0};
  const std::array<Polynomial, 1> inputs{Polynomial::from_coefficients(0.0, 1.0, quadratic)};
  StepRequest request;
  request.start = 0;
  request.end = to_ticks(0.1);
  request.inputs = inputs;
  EXPECT_THROW(check_step_request("scalar", limited, 0, request), ProtocolViolation);
}

TEST(OdeSlave, CvodeFailureIsASlaveErrorNamingTheSlave) {
  for (const double failure_time : {0.0, 0.4}) {
    SCOPED_TRACE(failure_time);
    auto slave = make_ode_slave("nan-slave", std::make_unique<NanModel>(failure_time),
                                settings_for(SolverKind::cvode));
    slave->setup(0);
    try {
      run_step(*slave, 0, to_ticks(1.0), {});
      ADD_FAILURE() << "no SlaveError";
    } catch (const SlaveError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("nan-slave"), std::string::npos) << message;
      EXPECT_NE(message.find("CV_"), std::string::npos) << message;  // CVODE's flag name
      EXPECT_NE(message.find("t = "), std::string::npos) << message;
    }
  }
}

TEST(OdeSlave, EulerFailureOnNonFiniteDerivativesIsASlaveError) {
  auto slave =
      make_ode_slave("nan-euler", std::make_unique<NanModel>(0.0), settings_for(SolverKind::euler));
  slave->setup(0);
  EXPECT_THROW(run_step(*slave, 0, to_ticks(1.0), {}), SlaveError);
}

TEST(OdeSlave, ModelExceptionsCrossCvodeUnchanged) {
  auto slave = make_ode_slave("throwing", std::make_unique<ThrowingModel>(),
                              settings_for(SolverKind::cvode));
  slave->setup(0);
  EXPECT_THROW(run_step(*slave, 0, to_ticks(1.0), {}), std::domain_error);
}

TEST(OdeSlave, ConstructionErrorsNameTheSlave) {
  const auto expect_configuration_error = [](auto make, const std::string& fragment) {
    try {
      make();
      ADD_FAILURE() << "no ConfigurationError";
    } catch (const ConfigurationError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("my-slave"), std::string::npos) << message;
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
    }
  };
  expect_configuration_error(
      [] {
        make_ode_slave("my-slave",
                       std::make_unique<ScalarModel>(ScalarModel::Parameters{.linear = false}),
                       settings_for(SolverKind::exact));
      },
      "solver 'exact' needs a linear model");
  expect_configuration_error(
      [] { make_ode_slave("my-slave", nullptr, settings_for(SolverKind::cvode)); }, "model");
  SolverSettings no_substeps = settings_for(SolverKind::euler);
  no_substeps.euler_substeps = 0;
  expect_configuration_error(
      [&] { make_ode_slave("my-slave", std::make_unique<OscillatorModel>(), no_substeps); },
      "euler_substeps");
  SolverSettings bad_tolerance = settings_for(SolverKind::cvode);
  bad_tolerance.relative_tolerance = -1.0;
  expect_configuration_error(
      [&] { make_ode_slave("my-slave", std::make_unique<OscillatorModel>(), bad_tolerance); },
      "tolerance");
}

TEST(OdeSlave, CvodeAndEulerStepsDoNotAllocate) {
  for (const SolverKind kind : {SolverKind::cvode, SolverKind::euler}) {
    SCOPED_TRACE(static_cast<int>(kind));
    auto slave = scalar_slave(settings_for(kind), kEventParameters);
    slave->setup(0);
    const std::array<Polynomial, 1> inputs{kQuadratic.polynomial_around(0.0, 1.0)};
    const std::array<Time, 2> samples{to_ticks(0.2), to_ticks(0.5)};
    std::array<double, 2 * 2> sample_buffer{};
    std::array<double, 4 * 2> end_buffer{};
    StepRequest request;
    request.start = 0;
    request.end = to_ticks(1.0);  // crosses the event at 0.37 s
    request.inputs = inputs;
    request.sample_times = samples;
    slave->save_state();

    allocation_count = 0;
    counting_allocations = true;
    slave->step(request, {end_buffer, sample_buffer});
    slave->restore_state();
    slave->step(request, {end_buffer, sample_buffer});
    slave->evaluate_outputs(inputs, end_buffer);
    counting_allocations = false;
    EXPECT_EQ(allocation_count.load(), 0);
  }
}

TEST(OdeSlave, AllocationCounterSeesAllocations) {
  // The counter itself must be able to fail the test above.
  allocation_count = 0;
  counting_allocations = true;
  auto slave = scalar_slave(settings_for(SolverKind::cvode));
  slave->setup(0);
  counting_allocations = false;
  EXPECT_GT(allocation_count.load(), 0);
}

}  // namespace
}  // namespace couplet::models
