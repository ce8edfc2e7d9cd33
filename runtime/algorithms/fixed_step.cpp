#include "runtime/algorithms/fixed_step.hpp"

#include <algorithm>

#include "couplet/errors.hpp"

namespace couplet {

namespace {

/// Slaves with inputs and a direct-feedthrough output: the ones re-evaluated.
std::vector<std::size_t> feedthrough_slaves(const System& system) {
  std::vector<std::size_t> slaves;
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const SlaveDescription& description = system.description(s);
    const bool feedthrough =
        std::any_of(description.outputs.begin(), description.outputs.end(),
                    [](const OutputDescription& output) { return output.direct_feedthrough; });
    if (feedthrough && !description.inputs.empty()) slaves.push_back(s);
  }
  return slaves;
}

/// Per feedthrough slave (by position in the list of them), the feedthrough
/// slaves whose refresh it reads.
struct RefreshGraph {
  /// Through one of their feedthrough outputs, whose value the refresh changes.
  std::vector<std::vector<std::size_t>> required;
  /// Through the time derivatives of an output without feedthrough: its value
  /// stands, but its derivatives follow the source's inputs through its
  /// dynamics (ẏ = C (A x + B u)), and Taylor inputs of order m ≥ 1 carry them.
  std::vector<std::vector<std::size_t>> preferred;
};

RefreshGraph refresh_graph(const System& system, const InputSources& sources,
                           std::span<const std::size_t> feedthrough, int input_order) {
  std::vector<std::size_t> node_of(system.slave_count(), feedthrough.size());
  for (std::size_t n = 0; n < feedthrough.size(); ++n) node_of[feedthrough[n]] = n;
  RefreshGraph graph{std::vector<std::vector<std::size_t>>(feedthrough.size()),
                     std::vector<std::vector<std::size_t>>(feedthrough.size())};
  for (std::size_t n = 0; n < feedthrough.size(); ++n) {
    for (std::size_t i = 0; i < sources.input_count(feedthrough[n]); ++i) {
      // An Integer source changes in steps only, never in a refresh.
      if (sources.held(feedthrough[n], i)) continue;
      const PortReference source = sources.source(feedthrough[n], i);
      const std::size_t from = node_of[source.slave];
      if (from == feedthrough.size()) continue;  // not re-evaluated
      const SlaveDescription& description = system.description(source.slave);
      if (description.outputs[source.port].direct_feedthrough) {
        graph.required[n].push_back(from);
      } else if (from != n && input_order > 0 &&
                 description.capabilities.output_derivative_order > 0) {
        graph.preferred[n].push_back(from);
      }
    }
  }
  return graph;
}

bool all_placed(std::span<const std::size_t> nodes, const std::vector<bool>& placed) {
  return std::all_of(nodes.begin(), nodes.end(), [&](std::size_t node) { return placed[node]; });
}

/// The unplaced nodes whose sources are all placed (`preferred` ones too when
/// `with_preferred`), in slave order.
std::vector<std::size_t> ready_nodes(const RefreshGraph& graph, const std::vector<bool>& placed,
                                     bool with_preferred) {
  std::vector<std::size_t> ready;
  for (std::size_t n = 0; n < placed.size(); ++n) {
    if (!placed[n] && all_placed(graph.required[n], placed) &&
        (!with_preferred || all_placed(graph.preferred[n], placed))) {
      ready.push_back(n);
    }
  }
  return ready;
}

/// Kahn's algorithm, level by level: a level holds every node whose sources lie
/// in lower levels. A cycle through preferred edges (no algebraic loop: it runs
/// through an output without feedthrough) cannot be ordered; it is broken at its
/// first node in slave order whose required sources are placed, alone in a
/// level. Marks the placed nodes; a loop of required edges leaves its nodes
/// (and those behind it) unplaced.
std::vector<std::vector<std::size_t>> refresh_levels(const RefreshGraph& graph,
                                                     std::vector<bool>& placed) {
  std::vector<std::vector<std::size_t>> levels;
  while (std::find(placed.begin(), placed.end(), false) != placed.end()) {
    std::vector<std::size_t> level = ready_nodes(graph, placed, true);
    if (level.empty()) {
      level = ready_nodes(graph, placed, false);
      if (level.empty()) break;
      level.erase(std::next(level.begin()), level.end());
    }
    for (const std::size_t node : level) placed[node] = true;
    levels.push_back(std::move(level));
  }
  return levels;
}

}  // namespace

