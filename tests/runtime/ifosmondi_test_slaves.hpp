#pragma once
// Small analytic slaves for the IFOSMONDI tests, whose coupled solutions are known,
// and a driver that runs an algorithm over a System with the Executor.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/executor.hpp"
#include "couplet/slave.hpp"
#include "runtime/system.hpp"

namespace couplet::testing {

/// y = gain · u + amplitude · sin(t): no state, direct feedthrough. Reports ẏ =
/// gain · u̇ + amplitude · cos(t) when `derivatives` (else none: finite differences).
class GainSlave final : public Slave {
 public:
  GainSlave(double gain, double amplitude, bool derivatives = true, bool rollback = true)
      : gain_(gain), amplitude_(amplitude) {
    description_.inputs = {{"u"}};
    description_.outputs = {{"y", true}};
    description_.capabilities.max_input_degree = 3;
    description_.capabilities.output_derivative_order = derivatives ? 1 : 0;
    description_.capabilities.can_rollback = rollback;
    description_.capabilities.intermediate_samples = true;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override { write(inputs, out); }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    for (std::size_t k = 0; k < request.sample_times.size(); ++k) {
      const double t = to_seconds(request.sample_times[k]);
      result.samples[k] = gain_ * request.inputs[0].value(t) + amplitude_ * std::sin(t);
    }
    time_ = request.end;
    write(request.inputs, result.end_outputs);
  }
  void save_state() override { saved_ = time_; }
  void restore_state() override { time_ = saved_; }

 private:
  void write(std::span<const Polynomial> inputs, std::span<double> out) const {
    const double t = to_seconds(time_);
    out[0] = gain_ * inputs[0].value(t) + amplitude_ * std::sin(t);
    if (description_.capabilities.output_derivative_order > 0) {
      out[1] = gain_ * inputs[0].derivative(t) + amplitude_ * std::cos(t);
    }
  }
  SlaveDescription description_;
  double gain_, amplitude_;
  Time time_ = 0, saved_ = 0;
};

/// ż = −rate z + u + drive sin t, y = gain z + feedthrough · u, z(0) = 0, integrated by
/// classical RK4 with fixed substeps (deterministic: a re-run from the same state is
/// bit-identical). Everything is 0 at t = 0, so a loop of them starts consistent.
class LagSlave final : public Slave {
 public:
  LagSlave(double rate, double gain, double feedthrough, double drive)
      : rate_(rate), gain_(gain), feedthrough_(feedthrough), drive_(drive) {
    description_.inputs = {{"u"}};
    description_.outputs = {{"y", feedthrough != 0.0}};
    description_.capabilities.max_input_degree = 3;
    description_.capabilities.output_derivative_order = 1;
    description_.capabilities.can_rollback = true;
    description_.capabilities.intermediate_samples = false;
  }
  const SlaveDescription& description() const override { return description_; }
  void setup(Time start) override { time_ = start; }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override { write(inputs, out); }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    constexpr int kSubsteps = 16;
    const double t0 = to_seconds(request.start);
    const double h = (to_seconds(request.end) - t0) / kSubsteps;
    const Polynomial& u = request.inputs[0];
    const auto f = [&](double t, double z) { return -rate_ * z + u.value(t) + drive_ * std::sin(t); };
    for (int k = 0; k < kSubsteps; ++k) {
      const double t = t0 + k * h;
      const double k1 = f(t, z_), k2 = f(t + h / 2, z_ + h / 2 * k1), k3 = f(t + h / 2, z_ + h / 2 * k2),
                   k4 = f(t + h, z_ + h * k3);
      z_ += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    time_ = request.end;
    write(request.inputs, result.end_outputs);
  }
  void save_state() override { saved_z_ = z_, saved_time_ = time_; }
  void restore_state() override { z_ = saved_z_, time_ = saved_time_; }

