// The oscillator chain of Kraft and Schweizer (docs/chain.md): chain.segment
// against eq. 1 written out independently here, chain.coupling against eq. 3 and
// its chain-rule derivatives, the exact linearizations, the declared initial
// conditions, a whole-chain segment (the banded and the dense CVODE path) against
// the monolithic reference of the same chain cut into coupled segments, and the
// banded monolithic reference against the dense one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/polynomial.hpp"
#include "models/catalog.hpp"
#include "models/chain_assembly.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"

namespace couplet::models {
namespace {

// Table 1 of the paper.
constexpr double kCl = 1.0e7, kDl = 1.0, kCnl = 1.0e9, kDnl = 1.0e-4, kMass = 1.0;

double element(double dx, double dv) {
  return kCl * dx + kDl * dv + kCnl * dx * dx * dx + kDnl * dv * dv * dv;
}

/// Eq. 1 for the whole chain, walls at both ends, state (x_1..x_n, v_1..v_n).
std::vector<double> equation_1(const std::vector<double>& x, const std::vector<double>& v) {
  const std::size_t n = x.size();
  std::vector<double> a(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double xl = i > 0 ? x[i - 1] : 0.0, vl = i > 0 ? v[i - 1] : 0.0;
    const double xr = i + 1 < n ? x[i + 1] : 0.0, vr = i + 1 < n ? v[i + 1] : 0.0;
    a[i] = (kCl * (xl - x[i]) + kDl * (vl - v[i]) + kCl * (xr - x[i]) + kDl * (vr - v[i]) +
            kCnl * std::pow(xl - x[i], 3) + kDnl * std::pow(vl - v[i], 3) +
            kCnl * std::pow(xr - x[i], 3) + kDnl * std::pow(vr - v[i], 3)) /
           kMass;
  }
  return a;
}

std::unique_ptr<Model> segment(int bodies, int first, int chain_bodies) {
  return ModelCatalog::builtin().create(
      "chain.segment", {{"bodies", bodies},
                        {"first_body", first},
                        {"chain_bodies", chain_bodies},
                        {"wall_left", first == 1 ? 1.0 : 0.0},
                        {"wall_right", first + bodies - 1 == chain_bodies ? 1.0 : 0.0}});
}

std::unique_ptr<Model> coupling() { return ModelCatalog::builtin().create("chain.coupling", {}); }

/// A state of the whole chain away from the initial one (interleaved x, v).
std::vector<double> some_chain_state(int bodies) {
  std::vector<double> state(2 * static_cast<std::size_t>(bodies));
  for (int i = 0; i < bodies; ++i) {
    state[2 * i] = 0.04 * std::sin(1.3 * i + 0.2) + 0.01 * std::cos(5.1 * i);
    state[2 * i + 1] = 90.0 * std::cos(0.7 * i) - 30.0 * std::sin(2.9 * i);
  }
  return state;
}

TEST(ChainCoupling, ForceIsEquation3) {
  const auto model = coupling();
  EXPECT_TRUE(model->description().outputs.at(0).direct_feedthrough);
  EXPECT_EQ(model->state_count(), 0u);
  const std::vector<double> u = {0.031, -42.0, -0.017, 65.0};  // x_left, v_left, x_right, v_right
  double force = 0.0;
  model->outputs(0.0, {}, u, {&force, 1});
  const double dx = -0.017 - 0.031, dv = 65.0 + 42.0;
  EXPECT_DOUBLE_EQ(force, kCl * dx + kDl * dv + kCnl * dx * dx * dx + kDnl * dv * dv * dv);
}

TEST(ChainCoupling, OutputDerivativesFollowTheInputs) {
  // Inputs as cubics in t; the force's derivatives at 0 against central
  // differences of λ(t) with Richardson extrapolation.
  const double coefficients[4][4] = {{0.02, 30.0, -4e3, 1e6},
                                     {25.0, -2e4, 3e6, -1e8},
                                     {-0.01, -50.0, 6e3, 2e5},
                                     {-40.0, 1e4, -5e6, 3e8}};
  const auto input = [&](int i, double t, int d) {
    const double* c = coefficients[i];
    switch (d) {
      case 0: return c[0] + c[1] * t + c[2] * t * t + c[3] * t * t * t;
      case 1: return c[1] + 2 * c[2] * t + 3 * c[3] * t * t;
      case 2: return 2 * c[2] + 6 * c[3] * t;
      default: return 6 * c[3];
    }
  };
  const auto force = [&](double t) {
    return element(input(2, t, 0) - input(0, t, 0), input(3, t, 0) - input(1, t, 0));
  };
  const auto model = coupling();
  std::vector<double> jet(16);
  for (int d = 0; d < 4; ++d)
    for (int i = 0; i < 4; ++i) jet[4 * d + i] = input(i, 0.0, d);
  std::vector<double> derivatives(3);
  model->output_derivatives(0.0, {}, jet, 3, derivatives);
  const auto difference = [&](int order, double h) {
    switch (order) {
      case 1: return (force(h) - force(-h)) / (2 * h);
      case 2: return (force(h) - 2 * force(0) + force(-h)) / (h * h);
      default: return (force(2 * h) - 2 * force(h) + 2 * force(-h) - force(-2 * h)) / (2 * h * h * h);
    }
  };
  for (int order = 1; order <= 3; ++order) {
    const double h = 1e-5;
    const double estimate = (4 * difference(order, h / 2) - difference(order, h)) / 3;
    EXPECT_NEAR(derivatives[order - 1], estimate, 1e-6 * std::abs(estimate)) << "order " << order;
  }
}

TEST(ChainCoupling, LinearizationIsExact) {
  auto slave = make_ode_slave("cpl", coupling(), SolverSettings{});
  slave->setup(0);
  const std::vector<double> u = {0.031, -42.0, -0.017, 65.0};
  std::vector<Polynomial> inputs;
  for (const double value : u) inputs.push_back(Polynomial::constant(0.0, value));
  const LinearizationLayout layout = LinearizationLayout::of(slave->description());
  ASSERT_EQ(layout.size(), 4u);  // D alone: 1 output × 4 inputs
  std::vector<double> linearization(layout.size());
  slave->linearize(inputs, linearization);
  const double dx = u[2] - u[0], dv = u[3] - u[1];
  const double stiffness = kCl + 3 * kCnl * dx * dx, damping = kDl + 3 * kDnl * dv * dv;
  // Exactly the closed form, not central differences (those are off by ~1e-11 relative).
  EXPECT_EQ(linearization[layout.d_offset() + 0], -stiffness);
  EXPECT_EQ(linearization[layout.d_offset() + 1], -damping);
  EXPECT_EQ(linearization[layout.d_offset() + 2], stiffness);
  EXPECT_EQ(linearization[layout.d_offset() + 3], damping);
}

TEST(ChainSegment, PortsOnlyOnSidesWithANeighbour) {
  const auto left_end = segment(3, 1, 9);
  EXPECT_EQ(left_end->description().inputs, std::vector<std::string>{"force_right"});
  ASSERT_EQ(left_end->output_count(), 2u);
  EXPECT_EQ(left_end->description().outputs[0].name, "x_last");
  const auto middle = segment(3, 4, 9);
  EXPECT_EQ(middle->description().inputs, (std::vector<std::string>{"force_left", "force_right"}));
  ASSERT_EQ(middle->output_count(), 4u);
  EXPECT_EQ(middle->description().outputs[0].name, "x_first");
  EXPECT_EQ(middle->description().outputs[3].name, "v_last");
  for (const auto& output : middle->description().outputs) EXPECT_FALSE(output.direct_feedthrough);
  const auto whole = segment(9, 1, 9);
  EXPECT_EQ(whole->input_count(), 0u);
  EXPECT_EQ(whole->output_count(), 0u);
  EXPECT_EQ(whole->state_count(), 18u);
}

TEST(ChainSegment, InitialStateIsTheDeclaredPatternAndStronglyNonlinear) {
  const auto whole = segment(144, 1, 144);
  std::vector<double> state(whole->state_count());
  whole->initial_state(state);
  double largest_ratio = 0.0;
  for (int i = 1; i <= 144; ++i) {
    EXPECT_DOUBLE_EQ(state[2 * (i - 1)], 0.05 * std::sin(2.0 * i));
    EXPECT_DOUBLE_EQ(state[2 * (i - 1) + 1], 0.05 * std::sqrt(kCl / kMass) * std::cos(2.0 * i));
    if (i > 1) {
      const double dx = state[2 * (i - 1)] - state[2 * (i - 2)];
      const double dv = state[2 * (i - 1) + 1] - state[2 * (i - 2) + 1];
      EXPECT_GT(std::abs(dx) + std::abs(dv) * 1e-3, 1e-3) << "interface " << i - 1 << " at rest";
      largest_ratio = std::max(largest_ratio, kCnl * dx * dx / kCl);
    }
  }
  EXPECT_GT(largest_ratio, 0.1);  // the cubic spring a sizeable fraction of the linear one
  // A segment starts where the whole chain has its bodies.
  const auto part = segment(5, 40, 144);
  std::vector<double> part_state(part->state_count());
  part->initial_state(part_state);
  for (std::size_t k = 0; k < part_state.size(); ++k)
    EXPECT_EQ(part_state[k], state[2 * 39 + k]);
}

TEST(ChainSegment, SegmentsWithCouplingsGiveEquation1) {
  const int n = 12;
  const std::vector<double> state = some_chain_state(n);
  std::vector<double> x(n), v(n);
  for (int i = 0; i < n; ++i) {
    x[i] = state[2 * i];
    v[i] = state[2 * i + 1];
  }
  const std::vector<double> expected = equation_1(x, v);

  // The whole chain as one segment.
  const auto whole = segment(n, 1, n);
  std::vector<double> slope(2 * n);
  whole->derivatives(0.0, state, {}, slope);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(slope[2 * i], v[i]);
    EXPECT_NEAR(slope[2 * i + 1], expected[i], 1e-9 * std::abs(expected[i]) + 1e-6) << i;
  }

