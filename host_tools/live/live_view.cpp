#include "host_tools/live/live_view.hpp"

#include <chrono>
#include <exception>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/live/live_publisher.hpp"
#include "host_tools/live/live_sample_ring.hpp"
#include "host_tools/live/live_server.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/simulation/simulation_setup.hpp"

namespace couplet::tools {

namespace {

/// Samples the server thread may fall behind by (it drains every 100 ms): at a
/// 1 kHz communication rate, four seconds.
constexpr std::size_t kRingCapacity = 4096;

LiveServerOptions server_options(const LiveViewOptions& live, const RunOptions& options) {
  LiveServerOptions server = parse_live_endpoint(live.endpoint);
  if (live.control) {
    if (options.interrupt == nullptr) {
      throw ConfigurationError(
          "--live-control: this run has no interrupt handling to stop it with (not under mpirun)");
    }
    const InterruptGuard* interrupt = options.interrupt;
    server.stop = [interrupt] { interrupt->request_stop(); };
  }
  return server;
}

// The checks' verdicts of summary.json as JSON text; empty without checks.
std::string checks_json(const nlohmann::json& summary) {
  return summary.contains("checks") ? summary["checks"].dump() : std::string();
}

// The verdicts of a run that failed: what the checks saw until then.
std::string failed_run_checks_json(const Simulation& simulation) {
  try {
    return checks_json(summary_of(simulation));
  } catch (const std::exception&) {
    return {};  // no summary to be had: the board's state stays on the page
  }
}

LiveState final_state(const nlohmann::json& summary) {
  const std::string status = summary.value("status", "");
  if (status == "completed") return LiveState::completed;
  if (status == "interrupted") return LiveState::stopped;
  return LiveState::failed;
}

}  // namespace

nlohmann::json run_with_live_view(Simulation& simulation, const LiveViewOptions& live,
                                  const RunOptions& options) {
  if (options.mpi != nullptr) throw ConfigurationError("--live: not under mpirun");
  if (live.linger_s < 0) throw ConfigurationError("--live-linger: must be 0 or more seconds");
  const std::vector<std::string> signals = evaluation_signal_names(simulation);
  std::vector<std::size_t> outputs;
  for (const std::string& name : signals) outputs.push_back(simulation.output_index(name));
  LiveSampleRing ring(kRingCapacity, signals.size());
  const std::vector<std::string> checks = simulation.check_names();
  LiveCheckBoard board(checks.size());
  LivePublisher publisher(ring, outputs, board);
  simulation.add_observer(publisher);
  LiveServer server(ring,
                    {simulation.scenario_name(), signals, to_seconds(simulation.start_time()),
                     to_seconds(simulation.end_time()), paced_by_wall_clock(simulation),
                     lateness_tolerance_s(simulation), checks, &board},
                    server_options(live, options));
  const LiveServerOptions endpoint = parse_live_endpoint(live.endpoint);
  std::cerr << "couplet: live view at " << server.url() << "\n";
  if (!is_loopback_address(endpoint.address)) {
    std::cerr << "couplet: warning: the live view listens on " << endpoint.address
              << ": anyone who can reach it can watch this run"
              << (live.control ? " and stop it" : "") << "\n";
  }
  const auto linger = [&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(live.linger_s));
  };
  try {
    simulation.run();
  } catch (...) {
    server.set_state(LiveState::failed, failed_run_checks_json(simulation));
    linger();
    throw;
  }
  nlohmann::json summary = summary_of(simulation);
  server.set_state(final_state(summary), checks_json(summary));
  linger();
  return summary;
}

}  // namespace couplet::tools
