#include "host_tools/runlog/log_export.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "core/exact_text.hpp"

namespace couplet::tools {

namespace {

constexpr std::size_t kNoCall = std::numeric_limits<std::size_t>::max();

using Row = std::vector<std::optional<double>>;
using DiscreteRow = std::vector<std::optional<std::int64_t>>;

/// The calls and plan records rows are made from, by their index in the whole
/// log (calls from 0, plans numbered from 1): all of a log read whole, or what
/// a streaming reader still holds of it (`first_call`, `first_plan`: the
/// index of log.calls[0] and the number of log.plans[0]).
struct LogWindow {
  const RunLog& log;
  std::size_t first_call = 0;
  std::uint64_t first_plan = 1;

  const LoggedCall& call(std::size_t index) const { return log.calls[index - first_call]; }
  /// Plan record `number`; null for the initialization's (0) or one the log
  /// does not hold (a cut log may lack the last).
  const LoggedPlan* plan(std::uint64_t number) const {
    if (number < first_plan || number - first_plan >= log.plans.size()) return nullptr;
    return &log.plans[number - first_plan];
  }
};

/// How many calls `couplet run` makes before the algorithm's first plan: a
/// setup per slave (with the start values of its discrete outputs, when it has
/// any), then the passes of Executor::compute_initial_outputs, an output
/// evaluation of every slave each. Plan indices cannot tell them apart from the
/// first plan's calls (both carry 0), so they are counted call by call; counting
/// stops early where the log holds something else there.
class InitializationCount {
 public:
  explicit InitializationCount(const RunLog& log) {
    std::size_t outputs = 1;
    int highest_order = 0;
    std::size_t discrete_starts = 0;
    for (const LoggedSlave& slave : log.slaves) {
      outputs += slave.description.outputs.size();
      highest_order =
          std::max(highest_order, slave.description.capabilities.output_derivative_order);
      if (!slave.description.discrete_outputs.empty()) ++discrete_starts;
    }
    const std::size_t passes = static_cast<std::size_t>(highest_order + 1) * outputs;
    expected_ = log.slaves.size() * (1 + passes) + discrete_starts;
  }

  /// Takes the next call in log order.
  void take(const LoggedCall& call) {
    if (settled_) return;
    const bool initializing = call.kind == CallKind::setup ||
                              call.kind == CallKind::evaluate_outputs ||
                              call.kind == CallKind::discrete_outputs;
    if (count_ < expected_ && initializing && call.plan == 0) {
      ++count_;
    } else {
      settled_ = true;
    }
  }

  /// The initialization's calls among those taken.
  std::size_t count() const { return count_; }
  /// True when the call after `count()` calls is not the initialization's.
  bool settled() const { return settled_ || count_ == expected_; }

 private:
  std::size_t expected_ = 0;
  std::size_t count_ = 0;
  bool settled_ = false;
};

bool returns_outputs(const LoggedCall& call) {
  // A linearization holds x, not y: it changes no output.
  return call.kind == CallKind::step || call.kind == CallKind::evaluate_outputs;
}

/// Where each slave stands as the calls move it, and which calls' outputs it
/// holds: output evaluations, saves and restores carry no time of their own.
class SlavePositions {
 public:
  explicit SlavePositions(const RunLog& log)
      : slaves_(log.slaves.size(),
                Position{log.start, log.start, kNoCall, kNoCall, kNoCall, kNoCall, false}) {}

  /// Takes call `index` of the log, `call`.
  void take(std::size_t index, const LoggedCall& call) {
    Position& slave = slaves_[call.slave];
    switch (call.kind) {
      case CallKind::setup:
        slave.now = slave.saved = call.start;
        break;
      case CallKind::step:
        slave.now = call.end;
        slave.outputs_call = index;
        if (!call.discrete_outputs.empty()) slave.discrete_call = index;
        break;
      case CallKind::evaluate_outputs:
        slave.outputs_call = index;
        break;
      case CallKind::discrete_outputs:
        slave.discrete_call = index;
        break;
      case CallKind::save_state:
        slave.saved = slave.now;
        slave.saved_outputs_call = slave.outputs_call;
        slave.saved_discrete_call = slave.discrete_call;
        slave.has_saved = true;
        break;
      case CallKind::restore_state:
        slave.now = slave.saved;
        slave.outputs_call = slave.saved_outputs_call;
        slave.discrete_call = slave.saved_discrete_call;
        break;
      case CallKind::linearize:
        break;
    }
  }

