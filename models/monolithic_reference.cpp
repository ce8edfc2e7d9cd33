#include "models/monolithic_reference.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "models/cvode_instance.hpp"

namespace couplet::models {
namespace {

constexpr std::size_t kUnconnected = std::numeric_limits<std::size_t>::max();

// A time event announced by a model (Model::next_time_event) within this of the
// current time is due now: a model's own arithmetic for "now" may differ from the
// boundary reached by a few ulps, and a segment that short would be pure roundoff.
constexpr double kEventTimeResolution = 0.5e-9;

// A model whose event handling keeps asking for another event at the same time
// (Zeno behaviour, or an announced time event it never moves past) would hold
// the reference at that time forever; this many is far beyond any real cascade.
constexpr int kMaxEventsAtOneTime = 100;

std::string time_text(double t) {
  std::ostringstream text;
  text.precision(17);
  text << t;
  return text.str();
}

// ---------------------------------------------------------------------------
// Port graph and evaluation plan.
//
// The nodes are the outputs of all subsystems (global index = output offset of
// the subsystem + output index). An output with direct feedthrough depends on
// the sources of every input of its subsystem; an output without feedthrough
// depends on nothing. The strongly connected components of this graph, in
// dependency order, give the evaluation plan: a single acyclic node is evaluated
// directly, a cycle (an algebraic loop through feedthrough ports) by Newton.
// ---------------------------------------------------------------------------

struct EvaluationStep {
  std::vector<std::size_t> nodes;
  bool is_loop = false;
};

/// Tarjan's algorithm; it emits a component only after every component it
/// depends on, which is exactly the evaluation order.
class ComponentFinder {
 public:
  explicit ComponentFinder(const std::vector<std::vector<std::size_t>>& dependencies)
      : dependencies_(dependencies),
        index_(dependencies.size(), kUnconnected),
        low_link_(dependencies.size(), 0),
        on_stack_(dependencies.size(), false) {}

  std::vector<EvaluationStep> run() {
    for (std::size_t node = 0; node < dependencies_.size(); ++node) {
      if (index_[node] == kUnconnected) visit(node);
    }
    return std::move(steps_);
  }

 private:
  void visit(std::size_t node) {
    index_[node] = low_link_[node] = next_index_++;
    stack_.push_back(node);
    on_stack_[node] = true;
    for (const std::size_t dependency : dependencies_[node]) {
      if (index_[dependency] == kUnconnected) {
        visit(dependency);
        low_link_[node] = std::min(low_link_[node], low_link_[dependency]);
      } else if (on_stack_[dependency]) {
        low_link_[node] = std::min(low_link_[node], index_[dependency]);
      }
    }
    if (low_link_[node] != index_[node]) return;
    EvaluationStep step;
    std::size_t member = 0;
    do {
      member = stack_.back();
      stack_.pop_back();
      on_stack_[member] = false;
      step.nodes.push_back(member);
    } while (member != node);
    std::sort(step.nodes.begin(), step.nodes.end());
    const auto& own = dependencies_[node];
    const bool self_loop = std::find(own.begin(), own.end(), node) != own.end();
    step.is_loop = step.nodes.size() > 1 || self_loop;
    steps_.push_back(std::move(step));
  }

  const std::vector<std::vector<std::size_t>>& dependencies_;
  std::vector<std::size_t> index_, low_link_;
  std::vector<bool> on_stack_;
  std::vector<std::size_t> stack_;
  std::vector<EvaluationStep> steps_;
  std::size_t next_index_ = 0;
};

/// Newton workspace of one algebraic loop, allocated once.
struct LoopWorkspace {
  Eigen::VectorXd values, residual, perturbed_residual, step;
  Eigen::MatrixXd jacobian;
  Eigen::FullPivLU<Eigen::MatrixXd> factorization;

  explicit LoopWorkspace(Eigen::Index size)
      : values(Eigen::VectorXd::Zero(size)),
        residual(size),
        perturbed_residual(size),
        step(size),
        jacobian(size, size),
        factorization(size, size) {}
};

// ---------------------------------------------------------------------------
// The assembled system: concatenated states, connection equations, f and g.
// ---------------------------------------------------------------------------

class AssembledSystem {
 public:
  AssembledSystem(std::span<const MonolithicSubsystem> subsystems,
                  std::span<const MonolithicConnection> connections)
      : subsystems_(subsystems.begin(), subsystems.end()) {
    compute_offsets();
    connect(connections);
    set_up_input_jets();
    plan_evaluation();
  }

  std::size_t state_count() const { return state_offset_.back(); }
  std::size_t subsystem_count() const { return subsystems_.size(); }
  std::size_t output_count(std::size_t subsystem) const {
    return output_offset_[subsystem + 1] - output_offset_[subsystem];
  }

  const std::string& name(std::size_t subsystem) const { return subsystems_[subsystem].name; }

  /// Model::start for every model; before initial_state, which may depend on it
  /// (a model-exchange FMU initialises at the start time).
  void start(double t) const {
    for (const auto& subsystem : subsystems_) subsystem.model->start(t);
  }

  void initial_state(std::span<double> x) const {
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      subsystems_[s].model->initial_state(state_slice(s, x));
    }
  }

  std::size_t event_indicator_count() const { return indicator_offset_.back(); }