  // Cut into 3 + 4 + 5 with the coupling forces of eq. 3 between them.
  const auto cpl = coupling();
  const auto force_between = [&](int left_body, int right_body) {  // 0-based
    double force = 0.0;
    const std::vector<double> u = {x[left_body], v[left_body], x[right_body], v[right_body]};
    cpl->outputs(0.0, {}, u, {&force, 1});
    return force;
  };
  const int sizes[] = {3, 4, 5};
  int first = 1;
  for (int s = 0; s < 3; ++s) {
    const auto part = segment(sizes[s], first, n);
    std::vector<double> u;
    if (s > 0) u.push_back(force_between(first - 2, first - 1));
    if (s < 2) u.push_back(force_between(first + sizes[s] - 2, first + sizes[s] - 1));
    std::vector<double> part_slope(2 * sizes[s]);
    part->derivatives(0.0, std::span(state).subspan(2 * (first - 1), 2 * sizes[s]), u, part_slope);
    for (int j = 0; j < sizes[s]; ++j) {
      const int i = first - 1 + j;
      EXPECT_NEAR(part_slope[2 * j + 1], expected[i], 1e-9 * std::abs(expected[i]) + 1e-6)
          << "segment " << s << " body " << j;
    }
    first += sizes[s];
  }
}

TEST(ChainSegment, JacobiansMatchDifferencesInsideTheDeclaredBand) {
  const auto part = segment(6, 4, 20);
  const std::vector<double> state = some_chain_state(6);
  const std::vector<double> u = {3.0e4, -2.0e4};
  const std::size_t n = 12, m = 2, q = 4;
  std::vector<double> a(n * n), b(n * m), c(q * n), d(q * m);
  ASSERT_TRUE(part->jacobians(0.0, state, u, a, b, c, d));
  const auto band = part->jacobian_band();
  ASSERT_TRUE(band.has_value());
  EXPECT_EQ(band->lower, 3u);
  EXPECT_EQ(band->upper, 2u);
  std::vector<double> plus(n), minus(n), shifted = state;
  for (std::size_t j = 0; j < n; ++j) {
    const double h = 1e-6 * std::max(1.0, std::abs(state[j]));
    shifted[j] = state[j] + h;
    part->derivatives(0.0, shifted, u, plus);
    shifted[j] = state[j] - h;
    part->derivatives(0.0, shifted, u, minus);
    shifted[j] = state[j];
    for (std::size_t i = 0; i < n; ++i) {
      const double difference = (plus[i] - minus[i]) / (2 * h);
      EXPECT_NEAR(a[j * n + i], difference, 1e-6 * std::abs(difference) + 1e-3) << i << "," << j;
      if (i + band->upper < j || j + band->lower < i) {
        EXPECT_EQ(a[j * n + i], 0.0) << "outside the band: " << i << "," << j;
      }
    }
  }
  // B: −1/m on v_1 from force_left, +1/m on v_6 from force_right; C picks the ends; D = 0.
  EXPECT_EQ(b[0 * n + 1], -1.0 / kMass);
  EXPECT_EQ(b[1 * n + 11], 1.0 / kMass);
  EXPECT_EQ(c[0 * q + 0], 1.0);   // x_first = x_1
  EXPECT_EQ(c[11 * q + 3], 1.0);  // v_last = v_6
  EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](double value) { return value == 0.0; }));
}