  Time now(std::size_t slave) const { return slaves_[slave].now; }
  Time saved(std::size_t slave) const { return slaves_[slave].saved; }
  /// The call whose end outputs the slave holds; kNoCall: none yet (zeros).
  std::size_t outputs_call(std::size_t slave) const { return slaves_[slave].outputs_call; }
  /// The call whose discrete outputs the slave holds (a step, or the start
  /// values after its setup); kNoCall: none yet (zeros).
  std::size_t discrete_call(std::size_t slave) const { return slaves_[slave].discrete_call; }

  /// The earliest time any slave may still return outputs at: where it stands,
  /// or where a restore would take it back to (couplet restores only a saved
  /// state). A communication time before it is settled.
  Time earliest_open_time() const {
    Time earliest = std::numeric_limits<Time>::max();
    for (const Position& slave : slaves_)
      earliest = std::min(earliest, slave.has_saved ? std::min(slave.now, slave.saved) : slave.now);
    return earliest;
  }

  /// The oldest call whose outputs a slave holds or has saved (kNoCall: none).
  std::size_t oldest_held_call() const {
    std::size_t oldest = kNoCall;
    for (const Position& slave : slaves_) {
      for (const std::size_t call : {slave.outputs_call, slave.saved_outputs_call,
                                     slave.discrete_call, slave.saved_discrete_call})
        oldest = std::min(oldest, call);
    }
    return oldest;
  }

 private:
  struct Position {
    Time now;
    Time saved;
    std::size_t outputs_call;
    std::size_t saved_outputs_call;
    std::size_t discrete_call;
    std::size_t saved_discrete_call;
    bool has_saved;
  };
  std::vector<Position> slaves_;
};

/// What one slave returned at one communication time: the call whose outputs
/// stand there, the step that ended there (a refresh may have replaced its
/// outputs; its link timing stays the step's) and the call whose discrete
/// outputs it held there. kNoCall: none.
struct SlaveAtTime {
  std::size_t outputs = kNoCall;
  std::size_t step = kNoCall;
  std::size_t discrete = kNoCall;
};

/// Per communication time, per slave.
using AcceptedCalls = std::map<Time, std::vector<SlaveAtTime>>;

/// A rollback undoes what the slave returned after the time it goes back to.
void forget_after(AcceptedCalls& rows, std::size_t slave, Time time) {
  for (auto row = rows.upper_bound(time); row != rows.end();) {
    row->second[slave] = SlaveAtTime{};
    const bool empty = std::all_of(row->second.begin(), row->second.end(),
                                   [](const SlaveAtTime& at) { return at.outputs == kNoCall; });
    row = empty ? rows.erase(row) : std::next(row);
  }
}

bool linked(const LoggedSlave& slave) {
  return !slave.link.empty();
}

std::vector<std::string> output_columns(const RunLog& log) {
  std::vector<std::string> columns;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (std::size_t j = 0; j < log.slaves[s].description.outputs.size(); ++j)
      columns.push_back(log.output_name(s, j));
  }
  return columns;
}

/// The discrete outputs' names and types, in slave and port order.
void add_discrete_columns(const RunLog& log, ExportTable& table) {
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    const auto& outputs = log.slaves[s].description.discrete_outputs;
    for (std::size_t j = 0; j < outputs.size(); ++j) {
      table.discrete_columns.push_back(log.discrete_output_name(s, j));
      table.discrete_types.push_back(outputs[j].type);
    }
  }
}

/// Discrete output `port` as call `call` holds it (a step's, or the start
/// values; kNoCall: none yet, zero as the executor starts it); absent where a
/// damaged log's record is short.
std::optional<std::int64_t> discrete_value(const LogWindow& window, std::size_t call,
                                           std::size_t port) {
  if (call == kNoCall) return 0;
  const std::vector<std::int64_t>& values = window.call(call).discrete_outputs;
  if (port < values.size()) return values[port];
  return std::nullopt;
}

std::vector<std::string> communication_columns(const RunLog& log) {
  std::vector<std::string> columns{"time_s", "plan", "macro_step", "step_s"};
  for (std::string& output : output_columns(log)) columns.push_back(std::move(output));
  for (const std::string& quantity : log.internal_quantities) columns.push_back(quantity);
  for (const LoggedSlave& slave : log.slaves) {
    if (!linked(slave)) continue;
    for (const char* timing :
         {":round_trip_us", ":retransmissions", ":input_lateness_us", ":missed"})
      columns.push_back(slave.name + timing);
  }
  columns.push_back("pacer_lateness_us");
  return columns;
}

