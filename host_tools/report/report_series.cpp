// The data a `couplet report` page plots, from the run log and signals.csv:
// signals, step sizes, orders, internal quantities, grouped by quantity.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/report/report_parts.hpp"
#include "host_tools/runlog/signal_table.hpp"

namespace couplet::tools::report_parts {

// ---------------------------------------------------------------- data from the log

double seconds(Time t) {
  return to_seconds(t);
}

Range run_span(const RunLog& log) {
  return {seconds(log.start), seconds(log.end)};
}

std::string port_name(const RunLog& log, std::size_t slave, const std::string& port) {
  return (slave < log.slaves.size() ? log.slaves[slave].name : "slave" + std::to_string(slave)) +
         "." + port;
}

/// Index of each internal quantity named `prefix` + something, with that something.
std::vector<std::pair<std::string, std::size_t>> internals_with_prefix(const RunLog& log,
                                                                       std::string_view prefix) {
  std::vector<std::pair<std::string, std::size_t>> found;
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    const std::string& name = log.internal_quantities[k];
    if (name.size() > prefix.size() && std::string_view(name).substr(0, prefix.size()) == prefix) {
      found.emplace_back(name.substr(prefix.size()), k);
    }
  }
  return found;
}

std::optional<std::size_t> internal_index(const RunLog& log, std::string_view name) {
  for (std::size_t k = 0; k < log.internal_quantities.size(); ++k) {
    if (log.internal_quantities[k] == name) return k;
  }
  return std::nullopt;
}

/// The quantity after every plan, at the plan's frontier.
std::vector<Point> internal_at_plans(const RunLog& log, std::size_t index) {
  std::vector<Point> points;
  points.reserve(log.plans.size());
  for (const LoggedPlan& plan : log.plans) {
    if (index < plan.internals.size())
      points.push_back({seconds(plan.frontier), plan.internals[index]});
  }
  return points;
}

/// The quantity decided at a plan, held until the next plan (the last until the
/// end of the run).
std::vector<Held> internal_held_from_plans(const RunLog& log, std::size_t index) {
  std::vector<Held> held;
  for (std::size_t k = 0; k < log.plans.size(); ++k) {
    const LoggedPlan& plan = log.plans[k];
    if (index >= plan.internals.size()) continue;
    const Time until =
        k + 1 < log.plans.size() ? log.plans[k + 1].frontier : std::max(plan.frontier, log.end);
    held.push_back({seconds(plan.frontier), seconds(until), plan.internals[index]});
  }
  return held;
}

/// A completed macro step: the frontier moved from `from` to `to` at plan
/// `first_plan`; `last_plan` is the last plan before the next step (iterative
/// methods evaluate a step several times, each a plan of the same step).
struct CompletedStep {
  Time from = 0;
  Time to = 0;
  std::uint64_t macro_steps = 0;
  std::size_t first_plan = 0;
  std::size_t last_plan = 0;
};

/// One step per plan that completed a macro step (its macro step count rose):
/// the frontier moved from the previous such plan's frontier to its own.
/// Repeated plans (rejected steps, iterations) complete none.
std::vector<CompletedStep> completed_steps(const RunLog& log) {
  std::vector<CompletedStep> steps;
  Time previous = log.start;
  std::uint64_t macro_steps = 0;
  for (std::size_t k = 0; k < log.plans.size(); ++k) {
    const LoggedPlan& plan = log.plans[k];
    if (plan.macro_steps <= macro_steps) {
      if (!steps.empty() && steps.back().macro_steps == plan.macro_steps)
        steps.back().last_plan = k;
      continue;
    }
    if (plan.frontier > previous)
      steps.push_back({previous, plan.frontier, plan.macro_steps, k, k});
    previous = plan.frontier;
    macro_steps = plan.macro_steps;
  }
  return steps;
}

std::vector<Held> communication_steps(const RunLog& log) {
  std::vector<Held> held;
  for (const CompletedStep& step : completed_steps(log))
    held.push_back({seconds(step.from), seconds(step.to), seconds(step.to - step.from)});
  return held;
}

/// The quantity at the last plan of each macro step, over that step. Iterative
/// methods log their count so far at every evaluation, so the last record of
/// a step holds its final count (docs/run-log.md).
std::vector<Held> internal_per_step(const RunLog& log, std::size_t index) {
  std::vector<Held> held;
  for (const CompletedStep& step : completed_steps(log)) {
    const LoggedPlan& plan = log.plans[step.last_plan];
    if (index < plan.internals.size())
      held.push_back({seconds(step.from), seconds(step.to), plan.internals[index]});
  }
  return held;
}

/// Output values at the end of every step call, per output. A call that ends at
/// or before an earlier one of the same slave replaces what came after it
/// (rollbacks, iterations), so each column holds the accepted trajectory.
std::vector<Column> signals_from_calls(const RunLog& log) {
  std::vector<std::size_t> first_column(log.slaves.size(), 0);
  std::vector<Column> columns;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    first_column[s] = columns.size();
    for (const OutputDescription& output : log.slaves[s].description.outputs)
      columns.push_back({port_name(log, s, output.name), {}});
  }
  for (const LoggedCall& call : log.calls) {
    if (call.kind != CallKind::step || call.slave >= log.slaves.size()) continue;
    const std::size_t outputs = log.slaves[call.slave].description.outputs.size();
    if (call.end_outputs.size() < outputs) continue;
    const double end = seconds(call.end);
    for (std::size_t j = 0; j < outputs; ++j) {
      std::vector<Point>& points = columns[first_column[call.slave] + j].points;
      while (!points.empty() && points.back().x >= end) points.pop_back();
      points.push_back({end, call.end_outputs[j]});
    }
  }
  std::erase_if(columns, [](const Column& c) { return c.points.empty(); });
  return columns;
}

