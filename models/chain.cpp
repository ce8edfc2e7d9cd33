// The nonlinear oscillator chain of J. Kraft and B. Schweizer, "Reduction of
// Computation Time by Parallelization and Incorporating Co-Simulation Techniques"
// (docs/chain.md): n_K masses between two walls, neighbours joined by linear plus
// cubic springs and dampers (their eq. 1, parameters of their table 1), cut into
// subsystems by a force/force decomposition.
//
// chain.segment: n_S consecutive bodies of the chain, eq. 2. State interleaved
// (x_1, v_1, x_2, v_2, ...) so that ∂f/∂x is banded (lower bandwidth 3, upper 2).
// A chain end that is a wall keeps its spring/damper to the wall; a side with a
// neighbour segment has instead an input, the coupling force λ there (body 1
// feels −λ_left, body n_S feels +λ_right, eq. 2), and outputs the position and
// velocity of its end body. No direct feedthrough.
//
// chain.coupling: the cut spring/damper, eq. 3, stateless with direct feedthrough:
//   λ = c_l Δx + d_l Δv + c_nl Δx³ + d_nl Δv³,  Δx = x_right − x_left, Δv = v_right − v_left.
//
// Initial conditions (the paper gives none): body i of the chain (global index)
// starts at x_i = A sin(i φ), v_i = A ω₀ cos(i φ), ω₀ = √(c_l / m): every
// neighbour pair differs in position or velocity (Δx and Δv are 2 A sin(φ/2)
// times cos and −ω₀ sin of (i + ½) φ), and with A = 0.05 m, φ = 2 rad the cubic
// spring term reaches 70 % of the linear one (c_nl Δx² / c_l = 100 Δx²).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"

namespace couplet::models {
namespace {

constexpr const char* segment_name = "chain.segment";
constexpr const char* coupling_name = "chain.coupling";

/// One spring/damper element of eq. 1: F = c_l Δx + d_l Δv + c_nl Δx³ + d_nl Δv³,
/// the force it exerts on its left body (the right one feels −F).
struct Element {
  double c_l = 0.0, d_l = 0.0, c_nl = 0.0, d_nl = 0.0;

  double force(double dx, double dv) const {
    return c_l * dx + d_l * dv + c_nl * dx * dx * dx + d_nl * dv * dv * dv;
  }
  double stiffness(double dx) const { return c_l + 3.0 * c_nl * dx * dx; }  ///< ∂F/∂Δx
  double damping(double dv) const { return d_l + 3.0 * d_nl * dv * dv; }    ///< ∂F/∂Δv

  /// d^k F/dt^k, k = 1..3, of F along Δx(t), Δv(t) given by their jets
  /// (dx[0..k], dv[0..k]): the chain rule on α s + β s³ for each term.
  double force_derivative(const double* dx, const double* dv, int k) const {
    return cubic_derivative(c_l, c_nl, dx, k) + cubic_derivative(d_l, d_nl, dv, k);
  }