/// The plan a call belongs to: 0 for the initialization's, else one more than
/// the plans completed before it.
std::uint64_t plan_of(std::size_t index, const LogWindow& window, std::size_t initialization) {
  return index < initialization ? 0 : window.call(index).plan + 1;
}

/// The plan record's count; none before the first step (initialization: 0) or
/// where a cut log lacks the record.
std::optional<double> macro_steps(const LoggedPlan* record, std::uint64_t plan) {
  if (record != nullptr) return static_cast<double>(record->macro_steps);
  if (plan == 0) return 0.0;
  return std::nullopt;
}

void add_outputs(const LoggedCall* call, std::size_t count, Row& row) {
  for (std::size_t j = 0; j < count; ++j) {
    if (call != nullptr && j < call->end_outputs.size()) {
      row.emplace_back(call->end_outputs[j]);
    } else {
      row.emplace_back();
    }
  }
}

void add_link_timing(const LoggedCall* step, Row& row) {
  if (step == nullptr) {
    row.insert(row.end(), 4, std::nullopt);
    return;
  }
  row.emplace_back(static_cast<double>(step->ended_ns - step->began_ns) * 1e-3);
  row.emplace_back(static_cast<double>(step->retransmissions));
  row.emplace_back(static_cast<double>(step->input_lateness_ns) * 1e-3);
  row.emplace_back(step->missed ? 1.0 : 0.0);
}

/// The call whose outputs stand last in a row: its plan is the row's.
std::size_t last_call(const std::vector<SlaveAtTime>& slaves) {
  std::size_t last = 0;
  for (const SlaveAtTime& at : slaves) {
    if (at.outputs != kNoCall) last = std::max(last, at.outputs);
  }
  return last;
}

Row communication_row(const LogWindow& window, Time time, const std::vector<SlaveAtTime>& slaves,
                      std::size_t initialization) {
  const RunLog& log = window.log;
  const auto call_at = [&](std::size_t index) {
    return index == kNoCall ? nullptr : &window.call(index);
  };
  std::size_t last_step = kNoCall;
  for (const SlaveAtTime& at : slaves) {
    if (at.step != kNoCall && (last_step == kNoCall || at.step > last_step)) last_step = at.step;
  }
  const std::uint64_t plan = plan_of(last_call(slaves), window, initialization);
  const LoggedPlan* record = window.plan(plan);

  Row row;
  row.emplace_back(to_seconds(time));
  row.emplace_back(static_cast<double>(plan));
  row.emplace_back(macro_steps(record, plan));
  const LoggedCall* step = call_at(last_step);
  row.emplace_back(step != nullptr ? std::optional<double>(to_seconds(step->end - step->start))
                                   : std::nullopt);
  for (std::size_t s = 0; s < log.slaves.size(); ++s)
    add_outputs(call_at(slaves[s].outputs), log.slaves[s].description.outputs.size(), row);
  for (std::size_t q = 0; q < log.internal_quantities.size(); ++q) {
    if (record != nullptr && q < record->internals.size()) {
      row.emplace_back(record->internals[q]);
    } else {
      row.emplace_back();
    }
  }
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (linked(log.slaves[s])) add_link_timing(call_at(slaves[s].step), row);
  }
  if (record != nullptr) {
    row.emplace_back(static_cast<double>(record->pacer_lateness_ns) * 1e-3);
  } else {
    row.emplace_back();
  }
  return row;
}

/// The discrete outputs of a row: absent where the slave returned nothing at
/// its time.
DiscreteRow discrete_row(const LogWindow& window, const std::vector<SlaveAtTime>& slaves) {
  DiscreteRow row;
  for (std::size_t s = 0; s < window.log.slaves.size(); ++s) {
    const std::size_t count = window.log.slaves[s].description.discrete_outputs.size();
    for (std::size_t j = 0; j < count; ++j) {
      row.push_back(slaves[s].outputs == kNoCall ? std::nullopt
                                                 : discrete_value(window, slaves[s].discrete, j));
    }
  }
  return row;
}

