#include "host_tools/generators/chain_convergence.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "couplet/errors.hpp"
#include "models/catalog.hpp"
#include "models/ode_slave.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/algorithms/semi_implicit.hpp"
#include "runtime/executor.hpp"

namespace couplet::tools {

namespace {

using models::Model;
using models::ModelCatalog;
using models::ParameterValues;

/// A model whose outputs are its states, optionally in reversed time: with
/// direction −1 it integrates ẏ = −f(−t, y), whose solution at s is the
/// original one at −s (the past of the reference).
class ObservedModel final : public Model {
 public:
  ObservedModel(std::unique_ptr<Model> inner, double direction)
      : inner_(std::move(inner)), direction_(direction), description_(inner_->description()) {
    description_.outputs.clear();
    for (const std::string& state : description_.states)
      description_.outputs.push_back({.name = state});
  }
  const models::ModelDescription& description() const override { return description_; }
  void initial_state(std::span<double> x) const override { inner_->initial_state(x); }
  void derivatives(double t, std::span<const double> x, std::span<const double> u,
                   std::span<double> dxdt) const override {
    inner_->derivatives(direction_ * t, x, u, dxdt);
    for (double& value : dxdt) value *= direction_;
  }
  void outputs(double, std::span<const double> x, std::span<const double>,
               std::span<double> y) const override {
    std::copy(x.begin(), x.end(), y.begin());
  }

 private:
  std::unique_ptr<Model> inner_;
  double direction_;
  models::ModelDescription description_;
};

int segment_bodies(const ChainStudy& study) {
  if (study.subsystems < 2 || study.chain_bodies % study.subsystems != 0) {
    throw ConfigurationError("chain study: " + std::to_string(study.chain_bodies) +
                             " bodies do not split into " + std::to_string(study.subsystems) +
                             " equal segments (at least 2)");
  }
  return study.chain_bodies / study.subsystems;
}

ParameterValues monolithic_parameters(const ChainStudy& study) {
  return {{"bodies", study.chain_bodies},
          {"first_body", 1.0},
          {"chain_bodies", study.chain_bodies},
          {"wall_left", 1.0},
          {"wall_right", 1.0}};
}

/// The chain's state (x, v per body, by the model's state names) at `times`
/// (increasing multiples of the same tick grid, > 0), forwards (+1) or backwards
/// (−1) from the initial state.
class ReferenceChain {
 public:
  ReferenceChain(const ChainStudy& study, const ModelCatalog& catalog, double direction) {
    auto model = catalog.create("chain.segment", monolithic_parameters(study));
    const models::ModelDescription& description = model->description();
    for (int body = 1; body <= study.chain_bodies; ++body) {
      const auto index = [&](const std::string& name) {
        const auto it = std::find(description.states.begin(), description.states.end(), name);
        if (it == description.states.end())
          throw std::logic_error("chain.segment has no state " + name);
        return static_cast<std::size_t>(it - description.states.begin());
      };
      const std::string number = std::to_string(body);
      position_.push_back(index(std::string("x").append(number)));
      velocity_.push_back(index(std::string("v").append(number)));
    }
    models::SolverSettings settings;
    settings.relative_tolerance = study.reference_tolerance;
    settings.absolute_tolerance = study.reference_tolerance * 1e-2;
    slave_ = models::make_ode_slave(
        "reference", std::make_unique<ObservedModel>(std::move(model), direction), settings);
    slave_->setup(0);
    state_.assign(slave_->description().outputs.size() *
                      static_cast<std::size_t>(
                          slave_->description().capabilities.output_derivative_order + 1),
                  0.0);
    slave_->evaluate_outputs({}, state_);
  }

  /// Advances to `time` (ticks, not before the current one).
  void advance(Time time) {
    if (time == now_) return;
    slave_->step({now_, time, {}, {}}, {state_, {}});
    now_ = time;
  }
  double x(int body) const { return state_[position_[static_cast<std::size_t>(body - 1)]]; }
  double v(int body) const { return state_[velocity_[static_cast<std::size_t>(body - 1)]]; }

