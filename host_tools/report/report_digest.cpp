// The digest of a run log for `couplet report` (report_digest.hpp): calls and
// plans are taken one at a time, in the order the executor made them, into
// bounded series, tallies and sample sets; the log read whole goes through
// the same steps as the log streamed.
#include "host_tools/report/report_digest.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "host_tools/report/report_parts.hpp"

namespace couplet::tools {

namespace {

using namespace report_parts;

/// The step calls' end outputs per output, each column the accepted trajectory:
/// a call that ends at or before an earlier one of the same slave replaces
/// what came after it (rollbacks, iterations). Only points that no later call
/// can replace go into the bounded columns: a slave goes back at most to the
/// state it saved last (one saved state per slave), and one that never saved
/// does not go back; the rest stay whole until then.
class SignalsFromCalls {
 public:
  SignalsFromCalls(const RunLog& log, Range span) {
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      const std::size_t outputs = log.slaves[s].description.outputs.size();
      slaves_.push_back({columns_.size(), log.start, std::nullopt,
                         std::vector<std::vector<Point>>(outputs), kSeriesBudget});
      for (std::size_t j = 0; j < outputs; ++j) {
        columns_.emplace_back(port_name(log, s, log.slaves[s].description.outputs[j].name),
                              BoundedSeries(span));
      }
    }
  }

  void add(const LoggedCall& call) {
    if (call.slave >= slaves_.size()) return;
    Slave& slave = slaves_[call.slave];
    switch (call.kind) {
      case CallKind::setup:
        slave.position = call.start;
        return;
      case CallKind::save_state:
        slave.saved = slave.position;
        return;
      case CallKind::restore_state:
        if (slave.saved) slave.position = *slave.saved;
        return;
      case CallKind::step:
        break;
      default:
        return;
    }
    slave.position = call.end;
    const std::size_t outputs = slave.pending.size();
    if (call.end_outputs.size() < outputs) return;
    const double end = seconds(call.end);
    for (std::size_t j = 0; j < outputs; ++j) {
      std::vector<Point>& points = slave.pending[j];
      while (!points.empty() && points.back().x >= end) points.pop_back();
      points.push_back({end, call.end_outputs[j]});
    }
    if (outputs > 0 && slave.pending.front().size() >= slave.settle_at) {
      settle(slave, false);
      // A slave whose saved state stays far behind keeps its points pending:
      // look again only once they have doubled, so that the looks cost O(1) a point.
      slave.settle_at = std::max(kSeriesBudget, 2 * slave.pending.front().size());
    }
  }

  std::vector<Column> finish() {
    for (Slave& slave : slaves_) settle(slave, true);
    std::vector<Column> columns;
    for (const auto& [name, series] : columns_) {
      if (series.count() > 0) columns.push_back(column_of(name, series));
    }
    return columns;
  }

 private:
  struct Slave {
    std::size_t first_column = 0;
    Time position = 0;                        ///< where its last step, restore or setup put it
    std::optional<Time> saved;                ///< where its saved state stands
    std::vector<std::vector<Point>> pending;  ///< per output: points a rollback may replace
    std::size_t settle_at = kSeriesBudget;    ///< pending points at which to settle again
  };

  /// Moves the points no later call can replace (all at the end) into the columns.
  void settle(Slave& slave, bool all) {
    const double settled = seconds(slave.saved ? *slave.saved : slave.position);
    for (std::size_t j = 0; j < slave.pending.size(); ++j) {
      std::vector<Point>& points = slave.pending[j];
      const auto kept = all ? points.end()
                            : std::find_if(points.begin(), points.end(),
                                           [&](const Point& p) { return p.x > settled; });
      for (auto p = points.begin(); p != kept; ++p) columns_[slave.first_column + j].second.add(*p);
      points.erase(points.begin(), kept);
    }
  }

  std::vector<Slave> slaves_;
  std::vector<std::pair<std::string, BoundedSeries>> columns_;
};

/// A value decided at a plan and held until the next plan (the last one until
/// the end of the run).
class HeldFromPlans {
 public:
  HeldFromPlans(std::size_t index, Range span) : index_(index) {
    series_.starts = BoundedSeries(span);
  }

  void add(const LoggedPlan& plan) {
    if (awaiting_next_) series_.closing->x = seconds(plan.frontier);
    awaiting_next_ = false;
    if (index_ >= plan.internals.size()) return;
    series_.starts.add({seconds(plan.frontier), plan.internals[index_]});
    series_.closing = Point{0.0, plan.internals[index_]};
    last_frontier_ = plan.frontier;
    awaiting_next_ = true;
  }

  HeldSeries finish(Time end) {
    if (awaiting_next_) series_.closing->x = seconds(std::max(last_frontier_, end));
    return std::move(series_);
  }

 private:
  std::size_t index_;
  HeldSeries series_;
  Time last_frontier_ = 0;
  bool awaiting_next_ = false;
};

/// One step per plan that completed a macro step (its macro step count rose):
/// the frontier moved from the previous such plan's frontier to its own.
/// Repeated plans (rejected steps, iterations) complete none, but the last
/// plan of a step gives its final iteration count (iterative methods log
/// their count so far at every evaluation, docs/run-log.md).
class CompletedSteps {
 public:
  CompletedSteps(const RunLog& log, Range span, std::optional<std::size_t> iterations)
      : previous_(log.start), iterations_index_(iterations) {
    sizes_.starts = BoundedSeries(span);
    iterations_.starts = BoundedSeries(span);
  }