/// The communication rows, made call by call. A row is handed over once no
/// later call can change it — its time lies before every slave's earliest open
/// time (SlavePositions) and its plan record has been read — or when the log
/// has ended; so a log read whole and one streamed give the same rows.
class CommunicationRows {
 public:
  explicit CommunicationRows(const RunLog& log)
      : window_{log}, positions_(log), initialization_(log) {}

  LogWindow& window() { return window_; }
  /// The columns name the internal quantities, whose record follows the
  /// initialization's calls; every plan record comes after it.
  static bool header_known(const RunLogReading& reading) {
    return reading.has_internal_quantities();
  }
  ExportTable header() const { return communication_header(window_.log); }

  /// Takes call `index`, which the window holds; calls are taken in log order.
  void take(std::size_t index) {
    const LoggedCall& call = window_.call(index);
    initialization_.take(call);
    latest_plan_ = call.plan + 1;
    // A rollback undoes what the slave returned after the time it goes back to.
    if (call.kind == CallKind::restore_state)
      forget_after(rows_, call.slave, positions_.saved(call.slave));
    positions_.take(index, call);
    if (!returns_outputs(call)) return;
    SlaveAtTime& at = rows_.try_emplace(positions_.now(call.slave), window_.log.slaves.size())
                          .first->second[call.slave];
    at.outputs = index;
    at.discrete = positions_.discrete_call(call.slave);
    if (call.kind == CallKind::step) at.step = index;
  }

  /// Hands the settled rows to `sink(Row, DiscreteRow)` in time order; every
  /// row left when `log_ended`.
  template <typename Sink>
  void hand_over(bool log_ended, Sink&& sink) {
    const Time open = positions_.earliest_open_time();
    while (!rows_.empty()) {
      const auto row = rows_.begin();
      if (!log_ended) {
        if (row->first >= open || !initialization_.settled()) return;
        const std::uint64_t plan =
            plan_of(last_call(row->second), window_, initialization_.count());
        if (plan > 0 && window_.plan(plan) == nullptr) return;  // its record is still to come
      }
      sink(communication_row(window_, row->first, row->second, initialization_.count()),
           discrete_row(window_, row->second));
      rows_.erase(row);
    }
  }

  /// The oldest call the rows still to come may read (kNoCall: none).
  std::size_t oldest_needed_call() const {
    std::size_t oldest = positions_.oldest_held_call();
    for (const auto& [time, slaves] : rows_) {
      for (const SlaveAtTime& at : slaves)
        oldest = std::min({oldest, at.outputs, at.step, at.discrete});
    }
    return oldest;
  }

  /// The oldest plan record the rows still to come may read.
  std::uint64_t oldest_needed_plan() const {
    std::uint64_t oldest = latest_plan_;
    for (const auto& [time, slaves] : rows_) {
      const std::size_t last = last_call(slaves);
      if (last >= window_.first_call) oldest = std::min(oldest, window_.call(last).plan + 1);
    }
    return oldest;
  }

 private:
  LogWindow window_;
  SlavePositions positions_;
  InitializationCount initialization_;
  AcceptedCalls rows_;  ///< per communication time, per slave: the rows not yet handed over
  std::uint64_t latest_plan_ = 1;  ///< the plan of the latest call taken (its record may come)
};

ExportTable grid_header(const RunLog& log);

/// The grid rows, made call by call: per grid time, per slave output, the value
/// signals.csv holds there. A row is handed over once no later call can change
/// it — its time lies at or before every slave's earliest open time
/// (SlavePositions: a step covers (start, end], so a redone step never reaches
/// back to its start) — or, when the log has ended, up to the time every slave
/// reached; only the rows between the slowest and the furthest slave are held,
/// so a log read whole and one streamed give the same rows.
class GridRows {
 public:
  /// `grid`: the evaluation grid, increasing; it must outlive the rows.
  GridRows(const RunLog& log, std::span<const Time> grid)
      : window_{log},
        grid_(std::lower_bound(grid.begin(), grid.end(), log.start), grid.end()),
        positions_(log),
        initialization_(log),
        reached_(log.slaves.size(), log.start),
        first_output_(log.slaves.size() + 1, 0),
        first_discrete_(log.slaves.size() + 1, 0) {
    for (std::size_t s = 0; s < log.slaves.size(); ++s) {
      const SlaveDescription& description = log.slaves[s].description;
      first_output_[s + 1] = first_output_[s] + description.outputs.size();
      first_discrete_[s + 1] = first_discrete_[s] + description.discrete_outputs.size();
    }
  }