  static double cubic_derivative(double alpha, double beta, const double* s, int k) {
    const double slope = alpha + 3.0 * beta * s[0] * s[0];
    switch (k) {
      case 1:
        return slope * s[1];
      case 2:
        return 6.0 * beta * s[0] * s[1] * s[1] + slope * s[2];
      default:  // 3
        return 6.0 * beta * s[1] * s[1] * s[1] + 18.0 * beta * s[0] * s[1] * s[2] + slope * s[3];
    }
  }
};

Element element_from(const ParameterValues& values, const char* model_name) {
  return Element{.c_l = parameter_value(values, "c_l", model_name),
                 .d_l = parameter_value(values, "d_l", model_name),
                 .c_nl = parameter_value(values, "c_nl", model_name),
                 .d_nl = parameter_value(values, "d_nl", model_name)};
}

std::vector<ParameterDescription> element_parameters(const char* what) {
  const std::string of = std::string(" of ") + what;
  return {{"c_l", 1.0e7, "linear stiffness" + of + " [N/m]"},
          {"d_l", 1.0, "linear damping coefficient" + of + " [N s/m]"},
          {"c_nl", 1.0e9, "cubic stiffness" + of + " [N/m^3]"},
          {"d_nl", 1.0e-4, "cubic damping coefficient" + of + " [N s^3/m^3]"}};
}

// ---------------------------------------------------------------------------
// chain.segment
// ---------------------------------------------------------------------------

ModelDescription segment_parameters_description() {
  ModelDescription description{
      .name = segment_name,
      .summary =
          "n_S bodies of the Kraft-Schweizer oscillator chain (eq. 2): walls at the chain "
          "ends, coupling-force inputs and end-body outputs on sides with a neighbour",
      .inputs = {},
      .outputs = {},
      .states = {},
      .parameters = {
          {"bodies", 3.0, "number n_S of bodies in this segment [-]"},
          {"first_body", 4.0,
           "chain index (1-based) of this segment's body 1 (initial conditions) [-]"},
          {"chain_bodies", 9.0, "number n_K of bodies in the whole chain [-]"},
          {"wall_left", 0.0,
           "1: body 1 is the chain's first body, tied to the left wall; 0: "
           "coupled to a left neighbour (input force_left, outputs x_first, "
           "v_first) [-]"},
          {"wall_right", 0.0,
           "1: body n_S is the chain's last body, tied to the right wall; 0: "
           "coupled to a right neighbour (input force_right, outputs x_last, "
           "v_last) [-]"},
      }};
  for (ParameterDescription& parameter : element_parameters("each spring/damper element"))
    description.parameters.push_back(std::move(parameter));
  description.parameters.push_back({"mass", 1.0, "mass of each body [kg]"});
  description.parameters.push_back(
      {"amplitude", 0.05, "initial displacement amplitude A: x_i(0) = A sin(i phase_step) [m]"});
  description.parameters.push_back(
      {"phase_step", 2.0,
       "phase between neighbours; v_i(0) = A sqrt(c_l/mass) cos(i phase_step) [rad]"});
  return description;
}

int count_parameter(const ParameterValues& values, const char* name, double minimum) {
  const double value = parameter_value(values, name, segment_name);
  if (!(value >= minimum) || value != std::floor(value) || value > 1.0e9) {
    throw ConfigurationError("parameter '" + std::string(name) + "' of model '" + segment_name +
                             "' must be a whole number >= " + std::to_string(int(minimum)) +
                             ", got " + std::to_string(value));
  }
  return static_cast<int>(value);
}

bool flag_parameter(const ParameterValues& values, const char* name) {
  const double value = parameter_value(values, name, segment_name);
  if (value != 0.0 && value != 1.0) {
    throw ConfigurationError("parameter '" + std::string(name) + "' of model '" + segment_name +
                             "' must be 0 or 1, got " + std::to_string(value));
  }
  return value == 1.0;
}

class ChainSegment final : public Model {
 public:
  explicit ChainSegment(const ParameterValues& values)
      : bodies_(count_parameter(values, "bodies", 1)),
        first_body_(count_parameter(values, "first_body", 1)),
        chain_bodies_(count_parameter(values, "chain_bodies", 1)),
        wall_left_(flag_parameter(values, "wall_left")),
        wall_right_(flag_parameter(values, "wall_right")),
        element_(element_from(values, segment_name)),
        mass_(positive_parameter_value(values, "mass", segment_name)),
        amplitude_(parameter_value(values, "amplitude", segment_name)),
        phase_step_(parameter_value(values, "phase_step", segment_name)) {
    check_place_in_chain();
    description_ = segment_parameters_description();
    for (int j = 1; j <= bodies_; ++j) {
      for (const char* quantity : {"x", "v"}) {
        std::string state = quantity;
        state += std::to_string(j);
        description_.states.push_back(std::move(state));
      }
    }
    if (!wall_left_) {
      description_.inputs.push_back("force_left");
      description_.input_units.push_back("N");
      description_.outputs.push_back({.name = "x_first", .unit = "m"});
      description_.outputs.push_back({.name = "v_first", .unit = "m/s"});
    }
    if (!wall_right_) {
      description_.inputs.push_back("force_right");
      description_.input_units.push_back("N");
      description_.outputs.push_back({.name = "x_last", .unit = "m"});
      description_.outputs.push_back({.name = "v_last", .unit = "m/s"});
    }
  }