TEST(ChainSegment, OutputDerivativesAreTheMotion) {
  const auto part = segment(4, 5, 20);
  const std::vector<double> state = some_chain_state(4);
  // Jet of the inputs: λ and λ̇ (λ̈ unused by order 2).
  const std::vector<double> jet = {3.0e4, -2.0e4, 4.0e7, 1.5e7, 0.0, 0.0};
  std::vector<double> derivatives(8);
  part->output_derivatives(0.0, state, jet, 2, derivatives);
  std::vector<double> slope(8);
  part->derivatives(0.0, state, std::span(jet).first(2), slope);
  EXPECT_EQ(derivatives[0], state[1]);  // d x_first / dt = v_1
  EXPECT_EQ(derivatives[1], slope[1]);  // d v_first / dt = a_1
  EXPECT_EQ(derivatives[2], state[7]);
  EXPECT_EQ(derivatives[3], slope[7]);
  EXPECT_EQ(derivatives[4], slope[1]);  // second derivative of x_first = a_1
  // The jerk against the central difference of a along (ẋ, λ̇).
  const auto acceleration_after = [&](double h) {
    std::vector<double> moved(8), moved_slope(8);
    for (std::size_t k = 0; k < 8; ++k) moved[k] = state[k] + h * slope[k];
    const std::vector<double> u = {jet[0] + h * jet[2], jet[1] + h * jet[3]};
    part->derivatives(0.0, moved, u, moved_slope);
    return std::pair{moved_slope[1], moved_slope[7]};
  };
  const double h = 1e-7;
  const auto [first_ahead, last_ahead] = acceleration_after(h);
  const auto [first_behind, last_behind] = acceleration_after(-h);
  const double first_jerk = (first_ahead - first_behind) / (2 * h);
  const double last_jerk = (last_ahead - last_behind) / (2 * h);
  EXPECT_NEAR(derivatives[5], first_jerk, 1e-5 * std::abs(first_jerk));
  EXPECT_NEAR(derivatives[7], last_jerk, 1e-5 * std::abs(last_jerk));
}