  LogWindow& window() { return window_; }
  static bool header_known(const RunLogReading&) { return true; }
  ExportTable header() const { return grid_header(window_.log); }

  /// Takes call `index`, which the window holds; calls are taken in log order.
  void take(std::size_t index) {
    const LoggedCall& call = window_.call(index);
    if (!initial_taken_) {
      initialization_.take(call);
      // The first call after the initialization's: the initial outputs stand.
      if (initialization_.count() <= index) take_initial();
    }
    const std::size_t before = positions_.outputs_call(call.slave);
    const std::size_t discrete_before = positions_.discrete_call(call.slave);
    positions_.take(index, call);
    if (call.kind != CallKind::step) return;
    reached_[call.slave] = std::max(reached_[call.slave], call.end);
    take_step(call, before, discrete_before, index);
  }

  /// Hands the settled rows to `sink(Row, DiscreteRow)` in time order; when
  /// `log_ended`, every row up to the time every slave reached.
  template <typename Sink>
  void hand_over(bool log_ended, Sink&& sink) {
    if (log_ended && !initial_taken_) take_initial();
    if (!initial_taken_) return;
    const Time last = log_ended ? time_all_slaves_reached() : positions_.earliest_open_time();
    for (; handed_over_ < grid_.size() && grid_[handed_over_] <= last; ++handed_over_) {
      Row row{to_seconds(grid_[handed_over_])};
      DiscreteRow discrete(first_discrete_.back());
      if (!values_.empty()) {
        row.insert(row.end(), values_.front().begin(), values_.front().end());
        discrete = std::move(discrete_values_.front());
        values_.pop_front();
        discrete_values_.pop_front();
      } else {
        row.resize(1 + first_output_.back());
      }
      sink(std::move(row), std::move(discrete));
    }
  }

  /// The oldest call the rows still to come may read (kNoCall: none).
  std::size_t oldest_needed_call() const { return positions_.oldest_held_call(); }
  /// Grid rows read no plan record.
  std::uint64_t oldest_needed_plan() const { return window_.first_plan + window_.log.plans.size(); }

 private:
  std::size_t output_count(std::size_t slave) const {
    return first_output_[slave + 1] - first_output_[slave];
  }

  /// The time every slave has reached: the end of its latest step (the start
  /// when it made none).
  Time time_all_slaves_reached() const {
    return reached_.empty() ? window_.log.start
                            : *std::min_element(reached_.begin(), reached_.end());
  }

  /// Grid row `index`'s held values, made when first written; null for a row
  /// already handed over (only a crafted log steps back over one).
  std::pair<Row*, DiscreteRow*> row_at(std::size_t index) {
    if (index < handed_over_) return {nullptr, nullptr};
    while (handed_over_ + values_.size() <= index) {
      values_.emplace_back(first_output_.back());
      discrete_values_.emplace_back(first_discrete_.back());
    }
    return {&values_[index - handed_over_], &discrete_values_[index - handed_over_]};
  }

  /// The initial outputs, at the start time when the grid holds it.
  void take_initial() {
    initial_taken_ = true;
    if (grid_.empty() || grid_.front() != window_.log.start) return;
    for (std::size_t s = 0; s < window_.log.slaves.size(); ++s) {
      const std::size_t call = positions_.outputs_call(s);
      const auto [values, discrete] = row_at(0);
      if (values == nullptr) return;
      for (std::size_t j = 0; j < output_count(s); ++j)
        (*values)[first_output_[s] + j] = call == kNoCall ? 0.0 : window_.call(call).end_outputs[j];
      hold_discrete(*discrete, s, positions_.discrete_call(s));
    }
  }

  /// The grid times a step covers, (start, end]: its samples, or for a slave
  /// without intermediate samples the interpolation couplet run makes between
  /// the outputs the slave held before the step (`before`, kNoCall: zeros) and
  /// those it returned. Discrete outputs hold those of call `discrete_before`
  /// up to the step's end.
  void take_step(const LoggedCall& step, std::size_t before, std::size_t discrete_before,
                 std::size_t step_index) {
    if (step.end <= step.start) return;
    const auto first = std::upper_bound(grid_.begin(), grid_.end(), step.start);
    const auto last = std::upper_bound(first, grid_.end(), step.end);
    const bool sampled =
        window_.log.slaves[step.slave].description.capabilities.intermediate_samples;
    for (auto time = first; time != last; ++time) {
      const auto [values, discrete] = row_at(static_cast<std::size_t>(time - grid_.begin()));
      if (values == nullptr) continue;
      if (sampled) {
        take_sample(step, *time, *values);
      } else {
        interpolate(step, before, *time, *values);
      }
      hold_discrete(*discrete, step.slave, *time == step.end ? step_index : discrete_before);
    }
  }