  std::size_t subsystem_of_indicator(std::size_t indicator) const {
    const auto above =
        std::upper_bound(indicator_offset_.begin(), indicator_offset_.end(), indicator);
    return static_cast<std::size_t>(above - indicator_offset_.begin()) - 1;
  }

  /// True when some model can have an event beyond its static time events. Only
  /// meaningful after start(): the first time event is announced there.
  bool has_discrete_behaviour() const {
    return event_indicator_count() > 0 || std::isfinite(earliest_time_event());
  }

  double next_time_event(std::size_t subsystem) const {
    return subsystems_[subsystem].model->next_time_event();
  }

  /// The earliest time event any model announced; +infinity when none.
  double earliest_time_event() const {
    double earliest = std::numeric_limits<double>::infinity();
    for (const auto& subsystem : subsystems_) {
      earliest = std::min(earliest, subsystem.model->next_time_event());
    }
    return earliest;
  }

  /// All models' event indicators at (t, x), with the connections solved as for
  /// the right-hand side: an indicator may read the model's inputs.
  void event_indicators(double t, std::span<const double> x, std::span<double> indicators) {
    solve_connections(t, x);
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      const std::size_t count = indicator_offset_[s + 1] - indicator_offset_[s];
      if (count == 0) continue;
      subsystems_[s].model->event_indicators(t, state_slice(s, x), equation_inputs(t, x, s),
                                             indicators.subspan(indicator_offset_[s], count));
    }
  }

  /// Model::handle_event of one subsystem at (t, x), its inputs solved through
  /// the connections at the state before the event; the model may change its
  /// slice of x. Returns whether it did.
  bool handle_event(std::size_t subsystem, double t, std::span<double> x) {
    solve_connections(t, x);
    return subsystems_[subsystem].model->handle_event(t, state_slice(subsystem, x),
                                                      equation_inputs(t, x, subsystem));
  }

  /// Distinct event times of all models strictly inside (start, end), sorted.
  std::vector<double> event_times(double start, double end) const {
    std::vector<double> events;
    for (const auto& subsystem : subsystems_) {
      for (const double event : subsystem.model->time_events()) {
        if (event > start && event < end) events.push_back(event);
      }
    }
    std::sort(events.begin(), events.end());
    events.erase(std::unique(events.begin(), events.end()), events.end());
    return events;
  }

  /// Solves u_target = y_source at (t, x); afterwards every output and input is
  /// consistent.
  void solve_connections(double t, std::span<const double> x) {
    // Unknown inputs are zeroed so that a pass never depends on the previous
    // one; outputs without feedthrough must not read them anyway.
    std::fill(input_values_.begin(), input_values_.end(), 0.0);
    std::fill(outputs_stale_.begin(), outputs_stale_.end(), true);
    std::size_t loop = 0;
    for (const auto& step : steps_) {
      if (step.is_loop) {
        solve_loop(t, x, step, loops_[loop++]);
      } else {
        evaluate_node(t, x, step.nodes.front());
      }
    }
  }

