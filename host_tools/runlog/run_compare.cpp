#include "host_tools/runlog/run_compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "host_tools/runlog/signal_table.hpp"
#include "runtime/decision_hash.hpp"

namespace couplet::tools {

namespace {

namespace fs = std::filesystem;

/// One side of the comparison: what a run directory or a run log gives.
struct RunSide {
  SignalTable signals;
  std::optional<std::string> decision_hash;  ///< as summary.json writes it
  std::string log_path;                      ///< empty: no run log
};

/// `read(path)` with a log that cannot be read reported as bad input.
template <typename Read>
auto reading_log(const std::string& path, Read&& read) {
  try {
    return read(path);
  } catch (const RunLogError& error) {
    throw ConfigurationError(error.what());
  }
}

std::optional<std::string> summary_hash(const fs::path& path) {
  if (!fs::exists(path)) return std::nullopt;
  std::ifstream file(path);
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throw ConfigurationError("'" + path.string() + "': not valid JSON: " + error.what());
  }
  const auto hash = summary.find("decision_hash");
  if (hash == summary.end() || !hash->is_string()) return std::nullopt;
  return hash->get<std::string>();
}

RunSide read_side(const std::string& path) {
  if (fs::is_directory(path)) {
    const fs::path directory(path);
    RunSide side{read_signals_csv((directory / "signals.csv").string()),
                 summary_hash(directory / "summary.json"),
                 {}};
    if (fs::exists(directory / "run.log")) side.log_path = (directory / "run.log").string();
    return side;
  }
  if (!fs::exists(path))
    throw ConfigurationError("'" + path + "': no such run directory or run log");
  // Streamed: the signals on the grid are kept, not the log.
  return reading_log(path, [](const std::string& log_path) {
    RunLogReading reading(log_path);
    RunSide side;
    side.signals = signals_of_log(reading);
    const std::optional<LoggedEnd>& end = reading.log().end_record;
    if (end && end->completed()) side.decision_hash = hash_text(end->decision_hash);
    side.log_path = log_path;
    return side;
  });
}

void check_same_grid(const SignalTable& a, const SignalTable& b) {
  const std::string both = "the time grids of '" + a.source + "' and '" + b.source + "' differ: ";
  if (a.times.size() != b.times.size()) {
    throw ConfigurationError(both + std::to_string(a.times.size()) + " vs " +
                             std::to_string(b.times.size()) +
                             " times (compare runs on the same evaluation grid)");
  }
  for (std::size_t k = 0; k < a.times.size(); ++k) {
    if (a.times[k] != b.times[k]) {
      throw ConfigurationError(both + "time " + std::to_string(k + 1) + " is " +
                               exact_text(a.times[k]) + " s vs " + exact_text(b.times[k]) +
                               " s (compare runs on the same evaluation grid)");
    }
  }
}

/// The signals to compare, in the order of `a`; fills the one-sided lists.
std::vector<std::string> chosen_signals(const SignalTable& a, const SignalTable& b,
                                        const CompareOptions& options, RunComparison& comparison) {
  for (const std::string& name : a.names)
    if (b.find(name) == b.names.size()) comparison.only_in_a.push_back(name);
  for (const std::string& name : b.names)
    if (a.find(name) == a.names.size()) comparison.only_in_b.push_back(name);
  if (options.signals.empty()) {
    std::vector<std::string> common;
    for (const std::string& name : a.names)
      if (b.find(name) != b.names.size()) common.push_back(name);
    return common;
  }
  for (const std::string& name : options.signals) {
    for (const SignalTable* table : {&a, &b}) {
      if (table->find(name) == table->names.size())
        throw ConfigurationError("--signals: '" + name + "' is not a signal of '" + table->source +
                                 "'");
    }
  }
  return options.signals;
}

SignalComparison compare_signal(const std::string& name, const SignalTable& a, const SignalTable& b,
                                const CompareOptions& options) {
  const std::vector<double>& values_a = a.columns[a.find(name)];
  const std::vector<double>& values_b = b.columns[b.find(name)];
  constexpr double infinity = std::numeric_limits<double>::infinity();
  SignalComparison result{name, 0.0, 0.0, std::nullopt};
  for (std::size_t k = 0; k < values_a.size(); ++k) {
    const double x = values_a[k];
    const double y = values_b[k];
    // Two NaNs are the same missing value; a NaN against a number is not.
    const bool both_nan = std::isnan(x) && std::isnan(y);
    const double absolute = both_nan                           ? 0.0
                            : (std::isnan(x) || std::isnan(y)) ? infinity
                                                               : std::fabs(x - y);
    const double relative = absolute == 0.0 ? 0.0 : y == 0.0 ? infinity : absolute / std::fabs(y);
    result.max_absolute = std::max(result.max_absolute, absolute);
    result.max_relative = std::max(result.max_relative, relative);
    const double allowed =
        options.tolerance + options.relative * (std::isnan(y) ? 0.0 : std::fabs(y));
    if (!result.first_beyond && absolute > allowed) result.first_beyond = a.times[k];
  }
  return result;
}

void compare_decisions(const RunSide& a, const RunSide& b, RunComparison& comparison) {
  if (a.decision_hash && b.decision_hash && *a.decision_hash == *b.decision_hash) {
    comparison.same_decisions = true;
    comparison.decisions = "same decisions (decision hash " + *a.decision_hash + ")";
    return;
  }
  const bool hashes_differ = a.decision_hash && b.decision_hash;
  const std::string hashes =
      hashes_differ ? "decision hashes " + *a.decision_hash + " vs " + *b.decision_hash : "";
  if (a.log_path.empty() || b.log_path.empty()) {
    comparison.decisions = hashes_differ
                               ? "different decisions (" + hashes +
                                     "); no run log in both runs to find the first difference"
                               : "decisions not compared: no decision hash or run log in both runs";
    return;
  }
  // Both logs streamed call by call, in step.
  comparison.first_difference = reading_log(a.log_path, [&](const std::string& path_a) {
    RunLogStream stream_a(path_a);
    return reading_log(b.log_path, [&](const std::string& path_b) {
      RunLogStream stream_b(path_b);
      return first_decision_difference(stream_a, stream_b);
    });
  });
  if (const auto& difference = comparison.first_difference) {
    comparison.decisions =
        "first different decisions: " + plan_text(*difference) + ": " + difference->what;
    return;
  }
  comparison.same_decisions = !hashes_differ;
  comparison.decisions = hashes_differ ? "every logged call is the same, but the " + hashes
                                       : "same decisions (every logged call)";
}

/// Times and tolerances for people: up to nine significant digits.
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string number_text(double value) {
  if (value == 0.0) return "0";
  char text[32];
  std::snprintf(text, sizeof text, "%.3e", value);
  return text;
}

}  // namespace