  /// The discrete outputs of call `call` (kNoCall: zeros) into `row`.
  void hold_discrete(DiscreteRow& row, std::size_t slave, std::size_t call) const {
    for (std::size_t j = 0; j < first_discrete_[slave + 1] - first_discrete_[slave]; ++j)
      row[first_discrete_[slave] + j] = discrete_value(window_, call, j);
  }

  void take_sample(const LoggedCall& step, Time time, Row& row) const {
    const auto sample = std::lower_bound(step.sample_times.begin(), step.sample_times.end(), time);
    if (sample == step.sample_times.end() || *sample != time) {
      const RunLog& log = window_.log;
      throw RunLogError("run log '" + log.path + "': the step of slave '" +
                        log.slaves[step.slave].name + "' over (" + seconds_text(step.start) + ", " +
                        seconds_text(step.end) +
                        "] s holds no sample at the evaluation-grid time " + seconds_text(time) +
                        " s (the log and its scenario's grid disagree)");
    }
    const std::size_t sample_row = static_cast<std::size_t>(sample - step.sample_times.begin());
    const std::size_t outputs = output_count(step.slave);
    for (std::size_t j = 0; j < outputs; ++j)
      row[first_output_[step.slave] + j] = step.samples[sample_row * outputs + j];
  }

  // The same expression as Executor::interpolate_grid: the same bits.
  void interpolate(const LoggedCall& step, std::size_t before, Time time, Row& row) const {
    const double weight =
        static_cast<double>(time - step.start) / static_cast<double>(step.end - step.start);
    for (std::size_t j = 0; j < output_count(step.slave); ++j) {
      const double from = before == kNoCall ? 0.0 : window_.call(before).end_outputs[j];
      row[first_output_[step.slave] + j] = (1.0 - weight) * from + weight * step.end_outputs[j];
    }
  }

  LogWindow window_;
  std::span<const Time> grid_;  ///< from the log's start time on
  SlavePositions positions_;
  InitializationCount initialization_;
  bool initial_taken_ = false;
  std::vector<Time> reached_;              ///< per slave, the end of its latest step
  std::vector<std::size_t> first_output_;  ///< per slave, its first output's column; then the count
  std::vector<std::size_t> first_discrete_;  ///< the same for the discrete outputs
  std::size_t handed_over_ = 0;              ///< grid rows handed over, from grid_'s first
  std::deque<Row> values_;                   ///< the rows from handed_over_ on
  std::deque<DiscreteRow> discrete_values_;
};

/// The columns of the grid rows: `time_s`, then every output.
ExportTable grid_header(const RunLog& log) {
  ExportTable table;
  table.columns = {"time_s"};
  for (std::string& output : output_columns(log)) table.columns.push_back(std::move(output));
  add_discrete_columns(log, table);
  return table;
}

}  // namespace

ExportTable communication_table(const RunLog& log) {
  ExportTable table = communication_header(log);
  CommunicationRows rows(log);
  for (std::size_t index = 0; index < log.calls.size(); ++index) rows.take(index);
  rows.hand_over(true, [&](Row&& row, DiscreteRow&& discrete) {
    table.rows.push_back(std::move(row));
    table.discrete_rows.push_back(std::move(discrete));
  });
  return table;
}

ExportTable communication_header(const RunLog& log) {
  ExportTable table;
  table.columns = communication_columns(log);
  add_discrete_columns(log, table);
  return table;
}

ExportTable grid_table(const RunLog& log, std::span<const Time> grid) {
  ExportTable table = grid_header(log);
  GridRows rows(log, grid);
  for (std::size_t index = 0; index < log.calls.size(); ++index) rows.take(index);
  rows.hand_over(true, [&](Row&& row, DiscreteRow&& discrete) {
    table.rows.push_back(std::move(row));
    table.discrete_rows.push_back(std::move(discrete));
  });
  return table;
}

