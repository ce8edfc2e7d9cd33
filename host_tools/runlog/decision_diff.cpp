#include "host_tools/runlog/decision_diff.hpp"

#include <bit>
#include <cstdio>

#include "core/exact_text.hpp"

namespace couplet::tools {

namespace {

bool same_bits(double x, double y) {
  return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
}

/// One log as it is compared: its stream and where in it the comparison is.
/// SlaveCall.plan counts the plans completed before a call, so the
/// initialization's calls carry 0 like plan 1's; they are the setups and
/// output evaluations before any other call.
class Side {
 public:
  explicit Side(RunLogStream& stream) : stream_(stream) {}

  const RunLog& log() const { return stream_.log(); }

  /// The next call (null: the log has no more), and the plan it belongs to.
  const LoggedCall* next() {
    call_ = stream_.next_call();
    if (call_ != nullptr) {
      initializing_ = initializing_ && call_->plan == 0 &&
                      (call_->kind == CallKind::setup || call_->kind == CallKind::evaluate_outputs);
    }
    return call_;
  }
  /// The plan of the call next() returned (0: the initialization).
  std::uint64_t plan() const { return initializing_ ? 0 : call_->plan + 1; }

  /// Where the master stood when it made `plan`: the frontier after the plan
  /// before it, the start time for the first (and the initialization).
  Time communication_time(std::uint64_t plan) {
    if (plan >= 2) {
      if (const LoggedPlan* before = stream_.plan(plan - 1)) return before->frontier;
    }
    return log().start;
  }

 private:
  RunLogStream& stream_;
  const LoggedCall* call_ = nullptr;
  bool initializing_ = true;
};

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

DecisionDifference difference_at(Side& side, std::uint64_t plan, std::string what) {
  return {plan, side.communication_time(plan), std::move(what)};
}

}  // namespace

std::string plan_text(const DecisionDifference& difference) {
  const std::string time = " at t = " + seconds_text(difference.time) + " s";
  return difference.plan == 0 ? "the initialization" + time
                              : "plan " + std::to_string(difference.plan) + time;
}

std::optional<DecisionDifference> first_decision_difference(RunLogStream& stream_a,
                                                            RunLogStream& stream_b) {
  Side a(stream_a), b(stream_b);
  const RunLog& log_a = a.log();
  const RunLog& log_b = b.log();
  if (log_a.slaves.size() != log_b.slaves.size()) {
    return difference_at(a, 1,
                         pair_text("slaves", std::to_string(log_a.slaves.size()),
                                   std::to_string(log_b.slaves.size())));
  }
  for (std::size_t s = 0; s < log_a.slaves.size(); ++s) {
    if (log_a.slaves[s].name != log_b.slaves[s].name) {
      return difference_at(
          a, 1,
          pair_text("slave " + std::to_string(s + 1), log_a.slaves[s].name, log_b.slaves[s].name));
    }
  }
  while (true) {
    const LoggedCall* call_a = a.next();
    const LoggedCall* call_b = b.next();
    if (call_a == nullptr && call_b == nullptr) return std::nullopt;
    if (call_a == nullptr || call_b == nullptr) {
      Side& longer = call_a != nullptr ? a : b;
      const RunLog& shorter = call_a != nullptr ? log_b : log_a;
      return difference_at(longer, longer.plan(),
                           "the run log '" + shorter.path + "' ends before " +
                               describe(longer.log(), call_a != nullptr ? *call_a : *call_b));
    }
    if (call_a->plan != call_b->plan) {
      // One master ended a plan where the other made one more call.
      const bool a_ended = call_a->plan > call_b->plan;
      return difference_at(
          a, std::min(a.plan(), b.plan()),
          "one more call in the run log '" + (a_ended ? log_b.path : log_a.path) +
              "': " + (a_ended ? describe(log_b, *call_b) : describe(log_a, *call_a)));
    }
    if (std::string what = call_difference(log_a, *call_a, log_b, *call_b); !what.empty())
      return difference_at(a, a.plan(), describe(log_a, *call_a) + ": " + what);
  }
}

std::optional<DecisionDifference> first_decision_difference(const RunLog& a, const RunLog& b) {
  RunLogStream stream_a(a), stream_b(b);
  return first_decision_difference(stream_a, stream_b);
}

}  // namespace couplet::tools