/// signals.csv: one column per CSV column after `time`, read as `couplet compare`
/// reads it. A file that does not read gives none, and the page plots the
/// logged values instead (its signals section says which it shows).
std::vector<Column> signals_from_csv(const std::string& csv) {
  if (csv.empty()) return {};
  std::istringstream rows(csv);
  SignalTable table;
  try {
    table = parse_signals_csv(rows, "signals.csv");
  } catch (const ConfigurationError&) {
    return {};
  }
  std::vector<Column> columns;
  for (std::size_t k = 0; k < table.names.size(); ++k) {
    Column column{table.names[k], {}};
    column.points.reserve(table.times.size());
    for (std::size_t row = 0; row < table.times.size(); ++row)
      column.points.push_back({table.times[row], table.columns[k][row]});
    columns.push_back(std::move(column));
  }
  return columns;
}

/// The unit the log declares for port `signal` ("slave.port"), empty if none.
std::string unit_of(const RunLog& log, const std::string& signal) {
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (const OutputDescription& output : log.slaves[s].description.outputs) {
      if (port_name(log, s, output.name) == signal) return output.unit;
    }
    for (const InputDescription& input : log.slaves[s].description.inputs) {
      if (port_name(log, s, input.name) == signal) return input.unit;
    }
    for (const DiscretePortDescription& port : log.slaves[s].description.discrete_outputs) {
      if (port_name(log, s, port.name) == signal) return port.unit;
    }
  }
  return {};
}

/// Whether `signal` ("slave.port") is an Integer or Boolean output of the log.
bool is_discrete(const RunLog& log, const std::string& signal) {
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    for (const DiscretePortDescription& port : log.slaves[s].description.discrete_outputs) {
      if (port_name(log, s, port.name) == signal) return true;
    }
  }
  return false;
}

Quantity quantity_of(const RunLog& log, const std::string& signal) {
  const std::string unit = unit_of(log, signal);
  if (!unit.empty()) return {"unit " + unit, "in " + unit, unit};
  const std::size_t dot = signal.rfind('.');
  const std::string port = dot == std::string::npos ? signal : signal.substr(dot + 1);
  return {"port " + port, "\"" + port + "\" (no unit declared)", port};
}

/// co-simulation − reference where both have a value at one time.
std::vector<Point> difference(const std::vector<Point>& signal,
                              const std::vector<Point>& reference) {
  std::vector<Point> error;
  std::size_t r = 0;
  for (const Point& p : signal) {
    while (r < reference.size() && reference[r].x < p.x) ++r;
    if (r < reference.size() && reference[r].x == p.x) error.push_back({p.x, p.y - reference[r].y});
  }
  return error;
}

std::vector<SignalGroup> group_by_quantity(const RunLog& log, const std::vector<Column>& columns) {
  std::vector<SignalGroup> groups;
  const auto group_of = [&](const std::string& signal) -> SignalGroup& {
    const Quantity quantity = quantity_of(log, signal);
    for (SignalGroup& group : groups) {
      if (group.quantity.key == quantity.key) return group;
    }
    return groups.emplace_back(SignalGroup{quantity, {}, {}});
  };
  const auto column_named = [&](const std::string& name) {
    return std::find_if(columns.begin(), columns.end(),
                        [&](const Column& c) { return c.name == name; });
  };
  for (const Column& column : columns) {
    if (ends_with(column.name, kReferenceSuffix)) {
      const std::string base = column.name.substr(0, column.name.size() - kReferenceSuffix.size());
      if (column_named(base) != columns.end()) continue;  // drawn with its signal
      SignalGroup& group = group_of(base);
      group.signals.push_back(
          {base + " (reference)", column.points, group.signals.size(), true, false});
      continue;
    }
    SignalGroup& group = group_of(column.name);
    const std::size_t colour = group.signals.size();
    // Integer and Boolean signals hold between communication points: steps.
    group.signals.push_back(
        {column.name, column.points, colour, false, false, is_discrete(log, column.name)});
    const auto reference = column_named(column.name + std::string(kReferenceSuffix));
    if (reference == columns.end()) continue;
    group.signals.push_back({column.name + " (reference)", reference->points, colour, true, false});
    group.errors.push_back({column.name + " - reference",
                            difference(column.points, reference->points), colour, false, false});
  }
  return groups;
}

std::vector<Series> series_of(std::vector<std::pair<std::string, std::vector<Point>>> named,
                              bool markers, bool step) {
  std::vector<Series> series;
  for (auto& [name, points] : named)
    series.push_back({name, std::move(points), series.size(), false, markers, step});
  return series;
}

}  // namespace couplet::tools::report_parts