  void derivatives(double t, std::span<const double> x, std::span<double> dxdt) {
    solve_connections(t, x);
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      subsystems_[s].model->derivatives(t, state_slice(s, x), equation_inputs(t, x, s),
                                        state_slice(s, dxdt));
    }
  }

  /// The outputs of one subsystem after solve_connections.
  std::span<const double> outputs(std::size_t subsystem) const {
    return std::span<const double>(node_values_)
        .subspan(output_offset_[subsystem], output_count(subsystem));
  }

 private:
  template <typename Value>
  std::span<Value> state_slice(std::size_t subsystem, std::span<Value> x) const {
    return x.subspan(state_offset_[subsystem],
                     state_offset_[subsystem + 1] - state_offset_[subsystem]);
  }
  std::span<const double> input_slice(std::size_t subsystem) const {
    return std::span<const double>(input_values_)
        .subspan(input_offset_[subsystem], input_offset_[subsystem + 1] - input_offset_[subsystem]);
  }

  // A model may read the time derivative of its inputs (Model::input_derivative_order).
  // Here u̇ = ẏ of the source output, from the source's analytic output derivatives
  // with its current inputs; supported for order 1 and sources whose output has no
  // feedthrough (then ẏ depends on the source's inputs, not on their derivatives).
  void set_up_input_jets() {
    input_jets_.assign(subsystems_.size(), {});
    derivative_readers_.assign(subsystems_.size(), {});
    std::size_t widest_inputs = 0;
    std::size_t widest_outputs = 0;
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      const Model& model = *subsystems_[s].model;
      widest_inputs = std::max(widest_inputs, model.input_count());
      widest_outputs = std::max(widest_outputs, model.output_count());
      const int order = model.input_derivative_order();
      if (order == 0) continue;
      if (order != 1) {
        throw ConfigurationError("monolithic reference: subsystem '" + subsystems_[s].name +
                                 "' reads input derivatives of order " + std::to_string(order) +
                                 "; only order 1 is supported");
      }
      input_jets_[s].assign(2 * model.input_count(), 0.0);
      for (std::size_t i = 0; i < model.input_count(); ++i) check_derivative_source(s, i);
    }
    source_jet_scratch_.assign(2 * widest_inputs, 0.0);
    derivative_scratch_.assign(widest_outputs, 0.0);
  }

  void check_derivative_source(std::size_t reader, std::size_t input) {
    const std::size_t node = source_of_input_[input_offset_[reader] + input];
    const std::size_t source = subsystem_of_node_[node];
    const Model& model = *subsystems_[source].model;
    const OutputDescription& output = model.description().outputs[node - output_offset_[source]];
    const std::string where = "monolithic reference: '" + input_name(reader, input) +
                              "' reads the time derivative of '" + subsystems_[source].name + "." +
                              output.name + "'";
    if (output.direct_feedthrough || model.input_derivative_order() != 0) {
      throw ConfigurationError(
          where +
          ", which has direct feedthrough or reads input derivatives itself; not supported");
    }
    if (model.output_derivative_order() < 1) {
      throw ConfigurationError(where + ", but its model gives no analytic output derivatives");
    }
    auto& readers = derivative_readers_[source];
    if (std::find(readers.begin(), readers.end(), reader) == readers.end())
      readers.push_back(reader);
  }

  /// What the model's equations take as `u`: the input values, or the jet (u, u̇).
  std::span<const double> equation_inputs(double t, std::span<const double> x,
                                          std::size_t subsystem) {
    if (input_jets_[subsystem].empty()) return input_slice(subsystem);
    const std::span<const double> values = input_slice(subsystem);
    std::vector<double>& jet = input_jets_[subsystem];
    std::copy(values.begin(), values.end(), jet.begin());
    for (std::size_t i = 0; i < values.size(); ++i) {
      jet[values.size() + i] =
          source_output_derivative(t, x, source_of_input_[input_offset_[subsystem] + i]);
    }
    return jet;
  }

  /// ẏ of one output node at (t, x) with its subsystem's current inputs; the
  /// input-derivative rows are zero, which a non-feedthrough output does not read.
  double source_output_derivative(double t, std::span<const double> x, std::size_t node) {
    const std::size_t source = subsystem_of_node_[node];
    const std::span<const double> values = input_slice(source);
    std::fill(source_jet_scratch_.begin(), source_jet_scratch_.end(), 0.0);
    std::copy(values.begin(), values.end(), source_jet_scratch_.begin());
    const std::span<double> derivatives =
        std::span<double>(derivative_scratch_).first(output_count(source));
    subsystems_[source].model->output_derivatives(
        t, state_slice(source, x),
        std::span<const double>(source_jet_scratch_).first(2 * values.size()), 1, derivatives);
    return derivatives[node - output_offset_[source]];
  }

  void compute_offsets() {
    state_offset_.assign(1, 0);
    input_offset_.assign(1, 0);
    output_offset_.assign(1, 0);
    indicator_offset_.assign(1, 0);
    for (const auto& subsystem : subsystems_) {
      if (subsystem.model == nullptr) {
        throw ConfigurationError("monolithic reference: subsystem '" + subsystem.name +
                                 "' has no model");
      }
      state_offset_.push_back(state_offset_.back() + subsystem.model->state_count());
      input_offset_.push_back(input_offset_.back() + subsystem.model->input_count());
      output_offset_.push_back(output_offset_.back() + subsystem.model->output_count());
      indicator_offset_.push_back(indicator_offset_.back() +
                                  subsystem.model->event_indicator_count());
    }
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      for (std::size_t i = input_offset_[s]; i < input_offset_[s + 1]; ++i) {
        subsystem_of_input_.push_back(s);
      }
      for (std::size_t o = output_offset_[s]; o < output_offset_[s + 1]; ++o) {
        subsystem_of_node_.push_back(s);
      }
    }
    input_values_.assign(input_offset_.back(), 0.0);
    node_values_.assign(output_offset_.back(), 0.0);
    output_scratch_.assign(output_offset_.back(), 0.0);
    outputs_stale_.assign(subsystems_.size(), true);
  }

  std::string input_name(std::size_t subsystem, std::size_t input) const {
    return subsystems_[subsystem].name + "." +
           subsystems_[subsystem].model->description().inputs[input];
  }

  void connect(std::span<const MonolithicConnection> connections) {
    source_of_input_.assign(input_offset_.back(), kUnconnected);
    targets_of_node_.assign(output_offset_.back(), {});
    for (const auto& connection : connections) {
      check_indices(connection);
      const std::size_t input =
          input_offset_[connection.target_subsystem] + connection.target_input;
      if (source_of_input_[input] != kUnconnected) {
        throw ConfigurationError("monolithic reference: input '" +
                                 input_name(connection.target_subsystem, connection.target_input) +
                                 "' is connected more than once; connect each input exactly once");
      }
      const std::size_t node =
          output_offset_[connection.source_subsystem] + connection.source_output;
      source_of_input_[input] = node;
      targets_of_node_[node].push_back(input);
    }
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      for (std::size_t i = 0; i < subsystems_[s].model->input_count(); ++i) {
        if (source_of_input_[input_offset_[s] + i] == kUnconnected) {
          throw ConfigurationError("monolithic reference: input '" + input_name(s, i) +
                                   "' is not connected; connect each input exactly once");
        }
      }
    }
  }

  void check_indices(const MonolithicConnection& connection) const {
    const auto describe = [](std::size_t subsystem, std::size_t port) {
      return "(" + std::to_string(subsystem) + ", " + std::to_string(port) + ")";
    };
    const std::size_t count = subsystems_.size();
    if (connection.source_subsystem >= count ||
        connection.source_output >=
            subsystems_[connection.source_subsystem].model->output_count()) {
      throw ConfigurationError("monolithic reference: connection source " +
                               describe(connection.source_subsystem, connection.source_output) +
                               " names no output");
    }
    if (connection.target_subsystem >= count ||
        connection.target_input >= subsystems_[connection.target_subsystem].model->input_count()) {
      throw ConfigurationError("monolithic reference: connection target " +
                               describe(connection.target_subsystem, connection.target_input) +
                               " names no input");
    }
  }

  void plan_evaluation() {
    std::vector<std::vector<std::size_t>> dependencies(output_offset_.back());
    for (std::size_t s = 0; s < subsystems_.size(); ++s) {
      const auto& outputs = subsystems_[s].model->description().outputs;
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!outputs[o].direct_feedthrough) continue;
        for (std::size_t i = input_offset_[s]; i < input_offset_[s + 1]; ++i) {
          dependencies[output_offset_[s] + o].push_back(source_of_input_[i]);
          // Reading u̇ = ẏ_source, which may depend on the source's own inputs.
          if (subsystems_[s].model->input_derivative_order() == 0) continue;
          const std::size_t source = subsystem_of_node_[source_of_input_[i]];
          for (std::size_t j = input_offset_[source]; j < input_offset_[source + 1]; ++j) {
            dependencies[output_offset_[s] + o].push_back(source_of_input_[j]);
          }
        }
      }
    }
    steps_ = ComponentFinder(dependencies).run();
    for (const auto& step : steps_) {
      if (step.is_loop) loops_.emplace_back(static_cast<Eigen::Index>(step.nodes.size()));
    }
  }

  void evaluate_outputs(double t, std::span<const double> x, std::size_t subsystem) {
    if (!outputs_stale_[subsystem]) return;
    const auto scratch = std::span<double>(output_scratch_)
                             .subspan(output_offset_[subsystem], output_count(subsystem));
    subsystems_[subsystem].model->outputs(t, state_slice(subsystem, x),
                                          equation_inputs(t, x, subsystem), scratch);
    outputs_stale_[subsystem] = false;
  }

  /// Sets an output's value and copies it to every input it feeds.
  void assign_node(std::size_t node, double value) {
    node_values_[node] = value;
    for (const std::size_t input : targets_of_node_[node]) {
      input_values_[input] = value;
      outputs_stale_[subsystem_of_input_[input]] = true;
      // ẏ of that subsystem may depend on this input: its derivative readers too.
      for (const std::size_t reader : derivative_readers_[subsystem_of_input_[input]])
        outputs_stale_[reader] = true;
    }
  }

  void evaluate_node(double t, std::span<const double> x, std::size_t node) {
    evaluate_outputs(t, x, subsystem_of_node_[node]);
    assign_node(node, output_scratch_[node]);
  }

  /// r(v) = g(v) − v for the loop outputs v.
  void loop_residual(double t, std::span<const double> x, const EvaluationStep& loop,
                     const Eigen::VectorXd& values, Eigen::VectorXd& residual) {
    for (std::size_t j = 0; j < loop.nodes.size(); ++j) {
      assign_node(loop.nodes[j], values[static_cast<Eigen::Index>(j)]);
    }
    for (std::size_t j = 0; j < loop.nodes.size(); ++j) {
      const std::size_t node = loop.nodes[j];
      evaluate_outputs(t, x, subsystem_of_node_[node]);
      const auto row = static_cast<Eigen::Index>(j);
      residual[row] = output_scratch_[node] - values[row];
    }
  }

  /// Newton with a forward-difference Jacobian, warm-started from the previous
  /// solution (consecutive right-hand sides are close). Linear loops converge in
  /// two or three iterations; the stop is at roundoff, about 1e-14 relative.
  void solve_loop(double t, std::span<const double> x, const EvaluationStep& loop,
                  LoopWorkspace& work) {
    constexpr int kMaxIterations = 50;
    constexpr double kTolerance = 1e-14;
    // With an ill-conditioned Jacobian the step stalls at roundoff above 1e-14;
    // a stalled step this small is accepted as converged.
    constexpr double kStallTolerance = 1e-9;
    const double perturbation_scale = std::sqrt(std::numeric_limits<double>::epsilon());
    const auto size = work.values.size();
    double previous_step = std::numeric_limits<double>::infinity();
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
      loop_residual(t, x, loop, work.values, work.residual);
      if (work.residual.lpNorm<Eigen::Infinity>() == 0.0) return;
      for (Eigen::Index column = 0; column < size; ++column) {
        const double saved = work.values[column];
        const double delta = perturbation_scale * std::max(std::abs(saved), 1.0);
        work.values[column] = saved + delta;
        loop_residual(t, x, loop, work.values, work.perturbed_residual);
        work.values[column] = saved;
        work.jacobian.col(column) = (work.perturbed_residual - work.residual) / delta;
      }
      work.factorization.compute(work.jacobian);
      if (!work.factorization.isInvertible()) {
        throw SlaveError("monolithic reference: algebraic loop through " + loop_names(loop) +
                         " has a singular Jacobian at t = " + time_text(t));
      }
      work.step = -work.factorization.solve(work.residual);
      work.values += work.step;
      const double step_norm = work.step.lpNorm<Eigen::Infinity>();
      const double scale = work.values.lpNorm<Eigen::Infinity>();
      const bool converged = step_norm <= kTolerance * scale;
      const bool stalled = step_norm >= 0.5 * previous_step && step_norm <= kStallTolerance * scale;
      if (converged || stalled) {
        // Leave inputs and outputs consistent with the accepted values.
        loop_residual(t, x, loop, work.values, work.residual);
        return;
      }
      previous_step = step_norm;
    }
    throw SlaveError("monolithic reference: algebraic loop through " + loop_names(loop) +
                     " did not converge at t = " + time_text(t));
  }

  std::string loop_names(const EvaluationStep& loop) const {
    std::string names;
    for (const std::size_t node : loop.nodes) {
      const std::size_t s = subsystem_of_node_[node];
      if (!names.empty()) names += ", ";
      names += subsystems_[s].name + "." +
               subsystems_[s].model->description().outputs[node - output_offset_[s]].name;
    }
    return names;
  }

  std::vector<MonolithicSubsystem> subsystems_;
  std::vector<std::size_t> state_offset_, input_offset_, output_offset_, indicator_offset_;
  std::vector<std::size_t> subsystem_of_input_, subsystem_of_node_;
  std::vector<std::size_t> source_of_input_;
  std::vector<std::vector<std::size_t>> targets_of_node_;
  std::vector<double> input_values_, node_values_, output_scratch_;
  std::vector<bool> outputs_stale_;
  // Models reading input derivatives (Model::input_derivative_order() = 1).
  std::vector<std::vector<double>> input_jets_;  ///< per subsystem: u, u̇ (empty if unused)
  std::vector<std::vector<std::size_t>> derivative_readers_;  ///< per subsystem: who reads its ẏ
  std::vector<double> source_jet_scratch_, derivative_scratch_;
  std::vector<EvaluationStep> steps_;
  std::vector<LoopWorkspace> loops_;
};

