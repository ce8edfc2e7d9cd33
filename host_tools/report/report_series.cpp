// The data a `couplet report` page plots: the signals grouped by quantity, the
// internal quantities by name (the series themselves come from the digest,
// report_digest.cpp, and signals.csv, report_bounded.cpp).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host_tools/report/report_parts.hpp"

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

std::vector<SignalGroup> group_by_quantity(const RunLog& log, const SignalColumns& signals) {
  const std::vector<Column>& columns = signals.columns;
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
  for (std::size_t k = 0; k < columns.size(); ++k) {
    const Column& column = columns[k];
    if (ends_with(column.name, kReferenceSuffix)) {
      const std::string base = column.name.substr(0, column.name.size() - kReferenceSuffix.size());
      if (column_named(base) != columns.end()) continue;  // drawn with its signal
      SignalGroup& group = group_of(base);
      group.signals.push_back({base + " (reference)", column.points, group.signals.size(), true,
                               false, false, column.total});
      continue;
    }
    SignalGroup& group = group_of(column.name);
    const std::size_t colour = group.signals.size();
    // Integer and Boolean signals hold between communication points: steps.
    group.signals.push_back({column.name, column.points, colour, false, false,
                             is_discrete(log, column.name), column.total});
    const auto reference = column_named(column.name + std::string(kReferenceSuffix));
    if (reference == columns.end()) continue;
    group.signals.push_back({column.name + " (reference)", reference->points, colour, true, false,
                             false, reference->total});
    // The error was taken row by row as signals.csv was read (signals_from_csv).
    if (k < signals.errors.size()) {
      const Column& error = signals.errors[k];
      group.errors.push_back(
          {column.name + " - reference", error.points, colour, false, false, false, error.total});
    }
  }
  return groups;
}

}  // namespace couplet::tools::report_parts
