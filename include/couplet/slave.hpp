#pragma once
// The slave interface: one subsystem seen by the co-simulation master as a black box.
//
// Calling contract, in this order:
//   setup(start)                    once; may allocate
//   evaluate_outputs(inputs, out)   any number of times at the current time
//   step(request, result)           advances from the current time to request.end
//   save_state() / restore_state()  only if capabilities().can_rollback
//   linearize(inputs, out)          only if capabilities().can_linearize; at the current time
//   evaluate_discrete_outputs(out)  once after setup, for slaves with discrete outputs
// After setup, evaluate_outputs and step must not allocate on the heap when the
// slave claims a real-time path (ODE slaves with Euler or CVODE do).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/polynomial.hpp"
#include "couplet/time.hpp"
#include "couplet/unit.hpp"

namespace couplet {

struct OutputDescription {
  std::string name;
  bool direct_feedthrough = false;  ///< y depends algebraically on some input
  std::string unit;                 ///< e.g. "m/s"; empty when not declared
  /// What `unit` means, where the slave defines it (an FMU's UnitDefinitions);
  /// otherwise couplet reads `unit` with parse_unit (docs/units.md).
  std::optional<UnitDefinition> unit_definition;
};

struct InputDescription {
  std::string name;
  std::string unit;  ///< e.g. "N"; empty when not declared
  /// As OutputDescription::unit_definition.
  std::optional<UnitDefinition> unit_definition;
};

/// Discrete signals (Integer, Boolean) are piecewise constant: exchanged at
/// communication points and held until the next one, never extrapolated. They
/// travel beside the Real ports, which keep their polynomials; the coupling
/// algorithms never see them (docs/algorithms.md, "Discrete signals").
enum class DiscreteType { integer, boolean };

/// "Integer" or "Boolean", for messages and files.
const char* to_string(DiscreteType type);

struct DiscretePortDescription {
  std::string name;
  DiscreteType type = DiscreteType::integer;
  std::string unit;        ///< Integer ports may declare one; empty when not declared
  std::int64_t start = 0;  ///< an input's value while no connection drives it (Boolean: 0 or 1)
};

struct SlaveCapabilities {
  int max_input_degree = 0;         ///< highest input polynomial degree accepted
  int output_derivative_order = 0;  ///< time derivatives of outputs reported (0 = values only)
  bool can_rollback = false;        ///< save_state/restore_state available
  bool variable_step = true;        ///< accepts any step size
  Time imposed_step = 0;            ///< if > 0, steps must lie on this grid from the start time
  bool intermediate_samples = false;  ///< reports outputs at requested times inside a step
  /// linearize() available: state, state derivative and Jacobians at the current
  /// point (MISSILES). `state_count` states.
  bool can_linearize = false;
  std::size_t state_count = 0;
};

struct SlaveDescription {
  std::vector<InputDescription> inputs;
  std::vector<OutputDescription> outputs;
  SlaveCapabilities capabilities;
  std::vector<DiscretePortDescription> discrete_inputs;
  std::vector<DiscretePortDescription> discrete_outputs;
};

/// Buffers a slave writes its outputs into. Layout of `end_outputs`:
/// (output_derivative_order + 1) rows of `outputs.size()` values, row d holding
/// the d-th time derivative at the step end. `samples`: one row of outputs per
/// requested sample time. `discrete_outputs`: one value per discrete output at
/// the step end (Boolean: 0 or 1); a change inside the step is seen there.
struct OutputBuffers {
  std::span<double> end_outputs;
  std::span<double> samples;
  std::span<std::int64_t> discrete_outputs;
};

/// The layout of a linearization ẋ = f(t, x, u), y = g(t, x, u) around the
/// current point, for n states, m inputs and q outputs: one buffer holding, one
/// after the other, x (n), ẋ = f (n), A = ∂f/∂x (n×n), B = ∂f/∂u (n×m),
/// C = ∂g/∂x (q×n), D = ∂g/∂u (q×m), the matrices column-major.
struct LinearizationLayout {
  std::size_t states = 0;
  std::size_t inputs = 0;
  std::size_t outputs = 0;

  constexpr std::size_t state_offset() const { return 0; }
  constexpr std::size_t derivative_offset() const { return states; }
  constexpr std::size_t a_offset() const { return 2 * states; }
  constexpr std::size_t b_offset() const { return a_offset() + states * states; }
  constexpr std::size_t c_offset() const { return b_offset() + states * inputs; }
  constexpr std::size_t d_offset() const { return c_offset() + outputs * states; }
  constexpr std::size_t size() const { return d_offset() + outputs * inputs; }

