#include "host_tools/runlog/replay.hpp"

#include <bit>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "couplet/errors.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/runlog/run_log_stream.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "runtime/executor.hpp"

namespace couplet::tools {

namespace {

/// The replayed master did something else than the recorded one.
class ReplayDivergence : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The replayed master asks for a call the log does not have (it was cut, or
/// the recorded run failed in that call).
class ReplayExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string number_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g (0x%016llx)", value,
                static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(value)));
  return text;
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// Where the recorded calls stand, shared by the replay slaves: the executor is
/// sequential, so the calls come in one global order. The calls come from the
/// stream one at a time: replay holds one plan's calls, whatever the log's length.
class CallCursor {
 public:
  explicit CallCursor(RunLogStream& stream) : stream_(stream) {}

  /// The replayed master has completed `plans` plans: its next calls must be
  /// the ones recorded with that plan index (SlaveCall.plan counts the plans
  /// completed before the call: 0 for the initialization and the first plan).
  void plans_completed(std::uint64_t plans) { plans_completed_ = plans; }

  /// The next recorded call, which must be `kind` on `slave`, of the plan under
  /// way; valid until the next take().
  const LoggedCall& take(std::size_t slave, CallKind kind) {
    const RunLog& log = stream_.log();
    const LoggedCall* next = stream_.next_call();
    if (next == nullptr) {
      throw ReplayExhausted("the replayed master calls " + std::string(call_kind_name(kind)) +
                            " on slave '" + log.slaves[slave].name + "'; the log ends before");
    }
    const LoggedCall& call = *next;
    if (call.plan != plans_completed_) {
      throw ReplayDivergence(
          "the replayed master calls " + std::string(call_kind_name(kind)) + " on slave '" +
          log.slaves[slave].name + "' after " + std::to_string(plans_completed_) +
          " plans; the next recorded call (" + call_kind_name(call.kind) + " on slave '" +
          log.slaves[call.slave].name + "') was made after " + std::to_string(call.plan));
    }
    if (call.slave != slave || call.kind != kind) {
      throw ReplayDivergence(where(call) + ": the recorded master called " +
                             call_kind_name(call.kind) + " on slave '" +
                             log.slaves[call.slave].name + "', the replayed one " +
                             call_kind_name(kind) + " on slave '" + log.slaves[slave].name + "'");
    }
    return call;
  }

  /// "macro step 18 (plan 36)" for the plan a call belongs to.
  std::string where(const LoggedCall& call) { return plan_text(call.plan); }

  /// A plan works on the macro step it completes, or repeats or refreshes the
  /// last one completed: either way the recorded count after it (a cut log may
  /// lack that record: then the step after the previous plan's).
  std::string plan_text(std::uint64_t plan) {
    if (plan == 0) return "initialization (plan 0)";
    std::uint64_t macro_step = 1;
    if (const LoggedPlan* recorded = stream_.plan(plan)) {
      macro_step = recorded->macro_steps;
    } else if (const LoggedPlan* previous = plan >= 2 ? stream_.plan(plan - 1) : nullptr) {
      macro_step = previous->macro_steps + 1;
    }
    return "macro step " + std::to_string(macro_step) + " (plan " + std::to_string(plan) + ")";
  }

  /// Whether the log holds no call beyond those taken (reads it to its end).
  bool exhausted() { return stream_.read_to_end() == 0; }
  std::uint64_t taken() const { return stream_.calls_taken(); }

 private:
  RunLogStream& stream_;
  std::uint64_t plans_completed_ = 0;
};

/// A slave that answers from the log and checks every request against it.
class ReplaySlave final : public Slave {
 public:
  ReplaySlave(const RunLog& log, std::size_t index, CallCursor& cursor)
      : log_(log), index_(index), cursor_(cursor), description_(log.slaves[index].description) {}

  const SlaveDescription& description() const override { return description_; }

  void setup(Time start) override {
    const LoggedCall& call = cursor_.take(index_, CallKind::setup);
    compare_time(call, "start time", call.start, start);
  }

  void evaluate_outputs(std::span<const Polynomial> inputs,
                        std::span<double> end_outputs) override {
    const LoggedCall& call = cursor_.take(index_, CallKind::evaluate_outputs);
    compare_inputs(call, inputs);
    copy_results(call, call.end_outputs, end_outputs, "outputs");
  }