  const ModelDescription& description() const override { return description_; }

  void initial_state(std::span<double> x) const override {
    const double velocity_amplitude = amplitude_ * std::sqrt(element_.c_l / mass_);
    for (int j = 1; j <= bodies_; ++j) {
      const double phase = static_cast<double>(first_body_ + j - 1) * phase_step_;
      x[position(j)] = amplitude_ * std::sin(phase);
      x[velocity(j)] = velocity_amplitude * std::cos(phase);
    }
  }

  /// Eq. 2: ẋ_j = v_j, m v̇_j = F_j − F_{j−1} with F_j the force of the element to
  /// the right of body j (the coupling force or the wall element at the ends).
  void derivatives(double, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    double left = element_force(0, x, u);
    for (int j = 1; j <= bodies_; ++j) {
      const double right = element_force(j, x, u);
      dxdt[position(j)] = x[velocity(j)];
      dxdt[velocity(j)] = (right - left) / mass_;
      left = right;
    }
  }

  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    std::size_t k = 0;
    if (!wall_left_) {
      y[k++] = x[position(1)];
      y[k++] = x[velocity(1)];
    }
    if (!wall_right_) {
      y[k++] = x[position(bodies_)];
      y[k++] = x[velocity(bodies_)];
    }
  }

  /// ẋ = v, ẍ = v̇ = a; v̈ = ȧ, with ȧ_j = (Ḟ_j − Ḟ_{j−1}) / m and Ḟ from the
  /// element's slopes on the neighbours' Δv, Δa (or λ̇ from the input jet).
  int output_derivative_order() const override { return 2; }

  void output_derivatives(double, std::span<const double> x, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    const std::size_t count = output_count();
    std::size_t k = 0;
    const auto end_body = [&](int j) {
      const double a = acceleration(j, x, input_jet);
      derivatives[k] = x[velocity(j)];
      derivatives[k + 1] = a;
      if (order >= 2) {
        derivatives[count + k] = a;
        derivatives[count + k + 1] = jerk(j, x, input_jet);
      }
      k += 2;
    };
    if (!wall_left_) end_body(1);
    if (!wall_right_) end_body(bodies_);
  }

  /// v̇_j reads x, v of bodies j − 1 .. j + 1: in the interleaved order row
  /// 2j − 1 reaches columns 2j − 4 .. 2j + 1 (0-based), ẋ_j = v_j one column right.
  std::optional<JacobianBand> jacobian_band() const override {
    return JacobianBand{.lower = 3, .upper = 2};
  }