TEST(ChainSegment, BadPlacesInTheChainAreNamed) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const auto message = [&](std::map<std::string, double, std::less<>> values) {
    try {
      catalog.create("chain.segment", values);
    } catch (const ConfigurationError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({{"wall_left", 1}}).find("wall_left = 1 needs first_body = 1"),
            std::string::npos);
  EXPECT_NE(message({{"first_body", 1}}).find("set wall_left = 1"), std::string::npos);
  EXPECT_NE(message({{"bodies", 7}}).find("beyond the chain"), std::string::npos);
  EXPECT_NE(message({{"bodies", 0}}).find("'bodies'"), std::string::npos);
  EXPECT_NE(message({{"bodies", 2.5}}).find("whole number"), std::string::npos);
  EXPECT_NE(message({{"wall_right", 0.5}}).find("must be 0 or 1"), std::string::npos);
  EXPECT_NE(message({{"mass", 0}}).find("'mass'"), std::string::npos);
}

/// The whole chain as one slave (CVODE, tight), its state read back through
/// linearize(), against the monolithic reference of the chain cut into
/// `segments` coupled segments (dense, so that the band paths are checked against
/// the dense one), at the segment ends.
void expect_whole_chain_equals_reference(int bodies, int segments, double tolerance) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const std::vector<int> sizes = split_chain(bodies, segments);
  const ChainAssembly chain = assemble_chain(catalog, sizes);
  const double end = 2e-3;
  std::vector<double> grid;
  for (int k = 1; k <= 8; ++k) grid.push_back(end * k / 8);
  const MonolithicSettings settings{.relative_tolerance = 1e-12,
                                    .absolute_tolerance = 1e-14,
                                    .linear_solver = MonolithicLinearSolver::dense};
  const MonolithicSolution reference =
      solve_monolithic(chain.subsystems, chain.connections, 0.0, end, grid, settings);
  EXPECT_FALSE(reference.linear_algebra.banded);

  SolverSettings tight;
  tight.relative_tolerance = 1e-12;
  tight.absolute_tolerance = 1e-14;
  auto whole = make_ode_slave("whole", segment(bodies, 1, bodies), tight);
  whole->setup(0);
  const LinearizationLayout layout = LinearizationLayout::of(whole->description());
  std::vector<double> linearization(layout.size());
  std::vector<double> no_outputs;
  Time now = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const Time next = to_ticks(grid[k]);
    StepRequest request;
    request.start = now;
    request.end = next;
    whole->step(request, {no_outputs, no_outputs});
    now = next;
    whole->linearize({}, linearization);
    // seg1's outputs are (x_last, v_last) of body sizes[0].
    const std::size_t body = static_cast<std::size_t>(sizes[0]) - 1;
    const std::vector<double>& seg1 = reference.outputs[chain.segment_index[0]];
    EXPECT_NEAR(linearization[2 * body], seg1[2 * k], tolerance) << "x at t = " << grid[k];
    EXPECT_NEAR(linearization[2 * body + 1], seg1[2 * k + 1], tolerance * 1e3)
        << "v at t = " << grid[k];
  }
}