void write_csv_header(std::ostream& csv, const ExportTable& table) {
  for (std::size_t c = 0; c < table.columns.size(); ++c)
    csv << (c == 0 ? "" : ",") << table.columns[c];
  for (const std::string& column : table.discrete_columns) csv << ',' << column;
  csv << '\n';
}

void write_csv_row(std::ostream& csv, std::span<const std::optional<double>> row,
                   std::span<const std::optional<std::int64_t>> discrete_row) {
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (c > 0) csv << ',';
    if (row[c]) csv << exact_text(*row[c]);
  }
  for (const auto& cell : discrete_row) {
    csv << ',';
    if (cell) csv << *cell;
  }
  csv << '\n';
}

std::string csv_text(const ExportTable& table) {
  std::ostringstream csv;
  write_csv_header(csv, table);
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    write_csv_row(csv, table.rows[r],
                  r < table.discrete_rows.size()
                      ? std::span<const std::optional<std::int64_t>>(table.discrete_rows[r])
                      : std::span<const std::optional<std::int64_t>>());
  }
  return csv.str();
}

std::string export_csv(const RunLog& log) {
  return csv_text(communication_table(log));
}

namespace {

/// Reads the rest of `reading` into `rows` (CommunicationRows or GridRows),
/// handing settled rows to `sink` every `batch` records and letting go of the
/// calls and plan records no row to come reads.
/// Reads a log into `Rows` (CommunicationRows or GridRows) as it is read,
/// handing settled rows to a sink every `batch` records and letting go of the
/// calls and plan records no row to come reads.
template <typename Rows>
class RowStreamer {
 public:
  RowStreamer(RunLogReading& reading, Rows& rows, std::size_t batch)
      : reading_(reading), rows_(rows), batch_(std::max<std::size_t>(batch, 1)) {}

  /// Reads what the log holds now; the settled rows go to `sink`, the plan
  /// records read to `plans` (when given) before the rows that follow them.
  void read_available(TableSink& sink, const PlanRecords* plans = nullptr) {
    for (std::size_t records = 1; reading_.read_record(); ++records) {
      if (records % batch_ == 0) advance(false, sink, plans);
    }
    advance(false, sink, plans);
  }

  /// The log has ended: every row left goes to `sink`.
  StreamedExport finish(TableSink& sink, const PlanRecords* plans = nullptr) {
    advance(true, sink, plans);
    const RunLog& log = reading_.log();
    result_.tail = log.tail;
    result_.tail_problem = log.damaged() ? log.tail_problem : "";
    return result_;
  }

 private:
  void advance(bool log_ended, TableSink& sink, const PlanRecords* plans) {
    RunLog& log = reading_.log();
    LogWindow& window = rows_.window();
    // A step's samples may go on in the records after its call: the last call
    // is taken once the log has gone past it.
    std::size_t complete = window.first_call + log.calls.size();
    if (!log_ended && reading_.last_was_call() && complete > next_call_) --complete;
    for (; next_call_ < complete; ++next_call_) rows_.take(next_call_);
    if (plans != nullptr) {
      for (; next_plan_ < window.first_plan + log.plans.size(); ++next_plan_)
        (*plans)(log.plans[next_plan_ - window.first_plan]);
    }
    if (!header_given_ && (log_ended || rows_.header_known(reading_))) {
      sink.header(rows_.header());
      header_given_ = true;
    }
    if (header_given_) {
      rows_.hand_over(log_ended, [&](Row&& row, DiscreteRow&& discrete) {
        sink.row(row, discrete);
        ++result_.rows;
      });
    }
    // Let go of the calls and plan records no row to come reads (nor the plan
    // hook, which has seen them); the last call stays while a step's samples
    // may still follow it.
    std::size_t keep = std::min(rows_.oldest_needed_call(), next_call_);
    if (reading_.last_was_call() && !log.calls.empty())
      keep = std::min(keep, window.first_call + log.calls.size() - 1);
    if (keep - window.first_call >= batch_) {
      log.calls.erase(log.calls.begin(),
                      log.calls.begin() + static_cast<std::ptrdiff_t>(keep - window.first_call));
      window.first_call = keep;
    }
    std::uint64_t plans_kept = rows_.oldest_needed_plan();
    if (plans != nullptr) plans_kept = std::min(plans_kept, next_plan_);
    if (plans_kept > window.first_plan + batch_) {
      const std::uint64_t drop =
          std::min<std::uint64_t>(plans_kept - window.first_plan, log.plans.size());
      log.plans.erase(log.plans.begin(), log.plans.begin() + static_cast<std::ptrdiff_t>(drop));
      window.first_plan += drop;
    }
  }