  static LinearizationLayout of(const SlaveDescription& description) {
    return {description.capabilities.state_count, description.inputs.size(),
            description.outputs.size()};
  }
};

/// What a link saw during a slave's latest step (the run log's timing).
struct LinkStepReport {
  std::uint32_t retransmissions = 0;   ///< requests sent again during the step
  bool missed = false;                 ///< wall clock: the result was replaced under the late policy
  std::int64_t input_lateness_ns = 0;  ///< real-time target: how late its input arrived
};

struct StepRequest {
  Time start = 0;
  Time end = 0;
  std::span<const Polynomial> inputs;  ///< one per input, valid on [start, end]
  std::span<const Time> sample_times;  ///< increasing, inside (start, end]
  /// One per discrete input, held over [start, end] (Boolean: 0 or 1).
  std::span<const std::int64_t> discrete_inputs;
};

class Slave {
 public:
  virtual ~Slave() = default;

  virtual const SlaveDescription& description() const = 0;

  /// Puts the slave in its initial state at `start`. Called once, first.
  virtual void setup(Time start) = 0;

  /// Outputs and their time derivatives at the current time, for inputs given as
  /// polynomials around that time (needed for direct feedthrough). Does not advance.
  virtual void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> end_outputs) = 0;

  /// Advances from the current time (== request.start) to request.end under the
  /// given input polynomials. Throws SlaveError on failure, ProtocolViolation on a
  /// request outside the capabilities.
  virtual void step(const StepRequest& request, const OutputBuffers& result) = 0;

  /// The discrete outputs at the current time (one per discrete output), after
  /// setup: the values held until the first step ends. Default: nothing (a
  /// slave without discrete outputs).
  virtual void evaluate_discrete_outputs(std::span<std::int64_t> /*discrete_outputs*/) {}

  /// Split-phase stepping for slaves behind links, which the executor steps
  /// concurrently: before carrying out a batch, the executor
  /// announces each of its steps, in plan order, with the very request step()
  /// will then receive; a remote slave sends it at once, so that all targets of
  /// the batch compute at the same time. Default: nothing.
  virtual void announce_step(const StepRequest&) {}

  /// Split-phase evaluation, likewise: before carrying out a batch of several
  /// evaluations (a level of a feedthrough refresh), the executor announces each
  /// of them, in plan order, with the very inputs evaluate_outputs() will then
  /// receive, and calls nothing else on that slave in between; a remote slave
  /// sends the request at once, so that all targets of the batch evaluate at the
  /// same time. Default: nothing.
  virtual void announce_outputs(std::span<const Polynomial> /*inputs*/) {}

  /// After step(): what the link saw during it (slaves behind links; local
  /// slaves: nothing). No allocation.
  virtual LinkStepReport last_link_report() const { return {}; }

  /// Saves the state at the current communication time (rollback-capable slaves).
  virtual void save_state() { throw ProtocolViolation("save_state on a slave that cannot roll back"); }
  /// Returns to the last saved state, bit for bit.
  virtual void restore_state() {
    throw ProtocolViolation("restore_state on a slave that cannot roll back");
  }

  /// The slave linearized at its current time and state, with the inputs at the
  /// values of `inputs` there (one polynomial per input): writes x, ẋ and the
  /// Jacobians A, B, C, D into `linearization` (LinearizationLayout::of(
  /// description()).size() values). Does not advance and changes no state. Exact
  /// for linear slaves; others may use finite differences. Throws SlaveError on
  /// failure. No allocation after setup.
  virtual void linearize(std::span<const Polynomial> /*inputs*/, std::span<double> /*linearization*/) {
    throw ProtocolViolation("linearize on a slave that cannot linearize");
  }
};

/// Throws ProtocolViolation "slave 'S': CALL before setup" unless `is_set_up`.
void check_set_up(const std::string& slave_name, bool is_set_up, const char* call);

/// check_set_up, then ProtocolViolation "slave 'S': CALL on a slave that
/// cannot roll back" unless the description's capabilities say it can.
void check_rollback(const std::string& slave_name, const SlaveDescription& description,
                    bool is_set_up, const char* call);

/// Checks a request against a description; throws ProtocolViolation naming `slave_name`.
void check_step_request(const std::string& slave_name, const SlaveDescription& description,
                        Time current_time, const StepRequest& request);

/// Checks that `end_outputs` holds (output_derivative_order + 1) rows of the
/// description's outputs; throws ProtocolViolation naming `slave_name`.
void check_end_outputs(const std::string& slave_name, const SlaveDescription& description,
                       std::span<const double> end_outputs);

/// Checks that `discrete_outputs` holds one value per discrete output; throws
/// ProtocolViolation naming `slave_name`.
void check_discrete_outputs(const std::string& slave_name, const SlaveDescription& description,
                            std::span<const std::int64_t> discrete_outputs);

}  // namespace couplet