// ---------------------------------------------------------------------------
// CVODE driver: one integrator, re-initialised at every event.
// ---------------------------------------------------------------------------

/// Counts the events at one instant (within kEventTimeResolution) and stops a
/// model that never lets time advance.
class EventBurstGuard {
 public:
  void note(double t, const std::string& subsystem) {
    if (count_ > 0 && t - burst_start_ <= kEventTimeResolution) {
      if (++count_ > kMaxEventsAtOneTime) {
        throw SlaveError("monolithic reference: subsystem '" + subsystem +
                         "' asked for more than " + std::to_string(kMaxEventsAtOneTime) +
                         " events at t = " + time_text(t) +
                         " without time advancing (Zeno behaviour)");
      }
      return;
    }
    burst_start_ = t;
    count_ = 1;
  }

 private:
  double burst_start_ = 0.0;
  int count_ = 0;
};

// ---------------------------------------------------------------------------
// Linear algebra: the sparsity of the assembled ∂f/∂x, probed once.
// ---------------------------------------------------------------------------

/// The band solver pays when the band holds at most a quarter of the columns:
/// CVODE's difference-quotient Jacobian then needs ml + mu + 1 right-hand sides
/// instead of n (cvLsBandDQJac groups the columns), and the factorization costs
/// O(n ml (ml + mu)) instead of O(n³).
bool band_pays(std::size_t lower, std::size_t upper, std::size_t n) {
  return 4 * (lower + upper + 1) <= n;
}

