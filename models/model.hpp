#pragma once
// A model: the equations of one subsystem, ẋ = f(t, x, u), y = g(t, x, u),
// without a solver. An OdeSlave wraps a model with a solver; the monolithic
// reference assembles several models into one ODE (docs/models.md).
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "couplet/slave.hpp"

namespace couplet::models {

struct ParameterDescription {
  std::string name;
  double default_value = 0.0;
  std::string meaning;  ///< one line, with the unit
};

struct ModelDescription {
  std::string name;     ///< catalog name, e.g. "rotational.omega2tau"
  std::string summary;  ///< one line
  std::vector<std::string> inputs;
  /// The inputs' units, index for index with `inputs`: SI, spelled as in
  /// docs/models.md ("m", "m/s", "N", "rad/s", "N m"), names parse_unit reads
  /// (docs/units.md). Empty, or an empty entry, where a port has no unit: the
  /// generic models (stimuli, coupling.linear, Lotka–Volterra populations), whose
  /// ports connect to anything.
  std::vector<std::string> input_units;
  /// What the inputs' units mean, where the model defines them (an FMU's
  /// UnitDefinitions); the others are read with parse_unit.
  std::map<std::string, UnitDefinition, std::less<>> unit_definitions;
  std::vector<OutputDescription> outputs;  ///< with direct feedthrough flags and units
  std::vector<std::string> states;
  std::vector<ParameterDescription> parameters;
  /// Integer and Boolean ports (docs/algorithms.md, "Discrete signals"): a
  /// model-exchange FMU's; the built-in models have none.
  std::vector<DiscretePortDescription> discrete_inputs;
  std::vector<DiscretePortDescription> discrete_outputs;

  /// The unit of input `index`; empty when none is declared.
  std::string input_unit(std::size_t index) const {
    return index < input_units.size() ? input_units[index] : std::string();
  }
};

/// Parameter values by name, every parameter of the model present.
using ParameterValues = std::map<std::string, double, std::less<>>;

/// Affine form of a model between two time events:
/// ẋ = A x + B u + e,  y = C x + D u + h  (e, h constant on the segment).
struct LinearForm {
  Eigen::MatrixXd A, B, C, D;
  Eigen::VectorXd e, h;
};

class Model {
 public:
  virtual ~Model() = default;

  virtual const ModelDescription& description() const = 0;
  std::size_t state_count() const { return description().states.size(); }
  std::size_t input_count() const { return description().inputs.size(); }
  std::size_t output_count() const { return description().outputs.size(); }

  virtual void initial_state(std::span<double> x) const = 0;
  /// `u` is the input jet (input_derivative_order() + 1 rows of input_count()
  /// values: u, u̇, ...); for most models that is just u.
  virtual void derivatives(double t, std::span<const double> x, std::span<const double> u,
                           std::span<double> dxdt) const = 0;
  virtual void outputs(double t, std::span<const double> x, std::span<const double> u,
                       std::span<double> y) const = 0;

  /// Highest time derivative of its inputs the equations read (0 = values only).
  /// A model with r > 0 receives in derivatives() and outputs() the input jet of
  /// r + 1 rows u, u̇, ..., u⁽ʳ⁾ (from the input polynomials in a co-simulation,
  /// from the sources' analytic output derivatives in the monolithic reference),
  /// and an output reading u̇ must be declared direct feedthrough. Example: a
  /// controller that differentiates a position input (the car of models/car.cpp).
  virtual int input_derivative_order() const { return 0; }

  /// Times (seconds, increasing) at which the equations switch. For t >= an event
  /// time the new equations hold; solvers stop and restart exactly there.
  virtual std::span<const double> time_events() const { return {}; }

  /// Highest order k for which output_derivatives is available (0 = none).
  virtual int output_derivative_order() const { return 0; }