FixedStepAlgorithm::FixedStepAlgorithm(const FixedStepSettings& settings) : settings_(settings) {
  if (settings.step <= 0) throw ConfigurationError("algorithm.step must be positive");
  if (settings.input_order < 0 || settings.input_order > Polynomial::kMaxDegree) {
    throw ConfigurationError("algorithm.input_order must be between 0 and " +
                             std::to_string(Polynomial::kMaxDegree));
  }
  if (settings.inputs == InputMode::taylor && !settings.history.empty()) {
    throw ConfigurationError("algorithm.history is only for inputs: extrapolated");
  }
}

AlgorithmRequirements FixedStepAlgorithm::requirements() const {
  // Extrapolated inputs need past values only, no reported derivatives.
  return {.algorithm_name = std::string(name()),
          .required_input_degree = settings_.input_order,
          .required_output_derivatives = extrapolated() ? 0 : settings_.input_order};
}

void FixedStepAlgorithm::start(const RunSetup& setup, std::span<StepSlot> slots) {
  sources_ = InputSources(setup.system);
  time_ = setup.start;
  end_ = setup.end;
  check_imposed_steps(setup.system);
  compute_refresh_levels(setup.system);
  if (extrapolated()) {
    history_.start(setup.system, slots, setup.start, settings_.step, settings_.history);
  }
}

void FixedStepAlgorithm::record_history(std::span<const StepSlot> slots, const Plan& plan) {
  if (!extrapolated()) return;
  for (const PlannedAction& action : plan.actions()) {
    if (action.action == SlaveAction::step) history_.record(action.slave, slots);
    if (action.action == SlaveAction::evaluate_outputs) history_.refresh(action.slave, slots);
  }
}

void FixedStepAlgorithm::assign_inputs(std::size_t slave, std::span<StepSlot> slots, double scale) const {
  if (extrapolated()) {
    assign_extrapolated_inputs(slave, sources_, history_, slots, settings_.input_order);
  } else {
    assign_taylor_inputs(slave, sources_, slots, settings_.input_order, scale);
  }
}

void FixedStepAlgorithm::check_imposed_steps(const System& system) const {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    const Time imposed = system.description(s).capabilities.imposed_step;
    if (imposed > 0 && (settings_.step % imposed != 0 || (end_ - time_) % imposed != 0)) {
      throw ConfigurationError(
          system.located(s, "slave '" + system.slave_name(s) + "' imposes a step of " +
                                std::to_string(to_seconds(imposed)) +
                                " s; algorithm.step and the time span must be multiples of it"));
    }
  }
}

void FixedStepAlgorithm::compute_refresh_levels(const System& system) {
  const std::vector<std::size_t> feedthrough = feedthrough_slaves(system);
  // Extrapolated inputs carry no reported derivatives: no preferred edges.
  const RefreshGraph graph =
      refresh_graph(system, sources_, feedthrough, extrapolated() ? 0 : settings_.input_order);
  std::vector<bool> placed(feedthrough.size(), false);
  const std::vector<std::vector<std::size_t>> levels = refresh_levels(graph, placed);
  if (std::find(placed.begin(), placed.end(), false) != placed.end()) {
    std::string names;
    for (std::size_t n = 0; n < feedthrough.size(); ++n) {
      if (!placed[n])
        names += (names.empty() ? "'" : ", '") + system.slave_name(feedthrough[n]) + "'";
    }
    throw ConfigurationError("the feedthrough outputs of slaves " + names +
                             " depend on each other in a loop; a non-iterative algorithm cannot "
                             "resolve it (break the loop or use an iterative algorithm)");
  }
  refresh_order_.clear();
  level_begin_.assign(1, 0);
  for (const std::vector<std::size_t>& level : levels) {
    for (const std::size_t node : level) refresh_order_.push_back(feedthrough[node]);
    level_begin_.push_back(refresh_order_.size());
  }
  next_refresh_level_ = refresh_level_count();
}

void FixedStepAlgorithm::prepare_step(std::size_t slave, std::span<StepSlot> slots, Time from,
                                      Time to) const {
  StepSlot& slot = slots[slave];
  slot.start = from;
  slot.end = to;
  assign_inputs(slave, slots, to_seconds(to - from));
}

// The levels below are fresh now: the inputs are taken from them right before
// this level's plan.
bool FixedStepAlgorithm::plan_output_refresh(std::span<StepSlot> slots, Plan& plan) {
  if (next_refresh_level_ >= refresh_level_count()) return false;
  for (std::size_t k = level_begin_[next_refresh_level_]; k < level_begin_[next_refresh_level_ + 1];
       ++k) {
    const std::size_t slave = refresh_order_[k];
    assign_inputs(slave, slots, to_seconds(settings_.step));
    plan.add(slave, SlaveAction::evaluate_outputs);
  }
  ++next_refresh_level_;
  return true;
}

}  // namespace couplet