/// Widens `algebra` by the dependencies of f on each state found at `point`:
/// f_i depends on x_j when f_i(x + δ e_j) differs from f_i(x) at all (a row
/// not reading x_j is recomputed bit for bit). Stops early once the band no
/// longer pays and `give_up_when_wide` is set.
void probe_dependencies(AssembledSystem& system, double t, std::vector<double>& point,
                        MonolithicLinearAlgebra& algebra, bool give_up_when_wide) {
  const std::size_t n = point.size();
  std::vector<double> slope(n), shifted(n);
  system.derivatives(t, point, slope);
  const double scale = std::sqrt(std::numeric_limits<double>::epsilon());
  for (std::size_t j = 0; j < n; ++j) {
    const double saved = point[j];
    point[j] = saved + scale * std::max(1.0, std::abs(saved));
    system.derivatives(t, point, shifted);
    point[j] = saved;
    for (std::size_t i = 0; i < n; ++i) {
      if (shifted[i] == slope[i]) continue;
      if (i > j) algebra.lower_bandwidth = std::max(algebra.lower_bandwidth, i - j);
      if (j > i) algebra.upper_bandwidth = std::max(algebra.upper_bandwidth, j - i);
    }
    if (give_up_when_wide && !band_pays(algebra.lower_bandwidth, algebra.upper_bandwidth, n)) {
      return;
    }
  }
}