 private:
  void write(std::span<const Polynomial> inputs, std::span<double> out) const {
    const double t = to_seconds(time_);
    const double u = inputs[0].value(t);
    out[0] = gain_ * z_ + feedthrough_ * u;
    out[1] = gain_ * (-rate_ * z_ + u + drive_ * std::sin(t)) + feedthrough_ * inputs[0].derivative(t);
  }
  SlaveDescription description_;
  double rate_, gain_, feedthrough_, drive_;
  double z_ = 0.0, saved_z_ = 0.0;
  Time time_ = 0, saved_time_ = 0;
};

/// Forwards to a slave and logs every step request with its results.
class RecordingSlave final : public Slave {
 public:
  struct Step {
    Time start = 0, end = 0;
    std::vector<Polynomial> inputs;
    std::vector<Time> sample_times;
    std::vector<double> end_outputs;
  };
  explicit RecordingSlave(std::unique_ptr<Slave> inner) : inner_(std::move(inner)) {}
  const SlaveDescription& description() const override { return inner_->description(); }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> out) override {
    inner_->evaluate_outputs(inputs, out);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    inner_->step(request, result);
    log.push_back({request.start, request.end, {request.inputs.begin(), request.inputs.end()},
                   {request.sample_times.begin(), request.sample_times.end()},
                   {result.end_outputs.begin(), result.end_outputs.end()}});
  }
  void save_state() override { inner_->save_state(); }
  void restore_state() override {
    inner_->restore_state();
    ++restores;
  }
  std::vector<Step> log;
  int restores = 0;

 private:
  std::unique_ptr<Slave> inner_;
};

/// Bit-exact rollback: a fresh slave stepped along the accepted path only (the
/// converged evaluation of every step, no iterations, no rejected attempts) must
/// produce exactly the outputs the slave gave in the run, where every iteration and
/// every rejected attempt was undone by restore_state. Returns the steps compared.
inline std::size_t replay_accepted_path(const RecordingSlave& recorded, const std::vector<IfosmondiStepRecord>& steps,
                                        Slave& fresh, Time start) {
  fresh.setup(start);
  std::size_t compared = 0;
  for (const IfosmondiStepRecord& step : steps) {
    if (!step.converged) continue;
    const auto last = std::find_if(recorded.log.rbegin(), recorded.log.rend(), [&](const RecordingSlave::Step& logged) {
      return logged.start == step.start && logged.end == step.end;
    });
    if (last == recorded.log.rend()) return compared;
    std::vector<double> outputs(last->end_outputs.size());
    std::vector<double> samples(last->sample_times.size() * fresh.description().outputs.size());
    fresh.step(StepRequest{last->start, last->end, last->inputs, last->sample_times}, OutputBuffers{outputs, samples});
    if (std::memcmp(outputs.data(), last->end_outputs.data(), outputs.size() * sizeof(double)) != 0) return compared;
    ++compared;
  }
  return compared;
}

/// Two slaves in a loop: a.u ← b.y, b.u ← a.y.
/// Fixed-point IFOSMONDI on loop_of(LagSlave(1, 1, 5, 1), LagSlave(1, 20, 0, 0)):
/// steps of 0.2 s diverge and are rejected, halved ones converge, so steps are
/// retried from restored states again and again.
inline IfosmondiSettings rejecting_step_settings() {
  IfosmondiSettings settings;
  settings.reference_step = to_ticks(0.2);
  settings.min_step = to_ticks(1e-6);
  settings.max_iterations = 20;
  settings.absolute_tolerance = settings.relative_tolerance = 1e-6;
  return settings;
}

inline System loop_of(std::unique_ptr<Slave> a, std::unique_ptr<Slave> b) {
  System system;
  system.add_slave("a", std::move(a));
  system.add_slave("b", std::move(b));
  system.connect("b.y", "a.u");
  system.connect("a.y", "b.u");
  return system;
}

/// Keeps every record and every evaluated residual.
struct RecordingObserver final : IfosmondiObserver {
  std::vector<IfosmondiStepRecord> steps;
  std::vector<IfosmondiStepRecord> evaluations;
  void step_finished(const IfosmondiStepRecord& record) override { steps.push_back(record); }
  void residual_evaluated(const IfosmondiStepRecord& record) override { evaluations.push_back(record); }
};

struct RunResult {
  RunCounters counters;
  std::uint64_t decision_hash = 0;
  std::vector<std::vector<double>> outputs;  ///< per slave, at the end
};

inline RunResult run(System& system, Algorithm& algorithm, double end) {
  Executor executor(system, algorithm, 0, to_ticks(end), {});
  executor.initialize();
  while (executor.advance()) {
  }
  RunResult result{executor.counters(), executor.decision_hash(), {}};
  for (const StepSlot& slot : executor.slots()) result.outputs.push_back(slot.outputs);
  return result;
}

}  // namespace couplet::testing
