// OdeSlave::linearize: exact for models with a linear form, central differences
// otherwise (against analytic Jacobians), for catalog models, a hand-written
// nonlinear model and model-exchange FMUs; it leaves the slave's state and later
// steps untouched, does not allocate after setup, and is refused for models that
// read input derivatives and for co-simulation FMUs.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"
#include "models/fmi/fmu_slaves.hpp"
#include "models/ode_slave.hpp"
#include "test_fmus.hpp"

// Heap-allocation counter (support/malloc_counter.hpp): every allocation of the
// process, SUNDIALS' and Eigen's included, also under the sanitizers.
#include "support/malloc_counter.hpp"
namespace {
std::atomic<bool>& counting_allocations = couplet::testing::counting_mallocs;
std::atomic<long>& allocation_count = couplet::testing::malloc_count;
}  // namespace

namespace couplet::models {
namespace {

// Central differences with h = ∛ε·max(1, |v|) are good to about ε^(2/3) ≈ 4e-11
// relative on smooth functions; the brief's bar is 1e-7.
constexpr double kDifferenceTolerance = 1e-7;

/// The pieces of a linearization buffer (LinearizationLayout), as Eigen matrices.
struct Linearization {
  Eigen::VectorXd x, dxdt;
  Eigen::MatrixXd A, B, C, D;
};

Linearization unpack(const LinearizationLayout& layout, std::span<const double> values) {
  const auto n = static_cast<Eigen::Index>(layout.states);
  const auto m = static_cast<Eigen::Index>(layout.inputs);
  const auto q = static_cast<Eigen::Index>(layout.outputs);
  const auto matrix = [&](std::size_t offset, Eigen::Index rows, Eigen::Index columns) {
    return Eigen::MatrixXd(
        Eigen::Map<const Eigen::MatrixXd>(values.data() + offset, rows, columns));
  };
  return {Eigen::Map<const Eigen::VectorXd>(values.data() + layout.state_offset(), n),
          Eigen::Map<const Eigen::VectorXd>(values.data() + layout.derivative_offset(), n),
          matrix(layout.a_offset(), n, n),
          matrix(layout.b_offset(), n, m),
          matrix(layout.c_offset(), q, n),
          matrix(layout.d_offset(), q, m)};
}

Linearization linearize(Slave& slave, std::span<const Polynomial> inputs) {
  const LinearizationLayout layout = LinearizationLayout::of(slave.description());
  std::vector<double> values(layout.size(), std::nan(""));
  slave.linearize(inputs, values);
  return unpack(layout, values);
}

/// Every entry within `tolerance` relative to max(1, |expected|).
void expect_close(const Eigen::MatrixXd& actual, const Eigen::MatrixXd& expected, double tolerance,
                  const char* what) {
  ASSERT_EQ(actual.rows(), expected.rows()) << what;
  ASSERT_EQ(actual.cols(), expected.cols()) << what;
  for (Eigen::Index i = 0; i < expected.rows(); ++i) {
    for (Eigen::Index j = 0; j < expected.cols(); ++j) {
      EXPECT_NEAR(actual(i, j), expected(i, j), tolerance * std::max(1.0, std::abs(expected(i, j))))
          << what << "(" << i << ", " << j << ")";
    }
  }
}

SolverSettings cvode_settings() {
  SolverSettings settings;
  settings.relative_tolerance = 1e-10;
  settings.absolute_tolerance = 1e-12;
  return settings;
}

SolverSettings euler_settings() {
  SolverSettings settings;
  settings.kind = SolverKind::euler;
  settings.euler_substeps = 5;
  return settings;
}

std::unique_ptr<Model> catalog_model(
    const std::string& name, const std::map<std::string, double, std::less<>>& overrides = {}) {
  return ModelCatalog::builtin().create(name, overrides);
}

std::unique_ptr<Slave> catalog_slave(
    const std::string& name, const SolverSettings& settings,
    const std::map<std::string, double, std::less<>>& overrides = {}) {
  return make_ode_slave(name, catalog_model(name, overrides), settings);
}

/// A step with end outputs and samples, returned as one vector (end rows, then samples).
std::vector<double> run_step(Slave& slave, Time start, Time end, std::span<const Polynomial> inputs,
                             std::span<const Time> sample_times = {}) {
  const SlaveDescription& description = slave.description();
  const std::size_t outputs = description.outputs.size();
  const auto rows = static_cast<std::size_t>(description.capabilities.output_derivative_order + 1);
  std::vector<double> values(rows * outputs + sample_times.size() * outputs, 0.0);
  const std::span<double> all(values);
  StepRequest request{start, end, inputs, sample_times};
  slave.step(request, {all.first(rows * outputs), all.subspan(rows * outputs)});
  return values;
}

/// Linear polynomial inputs a + b (t − origin), one per input, distinct per index.
std::vector<Polynomial> ramp_inputs(std::size_t count, double origin, double base) {
  std::vector<Polynomial> inputs;
  for (std::size_t i = 0; i < count; ++i) {
    const std::array<double, 2> coefficients{base + 0.3 * static_cast<double>(i), -0.7};
    inputs.push_back(Polynomial::from_coefficients(origin, 1.0, coefficients));
  }
  return inputs;
}

/// The slave's inputs at t as a vector (what linearize evaluates).
Eigen::VectorXd values_at(std::span<const Polynomial> inputs, double t) {
  Eigen::VectorXd u(static_cast<Eigen::Index>(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    u(static_cast<Eigen::Index>(i)) = inputs[i].value(t);
  return u;
}

// ---------------------------------------------------------------------------
// Linear forms: exact.

class LinearCatalogModel : public ::testing::TestWithParam<const char*> {};

TEST_P(LinearCatalogModel, LinearizationIsItsLinearFormAndDerivativesExactly) {
  const std::string name = GetParam();
  auto slave = catalog_slave(name, cvode_settings());
  const auto model = catalog_model(name);  // the same equations, to compare with
  ASSERT_TRUE(slave->description().capabilities.can_linearize);
  ASSERT_EQ(slave->description().capabilities.state_count, 2u);
  slave->setup(0);

  // At the start: x is the initial state.
  const std::vector<Polynomial> inputs = ramp_inputs(model->input_count(), 0.0, 0.4);
  Linearization at_start = linearize(*slave, inputs);
  std::array<double, 2> initial{};
  model->initial_state(initial);
  EXPECT_EQ(at_start.x(0), initial[0]);
  EXPECT_EQ(at_start.x(1), initial[1]);

  // After a step, with other inputs: still the linear form, bit for bit, and ẋ
  // is the model's own f(t, x, u) at the linearization's x.
  run_step(*slave, 0, to_ticks(0.002), inputs);
  const std::vector<Polynomial> later = ramp_inputs(model->input_count(), 0.002, -1.3);
  const Linearization point = linearize(*slave, later);
  const LinearForm& form = *model->linear_form(0.002);
  EXPECT_TRUE(point.A == form.A) << point.A;
  EXPECT_TRUE(point.B == form.B) << point.B;
  EXPECT_TRUE(point.C == form.C) << point.C;
  EXPECT_TRUE(point.D == form.D) << point.D;
  EXPECT_NE(point.x(0), initial[0]);  // the step moved it
  const Eigen::VectorXd u = values_at(later, 0.002);
  std::array<double, 2> expected_rate{};
  model->derivatives(0.002, {point.x.data(), 2}, {u.data(), static_cast<std::size_t>(u.size())},
                     expected_rate);
  EXPECT_EQ(point.dxdt(0), expected_rate[0]);
  EXPECT_EQ(point.dxdt(1), expected_rate[1]);
}

INSTANTIATE_TEST_SUITE_P(Missiles, LinearCatalogModel,
                         ::testing::Values("missiles.left", "missiles.right"));

// ---------------------------------------------------------------------------
// No linear form: central differences against analytic Jacobians.

TEST(OdeSlaveLinearize, LotkaVolterraDifferencesMatchTheAnalyticJacobian) {
  // ẋ = x (a + b u), y = x: A = a + b u, B = b x, C = 1, D = 0; (a, b) = (α, −β)
  // for the prey, (−γ, δ) for the predator.
  struct Species {
    const char* name;
    std::map<std::string, double, std::less<>> parameters;
    double a, b;
  };
  const std::array<Species, 2> species{{
      {"lotka_volterra.prey", {{"alpha", 1.1}, {"beta", 0.4}, {"x0", 2.5}}, 1.1, -0.4},
      {"lotka_volterra.predator", {{"gamma", 0.7}, {"delta", 1.9}, {"x0", 30.0}}, -0.7, 1.9},
  }};
  for (const Species& s : species) {
    SCOPED_TRACE(s.name);
    auto slave = catalog_slave(s.name, cvode_settings(), s.parameters);
    ASSERT_TRUE(slave->description().capabilities.can_linearize);
    slave->setup(0);
    const std::array<double, 2> ramp{3.0, 2.0};
    const std::array<Polynomial, 1> inputs{Polynomial::from_coefficients(0.0, 1.0, ramp)};
    run_step(*slave, 0, to_ticks(0.25), inputs);
    const Linearization point = linearize(*slave, inputs);
    const double x = point.x(0);
    const double u = inputs[0].value(0.25);
    EXPECT_NE(x, s.parameters.at("x0"));
    EXPECT_DOUBLE_EQ(point.dxdt(0), x * (s.a + s.b * u));
    expect_close(point.A, Eigen::MatrixXd::Constant(1, 1, s.a + s.b * u), kDifferenceTolerance,
                 "A");
    expect_close(point.B, Eigen::MatrixXd::Constant(1, 1, s.b * x), kDifferenceTolerance, "B");
    expect_close(point.C, Eigen::MatrixXd::Constant(1, 1, 1.0), kDifferenceTolerance, "C");
    expect_close(point.D, Eigen::MatrixXd::Zero(1, 1), kDifferenceTolerance, "D");
  }
}

TEST(OdeSlaveLinearize, DamperBodyDifferencesMatchItsEquations) {
  // damper.mass_spring has no linear form (its forcing f_L(t)), so it goes
  // through differences. States (v_L, x_L), inputs (v_c, x_c), output f_c:
  //   v̇_L = (f_L + K (x_c − x_L) + D (v_c − v_L)) / M,  ẋ_L = v_L,
  //   f_c = −K (x_c − x_L) − D (v_c − v_L).
  const double mass = 2.0, stiffness = 3.0, damping = 0.5;
  auto slave = catalog_slave("damper.mass_spring", cvode_settings(),
                             {{"M_L", mass}, {"K_SD", stiffness}, {"D_SD", damping}});
  slave->setup(0);
  const std::vector<Polynomial> inputs = ramp_inputs(2, 0.0, 0.2);
  run_step(*slave, 0, to_ticks(0.5), inputs);
  const Linearization point = linearize(*slave, inputs);
  Eigen::MatrixXd A(2, 2), B(2, 2), C(1, 2), D(1, 2);
  A << -damping / mass, -stiffness / mass, 1.0, 0.0;
  B << damping / mass, stiffness / mass, 0.0, 0.0;
  C << damping, stiffness;
  D << -damping, -stiffness;
  expect_close(point.A, A, kDifferenceTolerance, "A");
  expect_close(point.B, B, kDifferenceTolerance, "B");
  expect_close(point.C, C, kDifferenceTolerance, "C");
  expect_close(point.D, D, kDifferenceTolerance, "D");
  EXPECT_DOUBLE_EQ(point.dxdt(1), point.x(0));
}

/// Strongly nonlinear, at large and small magnitudes (the step scales with |v|):
///   ẋ₀ = sin(x₀) x₁² + u₀³,  ẋ₁ = exp(x₀ / 50) u₀ − x₁ u₁,
///   y₀ = x₀ x₁ + u₁²,  y₁ = x₁.
class CurvedModel final : public Model {
 public:
  CurvedModel() {
    description_.name = "test.curved";
    description_.inputs = {"u0", "u1"};
    description_.outputs = {{"product", true}, {"x1", false}};
    description_.states = {"x0", "x1"};
  }
  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override {
    x[0] = 40.0;
    x[1] = 3e-3;
  }
  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    dxdt[0] = std::sin(x[0]) * x[1] * x[1] + u[0] * u[0] * u[0];
    dxdt[1] = std::exp(x[0] / 50.0) * u[0] - x[1] * u[1];
  }
  void outputs(double, std::span<const double> x, std::span<const double> u,
               std::span<double> y) const override {
    y[0] = x[0] * x[1] + u[1] * u[1];
    y[1] = x[1];
  }

 private:
  ModelDescription description_;
};

TEST(OdeSlaveLinearize, DifferencesOfANonlinearModelMatchItsJacobian) {
  auto slave = make_ode_slave("curved", std::make_unique<CurvedModel>(), cvode_settings());
  slave->setup(0);
  const std::array<double, 1> u0{-1.7};
  const std::array<double, 1> u1{250.0};
  const std::array<Polynomial, 2> inputs{Polynomial::from_coefficients(0.0, 1.0, u0),
                                         Polynomial::from_coefficients(0.0, 1.0, u1)};
  const Linearization point = linearize(*slave, inputs);
  const double x0 = point.x(0), x1 = point.x(1);
  Eigen::MatrixXd A(2, 2), B(2, 2), C(2, 2), D(2, 2);
  A << std::cos(x0) * x1 * x1, 2.0 * std::sin(x0) * x1,  //
      std::exp(x0 / 50.0) * u0[0] / 50.0, -u1[0];
  B << 3.0 * u0[0] * u0[0], 0.0,  //
      std::exp(x0 / 50.0), -x1;
  C << x1, x0, 0.0, 1.0;
  D << 0.0, 2.0 * u1[0], 0.0, 0.0;
  expect_close(point.A, A, kDifferenceTolerance, "A");
  expect_close(point.B, B, kDifferenceTolerance, "B");
  expect_close(point.C, C, kDifferenceTolerance, "C");
  expect_close(point.D, D, kDifferenceTolerance, "D");
}

// ---------------------------------------------------------------------------
// Model-exchange FMUs: the Model interface, so differences too.

std::shared_ptr<fmi::Package> switch_right_package() {
  return fmi::Package::open(COUPLET_TEST_FMU("switch_right"));
}

TEST(OdeSlaveLinearize, ModelExchangeFmuDifferencesMatchItsEquations) {
  // switch_right before switch_time: m v̇ = −c_w p − d_w v − f,
  // f = c_c (p − x) + d_c (v − v_in); defaults m = 1, c_w = 1, d_w = 0.1,
  // c_c = 1, d_c = 0.2 (tests/fmus/README.md).
  fmi::FmuSettings settings;
  settings.slave_name = "fmu-right";
  settings.parameters = {{"x0", 0.3}, {"v0", -0.2}};
  auto slave =
      make_ode_slave("fmu-right", fmi::make_model_exchange_model(switch_right_package(), settings),
                     cvode_settings());
  ASSERT_TRUE(slave->description().capabilities.can_linearize);
  ASSERT_EQ(slave->description().capabilities.state_count, 2u);
  slave->setup(0);
  const std::vector<Polynomial> inputs = ramp_inputs(2, 0.0, 0.5);
  run_step(*slave, 0, to_ticks(0.1), inputs);
  const Linearization point = linearize(*slave, inputs);
  Eigen::MatrixXd A(2, 2), B(2, 2), C(1, 2), D(1, 2);
  A << 0.0, 1.0, -2.0, -0.3;
  B << 0.0, 0.0, 1.0, 0.2;
  C << 1.0, 0.2;
  D << -1.0, -0.2;
  expect_close(point.A, A, kDifferenceTolerance, "A");
  expect_close(point.B, B, kDifferenceTolerance, "B");
  expect_close(point.C, C, kDifferenceTolerance, "C");
  expect_close(point.D, D, kDifferenceTolerance, "D");
  const Eigen::VectorXd u = values_at(inputs, 0.1);
  const double force = (point.x(0) - u(0)) + 0.2 * (point.x(1) - u(1));
  EXPECT_NEAR(point.dxdt(0), point.x(1), 1e-15);
  EXPECT_NEAR(point.dxdt(1), -point.x(0) - 0.1 * point.x(1) - force, 1e-14);
}

TEST(OdeSlaveLinearize, CoSimulationFmuCannotLinearize) {
  fmi::FmuSettings settings;
  settings.slave_name = "fmu-right-cs";
  auto slave = fmi::make_co_simulation_slave(switch_right_package(), settings);
  EXPECT_FALSE(slave->description().capabilities.can_linearize);
  EXPECT_EQ(LinearizationLayout::of(slave->description()).states, 0u);
  slave->setup(0);
  const std::vector<Polynomial> inputs = ramp_inputs(2, 0.0, 0.5);
  std::vector<double> values(LinearizationLayout::of(slave->description()).size());
  EXPECT_THROW(slave->linearize(inputs, values), ProtocolViolation);
}

// ---------------------------------------------------------------------------
// Side effects, allocation, refusals.

struct SideEffectCase {
  const char* model;
  bool euler;
};

void PrintTo(const SideEffectCase& c, std::ostream* os) {
  *os << c.model << (c.euler ? " (euler)" : " (cvode)");
}

class LinearizeSideEffects : public ::testing::TestWithParam<SideEffectCase> {};

TEST_P(LinearizeSideEffects, StepsAfterLinearizeAreBitIdenticalToStepsWithout) {
  const SideEffectCase c = GetParam();
  const SolverSettings settings = c.euler ? euler_settings() : cvode_settings();
  auto plain = catalog_slave(c.model, settings);
  auto linearized = catalog_slave(c.model, settings);
  const std::size_t input_count = plain->description().inputs.size();
  plain->setup(0);
  linearized->setup(0);
  const std::array<Time, 2> samples{to_ticks(0.013), to_ticks(0.017)};
  Time now = 0;
  for (int step = 0; step < 4; ++step) {
    SCOPED_TRACE(step);
    const Time end = now + to_ticks(0.01);
    const std::vector<Polynomial> inputs =
        ramp_inputs(input_count, to_seconds(now), 0.8 - 0.4 * step);
    // Linearize twice, once with inputs the step will not see: nothing may stick.
    linearize(*linearized, ramp_inputs(input_count, to_seconds(now), 7.0));
    const Linearization first = linearize(*linearized, inputs);
    const Linearization second = linearize(*linearized, inputs);
    EXPECT_TRUE(first.A == second.A && first.B == second.B && first.x == second.x &&
                first.dxdt == second.dxdt);
    const std::span<const Time> step_samples =
        step == 1 ? std::span<const Time>(samples) : std::span<const Time>();
    const std::vector<double> expected = run_step(*plain, now, end, inputs, step_samples);
    const std::vector<double> actual = run_step(*linearized, now, end, inputs, step_samples);
    ASSERT_EQ(expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(actual[i], expected[i]) << i;
    now = end;
  }
}

INSTANTIATE_TEST_SUITE_P(DifferencesAndLinearForms, LinearizeSideEffects,
                         ::testing::Values(SideEffectCase{"lotka_volterra.prey", false},
                                           SideEffectCase{"lotka_volterra.prey", true},
                                           SideEffectCase{"damper.mass_spring", false},
                                           SideEffectCase{"missiles.right", false},
                                           SideEffectCase{"missiles.left", true}));

TEST(OdeSlaveLinearize, RollbackAfterLinearizeIsBitIdentical) {
  auto slave = catalog_slave("lotka_volterra.predator", cvode_settings());
  slave->setup(0);
  const std::vector<Polynomial> inputs = ramp_inputs(1, 0.0, 2.0);
  slave->save_state();
  const std::vector<double> original = run_step(*slave, 0, to_ticks(0.05), inputs);
  slave->restore_state();
  linearize(*slave, inputs);
  const std::vector<double> rerun = run_step(*slave, 0, to_ticks(0.05), inputs);
  for (std::size_t i = 0; i < original.size(); ++i) EXPECT_EQ(rerun[i], original[i]) << i;
}

TEST(OdeSlaveLinearize, DoesNotAllocateAfterSetup) {
  for (const char* name : {"lotka_volterra.prey", "damper.mass_spring", "missiles.right"}) {
    SCOPED_TRACE(name);
    auto slave = catalog_slave(name, cvode_settings());
    slave->setup(0);
    const std::vector<Polynomial> inputs =
        ramp_inputs(slave->description().inputs.size(), 0.0, 0.3);
    std::vector<double> values(LinearizationLayout::of(slave->description()).size());
    allocation_count = 0;
    counting_allocations = true;
    slave->linearize(inputs, values);
    slave->linearize(inputs, values);
    counting_allocations = false;
    EXPECT_EQ(allocation_count.load(), 0);
    EXPECT_TRUE(
        std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); }));
  }
}

TEST(OdeSlaveLinearize, AllocationCounterSeesAllocations) {
  // The counter itself must be able to fail the test above.
  allocation_count = 0;
  counting_allocations = true;
  auto slave = catalog_slave("lotka_volterra.prey", cvode_settings());
  counting_allocations = false;
  EXPECT_GT(allocation_count.load(), 0);
}

TEST(OdeSlaveLinearize, ModelReadingInputDerivativesCannotLinearize) {
  // car.controller reads u̇ (Model::input_derivative_order = 1): no ẋ = A x + B u + e.
  auto controller = catalog_slave("car.controller", cvode_settings());
  EXPECT_FALSE(controller->description().capabilities.can_linearize);
  controller->setup(0);
  const std::vector<Polynomial> inputs = ramp_inputs(1, 0.0, 1.0);
  std::vector<double> values(LinearizationLayout::of(controller->description()).size());
  try {
    controller->linearize(inputs, values);
    ADD_FAILURE() << "no ProtocolViolation";
  } catch (const ProtocolViolation& violation) {
    const std::string message = violation.what();
    EXPECT_NE(message.find("car.controller"), std::string::npos) << message;
    EXPECT_NE(message.find("input derivatives"), std::string::npos) << message;
  }
  // Its partner reads values only.
  auto vehicle = catalog_slave("car.vehicle", cvode_settings());
  EXPECT_TRUE(vehicle->description().capabilities.can_linearize);
  EXPECT_EQ(vehicle->description().capabilities.state_count, 2u);
}

TEST(OdeSlaveLinearize, BadCallsAreProtocolViolationsNamingTheSlave) {
  auto slave = catalog_slave("lotka_volterra.prey", cvode_settings());
  const std::vector<Polynomial> inputs = ramp_inputs(1, 0.0, 1.0);
  const std::size_t size = LinearizationLayout::of(slave->description()).size();
  EXPECT_EQ(size, 1u + 1u + 1u + 1u + 1u + 1u);  // x, ẋ, A, B, C, D: all 1×1
  std::vector<double> values(size);
  EXPECT_THROW(slave->linearize(inputs, values), ProtocolViolation);  // before setup
  slave->setup(0);
  std::vector<double> too_small(size - 1);
  try {
    slave->linearize(inputs, too_small);
    ADD_FAILURE() << "no ProtocolViolation";
  } catch (const ProtocolViolation& violation) {
    EXPECT_NE(std::string(violation.what()).find("lotka_volterra.prey"), std::string::npos)
        << violation.what();
  }
  EXPECT_THROW(slave->linearize({}, values), ProtocolViolation);  // no input polynomial
}

}  // namespace
}  // namespace couplet::models