  void step(const StepRequest& request, const OutputBuffers& result) override {
    const LoggedCall& call = cursor_.take(index_, CallKind::step);
    compare_time(call, "step start", call.start, request.start);
    compare_time(call, "step end", call.end, request.end);
    compare_inputs(call, request.inputs);
    if (call.sample_times.size() != request.sample_times.size()) {
      diverge(call, "number of sample times", std::to_string(call.sample_times.size()),
              std::to_string(request.sample_times.size()));
    }
    for (std::size_t k = 0; k < call.sample_times.size(); ++k) {
      compare_time(call, "sample time " + std::to_string(k), call.sample_times[k],
                   request.sample_times[k]);
    }
    for (std::size_t i = 0; i < call.discrete_inputs.size(); ++i) {
      if (call.discrete_inputs[i] != request.discrete_inputs[i]) {
        diverge(call, "discrete input '" + description_.discrete_inputs[i].name + "'",
                std::to_string(call.discrete_inputs[i]),
                std::to_string(request.discrete_inputs[i]));
      }
    }
    copy_results(call, call.end_outputs, result.end_outputs, "step outputs");
    copy_results(call, call.samples, result.samples, "samples");
    std::copy(call.discrete_outputs.begin(), call.discrete_outputs.end(),
              result.discrete_outputs.begin());  // sizes checked when the log was read
  }

  void evaluate_discrete_outputs(std::span<std::int64_t> discrete_outputs) override {
    const LoggedCall& call = cursor_.take(index_, CallKind::discrete_outputs);
    std::copy(call.discrete_outputs.begin(), call.discrete_outputs.end(), discrete_outputs.begin());
  }

  // The logged linearization, once the inputs are the logged ones: a
  // linearizing algorithm (MISSILES) then solves the same linear system.
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    const LoggedCall& call = cursor_.take(index_, CallKind::linearize);
    compare_inputs(call, inputs);
    copy_results(call, call.linearization, linearization, "linearization");
  }

  void save_state() override { cursor_.take(index_, CallKind::save_state); }
  void restore_state() override { cursor_.take(index_, CallKind::restore_state); }

 private:
  [[noreturn]] void diverge(const LoggedCall& call, const std::string& quantity,
                            const std::string& recorded, const std::string& replayed) const {
    const std::string step =
        call.kind == CallKind::step ? " to t = " + seconds_text(call.end) + " s" : "";
    throw ReplayDivergence(cursor_.where(call) + ", " + call_kind_name(call.kind) + " of slave '" +
                           log_.slaves[index_].name + "'" + step + ": " + quantity + ": recorded " +
                           recorded + ", replayed " + replayed);
  }

  void compare_time(const LoggedCall& call, const std::string& quantity, Time recorded,
                    Time replayed) const {
    if (recorded != replayed) {
      diverge(call, quantity, std::to_string(recorded) + " ns", std::to_string(replayed) + " ns");
    }
  }

  void compare_inputs(const LoggedCall& call, std::span<const Polynomial> inputs) const {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Polynomial& recorded = call.inputs[i];
      const Polynomial& replayed = inputs[i];
      const std::string input = "input '" + log_.input_name(index_, i) + "'";
      if (recorded.degree() != replayed.degree()) {
        diverge(call, input + " degree", std::to_string(recorded.degree()),
                std::to_string(replayed.degree()));
      }
      if (!same_bits(recorded.origin(), replayed.origin())) {
        diverge(call, input + " origin", number_text(recorded.origin()),
                number_text(replayed.origin()));
      }
      if (!same_bits(recorded.scale(), replayed.scale())) {
        diverge(call, input + " scale", number_text(recorded.scale()),
                number_text(replayed.scale()));
      }
      for (int k = 0; k <= recorded.degree(); ++k) {
        const double a = recorded.coefficients()[static_cast<std::size_t>(k)];
        const double b = replayed.coefficients()[static_cast<std::size_t>(k)];
        if (!same_bits(a, b))
          diverge(call, input + " coefficient " + std::to_string(k), number_text(a),
                  number_text(b));
      }
    }
  }

  void copy_results(const LoggedCall& call, const std::vector<double>& recorded,
                    std::span<double> target, const char* what) const {
    if (recorded.size() > target.size()) {
      diverge(call, std::string("room for the ") + what,
              std::to_string(recorded.size()) + " values", std::to_string(target.size()));
    }
    std::copy(recorded.begin(), recorded.end(), target.begin());
  }

  const RunLog& log_;
  std::size_t index_;
  CallCursor& cursor_;
  SlaveDescription description_;
};