  void add(const LoggedPlan& plan) {
    if (plan.macro_steps <= macro_steps_) {
      if (step_ && step_->macro_steps == plan.macro_steps) step_->last_plan_value = value_of(plan);
      return;
    }
    if (plan.frontier > previous_) {
      close_step();
      step_ = Step{previous_, plan.frontier, plan.macro_steps, value_of(plan)};
      const double size = seconds(plan.frontier - previous_);
      sizes_.starts.add({seconds(previous_), size});
      sizes_.closing = Point{seconds(plan.frontier), size};
    }
    previous_ = plan.frontier;
    macro_steps_ = plan.macro_steps;
  }

  HeldSeries step_sizes() { return std::move(sizes_); }
  std::optional<HeldSeries> iterations() {
    close_step();
    if (!iterations_index_) return std::nullopt;
    return std::move(iterations_);
  }

 private:
  struct Step {
    Time from = 0;
    Time to = 0;
    std::uint64_t macro_steps = 0;
    std::optional<double> last_plan_value;
  };

  std::optional<double> value_of(const LoggedPlan& plan) const {
    if (!iterations_index_ || *iterations_index_ >= plan.internals.size()) return std::nullopt;
    return plan.internals[*iterations_index_];
  }

  void close_step() {
    if (step_ && step_->last_plan_value) {
      iterations_.starts.add({seconds(step_->from), *step_->last_plan_value});
      iterations_.closing = Point{seconds(step_->to), *step_->last_plan_value};
    }
    step_.reset();
  }

  Time previous_;
  std::uint64_t macro_steps_ = 0;
  std::optional<std::size_t> iterations_index_;
  std::optional<Step> step_;
  HeldSeries sizes_;
  HeldSeries iterations_;
};

/// Takes the calls and plans of one log, in order, into its digest.
class Digester {
 public:
  explicit Digester(const RunLog& log) : log_(log), span_(run_span(log)), signals_(log, span_) {
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      if (!log.slaves[s].link.empty()) digest_.links.push_back({s, 0, 0, 0, {}});
    }
  }

  void add(const LoggedCall& call) {
    ++digest_.calls;
    signals_.add(call);
    if (call.input_lateness_ns != 0)
      digest_.input_lateness_us.add(static_cast<double>(call.input_lateness_ns) / 1e3);
    for (ReportDigest::LinkTiming& link : digest_.links) {
      if (link.slave != call.slave) continue;
      ++link.calls;
      link.missed += call.missed ? 1 : 0;
      link.retransmissions += call.retransmissions;
      if (call.ended_ns > call.began_ns && call.began_ns != 0)
        link.round_trips_us.add(static_cast<double>(call.ended_ns - call.began_ns) / 1e3);
    }
  }

  void add(const LoggedPlan& plan) {
    // The internal quantities' names come before the first plan.
    if (digest_.plans++ == 0) start_plans();
    digest_.reached = plan.frontier;
    steps_->add(plan);
    for (HeldFromPlans& order : orders_) order.add(plan);
    for (std::size_t d = 0; d < digest_.defects.size(); ++d) {
      if (defect_indices_[d] < plan.internals.size())
        digest_.defects[d].second.add({seconds(plan.frontier), plan.internals[defect_indices_[d]]});
    }
    for (std::size_t k = 0; k < digest_.internals.size() && k < plan.internals.size(); ++k) {
      const double value = plan.internals[k];
      if (!std::isfinite(value)) continue;
      ReportDigest::InternalStats& stats = digest_.internals[k];
      ++stats.count;
      stats.range.include(value);
      stats.last = value;
    }
    if (plan.pacer_lateness_ns != 0)
      digest_.pacer_lateness_us.add(static_cast<double>(plan.pacer_lateness_ns) / 1e3);
  }

  /// The digest, with `log` (the structure the calls and plans came with).
  ReportDigest finish(RunLog log) {
    if (digest_.plans == 0) start_plans();
    digest_.step_sizes = steps_->step_sizes();
    digest_.iterations = steps_->iterations();
    for (std::size_t k = 0; k < orders_.size(); ++k)
      digest_.orders[k].second = orders_[k].finish(log.end);
    digest_.signals_from_calls = signals_.finish();
    if (digest_.plans == 0) digest_.reached = log.start;
    log.calls.clear();
    log.plans.clear();
    digest_.log = std::move(log);
    return std::move(digest_);
  }

 private:
  void start_plans() {
    steps_.emplace(log_, span_, internal_index(log_, "iterations"));
    for (const auto& [output, index] : internals_with_prefix(log_, "order:")) {
      digest_.orders.emplace_back(output, HeldSeries{});
      orders_.emplace_back(index, span_);
    }
    // (The defects section draws them only when "defect" is among them.)
    for (const char* name : {"defect", "tolerance"}) {
      if (const auto index = internal_index(log_, name)) {
        digest_.defects.emplace_back(name, BoundedSeries(span_));
        defect_indices_.push_back(*index);
      }
    }
    digest_.internals.resize(log_.internal_quantities.size());
  }

  const RunLog& log_;
  Range span_;
  ReportDigest digest_;
  SignalsFromCalls signals_;
  std::optional<CompletedSteps> steps_;
  std::vector<HeldFromPlans> orders_;
  std::vector<std::size_t> defect_indices_;  ///< beside digest_.defects
};

}  // namespace

ReportDigest digest_of(const RunLog& log) {
  Digester digester(log);
  for (const LoggedCall& call : log.calls) digester.add(call);
  for (const LoggedPlan& plan : log.plans) digester.add(plan);
  return digester.finish(log);  // a copy, whose calls and plans finish() drops
}

ReportDigest digest_run_log(const std::string& path) {
  RunLogReading reading(path);
  reading.read_structure();
  RunLog& log = reading.log();
  Digester digester(log);
  consume_records(reading, digester);
  return digester.finish(std::move(log));
}

}  // namespace couplet::tools
