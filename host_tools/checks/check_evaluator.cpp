#include "host_tools/checks/check_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace couplet::tools {

namespace {

constexpr Time kNoLimit = std::numeric_limits<Time>::max();

/// "1.23": a value as the messages write it (enough digits to see a small excess).
std::string value_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string time_text(Time time) {
  return "t = " + seconds_text(time) + " s";
}

}  // namespace

CheckEvaluator::CheckEvaluator(std::vector<CheckTarget> targets, const System& system)
    : targets_(std::move(targets)), slaves_(system.slave_count()) {
  for (std::size_t s = 0; s < slaves_.size(); ++s) {
    slaves_[s].outputs = system.description(s).outputs.size();
    slaves_[s].held.assign(system.description(s).discrete_outputs.size(), 0);
    slaves_[s].saved_held = slaves_[s].held;
  }
  limits_.reserve(targets_.size());
  for (std::size_t c = 0; c < targets_.size(); ++c) {
    const CheckSpec& spec = targets_[c].spec;
    limits_.push_back({spec.from ? to_ticks(*spec.from) : -kNoLimit,
                       spec.to ? to_ticks(*spec.to) : kNoLimit, to_ticks(spec.time)});
    const bool on_signal = spec.kind != CheckKind::realtime && spec.kind != CheckKind::accuracy;
    if (on_signal) {
      SlaveWatch& watch = slaves_[targets_[c].signal.slave];
      (targets_[c].discrete ? watch.discrete_checks : watch.checks).push_back(c);
    }
    if (spec.stop_on_failure) stopping_.push_back(c);
  }
  watches_.assign(targets_.size(), Watch{});
  saved_ = watches_;
}

const CheckSpec* CheckEvaluator::stopping_check() const {
  for (const std::size_t c : stopping_) {
    if (watches_[c].violated) return &targets_[c].spec;
  }
  return nullptr;
}

void CheckEvaluator::slave_set_up(std::size_t slave, Time start) {
  slaves_[slave].time = start;
  slaves_[slave].saved_time = start;
}

// The samples inside the step (increasing), then the step's end: the slave's
// values in time order. A discrete output holds its value from before the step
// at the samples inside it and shows the new one at the end, as signals.csv.
void CheckEvaluator::slave_stepped(std::size_t slave, const StepRequest& request,
                                   const OutputBuffers& result, const LinkStepReport&) {
  SlaveWatch& watch = slaves_[slave];
  watch.time = request.end;
  if (!watch.discrete_checks.empty()) {
    for (const Time sample : request.sample_times) {
      if (sample < request.end) observe_discrete(slave, sample, watch.held);
    }
    std::copy(result.discrete_outputs.begin(), result.discrete_outputs.end(), watch.held.begin());
    observe_discrete(slave, request.end, watch.held);
  }
  if (watch.checks.empty()) return;
  const std::size_t width = watch.outputs;
  for (std::size_t k = 0;
       k < request.sample_times.size() && (k + 1) * width <= result.samples.size(); ++k) {
    observe(slave, request.sample_times[k], result.samples.subspan(k * width, width));
  }
  observe(slave, request.end, result.end_outputs.first(width));
}

void CheckEvaluator::discrete_outputs_evaluated(std::size_t slave,
                                                std::span<const std::int64_t> values) {
  SlaveWatch& watch = slaves_[slave];
  std::copy(values.begin(), values.end(), watch.held.begin());
  observe_discrete(slave, watch.time, watch.held);
}

void CheckEvaluator::outputs_evaluated(std::size_t slave, std::span<const Polynomial>,
                                       std::span<const double> outputs) {
  const SlaveWatch& watch = slaves_[slave];
  if (!watch.checks.empty()) observe(slave, watch.time, outputs.first(watch.outputs));
}

void CheckEvaluator::state_saved(std::size_t slave) {
  SlaveWatch& watch = slaves_[slave];
  watch.saved_time = watch.time;
  watch.saved_held = watch.held;  // same size: no allocation
  for (const std::size_t c : watch.checks) saved_[c] = watches_[c];
  for (const std::size_t c : watch.discrete_checks) saved_[c] = watches_[c];
}