/// The linear solver for `settings` and the assembled system at its initial
/// state x0. The probe runs at x0 and at x0 shifted by a small deterministic
/// pattern (a dependence that happens to vanish at x0, such as a cubic spring
/// at rest, shows there). A dependence missed anyway only slows Newton: the
/// Jacobian steers the iterations, the error test decides the solution.
MonolithicLinearAlgebra choose_linear_algebra(AssembledSystem& system, double t,
                                              std::span<const double> x0,
                                              MonolithicLinearSolver choice) {
  MonolithicLinearAlgebra algebra;
  if (choice == MonolithicLinearSolver::dense || x0.empty()) return algebra;
  const bool automatic = choice == MonolithicLinearSolver::automatic;
  if (automatic && !band_pays(0, 0, x0.size())) return algebra;
  std::vector<double> point(x0.begin(), x0.end());
  probe_dependencies(system, t, point, algebra, automatic);
  if (automatic && !band_pays(algebra.lower_bandwidth, algebra.upper_bandwidth, x0.size())) {
    return MonolithicLinearAlgebra{.lower_bandwidth = algebra.lower_bandwidth,
                                   .upper_bandwidth = algebra.upper_bandwidth};
  }
  for (std::size_t j = 0; j < point.size(); ++j) {
    point[j] += 1e-3 * std::max(1.0, std::abs(point[j])) * static_cast<double>(j % 7 + 1) / 7.0;
  }
  probe_dependencies(system, t, point, algebra, automatic);
  algebra.banded =
      !automatic || band_pays(algebra.lower_bandwidth, algebra.upper_bandwidth, x0.size());
  return algebra;
}

class CvodeIntegrator {
 public:
  CvodeIntegrator(AssembledSystem& system, const MonolithicSettings& settings, double start)
      : system_(system),
        model_state_count_(system.state_count()),
        indicator_count_(system.event_indicator_count()),
        cvode_(setup(system, settings, start, linear_algebra_, this)) {
    if (indicator_count_ > 0) {
      // State events: CVODE locates the zero crossings of all indicators, in
      // either direction, and returns there (CV_ROOT_RETURN).
      check(CVodeRootInit(cvode_.memory(), static_cast<int>(indicator_count_),
                          &CvodeIntegrator::root_function),
            "CVodeRootInit", start);
      roots_found_.assign(indicator_count_, 0);
    }
    segment_start_ = segment_end_ = latest_equation_time_ = start;
  }
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  const MonolithicLinearAlgebra& linear_algebra() const { return linear_algebra_; }

  /// Handles the time events the models announced for t (Model::next_time_event
  /// within kEventTimeResolution of t, or overdue), until none is left: handling
  /// one may announce another for the same instant. Call before begin_segment.
  void handle_time_events(double t) {
    for (bool handled = true; handled;) {
      handled = false;
      for (std::size_t s = 0; s < system_.subsystem_count(); ++s) {
        if (!(system_.next_time_event(s) <= t + kEventTimeResolution)) continue;
        burst_guard_.note(t, system_.name(s));
        system_.handle_event(s, t, model_state());
        handled = true;
      }
    }
  }

  /// Starts integrating [start, end] from the current state, which events may
  /// have changed: CVODE restarts here. The equations switch at `end`, so the
  /// right-hand side sees times clamped below it.
  void begin_segment(double start, double end) {
    segment_end_ = end;
    latest_equation_time_ = std::nextafter(end, -std::numeric_limits<double>::infinity());
    restart(start);
  }

  /// Integrates (or interpolates) to `time` inside the current segment, handling
  /// the state events located on the way. A state event exactly at `time` is
  /// handled first: the state returned is the one after it.
  std::span<const double> advance_to(double time) {
    for (;;) {
      // CVODE refuses a first output time within roundoff of the initial time;
      // the state there is the initial state to roundoff.
      const double roundoff = 4.0 * std::numeric_limits<double>::epsilon() *
                              std::max(std::abs(segment_start_), std::abs(time));
      if (!stepped_ && time - segment_start_ <= roundoff) return model_state();
      double reached = 0.0;
      cvode_.clear_message();
      const int flag = CVode(cvode_.memory(), time, cvode_.vector(), &reached, CV_NORMAL);
      if (flag < 0) fail(flag, "CVode", time);
      stepped_ = true;
      // CVODE returns the state at the root; the grid time is still ahead.
      if (flag != CV_ROOT_RETURN) return model_state();
      handle_state_events(reached);
    }
  }

 private:
  /// The CVODE instance from the system's initial state, with the linear
  /// algebra chosen there (into `algebra`).
  static CvodeInstance setup(AssembledSystem& system, const MonolithicSettings& settings,
                             double start, MonolithicLinearAlgebra& algebra,
                             CvodeIntegrator* self) {
    // A system without states but with events still needs CVODE for its root
    // finding; it integrates one dummy state ẋ = 0 then.
    std::vector<double> initial(std::max<std::size_t>(system.state_count(), 1), 0.0);
    const std::span<double> model_initial{initial.data(), system.state_count()};
    system.initial_state(model_initial);
    algebra = choose_linear_algebra(system, start, model_initial, settings.linear_solver);
    try {
      return CvodeInstance(
          CvodeSetup{.method = CV_BDF,
                     .band = algebra.banded
                                 ? std::optional(CvodeBand{.lower = algebra.lower_bandwidth,
                                                           .upper = algebra.upper_bandwidth})
                                 : std::nullopt,
                     .start = start,
                     .right_hand_side = &CvodeIntegrator::right_hand_side,
                     .user_data = self,
                     .relative_tolerance = settings.relative_tolerance,
                     .absolute_tolerance = settings.absolute_tolerance,
                     // Grid points may be far apart; at these tolerances the
                     // default 500 steps per call is far too few. Still bounded:
                     // when t + h == t (a model that fails just ahead), CVODE
                     // would otherwise step in place without end.
                     .max_steps_per_call = 1'000'000},
          initial);
    } catch (const CvodeSetupFailure& failure) {
      throw SlaveError(std::string("monolithic reference: ") + failure.what());
    }
  }

