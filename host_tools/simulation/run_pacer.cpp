#include "host_tools/simulation/run_pacer.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "drivers/realtime_setup.hpp"

namespace couplet::tools {

namespace {

// Lateness samples kept for exact percentiles: one per 100 us of model time,
// at most 4 Mi (32 MiB); min, max and counts stay exact beyond.
std::size_t sample_capacity(Time start, Time end, bool wall) {
  if (!wall) return 0;
  const auto cycles = static_cast<std::size_t>((end - start) / 100'000 + 1);
  return std::min<std::size_t>(cycles, std::size_t{1} << 22);
}

nlohmann::json microseconds(const drivers::LatenessStatistics& statistics) {
  const auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1e3; };
  return {{"min", us(statistics.min_ns())},
          {"median", us(statistics.quantile_ns(0.5))},
          {"p99", us(statistics.quantile_ns(0.99))},
          {"max", us(statistics.max_ns())}};
}

nlohmann::json histogram(const drivers::LatenessStatistics& statistics) {
  nlohmann::json buckets = nlohmann::json::array();
  const std::vector<std::uint64_t> counts = statistics.histogram(18);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    const double lower = drivers::LatenessStatistics::bucket_lower_us(k);
    const double upper =
        k + 1 < counts.size() ? drivers::LatenessStatistics::bucket_lower_us(k + 1) : INFINITY;
    buckets.push_back(
        {{"from_us", std::isinf(lower) ? nlohmann::json(nullptr) : nlohmann::json(lower)},
         {"to_us", std::isinf(upper) ? nlohmann::json(nullptr) : nlohmann::json(upper)},
         {"cycles", counts[k]}});
  }
  return buckets;
}

}  // namespace

RunPacer::RunPacer(const ClockSpec& spec, System& system, Time start, Time end)
    : spec_(spec),
      clock_(start, spec.realtime_factor),
      lateness_(sample_capacity(start, end, spec.wall)),
      frontier_(start),
      tolerance_ns_(static_cast<std::int64_t>(std::llround(spec.tolerance * 1e9))),
      heartbeat_ns_(static_cast<std::int64_t>(std::llround(spec.heartbeat * 1e9))) {
  for (std::size_t s = 0; s < system.slave_count(); ++s) {
    auto* remote = dynamic_cast<drivers::LinkedSlave*>(&system.slave(s));
    if (remote == nullptr) continue;
    if (!spec.wall) {
      if (remote->runs_in_real_time()) {
        throw ConfigurationError(
            "slave '" + system.slave_name(s) +
            "' runs in real time on its target: the scenario needs clock: {type: wall}");
      }
      continue;
    }
    remotes_.push_back(remote);
    remote_names_.push_back(system.slave_name(s));
    input_lateness_.push_back(
        std::make_unique<drivers::LatenessStatistics>(sample_capacity(start, end, true)));
    remote->bind_wall_clock(clock_,
                            {spec.on_late, spec.max_misses,
                             std::chrono::nanoseconds(
                                 static_cast<std::int64_t>(std::llround(spec.max_miss_time * 1e9))),
                             std::chrono::nanoseconds(tolerance_ns_)},
                            input_lateness_.back().get());
  }
}

void RunPacer::start() {
  if (!spec_.wall) return;
  if (spec_.priority > 0) {
    for (const std::string& warning : drivers::enter_realtime({spec_.priority, -1})) {
      std::fprintf(stderr, "couplet: warning: %s\n", warning.c_str());
    }
  } else {
    // A normal thread's wake-ups are coalesced by up to 50 us: ask for none.
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  }
  // Start every real-time target first, then anchor: their clocks and ours then
  // differ by about half a round trip.
  for (drivers::LinkedSlave* remote : remotes_) {
    if (remote->runs_in_real_time()) remote->send_start(spec_.realtime_factor);
  }
  clock_.start();
  for (drivers::LinkedSlave* remote : remotes_) {
    if (remote->runs_in_real_time()) remote->await_start();
  }
}

void RunPacer::sleep_with_heartbeats(Time frontier) {
  const std::int64_t deadline = clock_.deadline_ns(frontier);
  for (;;) {
    const std::int64_t now = drivers::monotonic_now_ns();
    if (remotes_.empty() || deadline - now <= heartbeat_ns_) return;
    const std::int64_t wake = now + heartbeat_ns_;
    const timespec until{static_cast<time_t>(wake / 1'000'000'000),
                         static_cast<long>(wake % 1'000'000'000)};
    ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    for (drivers::LinkedSlave* remote : remotes_) remote->heartbeat();
  }
}

std::int64_t RunPacer::after_advance(Time frontier) {
  if (!spec_.wall || frontier <= frontier_) return 0;
  frontier_ = frontier;
  sleep_with_heartbeats(frontier);
  const std::int64_t lateness = clock_.sleep_until(frontier);
  lateness_.add(lateness, lateness > tolerance_ns_);
  return lateness;
}

nlohmann::json RunPacer::report() const {
  nlohmann::json section;
  section["realtime_factor"] = spec_.realtime_factor;
  section["tolerance_s"] = spec_.tolerance;
  section["on_late"] = late_policy_name(spec_.on_late);
  section["max_misses"] = spec_.max_misses;
  section["max_miss_time_s"] = spec_.max_miss_time;
  section["priority"] = spec_.priority;
  section["cycles"] = lateness_.cycles();
  section["overruns"] = lateness_.overruns();
  section["lateness_us"] = microseconds(lateness_);
  section["lateness_histogram"] = histogram(lateness_);
  std::uint64_t missed = 0;
  for (std::size_t r = 0; r < remotes_.size(); ++r) {
    const drivers::LinkCounters& counters = remotes_[r]->counters();
    missed += counters.missed_results;
    nlohmann::json& slave = section["slaves"][remote_names_[r]];
    slave["real_time_target"] = remotes_[r]->runs_in_real_time();
    slave["missed_results"] = counters.missed_results;
    slave["late_results"] = counters.late_results;
    if (remotes_[r]->runs_in_real_time()) {
      slave["input_lateness_us"] = microseconds(*input_lateness_[r]);
      slave["periods_without_fresh_input"] = counters.stale_inputs;
    }
  }
  section["missed_results"] = missed;
  return section;
}

}  // namespace couplet::tools
