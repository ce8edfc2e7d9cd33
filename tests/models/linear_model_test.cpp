// LinearModel: analytic output derivatives against finite differences of closed-form
// trajectories, event segments, feedthrough flags, no allocation on the hot path,
// and the physics of the built-in linear pairs assembled by hand (Defect Analysis §4
// eqs. 40–41; MISSILES table 3; docs/references.md).
#include "models/linear_model.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <array>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <functional>
#include <limits>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "models/catalog.hpp"
#include "couplet/errors.hpp"

// Heap-allocation counter (support/malloc_counter.hpp): every allocation of the
// process, SUNDIALS' and Eigen's included, also under the sanitizers.
#include "support/malloc_counter.hpp"
namespace {
std::atomic<bool>& counting_allocations = couplet::testing::counting_mallocs;
std::atomic<long>& allocation_count = couplet::testing::malloc_count;
}  // namespace

namespace couplet::models {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

std::unique_ptr<Model> builtin_model(const std::string& name, const ParameterValues& overrides = {}) {
  return ModelCatalog::builtin().create(name, overrides);
}

std::vector<double> to_vector(const VectorXd& vector) {
  return std::vector<double>(vector.data(), vector.data() + vector.size());
}

VectorXd outputs_of(const Model& model, double t, const VectorXd& x, const VectorXd& u) {
  std::vector<double> y(model.output_count());
  model.outputs(t, to_vector(x), to_vector(u), y);
  return Eigen::Map<VectorXd>(y.data(), static_cast<Eigen::Index>(y.size()));
}

/// Output derivatives from the model: row k-1 = d^k y/dt^k.
MatrixXd model_output_derivatives(const Model& model, double t, const VectorXd& x,
                                  const MatrixXd& input_jet /* column j = u^(j) */, int order) {
  std::vector<double> derivatives(static_cast<std::size_t>(order) * model.output_count());
  const std::vector<double> jet(input_jet.data(), input_jet.data() + input_jet.size());
  model.output_derivatives(t, to_vector(x), jet, order, derivatives);
  return Eigen::Map<MatrixXd>(derivatives.data(), static_cast<Eigen::Index>(model.output_count()),
                              order)
      .transpose();
}

/// Fourth-order central differences of f at t for derivative orders 1..3
/// (row k-1 = k-th derivative). Truncation error O(h⁴).
MatrixXd finite_difference_derivatives(const std::function<VectorXd(double)>& f, double t,
                                       double h) {
  const auto at = [&](int i) { return f(t + i * h); };
  const VectorXd m3 = at(-3), m2 = at(-2), m1 = at(-1), zero = at(0), p1 = at(1), p2 = at(2),
                 p3 = at(3);
  MatrixXd result(3, zero.size());
  result.row(0) = ((-p2 + 8.0 * p1 - 8.0 * m1 + m2) / (12.0 * h)).transpose();
  result.row(1) = ((-p2 + 16.0 * p1 - 30.0 * zero + 16.0 * m1 - m2) / (12.0 * h * h)).transpose();
  result.row(2) =
      ((-p3 + 8.0 * p2 - 13.0 * p1 + 13.0 * m1 - 8.0 * m2 + m3) / (8.0 * h * h * h)).transpose();
  return result;
}

// --- Output derivatives ------------------------------------------------------

// translational.mass under a constant force f: m ẍ = −c x − d ẋ + f has the
// closed form x = f/c + e^{−αt}(a cos ω t + b sin ω t), α = d/2m, ω = √(c/m − α²).
TEST(LinearModelTest, OutputDerivativesMatchFiniteDifferencesOfDampedOscillator) {
  const double mass = 2.0, stiffness = 8.0, damping = 0.4, force = 0.7;
  const double x0 = 1.0, v0 = -0.5;
  const auto model = builtin_model("translational.mass", {{"m", mass},
                                                          {"c", stiffness},
                                                          {"d", damping},
                                                          {"x0", x0},
                                                          {"v0", v0}});
  const double alpha = damping / (2.0 * mass);
  const double omega = std::sqrt(stiffness / mass - alpha * alpha);
  const double equilibrium = force / stiffness;
  const double a = x0 - equilibrium;
  const double b = (v0 + alpha * a) / omega;
  const auto trajectory = [&](double t) {  // outputs (x, v) = states
    const double decay = std::exp(-alpha * t);
    const double cosine = std::cos(omega * t), sine = std::sin(omega * t);
    VectorXd y(2);
    y(0) = equilibrium + decay * (a * cosine + b * sine);
    y(1) = decay * ((b * omega - alpha * a) * cosine - (a * omega + alpha * b) * sine);
    return y;
  };

  // The closed form is the model's solution: it starts at x0 and satisfies ẋ = f(x).
  std::vector<double> initial(2);
  model->initial_state(initial);
  EXPECT_DOUBLE_EQ(trajectory(0.0)(0), initial[0]);
  EXPECT_NEAR(trajectory(0.0)(1), initial[1], 1e-15);

  MatrixXd input_jet = MatrixXd::Zero(1, 4);
  input_jet(0, 0) = force;
  for (const double t : {0.0, 0.37, 1.9, 4.25}) {
    const VectorXd state = trajectory(t);
    const MatrixXd analytic = model_output_derivatives(*model, t, state, input_jet, 3);
    const MatrixXd numeric = finite_difference_derivatives(trajectory, t, 1e-2);
    for (Eigen::Index k = 0; k < 3; ++k) {
      const double scale = std::max(1.0, numeric.row(k).cwiseAbs().maxCoeff());
      EXPECT_LT((analytic.row(k) - numeric.row(k)).cwiseAbs().maxCoeff(), 1e-7 * scale)
          << "order " << k + 1 << " at t = " << t << "\nanalytic " << analytic.row(k)
          << "\nnumeric  " << numeric.row(k);
    }
    // derivatives() agrees with the first derivative of the closed form too.
    std::vector<double> rate(2);
    model->derivatives(t, to_vector(state), std::vector<double>{force}, rate);
    EXPECT_NEAR(rate[0], analytic(0, 0), 1e-14);
    EXPECT_NEAR(rate[1], analytic(0, 1), 1e-14);
  }
}

/// A model whose second segment (from t = 0.5) has every term nonzero, under a
/// cubic input: the augmented system (x, u, u̇, ü, u⃛, 1) is linear time-invariant,
/// so x(t) = [expm(Ā (t − 0.5)) ξ₀]_x is a closed form exercising B, D, e, h and
/// every input derivative in the jet.
TEST(LinearModelTest, OutputDerivativesMatchFiniteDifferencesWithCubicInputs) {
  constexpr Eigen::Index n = 3, m = 2, p = 2;
  LinearForm form = zero_linear_form(n, m, p);
  form.A << -0.8, 0.5, 0.1,  //
      -0.4, -0.3, 0.7,       //
      0.2, -0.6, -0.5;
  form.B << 0.3, -0.2,  //
      1.0, 0.4,         //
      -0.5, 0.8;
  form.C << 1.0, -0.7, 0.2,  //
      0.0, 0.5, 1.3;
  form.D << 0.6, -0.9,  //
      0.25, 0.0;
  form.e << 0.2, -0.1, 0.4;
  form.h << -0.3, 0.15;
  const double event = 0.5;
  ModelDescription description{.name = "test.cubic",
                               .summary = "",
                               .inputs = {"u1", "u2"},
                               .outputs = {{.name = "y1"}, {.name = "y2"}},
                               .states = {"x1", "x2", "x3"},
                               .parameters = {}};
  VectorXd initial_state(n);
  initial_state << 0.4, -1.1, 0.6;
  const LinearModel model(description, {zero_linear_form(n, m, p), form}, {event}, initial_state);

  // u(t) = Σ_j coefficient_j (t − event)^j / j!, so u^(j)(event) = coefficient_j.
  MatrixXd input_coefficients(m, 4);
  input_coefficients << 0.5, -1.0, 0.8, 0.3,  //
      -0.2, 0.6, -0.4, 1.1;
  constexpr Eigen::Index augmented = n + 4 * m + 1;
  MatrixXd generator = MatrixXd::Zero(augmented, augmented);
  generator.topLeftCorner(n, n) = form.A;
  generator.block(0, n, n, m) = form.B;
  generator.block(0, augmented - 1, n, 1) = form.e;
  for (Eigen::Index j = 0; j < 3; ++j) {  // d/dt u^(j) = u^(j+1)
    generator.block(n + j * m, n + (j + 1) * m, m, m).setIdentity();
  }
  VectorXd start(augmented);
  start << initial_state, input_coefficients.col(0), input_coefficients.col(1),
      input_coefficients.col(2), input_coefficients.col(3), 1.0;
  const auto augmented_state = [&](double t) -> VectorXd {
    const MatrixXd propagator = (generator * (t - event)).exp();
    return propagator * start;
  };
  const auto trajectory = [&](double t) {
    const VectorXd xi = augmented_state(t);
    return outputs_of(model, t, xi.head(n), xi.segment(n, m));
  };

  for (const double t : {0.8, 1.3, 2.2}) {
    const VectorXd xi = augmented_state(t);
    const MatrixXd input_jet = Eigen::Map<const MatrixXd>(xi.data() + n, m, 4);
    const MatrixXd analytic = model_output_derivatives(model, t, xi.head(n), input_jet, 3);
    const MatrixXd numeric = finite_difference_derivatives(trajectory, t, 1e-2);
    for (Eigen::Index k = 0; k < 3; ++k) {
      const double scale = std::max(1.0, numeric.row(k).cwiseAbs().maxCoeff());
      EXPECT_LT((analytic.row(k) - numeric.row(k)).cwiseAbs().maxCoeff(), 1e-7 * scale)
          << "order " << k + 1 << " at t = " << t << "\nanalytic " << analytic.row(k)
          << "\nnumeric  " << numeric.row(k);
    }
    // Lower orders are the leading rows of the higher ones.
    const MatrixXd first = model_output_derivatives(model, t, xi.head(n), input_jet.leftCols(2), 1);
    EXPECT_TRUE(first.isApprox(analytic.topRows(1), 1e-14));
  }
}

TEST(LinearModelTest, OutputDerivativesRejectBadOrdersAndBuffers) {
  const auto model = builtin_model("rotational.tau2omega");
  std::vector<double> x(2), jet(5), derivatives(4);
  EXPECT_THROW(model->output_derivatives(0.0, x, jet, 4, derivatives), ProtocolViolation);
  EXPECT_THROW(model->output_derivatives(0.0, x, std::span(jet).first(3), 3,
                                         std::span(derivatives).first(3)),
               ProtocolViolation);
  EXPECT_NO_THROW(model->output_derivatives(0.0, x, std::span(jet).first(4), 3,
                                            std::span(derivatives).first(3)));
  EXPECT_EQ(model->output_derivative_order(), 3);
}

// --- Segments and events -----------------------------------------------------

TEST(LinearModelTest, CoupledMassSwitchesExactlyAtSwitchTime) {
  const double switch_time = 37.25;
  const auto model = builtin_model("translational.coupled_mass", {{"switch_time", switch_time}});
  ASSERT_EQ(model->time_events().size(), 1u);
  EXPECT_EQ(model->time_events()[0], switch_time);

  const double just_before = std::nextafter(switch_time, -std::numeric_limits<double>::infinity());
  const LinearForm* before = model->linear_form(just_before);
  const LinearForm* at = model->linear_form(switch_time);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(at, nullptr);
  EXPECT_EQ(before, model->linear_form(-1e300));
  EXPECT_EQ(at, model->linear_form(1e300));
  EXPECT_NE(before, at);
  // m = 1: before, wall stiffness 1 and anchor 0; from switch_time, 4 and 1 m.
  EXPECT_EQ(before->A(1, 0), -(1.0 + 1.0));
  EXPECT_EQ(before->e(1), 0.0);
  EXPECT_EQ(at->A(1, 0), -(4.0 + 1.0));
  EXPECT_EQ(at->e(1), 4.0 * 1.0);

  // The right-hand side switches with it: at rest at x = 0 facing a resting partner
  // at 0, the mass feels nothing before and the new anchor's pull from switch_time on.
  const std::vector<double> state{0.0, 0.0}, input{0.0, 0.0};
  std::vector<double> rate(2);
  model->derivatives(just_before, state, input, rate);
  EXPECT_EQ(rate[1], 0.0);
  model->derivatives(switch_time, state, input, rate);
  EXPECT_EQ(rate[1], 4.0);
}

TEST(LinearModelTest, ModelsWithoutEventsHaveOneSegment) {
  const auto model = builtin_model("rotational.omega2tau");
  EXPECT_TRUE(model->time_events().empty());
  EXPECT_EQ(model->linear_form(-5.0), model->linear_form(1e9));
}

TEST(LinearModelTest, FeedthroughFlagFollowsDInAnySegment) {
  LinearForm first = zero_linear_form(1, 1, 2);
  LinearForm second = zero_linear_form(1, 1, 2);
  second.D(1, 0) = 0.5;  // only output 2, only after the event
  ModelDescription description{.name = "test.feedthrough",
                               .summary = "",
                               .inputs = {"u"},
                               .outputs = {{.name = "y1", .direct_feedthrough = true},
                                           {.name = "y2", .direct_feedthrough = false}},
                               .states = {"x"},
                               .parameters = {}};
  const LinearModel model(description, {first, second}, {1.0}, VectorXd::Zero(1));
  EXPECT_FALSE(model.description().outputs[0].direct_feedthrough);
  EXPECT_TRUE(model.description().outputs[1].direct_feedthrough);
}

TEST(LinearModelTest, ConstructorRejectsInconsistentForms) {
  const ModelDescription description{.name = "test.bad",
                                     .summary = "",
                                     .inputs = {"u"},
                                     .outputs = {{.name = "y"}},
                                     .states = {"x1", "x2"},
                                     .parameters = {}};
  const VectorXd x0 = VectorXd::Zero(2);
  LinearForm wrong_input_matrix = zero_linear_form(2, 1, 1);
  wrong_input_matrix.B = MatrixXd::Zero(2, 2);
  try {
    LinearModel(description, {wrong_input_matrix}, {}, x0);
    FAIL() << "a 2x2 B for one input was accepted";
  } catch (const ConfigurationError& error) {
    EXPECT_NE(std::string(error.what()).find("test.bad"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("B of segment 0"), std::string::npos) << error.what();
  }
  const LinearForm good = zero_linear_form(2, 1, 1);
  EXPECT_THROW(LinearModel(description, {good, good}, {}, x0), ConfigurationError);
  EXPECT_THROW(LinearModel(description, {good, good, good}, {2.0, 1.0}, x0), ConfigurationError);
  EXPECT_THROW(LinearModel(description, {good}, {}, VectorXd::Zero(3)), ConfigurationError);
  LinearForm not_finite = good;
  not_finite.A(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(LinearModel(description, {not_finite}, {}, x0), ConfigurationError);
  EXPECT_NO_THROW(LinearModel(description, {good, good}, {1.0}, x0));
}

// --- Real-time path ------------------------------------------------------------

TEST(LinearModelTest, HotMethodsDoNotAllocate) {
  // The counter works: an allocation made while counting is seen.
  counting_allocations = true;
  std::vector<double>* probe = new std::vector<double>(16);
  counting_allocations = false;
  delete probe;
  ASSERT_GT(allocation_count.exchange(0), 0) << "the allocation counter is not active";

  for (const char* name : {"rotational.omega2tau", "translational.coupled_mass", "missiles.right"}) {
    const auto model = builtin_model(name);
    std::vector<double> x(model->state_count(), 0.3), u(model->input_count(), -0.2);
    std::vector<double> jet(4 * model->input_count(), 0.1);
    std::vector<double> rate(model->state_count()), y(model->output_count());
    std::vector<double> derivatives(3 * model->output_count());

    counting_allocations = true;
    for (const double t : {0.0, 150.0}) {
      model->derivatives(t, x, u, rate);
      model->outputs(t, x, u, y);
      model->output_derivatives(t, x, jet, 3, derivatives);
      model->output_derivatives(t, x, std::span(jet).first(2 * model->input_count()), 1,
                                std::span(derivatives).first(model->output_count()));
      static_cast<void>(model->linear_form(t));
      static_cast<void>(model->time_events());
    }
    counting_allocations = false;
    EXPECT_EQ(allocation_count.exchange(0), 0) << name;
  }
}

// --- Assembled pairs ---------------------------------------------------------

/// Two linear forms coupled by u = routing · y (stacked inputs from stacked
/// outputs), solved for u: u = (I − routing D)⁻¹ routing (C x + h). Returns the
/// closed-loop form ẋ = A x + e of the stacked state (C, D, h unused).
LinearForm close_loop(const LinearForm& first, const LinearForm& second, const MatrixXd& routing) {
  const auto block_diagonal = [](const MatrixXd& top, const MatrixXd& bottom) {
    MatrixXd result = MatrixXd::Zero(top.rows() + bottom.rows(), top.cols() + bottom.cols());
    result.topLeftCorner(top.rows(), top.cols()) = top;
    result.bottomRightCorner(bottom.rows(), bottom.cols()) = bottom;
    return result;
  };
  const auto stacked = [](const VectorXd& top, const VectorXd& bottom) {
    VectorXd result(top.size() + bottom.size());
    result << top, bottom;
    return result;
  };
  const MatrixXd A = block_diagonal(first.A, second.A), B = block_diagonal(first.B, second.B);
  const MatrixXd C = block_diagonal(first.C, second.C), D = block_diagonal(first.D, second.D);
  const VectorXd e = stacked(first.e, second.e), h = stacked(first.h, second.h);
  const MatrixXd identity = MatrixXd::Identity(routing.rows(), routing.rows());
  const MatrixXd gain = (identity - routing * D).partialPivLu().solve(routing);
  LinearForm closed;
  closed.A = A + B * gain * C;
  closed.e = e + B * gain * h;
  return closed;
}

/// The physical two-body chain wall ─k₁,d₁─ m₁ ─k₂,d₂─ m₂ ─k₃,d₃─ wall, state
/// (x₁, v₁, x₂, v₂), written independently of the models.
MatrixXd two_body_chain(double m1, double m2, std::array<double, 3> springs,
                        std::array<double, 3> dampers) {
  const auto [k1, k2, k3] = springs;
  const auto [d1, d2, d3] = dampers;
  MatrixXd A(4, 4);
  A << 0.0, 1.0, 0.0, 0.0,                                //
      -(k1 + k2) / m1, -(d1 + d2) / m1, k2 / m1, d2 / m1,  //
      0.0, 0.0, 0.0, 1.0,                                 //
      k2 / m2, d2 / m2, -(k2 + k3) / m2, -(d2 + d3) / m2;
  return A;
}

double max_real_part(const MatrixXd& matrix) {
  return matrix.eigenvalues().real().maxCoeff();
}

// Glumac §4: omega2tau (x = φ₁, ω₁, φ_o) with tau2omega (x = φ₂, ω₂), ω₂ → omega2tau
// and τ → tau2omega. The 5-state loop must be the physical oscillator on the
// subspace φ_o = φ₂, with φ_o − φ₂ its only conserved quantity, and dissipate energy.
class RotationalPairTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto omega2tau = builtin_model("rotational.omega2tau");
    const auto tau2omega = builtin_model("rotational.tau2omega");
    MatrixXd routing(2, 2);  // u = (omega of omega2tau, tau of tau2omega), y = (tau, omega)
    routing << 0.0, 1.0,     //
        1.0, 0.0;
    loop_ = close_loop(*omega2tau->linear_form(0.0), *tau2omega->linear_form(0.0), routing);
    initial_state_.resize(5);
    omega2tau->initial_state(std::span(initial_state_.data(), 3));
    tau2omega->initial_state(std::span(initial_state_.data() + 3, 2));
    // The physical 4-state system in (φ₁, ω₁, φ₂, ω₂); φ_o duplicates φ₂.
    physical_ = two_body_chain(10.0, 10.0, {1.0, 1.0, 1.0}, {1.0, 2.0, 2.0});
    embedding_ = MatrixXd::Zero(5, 4);
    embedding_(0, 0) = embedding_(1, 1) = embedding_(2, 2) = embedding_(3, 2) = embedding_(4, 3) = 1;
  }

  /// ½J₁ω₁² + ½J₂ω₂² + ½c₁φ₁² + ½c₂φ₂² + ½c_k(φ₁ − φ₂)², on the 5-state.
  static double energy(const VectorXd& x) {
    const double phi1 = x(0), omega1 = x(1), phi2 = x(3), omega2 = x(4);
    return 0.5 * (10.0 * omega1 * omega1 + 10.0 * omega2 * omega2 + phi1 * phi1 + phi2 * phi2 +
                  (phi1 - phi2) * (phi1 - phi2));
  }

  LinearForm loop_;
  VectorXd initial_state_;
  MatrixXd physical_, embedding_;
};

TEST_F(RotationalPairTest, IsThePhysicalTwoMassOscillator) {
  EXPECT_TRUE(loop_.e.isZero());
  // A_loop E = E A_physical: the subspace φ_o = φ₂ is invariant and carries the
  // physical dynamics, signs included.
  EXPECT_TRUE((loop_.A * embedding_).isApprox(embedding_ * physical_, 1e-14))
      << loop_.A << "\n\n" << embedding_ * physical_;
  EXPECT_EQ(initial_state_(2), initial_state_(3)) << "φ_o(0) must equal φ₂(0)";
}

TEST_F(RotationalPairTest, DecaysWithOnlyTheAngleDifferenceConserved) {
  const Eigen::VectorXcd eigenvalues = loop_.A.eigenvalues();
  int zero_eigenvalues = 0;
  for (const std::complex<double>& eigenvalue : eigenvalues) {
    if (std::abs(eigenvalue) < 1e-12) {
      ++zero_eigenvalues;
    } else {
      EXPECT_LT(eigenvalue.real(), -1e-3) << eigenvalue;
    }
  }
  EXPECT_EQ(zero_eigenvalues, 1) << eigenvalues.transpose();
  // The zero mode is φ_o − φ₂ (φ_o integrates ω₂): wᵀ A = 0 for w = (0, 0, 1, −1, 0).
  VectorXd conserved = VectorXd::Zero(5);
  conserved(2) = 1.0;
  conserved(3) = -1.0;
  EXPECT_LT((conserved.transpose() * loop_.A).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT(max_real_part(physical_), -1e-3);
}

TEST_F(RotationalPairTest, EnergyDecaysAlongTheTrajectory) {
  double previous = energy(initial_state_);
  const double initial = previous;
  for (double t = 0.25; t <= 50.0; t += 0.25) {
    const VectorXd x = (loop_.A * t).exp() * initial_state_;
    const double current = energy(x);
    EXPECT_LE(current, previous * (1.0 + 1e-12)) << "energy grows at t = " << t;
    EXPECT_NEAR(x(2), x(3), 1e-12) << "φ_o drifts from φ₂ at t = " << t;
    previous = current;
  }
  EXPECT_LT(previous, 0.05 * initial);
  // Pointwise: dE/dt = −d₁ω₁² − d₂ω₂² − d_k(ω₁ − ω₂)² for any state with φ_o = φ₂.
  const VectorXd x = embedding_ * Eigen::Vector4d(0.3, -0.7, 1.1, 0.4);
  const VectorXd rate = loop_.A * x;
  const double phi1 = x(0), omega1 = x(1), phi2 = x(3), omega2 = x(4);
  const double power = 10.0 * omega1 * rate(1) + 10.0 * omega2 * rate(4) + phi1 * rate(0) +
                       phi2 * rate(3) + (phi1 - phi2) * (rate(0) - rate(3));
  const double dissipation =
      1.0 * omega1 * omega1 + 2.0 * omega2 * omega2 + 2.0 * (omega1 - omega2) * (omega1 - omega2);
  EXPECT_NEAR(power, -dissipation, 1e-14);
}

/// Left mass (input f; outputs x, v) with a right mass carrying the coupling
/// (inputs x, v; output f): stacked y = (x₁, v₁, f), u = (f → left, x₁, v₁ → right).
LinearForm close_translational_pair(const Model& left, const Model& right, double t) {
  MatrixXd routing = MatrixXd::Zero(3, 3);
  routing(0, 2) = 1.0;
  routing(1, 0) = 1.0;
  routing(2, 1) = 1.0;
  return close_loop(*left.linear_form(t), *right.linear_form(t), routing);
}

TEST(TranslationalPairTest, IsThePhysicalChainOnBothSidesOfTheSwitch) {
  const auto left = builtin_model("translational.mass");
  const auto right = builtin_model("translational.coupled_mass");
  const LinearForm before = close_translational_pair(*left, *right, 0.0);
  EXPECT_TRUE(before.A.isApprox(two_body_chain(10.0, 1.0, {1.0, 1.0, 1.0}, {0.1, 0.2, 0.1}), 1e-14))
      << before.A;
  EXPECT_TRUE(before.e.isZero());
  EXPECT_LT(max_real_part(before.A), 0.0);

  const LinearForm after = close_translational_pair(*left, *right, 100.0);
  EXPECT_TRUE(after.A.isApprox(two_body_chain(10.0, 1.0, {1.0, 1.0, 4.0}, {0.1, 0.2, 0.1}), 1e-14))
      << after.A;
  // The wall anchor at 1 m pulls the right mass with c_wall_after · 1 m.
  EXPECT_EQ(after.e, Eigen::Vector4d(0.0, 0.0, 0.0, 4.0));
  EXPECT_LT(max_real_part(after.A), 0.0);
}

TEST(MissilesPairTest, IsTheTable3ChainAndDissipates) {
  const auto left = builtin_model("missiles.left");
  const auto right = builtin_model("missiles.right");
  const LinearForm loop = close_translational_pair(*left, *right, 0.0);
  const MatrixXd physical = two_body_chain(5.0, 80.0, {1e4, 1e4, 1e5}, {10.0, 10.0, 40.0});
  EXPECT_TRUE(loop.A.isApprox(physical, 1e-14)) << loop.A << "\n\n" << physical;
  EXPECT_LT(max_real_part(loop.A), 0.0);
}

}  // namespace
}  // namespace couplet::models