  bool jacobians(double, std::span<const double> x, std::span<const double>, std::span<double> a,
                 std::span<double> b, std::span<double> c, std::span<double> d) const override {
    const std::size_t n = state_count();
    std::fill(a.begin(), a.end(), 0.0);
    std::fill(b.begin(), b.end(), 0.0);
    std::fill(c.begin(), c.end(), 0.0);
    std::fill(d.begin(), d.end(), 0.0);
    const auto add = [&](std::size_t row, std::size_t column, double value) {
      a[column * n + row] += value;
    };
    for (int j = 1; j <= bodies_; ++j) add(position(j), velocity(j), 1.0);
    // Element j (right of body j) pulls body j with +F, body j + 1 with −F.
    for (int j = 0; j <= bodies_; ++j) {
      if ((j == 0 && !wall_left_) || (j == bodies_ && !wall_right_)) continue;
      const double k = element_.stiffness(difference(j, x, &ChainSegment::position)) / mass_;
      const double damping = element_.damping(difference(j, x, &ChainSegment::velocity)) / mass_;
      // F depends on +x_{j+1} and −x_j (a wall contributes nothing).
      for (const int body : {j, j + 1}) {
        if (body < 1 || body > bodies_) continue;
        const double sign_of_body_in_delta = body == j + 1 ? 1.0 : -1.0;
        for (const int felt_by : {j, j + 1}) {
          if (felt_by < 1 || felt_by > bodies_) continue;
          const double sign_of_force = felt_by == j ? 1.0 : -1.0;
          add(velocity(felt_by), position(body), sign_of_force * sign_of_body_in_delta * k);
          add(velocity(felt_by), velocity(body), sign_of_force * sign_of_body_in_delta * damping);
        }
      }
    }
    std::size_t input = 0;
    std::size_t output = 0;
    const std::size_t outputs = output_count();
    const auto end_ports = [&](int body, double force_sign) {
      b[input * n + velocity(body)] = force_sign / mass_;
      c[position(body) * outputs + output] = 1.0;
      c[velocity(body) * outputs + output + 1] = 1.0;
      ++input;
      output += 2;
    };
    if (!wall_left_) end_ports(1, -1.0);
    if (!wall_right_) end_ports(bodies_, 1.0);
    return true;
  }

 private:
  static std::size_t position(int body) { return 2 * static_cast<std::size_t>(body - 1); }
  static std::size_t velocity(int body) { return position(body) + 1; }

  void check_place_in_chain() const {
    const auto fail = [](const std::string& why) {
      throw ConfigurationError(std::string("model '") + segment_name + "': " + why);
    };
    const int last = first_body_ + bodies_ - 1;
    if (last > chain_bodies_) {
      fail("bodies " + std::to_string(first_body_) + ".." + std::to_string(last) +
           " lie beyond the chain's chain_bodies = " + std::to_string(chain_bodies_));
    }
    if (wall_left_ != (first_body_ == 1)) {
      fail(wall_left_ ? "wall_left = 1 needs first_body = 1 (the wall is at the chain's start)"
                      : "first_body = 1 has no left neighbour: set wall_left = 1");
    }
    if (wall_right_ != (last == chain_bodies_)) {
      fail(wall_right_ ? "wall_right = 1 needs the segment to end at body chain_bodies = " +
                             std::to_string(chain_bodies_)
                       : "the segment ends at the chain's last body " + std::to_string(last) +
                             ": set wall_right = 1");
    }
  }

  std::size_t left_input() const { return 0; }
  std::size_t right_input() const { return wall_left_ ? 0 : 1; }

  /// Δ of element j (right of body j, j = 0..n_S) in the state component
  /// `component` (position or velocity): right body minus left body, a wall
  /// being at rest at 0. Only for the wall elements and the inner ones.
  double difference(int j, std::span<const double> x, std::size_t (*component)(int)) const {
    const double left = j >= 1 ? x[component(j)] : 0.0;
    const double right = j + 1 <= bodies_ ? x[component(j + 1)] : 0.0;
    return right - left;
  }

  /// Force of element j on its left body: a wall or inner element (eq. 1), or at
  /// a coupled end the coupling force λ (eq. 2: −λ_1 on body 1, +λ_{n_S+1} on body n_S).
  double element_force(int j, std::span<const double> x, std::span<const double> u) const {
    if (j == 0 && !wall_left_) return u[left_input()];
    if (j == bodies_ && !wall_right_) return u[right_input()];
    return element_.force(difference(j, x, &ChainSegment::position),
                          difference(j, x, &ChainSegment::velocity));
  }

  double acceleration(int j, std::span<const double> x, std::span<const double> u) const {
    return (element_force(j, x, u) - element_force(j - 1, x, u)) / mass_;
  }

