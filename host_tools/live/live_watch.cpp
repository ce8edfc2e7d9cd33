#include "host_tools/live/live_watch.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <iostream>
#include <memory>
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

/// The log followed from its start; a structure still being written is waited for.
std::unique_ptr<CommunicationRowsFollower> follow_growing_log(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    try {
      return std::make_unique<CommunicationRowsFollower>(path);
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

/// Where the master stood after a plan: the wall time and lateness of the row
/// whose time the plan advanced the frontier to (the pacer waits after it).
struct PlanClock {
  Time frontier = 0;
  std::uint64_t wall_ns = 0;
  std::int64_t lateness_ns = 0;
};

/// The communication rows of one read of the log, on their way to the ring:
/// the rows' outputs, with each row's wall time and lateness from its plan, in
/// at most half the ring — a long log read at once (a finished run) is thinned
/// out evenly by keeping every other row whenever the half is full, its last row
/// kept — so that memory does not grow with the log.
class RowsToRing final : public TableSink {
 public:
  RowsToRing(const std::vector<std::string>& names, LiveSampleRing& ring)
      : names_(names), ring_(ring), room_(std::max<std::size_t>(ring.capacity() / 2, 2)) {}

  /// Each plan record as read, before the rows it settles.
  void plan(const LoggedPlan& plan) {
    if (!first_wall_ns_) first_wall_ns_ = plan.wall_ns;
    plans_.push_back({plan.frontier, plan.wall_ns, plan.pacer_lateness_ns});
  }

  void header(const ExportTable& table) override {
    time_column_ = column(table, "time_s");
    value_columns_.clear();
    for (const std::string& name : names_) value_columns_.push_back(column(table, name));
  }

  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>>) override {
    const auto cell = [&](std::size_t c) { return c < row.size() ? row[c].value_or(0.0) : 0.0; };
    Pending pending{{cell(time_column_), 0.0, 0.0}, {}};
    const Time time = to_ticks(pending.sample.simulation_time);
    while (!plans_.empty() && plans_.front().frontier < time) plans_.pop_front();
    if (!plans_.empty() && plans_.front().frontier == time) {
      pending.sample.wall_time = double(plans_.front().wall_ns - first_wall_ns_.value_or(0)) * 1e-9;
      pending.sample.lateness = double(plans_.front().lateness_ns) * 1e-9;
    }
    for (const std::size_t c : value_columns_) pending.values.push_back(cell(c));
    if (seen_++ % stride_ != 0) {
      last_ = std::move(pending);  // passed on at flush() if no later row is
      return;
    }
    last_.reset();
    kept_.push_back(std::move(pending));
    if (kept_.size() < room_) return;
    // Full: keep every other row, and from now on every other one of those to come.
    std::size_t kept = 0;
    for (std::size_t k = 0; k < kept_.size(); k += 2) kept_[kept++] = std::move(kept_[k]);
    kept_.resize(kept);
    stride_ *= 2;
  }

  /// Publishes the rows kept and starts the next read afresh.
  void flush() {
    if (last_) kept_.push_back(std::move(*last_));
    for (const Pending& pending : kept_)
      ring_.push_from_stepping_thread(pending.sample, pending.values);
    kept_.clear();
    last_.reset();
    seen_ = 0;
    stride_ = 1;
  }

 private:
  struct Pending {
    LiveSample sample;
    std::vector<double> values;
  };

  const std::vector<std::string>& names_;
  LiveSampleRing& ring_;
  std::size_t room_;
  std::size_t time_column_ = 0;
  std::vector<std::size_t> value_columns_;
  std::deque<PlanClock> plans_;
  std::optional<std::uint64_t> first_wall_ns_;
  std::vector<Pending> kept_;
  std::optional<Pending> last_;
  std::size_t seen_ = 0;
  std::size_t stride_ = 1;
};

}  // namespace

// The log is followed record by record (CommunicationRowsFollower): each read
// takes only what the writer added since the last one.
int watch_log_command(const std::string& log_path, const LiveViewOptions& live,
                      const InterruptGuard& interrupt) {
  const std::unique_ptr<CommunicationRowsFollower> follower = follow_growing_log(log_path);
  const RunLog& log = follower->log();
  const LoggedScenario scenario = logged_scenario(log);
  const std::vector<std::string> names = output_names(log);
  LiveSampleRing ring(kRingCapacity, names.size());
  const LiveServerOptions endpoint = parse_live_endpoint(live.endpoint);
  LiveServer server(ring,
                    {scenario.name,
                     names,
                     to_seconds(log.start),
                     to_seconds(log.end),
                     scenario.wall_clock,
                     scenario.tolerance,
                     {},
                     nullptr},
                    endpoint);
  std::cerr << "couplet: live view of " << log_path << " at " << server.url() << "\n";
  if (!is_loopback_address(endpoint.address)) {
    std::cerr << "couplet: warning: the live view listens on " << endpoint.address
              << ": anyone who can reach it can watch this run\n";
  }
  RowsToRing rows(names, ring);
  const PlanRecords plans = [&](const LoggedPlan& plan) { rows.plan(plan); };
  for (;;) {
    const bool ended = follower->follow(rows, plans);
    rows.flush();
    // A log damaged inside, or one cut for good, is watched until Ctrl-C.
    if (ended && log.end_record) {
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
  }
}

}  // namespace couplet::tools