System replay_system(const RunLog& log, CallCursor& cursor) {
  System system;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    system.add_slave(log.slaves[s].name, std::make_unique<ReplaySlave>(log, s, cursor));
  }
  for (const Connection& connection : log.connections) {
    system.connect(log.output_name(connection.source.slave, connection.source.port),
                   log.input_name(connection.target.slave, connection.target.port));
  }
  for (const Connection& connection : log.discrete_connections) {
    system.connect(log.discrete_output_name(connection.source.slave, connection.source.port),
                   log.discrete_input_name(connection.target.slave, connection.target.port));
  }
  for (const Connection& connection : log.integer_to_real_connections) {
    system.connect(log.discrete_output_name(connection.source.slave, connection.source.port),
                   log.input_name(connection.target.slave, connection.target.port));
  }
  for (const RoundedConnection& connection : log.rounded_connections) {
    system.connect(log.output_name(connection.source.slave, connection.source.port),
                   log.discrete_input_name(connection.target.slave, connection.target.port), {},
                   connection.rounding);
  }
  return system;
}

/// After plan `plan`: progress and internals against the record.
void compare_plan(RunLogStream& stream, CallCursor& cursor, std::uint64_t plan,
                  const Executor& executor, const Algorithm& algorithm,
                  std::vector<double>& internals) {
  const LoggedPlan* found = stream.plan(plan);
  if (found == nullptr) {
    throw ReplayExhausted("the log ends before the record of plan " + std::to_string(plan));
  }
  const LoggedPlan& recorded = *found;
  const RunLog& log = stream.log();
  const std::string where = "after " + cursor.plan_text(plan);
  if (recorded.macro_steps != executor.counters().macro_steps ||
      recorded.frontier != executor.frontier()) {
    throw ReplayDivergence(where + ": recorded " + std::to_string(recorded.macro_steps) +
                           " macro steps up to t = " + seconds_text(recorded.frontier) +
                           " s, replayed " + std::to_string(executor.counters().macro_steps) +
                           " up to t = " + seconds_text(executor.frontier()) + " s");
  }
  algorithm.internal_values(internals);
  for (std::size_t q = 0; q < internals.size(); ++q) {
    if (!same_bits(recorded.internals[q], internals[q])) {
      throw ReplayDivergence(where + ": algorithm internal '" + log.internal_quantities[q] +
                             "': recorded " + number_text(recorded.internals[q]) + ", replayed " +
                             number_text(internals[q]));
    }
  }
}

/// The header's time span and algorithm are those its scenario text gives: the
/// replayed master is built from the text, the log's records follow the header.
void check_header_against_scenario(const RunLog& log, const Scenario& scenario,
                                   const Algorithm& algorithm) {
  const std::string header = "run log '" + log.path + "': frame 1 at byte offset " +
                             std::to_string(protocol::kLogMagicBytes) + ": the header's ";
  if (to_ticks(scenario.start) != log.start || to_ticks(scenario.end) != log.end) {
    throw RunLogError(header + "time span [" + std::to_string(log.start) + ", " +
                      std::to_string(log.end) + "] ns is not its scenario's [" +
                      std::to_string(to_ticks(scenario.start)) + ", " +
                      std::to_string(to_ticks(scenario.end)) + "] ns");
  }
  if (log.algorithm != algorithm.name()) {
    throw RunLogError(header + "algorithm '" + log.algorithm + "' is not its scenario's ('" +
                      std::string(algorithm.name()) + "')");
  }
}