  /// Ḟ of element j; a coupled end takes λ̇ from row 1 of the input jet.
  double element_rate(int j, std::span<const double> x, std::span<const double> jet) const {
    const std::size_t inputs = input_count();
    if (j == 0 && !wall_left_) return jet[inputs + left_input()];
    if (j == bodies_ && !wall_right_) return jet[inputs + right_input()];
    const double left_a = j >= 1 ? acceleration(j, x, jet) : 0.0;
    const double right_a = j + 1 <= bodies_ ? acceleration(j + 1, x, jet) : 0.0;
    const double dx[2] = {difference(j, x, &ChainSegment::position),
                          difference(j, x, &ChainSegment::velocity)};
    const double dv[2] = {dx[1], right_a - left_a};
    return element_.force_derivative(dx, dv, 1);
  }

  double jerk(int j, std::span<const double> x, std::span<const double> jet) const {
    return (element_rate(j, x, jet) - element_rate(j - 1, x, jet)) / mass_;
  }

  int bodies_, first_body_, chain_bodies_;
  bool wall_left_, wall_right_;
  Element element_;
  double mass_, amplitude_, phase_step_;
  ModelDescription description_;
};

// ---------------------------------------------------------------------------
// chain.coupling
// ---------------------------------------------------------------------------

ModelDescription coupling_description() {
  return ModelDescription{
      .name = coupling_name,
      .summary =
          "the cut spring/damper between two chain segments (eq. 3): inputs the end "
          "bodies' positions and velocities, output the coupling force (no state, direct "
          "feedthrough)",
      .inputs = {"x_left", "v_left", "x_right", "v_right"},
      .input_units = {"m", "m/s", "m", "m/s"},
      .outputs = {{.name = "force", .direct_feedthrough = true, .unit = "N"}},
      .states = {},
      .parameters = element_parameters("the coupling element")};
}

class ChainCoupling final : public Model {
 public:
  explicit ChainCoupling(const ParameterValues& values)
      : element_(element_from(values, coupling_name)), description_(coupling_description()) {}

  const ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double>) const override {}
  void derivatives(double, std::span<const double>, std::span<const double>,
                   std::span<double>) const override {}

  void outputs(double, std::span<const double>, std::span<const double> u,
               std::span<double> y) const override {
    y[0] = element_.force(u[2] - u[0], u[3] - u[1]);
  }

  int output_derivative_order() const override { return 3; }

  void output_derivatives(double, std::span<const double>, std::span<const double> input_jet,
                          int order, std::span<double> derivatives) const override {
    double dx[4] = {};
    double dv[4] = {};
    for (int row = 0; row <= order; ++row) {
      const std::size_t at = 4 * static_cast<std::size_t>(row);
      dx[row] = input_jet[at + 2] - input_jet[at];
      dv[row] = input_jet[at + 3] - input_jet[at + 1];
    }
    for (int k = 1; k <= order; ++k) {
      derivatives[static_cast<std::size_t>(k - 1)] = element_.force_derivative(dx, dv, k);
    }
  }

  /// D = ∂λ/∂(x_left, v_left, x_right, v_right) = (−K, −D, K, D), K and D the
  /// element's tangent stiffness and damping; no states, so A, B, C are empty.
  bool jacobians(double, std::span<const double>, std::span<const double> u, std::span<double>,
                 std::span<double>, std::span<double>, std::span<double> d) const override {
    const double stiffness = element_.stiffness(u[2] - u[0]);
    const double damping = element_.damping(u[3] - u[1]);
    d[0] = -stiffness;
    d[1] = -damping;
    d[2] = stiffness;
    d[3] = damping;
    return true;
  }

 private:
  Element element_;
  ModelDescription description_;
};

}  // namespace

void add_chain_models(std::vector<ModelEntry>& entries) {
  entries.push_back(make_entry(segment_parameters_description(), [](const ParameterValues& values) {
    return std::unique_ptr<Model>(std::make_unique<ChainSegment>(values));
  }));
  entries.push_back(make_entry(coupling_description(), [](const ParameterValues& values) {
    return std::unique_ptr<Model>(std::make_unique<ChainCoupling>(values));
  }));
}

}  // namespace couplet::models