  /// Analytic output time derivatives d^k y/dt^k for k = 1..order (order <=
  /// output_derivative_order()). `input_jet` holds order + input_derivative_order()
  /// + 1 rows of input_count() values: u, u̇, ü, ...; `derivatives` receives
  /// `order` rows of output_count().
  virtual void output_derivatives(double t, std::span<const double> x,
                                  std::span<const double> input_jet, int order,
                                  std::span<double> derivatives) const;

  /// The affine form valid at t if the model is linear on the event segment
  /// containing t; nullptr for nonlinear models. Enables the exact solver.
  virtual const LinearForm* linear_form(double t) const;

  /// Bandwidths of ∂f/∂x when the model knows it is banded: f_i reads x_j only
  /// for i − lower <= j <= i + upper (e.g. a chain with interleaved positions and
  /// velocities). CVODE then uses a band linear solver when that pays. Default:
  /// none (dense).
  struct JacobianBand {
    std::size_t lower = 0, upper = 0;
  };
  virtual std::optional<JacobianBand> jacobian_band() const { return std::nullopt; }

  /// Exact Jacobians of a nonlinear model at (t, x, u), each column-major (as
  /// LinearizationLayout): a = ∂f/∂x (n × n), b = ∂f/∂u (n × m), c = ∂g/∂x
  /// (q × n), d = ∂g/∂u (q × m). Returns false when the model has none; the
  /// OdeSlave then linearizes by central differences. Must not allocate.
  virtual bool jacobians(double t, std::span<const double> x, std::span<const double> u,
                         std::span<double> a, std::span<double> b, std::span<double> c,
                         std::span<double> d) const;

  // Discrete behaviour beyond fixed time events, as FMI model exchange has it
  // (FMI 2.0 §3.1): state events, time events announced while running, and a
  // discrete state kept inside the model. The built-in models have none. These
  // calls are const like the equations: the discrete state of an FMU lives in
  // its instance, outside this object; solvers and the reference drive them.

  /// Called once before initial_state, with the start time (seconds).
  virtual void start(double /*time*/) const {}

  /// Number of event indicators z(t, x, u): a state event is a zero crossing of one.
  virtual std::size_t event_indicator_count() const { return 0; }
  /// `indicators` receives event_indicator_count() values; `u` as in derivatives().
  virtual void event_indicators(double /*t*/, std::span<const double> /*x*/,
                                std::span<const double> /*u*/,
                                std::span<double> /*indicators*/) const {}

  /// An event at t — a state event located by the solver, or the time event of
  /// next_time_event(): the model updates its discrete state and may change x
  /// (returns true then). Solvers restart after it.
  virtual bool handle_event(double /*t*/, std::span<double> /*x*/,
                            std::span<const double> /*u*/) const {
    return false;
  }

  /// The next time event the model announced at its latest event or start
  /// (beyond time_events()); +infinity when none.
  virtual double next_time_event() const;

  /// After each completed macro step at t (FMI fmi2CompletedIntegratorStep):
  /// the model may ask for an event, handled here; returns true when x changed.
  virtual bool completed_step(double /*t*/, std::span<double> /*x*/,
                              std::span<const double> /*u*/) const {
    return false;
  }

  /// New values of the discrete inputs at t, one per port, held until the
  /// next call. A change is an event (FMI 2.0 §3.2.3): the model takes them in
  /// event mode, updates its discrete state and may change x; returns true
  /// then (solvers restart). Values equal to the held ones change nothing.
  virtual bool set_discrete_inputs(double /*t*/, std::span<const std::int64_t> /*values*/,
                                   std::span<double> /*x*/, std::span<const double> /*u*/) const {
    return false;
  }
  /// The discrete outputs' values now, one per port (t for messages).
  virtual void discrete_outputs(double /*t*/, std::span<std::int64_t> /*values*/) const {}

  /// Rollback of the discrete state (x is saved by the slave): false when the
  /// model has a discrete state it cannot save. The held discrete inputs are
  /// part of it.
  virtual bool can_save_discrete_state() const { return true; }
  virtual void save_discrete_state() const {}
  virtual void restore_discrete_state() const {}
};

}  // namespace couplet::models