ReplayOutcome replay_checked_log(RunLogStream& stream, const ReplayAlgorithmMaker& make) {
  const RunLog& log = stream.log();
  const Scenario scenario = parse_scenario(log.scenario_text, log.scenario_source);
  const std::unique_ptr<Algorithm> algorithm = make(scenario);
  check_header_against_scenario(log, scenario, *algorithm);
  CallCursor cursor(stream);
  System system = replay_system(log, cursor);
  Executor executor(system, *algorithm, log.start, log.end, evaluation_grid(scenario));

  ReplayOutcome outcome;
  std::uint64_t plan = 0;
  const auto finish = [&](bool identical) {
    outcome.identical = identical;
    outcome.plans = plan;
    outcome.macro_steps = executor.counters().macro_steps;
    outcome.calls = cursor.taken();
    outcome.replayed_hash = executor.decision_hash();
    return outcome;
  };
  try {
    cursor.plans_completed(0);
    executor.initialize();
    const std::vector<std::string>& quantities = stream.internal_quantities();
    if (algorithm->internal_quantities() != quantities) {
      throw ReplayDivergence("the algorithm's internal quantities differ from the recorded ones");
    }
    std::vector<double> internals(quantities.size());
    while (executor.advance()) {
      ++plan;
      cursor.plans_completed(plan);
      compare_plan(stream, cursor, plan, executor, *algorithm, internals);
    }
  } catch (const ReplayDivergence& divergence) {
    outcome.divergence = divergence.what();
    return finish(false);
  } catch (const ReplayExhausted& exhausted) {
    stream.read_to_end();  // how the log ends
    if (log.cut()) {
      outcome.note = "the log was cut (" + (log.damaged() ? log.tail_problem : "no end record") +
                     "): every decision before the cut was reproduced";
      return finish(true);
    }
    if (!log.end_record->completed()) {
      outcome.note = "the recorded run ended early (" + log.end_record->message +
                     "): every decision before its end was reproduced";
      return finish(true);
    }
    outcome.divergence = exhausted.what();
    return finish(false);
  } catch (const RunLogError&) {
    throw;  // a record read on the way refused: the log, not the replay, is at fault
  } catch (const std::exception& error) {
    // The algorithm itself may end the run (e.g. no convergence): the same
    // failure at the same point is a reproduction.
    if (cursor.exhausted() && log.end_record && !log.end_record->completed() &&
        log.end_record->message == error.what()) {
      outcome.note = "the recorded failure was reproduced: " + std::string(error.what());
      return finish(true);
    }
    outcome.divergence =
        "the replayed master failed after " + cursor.plan_text(plan) + ": " + error.what();
    return finish(false);
  }
  if (!cursor.exhausted()) {
    outcome.divergence = "the replayed master finished after " + std::to_string(plan) +
                         " plans; the recorded one made more calls";
    return finish(false);
  }
  if (log.end_record && log.end_record->completed()) {
    outcome.hash_compared = true;
    if (log.end_record->decision_hash != executor.decision_hash()) {
      outcome.divergence = "every call matched, but the decision hash differs";
      return finish(false);
    }
  } else if (log.end_record) {
    outcome.divergence =
        "the recorded run ended early (" + log.end_record->message + "), the replay completed";
    return finish(false);
  } else {
    outcome.note = "the log has no end record, but every call in it was reproduced";
  }
  return finish(true);
}

}  // namespace

ReplayOutcome replay_run_log(const RunLog& log) {
  return replay_run_log(
      log, [](const Scenario& scenario) { return make_algorithm(scenario.algorithm); });
}

ReplayOutcome replay_run_log(const RunLog& log, const ReplayAlgorithmMaker& make) {
  RunLogStream stream(log);
  return replay_run_log(stream, make);
}

ReplayOutcome replay_run_log(RunLogStream& stream) {
  return replay_run_log(
      stream, [](const Scenario& scenario) { return make_algorithm(scenario.algorithm); });
}

ReplayOutcome replay_run_log(RunLogStream& stream, const ReplayAlgorithmMaker& make) {
  try {
    ReplayOutcome outcome = replay_checked_log(stream, make);
    stream.read_to_end();  // a replay that diverged stopped reading there
    return outcome;
  } catch (const ConfigurationError& error) {
    // Only building the master lets one escape: in the run, errors are outcomes.
    throw ConfigurationError(
        "run log '" + stream.log().path +
        "': the logged configuration does not build a master: " + error.what());
  }
}

}  // namespace couplet::tools
