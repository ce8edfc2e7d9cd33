#include "host_tools/live/live_watch.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "host_tools/live/live_sample_ring.hpp"
#include "host_tools/live/live_server.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/clock_spec.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(500);
/// Room for a long finished log's first read; more rows are thinned out.
constexpr std::size_t kRingCapacity = 1 << 16;

/// The log as far as it is written; a header still being written is waited for.
RunLog read_growing_log(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    try {
      return read_run_log(path);
    } catch (const RunLogError&) {
      if (std::chrono::steady_clock::now() >= deadline) throw;
      std::this_thread::sleep_for(kPollInterval);
    }
  }
}

struct LoggedScenario {
  std::string name;
  bool wall_clock = false;
  double tolerance = 0.0005;  // the clock's default (docs/links.md)
};

LoggedScenario logged_scenario(const RunLog& log) {
  LoggedScenario logged{log.scenario_source};
  try {
    // The scenario as the run read it, through the same readers (no second
    // YAML reading of our own).
    const Scenario scenario = parse_scenario(log.scenario_text, log.scenario_source);
    logged.name = scenario.name;
    logged.wall_clock = scenario.clock.wall;
    logged.tolerance = scenario.clock.tolerance;
  } catch (const std::exception&) {
    // The log's own check guards its records; a scenario text we cannot read
    // only costs the page its title and the health section.
  }
  return logged;
}

std::vector<std::string> output_names(const RunLog& log) {
  std::vector<std::string> names;
  for (std::size_t s = 0; s < log.slaves.size(); ++s)
    for (std::size_t p = 0; p < log.slaves[s].description.outputs.size(); ++p)
      names.push_back(log.output_name(s, p));
  return names;
}

std::size_t column(const ExportTable& table, const std::string& name) {
  return static_cast<std::size_t>(std::find(table.columns.begin(), table.columns.end(), name) -
                                  table.columns.begin());
}

LiveState state_of(const LoggedEnd& end) {
  if (end.completed()) return LiveState::completed;
  return end.status == "failed" ? LiveState::failed : LiveState::stopped;
}

/// Feeds the rows of `log` after `published` (s) into the ring, thinned out to
/// half its capacity; returns the latest time published. A row's wall time and
/// lateness are those of the plan that advanced the frontier to its time (the
/// pacer waits after that plan).
double publish_new_rows(const RunLog& log, const std::vector<std::string>& names, double published,
                        LiveSampleRing& ring) {
  const ExportTable table = communication_table(log);
  const std::size_t time_column = column(table, "time_s");
  std::vector<std::size_t> value_columns;
  for (const std::string& name : names) value_columns.push_back(column(table, name));
  std::size_t first = 0;
  while (first < table.rows.size() && table.rows[first][time_column].value_or(-1e300) <= published)
    ++first;
  const std::size_t fresh = table.rows.size() - first;
  const std::size_t stride = fresh / (ring.capacity() / 2) + 1;
  const std::uint64_t first_wall_ns = log.plans.empty() ? 0 : log.plans.front().wall_ns;
  std::size_t plan = 0;
  std::vector<double> values(names.size());
  for (std::size_t r = first; r < table.rows.size(); ++r) {
    if ((r - first) % stride != 0 && r + 1 != table.rows.size()) continue;
    const auto& row = table.rows[r];
    const auto cell = [&](std::size_t c) { return c < row.size() ? row[c].value_or(0.0) : 0.0; };
    const Time time = to_ticks(cell(time_column));
    while (plan < log.plans.size() && log.plans[plan].frontier < time) ++plan;
    const bool reached = plan < log.plans.size() && log.plans[plan].frontier == time;
    // Its plan's record not written yet: the next read publishes it.
    if (!reached && time != log.start) break;
    const double wall = reached ? double(log.plans[plan].wall_ns - first_wall_ns) * 1e-9 : 0.0;
    const double lateness = reached ? double(log.plans[plan].pacer_lateness_ns) * 1e-9 : 0.0;
    for (std::size_t k = 0; k < value_columns.size(); ++k) values[k] = cell(value_columns[k]);
    ring.push_from_stepping_thread({cell(time_column), wall, lateness}, values);
    published = cell(time_column);
  }
  return published;
}

}  // namespace

int watch_log_command(const std::string& log_path, const LiveViewOptions& live,
                      const InterruptGuard& interrupt) {
  RunLog log = read_growing_log(log_path);
  const LoggedScenario scenario = logged_scenario(log);
  const std::vector<std::string> names = output_names(log);
  LiveSampleRing ring(kRingCapacity, names.size());
  const LiveServerOptions endpoint = parse_live_endpoint(live.endpoint);
  LiveServer server(ring,
                    {scenario.name, names, to_seconds(log.start), to_seconds(log.end),
                     scenario.wall_clock, scenario.tolerance},
                    endpoint);
  std::cerr << "couplet: live view of " << log_path << " at " << server.url() << "\n";
  if (!is_loopback_address(endpoint.address)) {
    std::cerr << "couplet: warning: the live view listens on " << endpoint.address
              << ": anyone who can reach it can watch this run\n";
  }
  double published = -1e300;
  for (;;) {
    published = publish_new_rows(log, names, published, ring);
    if (log.end_record) {
      server.set_state(state_of(*log.end_record));
      std::this_thread::sleep_for(std::chrono::duration<double>(live.linger_s));
      return 0;
    }
    for (auto waited = std::chrono::milliseconds(0); waited < kPollInterval;
         waited += std::chrono::milliseconds(50)) {
      if (const int signal_number = interrupt.received(); signal_number != 0)
        return exit_status_for_signal(signal_number);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    log = read_run_log(log_path);
  }
}

}  // namespace couplet::tools