void CheckEvaluator::state_restored(std::size_t slave) {
  SlaveWatch& watch = slaves_[slave];
  watch.time = watch.saved_time;
  watch.held = watch.saved_held;
  for (const std::size_t c : watch.checks) watches_[c] = saved_[c];
  for (const std::size_t c : watch.discrete_checks) watches_[c] = saved_[c];
}

void CheckEvaluator::observe(std::size_t slave, Time time, std::span<const double> outputs) {
  for (const std::size_t c : slaves_[slave].checks)
    observe_one(c, time, outputs[targets_[c].signal.port]);
}

void CheckEvaluator::observe_discrete(std::size_t slave, Time time,
                                      std::span<const std::int64_t> values) {
  for (const std::size_t c : slaves_[slave].discrete_checks)
    observe_one(c, time, static_cast<double>(values[targets_[c].signal.port]));
}

// `margin`: how far the value is past what the check allows (≤ 0: allowed). A
// NaN is past every limit.
void CheckEvaluator::record(Watch& watch, Time time, double value, double margin,
                            double reference) const {
  const bool allowed = margin <= 0.0;
  if (std::isnan(margin)) margin = std::numeric_limits<double>::infinity();
  if (!watch.seen || margin > watch.worst_margin) {
    watch.worst_margin = margin;
    watch.worst_value = value;
    watch.worst_time = time;
    watch.worst_reference = reference;
  }
  watch.seen = true;
  if (!allowed && !watch.violated) {
    watch.violated = true;
    watch.first_violation = time;
    watch.violation_value = value;
    watch.violation_reference = reference;
  }
}

double CheckEvaluator::trace_value(const CheckTrace& trace, Time time) const {
  const double t = to_seconds(time);
  const auto after = std::upper_bound(trace.times.begin(), trace.times.end(), t);
  if (after == trace.times.begin()) return trace.values.front();
  if (after == trace.times.end()) return trace.values.back();
  const auto k = static_cast<std::size_t>(after - trace.times.begin());
  const double weight = (t - trace.times[k - 1]) / (trace.times[k] - trace.times[k - 1]);
  return trace.values[k - 1] + weight * (trace.values[k] - trace.values[k - 1]);
}

void CheckEvaluator::observe_one(std::size_t check, Time time, double value) {
  const CheckSpec& spec = targets_[check].spec;
  const Limits& limits = limits_[check];
  Watch& watch = watches_[check];
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  switch (spec.kind) {
    case CheckKind::bounds:
      if (time < limits.from || time > limits.to) return;
      record(watch, time, value,
             std::max(spec.max ? value - *spec.max : kNone, spec.min ? *spec.min - value : kNone));
      return;
    case CheckKind::settles:
      if (time >= limits.time)
        record(watch, time, value, std::abs(value - spec.value) - spec.tolerance);
      return;
    case CheckKind::at:
      // The value at the time itself, or interpolated linearly between the two
      // values around it (a discrete signal: the one held since before).
      if (!watch.happened && time >= limits.time &&
          (time == limits.time || (watch.has_previous && watch.previous_time < limits.time))) {
        double at_time = value;
        if (time != limits.time && targets_[check].discrete) {
          at_time = watch.previous_value;
        } else if (time != limits.time) {
          at_time =
              watch.previous_value + (value - watch.previous_value) *
                                         (static_cast<double>(limits.time - watch.previous_time) /
                                          static_cast<double>(time - watch.previous_time));
        }
        watch.happened = true;
        watch.event_value = at_time;
        record(watch, limits.time, at_time, std::abs(at_time - spec.value) - spec.tolerance);
      }
      watch.has_previous = true;
      watch.previous_time = time;
      watch.previous_value = value;
      return;
    case CheckKind::matches: {
      if (time < limits.from || time > limits.to) return;
      const double reference = trace_value(targets_[check].trace, time);
      const double allowed = spec.relative ? spec.tolerance * std::abs(reference) : spec.tolerance;
      record(watch, time, value, std::abs(value - reference) - allowed, reference);
      return;
    }
    case CheckKind::reaches:
      if (watch.happened || watch.violated) return;
      if (time > limits.time) {  // the deadline passed without the crossing
        watch.violated = true;
        watch.first_violation = limits.time;
        watch.violation_value = value;
        return;
      }
      if (!watch.seen || (spec.above ? value > watch.worst_value : value < watch.worst_value)) {
        watch.worst_value = value;
        watch.worst_time = time;
      }
      watch.seen = true;
      if (spec.above ? value > spec.level : value < spec.level) {
        watch.happened = true;
        watch.event_time = time;
        watch.event_value = value;
      }
      return;
    case CheckKind::realtime:
    case CheckKind::accuracy:
      return;  // decided after the run (run_verdict)
  }
}