  RunLogReading& reading_;
  Rows& rows_;
  std::size_t batch_;
  std::size_t next_call_ = rows_.window().first_call;  ///< in the whole log, the next call to take
  std::uint64_t next_plan_ = 1;  ///< the next plan record to pass to the plan hook
  bool header_given_ = false;
  StreamedExport result_;
};

template <typename Rows>
StreamedExport stream_rows(RunLogReading& reading, Rows& rows, TableSink& sink, std::size_t batch) {
  RowStreamer streamer(reading, rows, batch);
  streamer.read_available(sink);
  return streamer.finish(sink);
}

}  // namespace

ColumnSubset::ColumnSubset(std::vector<std::size_t> real, std::vector<std::size_t> discrete)
    : real_(std::move(real)),
      discrete_(std::move(discrete)),
      row_(real_.size()),
      discrete_row_(discrete_.size()) {}

ExportTable ColumnSubset::header_of(const ExportTable& table, const std::string& first) const {
  ExportTable subset;
  for (const std::size_t c : real_) subset.columns.push_back(table.columns[c]);
  if (!first.empty() && !subset.columns.empty()) subset.columns.front() = first;
  for (const std::size_t d : discrete_) {
    subset.discrete_columns.push_back(table.discrete_columns[d]);
    subset.discrete_types.push_back(table.discrete_types[d]);
  }
  return subset;
}

void ColumnSubset::pass(TableSink& sink, std::span<const std::optional<double>> row,
                        std::span<const std::optional<std::int64_t>> discrete) {
  for (std::size_t k = 0; k < real_.size(); ++k) row_[k] = row[real_[k]];
  for (std::size_t k = 0; k < discrete_.size(); ++k) discrete_row_[k] = discrete[discrete_[k]];
  sink.row(row_, discrete_row_);
}

void TableCollector::header(const ExportTable& columns) {
  table = columns;
}

void TableCollector::row(std::span<const std::optional<double>> row,
                         std::span<const std::optional<std::int64_t>> discrete) {
  table.rows.emplace_back(row.begin(), row.end());
  table.discrete_rows.emplace_back(discrete.begin(), discrete.end());
}

StreamedExport stream_communication_rows(RunLogReading& reading, TableSink& sink,
                                         std::size_t batch) {
  reading.read_structure();
  CommunicationRows rows(reading.log());
  return stream_rows(reading, rows, sink, batch);
}

StreamedExport stream_grid_rows(RunLogReading& reading, std::span<const Time> grid, TableSink& sink,
                                std::size_t batch) {
  reading.read_structure();
  GridRows rows(reading.log(), grid);
  return stream_rows(reading, rows, sink, batch);
}

struct CommunicationRowsFollower::Impl {
  explicit Impl(const std::string& path) : reading(path) {
    reading.read_structure();
    rows.emplace(reading.log());
    streamer.emplace(reading, *rows, 4096);
  }

  RunLogReading reading;
  std::optional<CommunicationRows> rows;
  std::optional<RowStreamer<CommunicationRows>> streamer;
};

CommunicationRowsFollower::CommunicationRowsFollower(const std::string& path)
    : impl_(std::make_unique<Impl>(path)) {}

CommunicationRowsFollower::~CommunicationRowsFollower() = default;

const RunLog& CommunicationRowsFollower::log() const {
  return impl_->reading.log();
}

bool CommunicationRowsFollower::follow(TableSink& rows, const PlanRecords& plans) {
  impl_->streamer->read_available(rows, &plans);
  const RunLog& log = impl_->reading.log();
  const bool still_written = !log.end_record && (log.tail == protocol::LogReadStatus::end ||
                                                 log.tail == protocol::LogReadStatus::cut);
  if (still_written && impl_->reading.resume()) return false;
  impl_->streamer->finish(rows, &plans);
  return true;
}

StreamedExport stream_communication_csv(const std::string& path, std::ostream& csv,
                                        std::size_t batch) {
  RunLogReading reading(path);
  CsvSink sink(csv);
  return stream_communication_rows(reading, sink, batch);
}

}  // namespace couplet::tools