 private:
  std::unique_ptr<Slave> slave_;
  std::vector<std::size_t> position_, velocity_;
  std::vector<double> state_;
  Time now_ = 0;
};

std::string segment_name(int p) {
  return "seg" + std::to_string(p + 1);
}
std::string coupling_name(int p) {
  return "cpl" + std::to_string(p + 1);
}

}  // namespace

void add_chain_couplings(System& system, int subsystems, const models::ModelCatalog& catalog,
                         const models::SolverSettings& settings) {
  for (int p = 0; p + 1 < subsystems; ++p) {
    const std::string c = coupling_name(p);
    system.add_slave(c, models::make_ode_slave(c, catalog.create("chain.coupling", {}), settings));
    system.connect(segment_name(p) + ".x_last", c + ".x_left");
    system.connect(segment_name(p) + ".v_last", c + ".v_left");
    system.connect(segment_name(p + 1) + ".x_first", c + ".x_right");
    system.connect(segment_name(p + 1) + ".v_first", c + ".v_right");
    system.connect(c + ".force", segment_name(p) + ".force_right");
    system.connect(c + ".force", segment_name(p + 1) + ".force_left");
  }
}

namespace {

/// The co-simulated chain: segments seg1..n, couplings cpl1..n−1
/// (cpl p between seg p and p + 1), named as `couplet generate chain` names them.
System chain_system(const ChainStudy& study, const ModelCatalog& catalog) {
  const int bodies = segment_bodies(study);
  models::SolverSettings settings;
  settings.relative_tolerance = study.tolerance;
  settings.absolute_tolerance = study.tolerance;
  System system;
  for (int p = 0; p < study.subsystems; ++p) {
    const ParameterValues parameters = {{"bodies", bodies},
                                        {"first_body", 1 + p * bodies},
                                        {"chain_bodies", study.chain_bodies},
                                        {"wall_left", p == 0 ? 1.0 : 0.0},
                                        {"wall_right", p == study.subsystems - 1 ? 1.0 : 0.0}};
    system.add_slave(segment_name(p),
                     models::make_ode_slave(segment_name(p),
                                            catalog.create("chain.segment", parameters), settings));
  }
  add_chain_couplings(system, study.subsystems, catalog, settings);
  return system;
}

/// λ of eq. 3 at every interface, from the reference state.
std::vector<double> coupling_forces(const ChainStudy& study, const ModelCatalog& catalog,
                                    const ReferenceChain& reference) {
  const int bodies = segment_bodies(study);
  const auto coupling = catalog.create("chain.coupling", {});
  std::vector<double> forces;
  for (int p = 0; p + 1 < study.subsystems; ++p) {
    const int left = (p + 1) * bodies;
    const std::vector<double> inputs = {reference.x(left), reference.v(left), reference.x(left + 1),
                                        reference.v(left + 1)};
    double force = 0.0;
    coupling->outputs(0.0, {}, inputs, std::span<double>(&force, 1));
    forces.push_back(force);
  }
  return forces;
}

std::unique_ptr<Algorithm> make_scheme(const ChainStudy& study,
                                       std::vector<OutputHistorySeed> history) {
  const Time step = step_to_ticks(study.step);
  if (study.scheme == ChainScheme::semi_implicit) {
    return std::make_unique<SemiImplicit>(
        SemiImplicitSettings{step, study.order, study.perturbation, std::move(history)});
  }
  FixedStepSettings settings{step, study.order, InputMode::extrapolated, std::move(history)};
  return std::make_unique<Jacobi>(settings);
}

std::size_t output_index(const System& system, std::size_t slave, const std::string& name) {
  const auto& outputs = system.description(slave).outputs;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].name == name) return o;
  }
  throw std::logic_error("chain.segment has no output " + name);
}

/// Runs `algorithm` on the co-simulated chain over [0, end] and compares the
/// coupling bodies with `reference` (already at `end`).
ChainErrors run_and_compare(const ChainStudy& study, const ModelCatalog& catalog,
                            Algorithm& algorithm, Time end, const ReferenceChain& reference) {
  System system = chain_system(study, catalog);
  Executor executor(system, algorithm, 0, end, {});
  executor.initialize();
  while (executor.advance()) {
  }
  const int bodies = segment_bodies(study);
  ChainErrors errors;
  const auto compare = [&](int p, const char* x_name, const char* v_name, int body) {
    const auto slave = static_cast<std::size_t>(p);
    const StepSlot& slot = executor.slots()[slave];
    errors.position =
        std::max(errors.position,
                 std::abs(slot.output(output_index(system, slave, x_name)) - reference.x(body)));
    errors.velocity =
        std::max(errors.velocity,
                 std::abs(slot.output(output_index(system, slave, v_name)) - reference.v(body)));
  };
  for (int p = 0; p < study.subsystems; ++p) {
    if (p > 0) compare(p, "x_first", "v_first", p * bodies + 1);
    if (p + 1 < study.subsystems) compare(p, "x_last", "v_last", (p + 1) * bodies);
  }
  return errors;
}

}  // namespace

ChainErrors chain_local_error(const ChainStudy& study) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const Time step = step_to_ticks(study.step);
  // λ(−jH), j = 1..k, from the chain integrated backwards.
  std::vector<std::vector<double>> past;  // [j − 1][interface]
  ReferenceChain backwards(study, catalog, -1.0);
  for (int j = 1; j <= study.order; ++j) {
    backwards.advance(j * step);
    past.push_back(coupling_forces(study, catalog, backwards));
  }
  std::vector<OutputHistorySeed> history;
  for (int p = 0; p + 1 < study.subsystems; ++p) {
    OutputHistorySeed seed{coupling_name(p) + ".force", {}};
    for (const std::vector<double>& forces : past)
      seed.values.push_back(forces[static_cast<std::size_t>(p)]);
    if (!seed.values.empty()) history.push_back(std::move(seed));
  }
  ReferenceChain forwards(study, catalog, 1.0);
  forwards.advance(step);
  const auto algorithm = make_scheme(study, std::move(history));
  return run_and_compare(study, catalog, *algorithm, step, forwards);
}

ChainErrors chain_global_error(const ChainStudy& study, double horizon) {
  const ModelCatalog catalog = ModelCatalog::builtin();
  const Time end = to_ticks(horizon);
  ReferenceChain forwards(study, catalog, 1.0);
  forwards.advance(end);
  const auto algorithm = make_scheme(study, {});
  return run_and_compare(study, catalog, *algorithm, end, forwards);
}

}  // namespace couplet::tools