std::vector<CheckVerdict> CheckEvaluator::verdicts(const RunFacts& facts) const {
  std::vector<CheckVerdict> verdicts;
  for (std::size_t c = 0; c < targets_.size(); ++c) {
    const CheckKind kind = targets_[c].spec.kind;
    const bool run_level = kind == CheckKind::realtime || kind == CheckKind::accuracy;
    verdicts.push_back(run_level ? run_verdict(c, facts) : signal_verdict(c, facts.reached));
  }
  return verdicts;
}

CheckVerdict CheckEvaluator::signal_verdict(std::size_t check, Time reached) const {
  const CheckSpec& spec = targets_[check].spec;
  const Watch& watch = watches_[check];
  const Limits& limits = limits_[check];
  CheckVerdict verdict{spec.name,    spec.kind,    spec.signal, !watch.violated,
                       std::nullopt, std::nullopt, ""};
  if (watch.violated) verdict.first_violation_time = to_seconds(watch.first_violation);
  if (watch.seen) verdict.worst_value = watch.worst_value;
  const std::string& signal = spec.signal;
  const std::string ended = "the run ended at " + time_text(reached);
  const std::string value_at = signal + " = " + value_text(watch.violation_value);
  switch (spec.kind) {
    case CheckKind::bounds: {
      const std::string window =
          (spec.from ? " from " + value_text(*spec.from) + " s" : std::string()) +
          (spec.to ? " to " + value_text(*spec.to) + " s" : std::string());
      if (watch.violated) {
        const bool above = spec.max && watch.violation_value > *spec.max;
        verdict.message = value_at +
                          (above ? " above max " + value_text(*spec.max)
                                 : " below min " + value_text(spec.min.value_or(NAN))) +
                          " at " + time_text(watch.first_violation);
      } else if (!watch.seen) {
        verdict.passed = false;
        verdict.message = "no value of " + signal + " was seen" + window + " (" + ended + ")";
      } else {
        verdict.message =
            signal + " stayed within" + (spec.min ? " min " + value_text(*spec.min) : "") +
            (spec.max ? " max " + value_text(*spec.max) : "") + window + " (nearest " +
            value_text(watch.worst_value) + " at " + time_text(watch.worst_time) + ")";
      }
      break;
    }
    case CheckKind::settles: {
      const std::string band = value_text(spec.value) + " ± " + value_text(spec.tolerance);
      if (watch.violated) {
        verdict.message = value_at + " outside " + band + " at " +
                          time_text(watch.first_violation) + " (settled by " +
                          value_text(spec.time) + " s expected)";
      } else if (!watch.seen) {
        verdict.passed = false;
        verdict.message = ended + ", before " + time_text(limits.time) + " when " + signal +
                          " should have settled";
      } else {
        verdict.message = signal + " stayed within " + band + " from " + time_text(limits.time) +
                          " (worst " + value_text(watch.worst_value) + " at " +
                          time_text(watch.worst_time) + ")";
      }
      break;
    }
    case CheckKind::at: {
      const std::string band = value_text(spec.value) + " ± " + value_text(spec.tolerance);
      if (!watch.happened) {
        verdict.passed = false;
        verdict.message = ended + ", before " + time_text(limits.time);
      } else {
        verdict.message = signal + " = " + value_text(watch.event_value) + " at " +
                          time_text(limits.time) + (watch.violated ? ", outside " : ", within ") +
                          band;
      }
      break;
    }
    case CheckKind::matches: {
      const std::string trace = spec.column + " of " + spec.file;
      const std::string allowed = value_text(spec.tolerance) + (spec.relative ? " × |trace|" : "");
      if (watch.seen) verdict.worst_value = std::abs(watch.worst_value - watch.worst_reference);
      if (watch.violated) {
        verdict.message = value_at + " differs from " + trace + " (" +
                          value_text(watch.violation_reference) + ") by more than " + allowed +
                          " at " + time_text(watch.first_violation);
      } else if (!watch.seen) {
        verdict.passed = false;
        verdict.message = "no value of " + signal + " was seen in the window (" + ended + ")";
      } else {
        verdict.message = signal + " matched " + trace + " within " + allowed +
                          " (largest difference " + value_text(*verdict.worst_value) + " at " +
                          time_text(watch.worst_time) + ")";
      }
      break;
    }
    case CheckKind::reaches: {
      const std::string crossing =
          std::string(spec.above ? " above " : " below ") + value_text(spec.level);
      if (watch.happened) {
        verdict.message = signal + " went" + crossing + " at " + time_text(watch.event_time) +
                          " (" + signal + " = " + value_text(watch.event_value) + ")";
      } else {
        verdict.passed = false;
        verdict.message = signal + " did not go" + crossing + " before " + time_text(limits.time) +
                          (watch.seen ? std::string(spec.above ? " (highest " : " (lowest ") +
                                            value_text(watch.worst_value) + ")"
                                      : std::string()) +
                          (watch.violated ? "" : " (" + ended + ")");
      }
      break;
    }
    case CheckKind::realtime:
    case CheckKind::accuracy:
      break;
  }
  return verdict;
}