  std::span<double> state() {
    return cvode_.values();
  }
  /// The models' states, without the dummy of a stateless system.
  std::span<double> model_state() { return state().first(model_state_count_); }

  /// CVODE from (t, current state) to the segment end, as after CVodeInit: the
  /// state or the discrete equations may have jumped at t.
  void restart(double t) {
    check(CVodeReInit(cvode_.memory(), t, cvode_.vector()), "CVodeReInit", t);
    check(CVodeSetStopTime(cvode_.memory(), segment_end_), "CVodeSetStopTime", t);
    segment_start_ = t;
    stepped_ = false;
  }

  /// After CV_ROOT_RETURN at t: every model with an indicator that crossed zero
  /// handles the event (once, however many of its indicators fired), in
  /// subsystem order, each seeing the state left by the previous ones.
  void handle_state_events(double t) {
    check(CVodeGetRootInfo(cvode_.memory(), roots_found_.data()), "CVodeGetRootInfo", t);
    std::size_t handled = system_.subsystem_count();  // none yet
    for (std::size_t indicator = 0; indicator < indicator_count_; ++indicator) {
      if (roots_found_[indicator] == 0) continue;
      const std::size_t s = system_.subsystem_of_indicator(indicator);
      if (s == handled) continue;
      burst_guard_.note(t, system_.name(s));
      system_.handle_event(s, t, model_state());
      handled = s;
    }
    restart(t);
  }

  /// The time at which the equations are evaluated for CVODE's t: inside
  /// [segment start, end), where the segment's equations hold; CVODE evaluates
  /// at the stop time itself, where the model would already switch.
  double equation_time(double t) const {
    return std::min(std::max(t, segment_start_), latest_equation_time_);
  }

  static int right_hand_side(sunrealtype t, N_Vector x, N_Vector dxdt, void* user_data) {
    auto& self = *static_cast<CvodeIntegrator*>(user_data);
    const auto size = static_cast<std::size_t>(N_VGetLength_Serial(x));
    const std::span<double> derivatives{N_VGetArrayPointer_Serial(dxdt), size};
    const std::span<const double> states{N_VGetArrayPointer_Serial(x), size};
    try {
      self.system_.derivatives(self.equation_time(t), states.first(self.model_state_count_),
                               derivatives.first(self.model_state_count_));
    } catch (...) {
      // Exceptions must not cross CVODE's C frames; rethrown after CVode returns.
      self.pending_error_ = std::current_exception();
      return -1;
    }
    std::fill(derivatives.begin() + static_cast<std::ptrdiff_t>(self.model_state_count_),
              derivatives.end(), 0.0);
    // A NaN would poison CVODE's step-size control (it can loop forever); a
    // recoverable failure makes it retry with a smaller step, and give up
    // with a flag if that does not help.
    const bool finite = std::all_of(derivatives.begin(), derivatives.end(),
                                    [](double value) { return std::isfinite(value); });
    return finite ? 0 : 1;
  }

  static int root_function(sunrealtype t, N_Vector x, sunrealtype* indicators, void* user_data) {
    auto& self = *static_cast<CvodeIntegrator*>(user_data);
    const std::span<double> values{indicators, self.indicator_count_};
    const std::span<const double> states{N_VGetArrayPointer_Serial(x), self.model_state_count_};
    const double time = self.equation_time(t);
    try {
      self.system_.event_indicators(time, states, values);
      // A NaN indicator has no sign: CVODE would miss or invent crossings.
      const auto bad = std::find_if(values.begin(), values.end(),
                                    [](double value) { return !std::isfinite(value); });
      if (bad != values.end()) {
        const auto indicator = static_cast<std::size_t>(bad - values.begin());
        throw SlaveError("monolithic reference: event indicator " + std::to_string(indicator) +
                         " of subsystem '" +
                         self.system_.name(self.system_.subsystem_of_indicator(indicator)) +
                         "' is not finite at t = " + time_text(time));
      }
    } catch (...) {
      // As in right_hand_side: CVODE fails with CV_RTFUNC_FAIL, fail() rethrows.
      self.pending_error_ = std::current_exception();
      return -1;
    }
    return 0;
  }

  void check(int flag, const char* call, double time) {
    if (flag < 0) fail(flag, call, time);
  }

  [[noreturn]] void fail(int flag, const char* call, double time) {
    if (pending_error_) std::rethrow_exception(std::exchange(pending_error_, nullptr));
    double reached = time;
    CVodeGetCurrentTime(cvode_.memory(), &reached);
    throw SlaveError("monolithic reference: " + std::string(call) + " failed at t = " +
                     time_text(reached) + " integrating towards t = " + time_text(time) + " (" +
                     CvodeInstance::flag_name(flag) + ")" +
                     (cvode_.message()[0] == '\0' ? "" : ": " + std::string(cvode_.message())));
  }

