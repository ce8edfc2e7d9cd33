#include "host_tools/runlog/decision_diff.hpp"

#include <bit>
#include <cstdio>

#include "core/exact_text.hpp"

namespace couplet::tools {

namespace {

bool same_bits(double x, double y) {
  return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
}

/// The calls of the initialization: SlaveCall.plan counts the plans completed
/// before a call, so the initialization's calls carry 0 like plan 1's; they are
/// the setups and output evaluations before any other call.
std::size_t initialization_calls(const RunLog& log) {
  std::size_t count = 0;
  while (count < log.calls.size() && log.calls[count].plan == 0 &&
         (log.calls[count].kind == CallKind::setup ||
          log.calls[count].kind == CallKind::evaluate_outputs))
    ++count;
  return count;
}

/// The plan call `index` of `log` belongs to (0: the initialization).
std::uint64_t plan_of(const RunLog& log, std::size_t index) {
  return index < initialization_calls(log) ? 0 : log.calls[index].plan + 1;
}

/// Where the master stood when it made `plan`: the frontier after the plan
/// before it, the start time for the first (and the initialization).
Time communication_time(const RunLog& log, std::uint64_t plan) {
  if (plan >= 2 && plan - 2 < log.plans.size()) return log.plans[plan - 2].frontier;
  return log.start;
}

std::string describe(const RunLog& log, const LoggedCall& call) {
  std::string text =
      std::string(call_kind_name(call.kind)) + " of slave '" + log.slaves[call.slave].name + "'";
  if (call.kind == CallKind::step) text += " to t = " + seconds_text(call.end) + " s";
  return text;
}

std::string pair_text(const std::string& quantity, const std::string& a, const std::string& b) {
  return quantity + ": " + a + " vs " + b;
}

/// The first quantity in which two calls at the same position differ; empty when none.
std::string call_difference(const RunLog& log_a, const LoggedCall& a, const RunLog& log_b,
                            const LoggedCall& b) {
  const std::string slave_a = log_a.slaves[a.slave].name;
  const std::string slave_b = log_b.slaves[b.slave].name;
  if (slave_a != slave_b || a.kind != b.kind)
    return pair_text("call", describe(log_a, a), describe(log_b, b));
  if (a.start != b.start)
    return pair_text("start", seconds_text(a.start) + " s", seconds_text(b.start) + " s");
  if (a.end != b.end)
    return pair_text("end", seconds_text(a.end) + " s", seconds_text(b.end) + " s");
  if (a.derivative_order != b.derivative_order)
    return pair_text("derivative order", std::to_string(a.derivative_order),
                     std::to_string(b.derivative_order));
  if (a.inputs.size() != b.inputs.size())
    return pair_text("number of inputs", std::to_string(a.inputs.size()),
                     std::to_string(b.inputs.size()));
  for (std::size_t i = 0; i < a.inputs.size(); ++i) {
    const Polynomial& pa = a.inputs[i];
    const Polynomial& pb = b.inputs[i];
    const std::string input = "input '" + log_a.input_name(a.slave, i) + "'";
    if (pa.degree() != pb.degree())
      return pair_text(input + " degree", std::to_string(pa.degree()), std::to_string(pb.degree()));
    if (!same_bits(pa.origin(), pb.origin()))
      return pair_text(input + " origin", exact_text(pa.origin()), exact_text(pb.origin()));
    if (!same_bits(pa.scale(), pb.scale()))
      return pair_text(input + " scale", exact_text(pa.scale()), exact_text(pb.scale()));
    for (std::size_t k = 0; k < pa.coefficients().size(); ++k) {
      if (!same_bits(pa.coefficients()[k], pb.coefficients()[k])) {
        return pair_text(input + " coefficient " + std::to_string(k),
                         exact_text(pa.coefficients()[k]), exact_text(pb.coefficients()[k]));
      }
    }
  }
  if (a.sample_times != b.sample_times)
    return pair_text("sample times", std::to_string(a.sample_times.size()) + " times",
                     std::to_string(b.sample_times.size()) + " times, or at other times");
  return {};
}

DecisionDifference difference_at(const RunLog& log, std::uint64_t plan, std::string what) {
  return {plan, communication_time(log, plan), std::move(what)};
}

}  // namespace

std::string plan_text(const DecisionDifference& difference) {
  const std::string time = " at t = " + seconds_text(difference.time) + " s";
  return difference.plan == 0 ? "the initialization" + time
                              : "plan " + std::to_string(difference.plan) + time;
}

std::optional<DecisionDifference> first_decision_difference(const RunLog& a, const RunLog& b) {
  if (a.slaves.size() != b.slaves.size())
    return difference_at(
        a, 1,
        pair_text("slaves", std::to_string(a.slaves.size()), std::to_string(b.slaves.size())));
  for (std::size_t s = 0; s < a.slaves.size(); ++s) {
    if (a.slaves[s].name != b.slaves[s].name)
      return difference_at(
          a, 1, pair_text("slave " + std::to_string(s + 1), a.slaves[s].name, b.slaves[s].name));
  }
  const std::size_t common = std::min(a.calls.size(), b.calls.size());
  for (std::size_t k = 0; k < common; ++k) {
    const LoggedCall& call_a = a.calls[k];
    const LoggedCall& call_b = b.calls[k];
    if (call_a.plan != call_b.plan) {
      // One master ended a plan where the other made one more call.
      const bool a_ended = call_a.plan > call_b.plan;
      return difference_at(a, std::min(plan_of(a, k), plan_of(b, k)),
                           "one more call in the run log '" + (a_ended ? b.path : a.path) +
                               "': " + (a_ended ? describe(b, call_b) : describe(a, call_a)));
    }
    if (std::string what = call_difference(a, call_a, b, call_b); !what.empty())
      return difference_at(a, plan_of(a, k), describe(a, call_a) + ": " + what);
  }
  if (a.calls.size() == b.calls.size()) return std::nullopt;
  const RunLog& longer = a.calls.size() > b.calls.size() ? a : b;
  const RunLog& shorter = a.calls.size() > b.calls.size() ? b : a;
  const LoggedCall& next = longer.calls[common];
  return difference_at(longer, plan_of(longer, common),
                       "the run log '" + shorter.path + "' ends before " + describe(longer, next));
}

}  // namespace couplet::tools