CheckVerdict CheckEvaluator::run_verdict(std::size_t check, const RunFacts& facts) const {
  const CheckTarget& target = targets_[check];
  const CheckSpec& spec = target.spec;
  CheckVerdict verdict{spec.name, spec.kind, spec.signal, true, std::nullopt, std::nullopt, ""};
  if (spec.kind == CheckKind::accuracy) {
    const auto found = facts.nrmse_pct.find(target.output_name);
    if (found == facts.nrmse_pct.end()) {
      verdict.passed = false;
      verdict.message =
          "no NRMSE of " + spec.signal +
          " against the monolithic reference (the run covered fewer than two grid points)";
      return verdict;
    }
    verdict.worst_value = found->second;
    verdict.passed = found->second <= spec.max_nrmse;
    verdict.message = "NRMSE of " + spec.signal + " against the monolithic reference " +
                      value_text(found->second) + " % (max " + value_text(spec.max_nrmse) + " %)";
    return verdict;
  }
  if (!facts.overruns || !facts.p99_lateness) {
    verdict.passed = false;
    verdict.message = "the run was not paced by the wall clock";
    return verdict;
  }
  const bool overruns_ok = !spec.max_overruns || *facts.overruns <= *spec.max_overruns;
  const bool lateness_ok = !spec.max_p99_lateness || *facts.p99_lateness <= *spec.max_p99_lateness;
  verdict.passed = overruns_ok && lateness_ok;
  verdict.worst_value =
      spec.max_p99_lateness ? *facts.p99_lateness : static_cast<double>(*facts.overruns);
  verdict.message =
      std::to_string(*facts.overruns) + " overruns" +
      (spec.max_overruns ? " (max " + std::to_string(*spec.max_overruns) + ")" : "") +
      ", lateness p99 " + value_text(*facts.p99_lateness) + " s" +
      (spec.max_p99_lateness ? " (max " + value_text(*spec.max_p99_lateness) + " s)" : "");
  return verdict;
}

}  // namespace couplet::tools