  AssembledSystem& system_;
  std::size_t model_state_count_;
  std::size_t indicator_count_;
  MonolithicLinearAlgebra linear_algebra_;  // before cvode_: its set-up chooses it
  CvodeInstance cvode_;
  double segment_start_ = 0.0;
  double segment_end_ = 0.0;
  double latest_equation_time_ = 0.0;
  bool stepped_ = false;
  std::vector<int> roots_found_;
  EventBurstGuard burst_guard_;
  std::exception_ptr pending_error_;
};

// ---------------------------------------------------------------------------
// solve_monolithic
// ---------------------------------------------------------------------------

void check_interval_and_grid(double start, double end, std::span<const double> grid) {
  if (!(end > start)) {
    throw ConfigurationError("monolithic reference: the end time " + time_text(end) +
                             " must be after the start time " + time_text(start));
  }
  for (std::size_t k = 0; k < grid.size(); ++k) {
    if (!(grid[k] >= start && grid[k] <= end)) {
      throw ConfigurationError("monolithic reference: grid time " + time_text(grid[k]) +
                               " lies outside [" + time_text(start) + ", " + time_text(end) + "]");
    }
    if (k > 0 && grid[k] < grid[k - 1]) {
      throw ConfigurationError("monolithic reference: grid times must increase (" +
                               time_text(grid[k - 1]) + " then " + time_text(grid[k]) + ")");
    }
  }
}

class SolutionRecorder {
 public:
  SolutionRecorder(const AssembledSystem& system, std::span<const double> grid) {
    solution_.times.assign(grid.begin(), grid.end());
    for (std::size_t s = 0; s < system.subsystem_count(); ++s) {
      solution_.outputs.emplace_back();
      solution_.outputs.back().reserve(grid.size() * system.output_count(s));
    }
  }

  void record(const AssembledSystem& system) {
    for (std::size_t s = 0; s < system.subsystem_count(); ++s) {
      const auto values = system.outputs(s);
      solution_.outputs[s].insert(solution_.outputs[s].end(), values.begin(), values.end());
    }
    ++rows_;
  }

  /// The rows recorded: the whole grid, or the part before a stop request.
  MonolithicSolution take() {
    solution_.times.resize(rows_);
    return std::move(solution_);
  }

 private:
  MonolithicSolution solution_;
  std::size_t rows_ = 0;
};

/// Pure algebraic systems have no ODE for CVODE: outputs follow from t alone.
MonolithicSolution solve_stateless(AssembledSystem& system, std::span<const double> grid) {
  // Nothing to initialise, but every model sees start() then initial_state() in
  // every case: a model-exchange FMU may finish its initialisation there.
  system.initial_state({});
  SolutionRecorder recorder(system, grid);
  for (const double time : grid) {
    system.solve_connections(time, {});
    recorder.record(system);
  }
  return recorder.take();
}

}  // namespace

MonolithicSolution solve_monolithic(std::span<const MonolithicSubsystem> subsystems,
                                    std::span<const MonolithicConnection> connections, double start,
                                    double end, std::span<const double> grid,
                                    const MonolithicSettings& settings) {
  check_interval_and_grid(start, end, grid);
  AssembledSystem system(subsystems, connections);
  system.start(start);
  if (system.state_count() == 0 && !system.has_discrete_behaviour()) {
    return solve_stateless(system, grid);
  }

  SolutionRecorder recorder(system, grid);
  CvodeIntegrator integrator(system, settings, start);
  const std::vector<double> static_events = system.event_times(start, end);
  auto next_static = static_events.begin();

  // Segments end at the next static time event, the next time event a model
  // announced, or the end. The announced ones are asked for again after every
  // segment: handling an event announces the next. Model::completed_step is not
  // called: CVODE's internal steps are not visible here (CV_NORMAL), and the
  // models' discrete behaviour reaches the reference through indicators and
  // announced time events.
  std::size_t next_grid = 0;
  double segment_start = start;
  std::optional<double> stopped_at;
  // A model's request to end the simulation (FMI terminate) ends the solution
  // there, as it ends the co-simulation: the grid points before it are kept.
  try {
    for (;;) {
      integrator.handle_time_events(segment_start);
      while (next_static != static_events.end() && *next_static <= segment_start) ++next_static;
      const double next_static_event = next_static == static_events.end() ? end : *next_static;
      // handle_time_events left every announced event beyond segment_start.
      const double segment_end = std::min({next_static_event, system.earliest_time_event(), end});
      const bool last = segment_end >= end;
      integrator.begin_segment(segment_start, segment_end);
      // A grid point at an event time belongs to the next segment: there the new
      // equations hold. The final end belongs to the last segment.
      while (next_grid < grid.size() &&
             (grid[next_grid] < segment_end || (last && grid[next_grid] <= segment_end))) {
        const double time = grid[next_grid++];
        system.solve_connections(time, integrator.advance_to(time));
        recorder.record(system);
      }
      if (last) break;
      integrator.advance_to(segment_end);
      segment_start = segment_end;
    }
  } catch (const StopRequest& request) {
    stopped_at = request.time();
  }
  MonolithicSolution solution = recorder.take();
  solution.stopped_at = stopped_at;
  solution.linear_algebra = integrator.linear_algebra();
  return solution;
}

}  // namespace couplet::models