bool RunComparison::within_tolerance() const {
  return std::none_of(signals.begin(), signals.end(), [](const SignalComparison& signal) {
    return signal.first_beyond.has_value();
  });
}

RunComparison compare_runs(const std::string& a, const std::string& b,
                           const CompareOptions& options) {
  const RunSide side_a = read_side(a);
  const RunSide side_b = read_side(b);
  check_same_grid(side_a.signals, side_b.signals);
  RunComparison comparison;
  comparison.signals_a = side_a.signals.source;
  comparison.signals_b = side_b.signals.source;
  for (const std::string& name :
       chosen_signals(side_a.signals, side_b.signals, options, comparison))
    comparison.signals.push_back(compare_signal(name, side_a.signals, side_b.signals, options));
  compare_decisions(side_a, side_b, comparison);
  return comparison;
}

std::string comparison_table(const RunComparison& comparison, const CompareOptions& options) {
  std::size_t width = std::string("signal").size();
  for (const SignalComparison& signal : comparison.signals)
    width = std::max(width, signal.name.size());
  std::string table = "  A: " + comparison.signals_a + "\n  B: " + comparison.signals_b + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s  %10s  %10s  %s\n", static_cast<int>(width), "signal",
                "max abs", "max rel", "first beyond tolerance");
  table += line;
  for (const SignalComparison& signal : comparison.signals) {
    const std::string first =
        signal.first_beyond ? "t = " + short_number(*signal.first_beyond) + " s" : "-";
    std::snprintf(line, sizeof line, "  %-*s  %10s  %10s  %s\n", static_cast<int>(width),
                  signal.name.c_str(), number_text(signal.max_absolute).c_str(),
                  number_text(signal.max_relative).c_str(), first.c_str());
    table += line;
  }
  const auto list = [&](const char* run, const std::vector<std::string>& names) {
    if (names.empty()) return;
    table += std::string("  only in ") + run + " (ignored):";
    for (const std::string& name : names) table += " " + name;
    table += "\n";
  };
  list("A", comparison.only_in_a);
  list("B", comparison.only_in_b);
  table += "  decisions: " + comparison.decisions + "\n";
  const auto beyond =
      std::count_if(comparison.signals.begin(), comparison.signals.end(),
                    [](const SignalComparison& signal) { return signal.first_beyond.has_value(); });
  table += "  tolerance: |a - b| <= " + short_number(options.tolerance) + " + " +
           short_number(options.relative) + " |b|: " +
           (beyond == 0 ? "every signal within"
                        : std::to_string(beyond) + " of " +
                              std::to_string(comparison.signals.size()) + " signals beyond") +
           "\n";
  return table;
}

int compare_command(const std::string& a, const std::string& b, const CompareOptions& options) {
  const RunComparison comparison = compare_runs(a, b, options);
  std::cout << comparison_table(comparison, options);
  return comparison.within_tolerance() ? 0 : kExitBeyondTolerance;
}

}  // namespace couplet::tools