TEST(ChainSegment, WholeChainEqualsSegmentedReferenceDenseSolver) {
  expect_whole_chain_equals_reference(5, 2, 1e-8);  // 10 states: the dense CVODE path
}

TEST(ChainSegment, WholeChainEqualsSegmentedReferenceBandSolver) {
  expect_whole_chain_equals_reference(40, 4, 1e-8);  // 80 states: the band CVODE path
}

TEST(ChainReference, BandEqualsDense) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const std::vector<int> sizes = split_chain(60, 5);
  const ChainAssembly chain = assemble_chain(catalog, sizes);
  std::vector<double> grid;
  for (int k = 0; k <= 10; ++k) grid.push_back(1e-3 * k);
  const auto solve = [&](MonolithicLinearSolver solver) {
    return solve_monolithic(chain.subsystems, chain.connections, 0.0, 1e-2, grid,
                            {.relative_tolerance = 1e-10,
                             .absolute_tolerance = 1e-12,
                             .linear_solver = solver});
  };
  const MonolithicSolution automatic = solve(MonolithicLinearSolver::automatic);
  const MonolithicSolution dense = solve(MonolithicLinearSolver::dense);
  // Segments in slave order, couplings stateless, (x, v) interleaved: the probe
  // finds the segments' own band through the couplings.
  EXPECT_TRUE(automatic.linear_algebra.banded);
  EXPECT_EQ(automatic.linear_algebra.lower_bandwidth, 3u);
  EXPECT_EQ(automatic.linear_algebra.upper_bandwidth, 2u);
  EXPECT_FALSE(dense.linear_algebra.banded);
  ASSERT_EQ(automatic.outputs.size(), dense.outputs.size());
  for (std::size_t s = 0; s < dense.outputs.size(); ++s) {
    for (std::size_t k = 0; k < dense.outputs[s].size(); ++k) {
      EXPECT_NEAR(automatic.outputs[s][k], dense.outputs[s][k],
                  1e-8 * std::max(1.0, std::abs(dense.outputs[s][k])));
    }
  }
}

TEST(ChainReference, SmallOrDenseSystemsKeepTheDenseSolver) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const std::vector<int> sizes = split_chain(4, 2);  // 8 states: a band of 6 does not pay
  const ChainAssembly chain = assemble_chain(catalog, sizes);
  const std::vector<double> grid = {1e-3};
  const MonolithicSolution solution =
      solve_monolithic(chain.subsystems, chain.connections, 0.0, 1e-3, grid);
  EXPECT_FALSE(solution.linear_algebra.banded);
  // Forced band on the same system: the probed band, and the same answer.
  const MonolithicSolution band = solve_monolithic(
      chain.subsystems, chain.connections, 0.0, 1e-3, grid,
      {.relative_tolerance = 1e-10, .absolute_tolerance = 1e-12,
       .linear_solver = MonolithicLinearSolver::band});
  EXPECT_TRUE(band.linear_algebra.banded);
  EXPECT_EQ(band.linear_algebra.lower_bandwidth, 3u);
  EXPECT_EQ(band.linear_algebra.upper_bandwidth, 2u);
  for (std::size_t k = 0; k < solution.outputs[0].size(); ++k)
    EXPECT_NEAR(band.outputs[0][k], solution.outputs[0][k],
                1e-7 * std::max(1.0, std::abs(solution.outputs[0][k])));
}

}  // namespace
}  // namespace couplet::models
