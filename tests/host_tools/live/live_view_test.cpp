// The live view (docs/live.md): the sample ring between the stepping thread
// and the server, the publisher that fills it without allocating, and `couplet
// run --live` end to end — /status during a wall-clock run, the WebSocket with
// five clients, a client that stops reading, the page in headless Chromium.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "couplet/simulation.hpp"
#include "host_tools/live/live_publisher.hpp"
#include "host_tools/live/live_sample_ring.hpp"
#include "host_tools/live/live_server.hpp"
#include "host_tools/process_support.hpp"
#include "host_tools/simulation/simulation_setup.hpp"
#include "host_tools/test_support.hpp"
#include "support/allocation_counter.hpp"
#include "support/sanitizer.hpp"

namespace couplet::tools {
namespace {

namespace fs = std::filesystem;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

/// An empty directory of this test run's own.
fs::path empty_directory(const std::string& name) {
  const fs::path directory = testing::fresh_directory(name);
  fs::create_directories(directory);
  return directory;
}

// ---------------------------------------------------------------- the ring

TEST(LiveSampleRing, HandsOverSamplesInOrderWithTheirValues) {
  LiveSampleRing ring(8, 2);
  for (int k = 0; k < 5; ++k) {
    const std::array<double, 2> values{k * 1.0, k * 10.0};
    EXPECT_TRUE(ring.push_from_stepping_thread({k * 0.5, k * 0.25, k * 1e-6}, values));
  }
  std::vector<double> times;
  std::vector<double> second_values;
  EXPECT_EQ(
      ring.drain_from_server_thread([&](const LiveSample& sample, std::span<const double> values) {
        times.push_back(sample.simulation_time);
        second_values.push_back(values[1]);
      }),
      5u);
  EXPECT_EQ(times, (std::vector<double>{0.0, 0.5, 1.0, 1.5, 2.0}));
  EXPECT_EQ(second_values, (std::vector<double>{0.0, 10.0, 20.0, 30.0, 40.0}));
  EXPECT_EQ(ring.drain_from_server_thread([](const LiveSample&, std::span<const double>) {}), 0u);
  EXPECT_EQ(ring.dropped(), 0u);
}

TEST(LiveSampleRing, AFullRingDropsAndCountsInsteadOfWaiting) {
  LiveSampleRing ring(4, 1);
  for (int k = 0; k < 7; ++k) {
    const std::array<double, 1> value{double(k)};
    EXPECT_EQ(ring.push_from_stepping_thread({double(k)}, value), k < 4) << k;
  }
  EXPECT_EQ(ring.dropped(), 3u);
  std::vector<double> kept;
  ring.drain_from_server_thread(
      [&](const LiveSample&, std::span<const double> values) { kept.push_back(values[0]); });
  EXPECT_EQ(kept, (std::vector<double>{0, 1, 2, 3}));  // the oldest are kept, the newest dropped
  // Room again once drained; the slots wrap around.
  for (int k = 10; k < 14; ++k) {
    const std::array<double, 1> value{double(k)};
    EXPECT_TRUE(ring.push_from_stepping_thread({double(k)}, value));
  }
  kept.clear();
  ring.drain_from_server_thread(
      [&](const LiveSample&, std::span<const double> values) { kept.push_back(values[0]); });
  EXPECT_EQ(kept, (std::vector<double>{10, 11, 12, 13}));
  EXPECT_EQ(ring.dropped(), 3u);
}

TEST(LiveSampleRing, ProducerAndConsumerThreadsLoseNothingWhenThereIsRoom) {
  LiveSampleRing ring(64, 1);
  constexpr int kSamples = 200'000;
  std::atomic<bool> done{false};
  std::vector<double> received;
  std::thread server([&] {
    while (!done.load() || received.size() + ring.dropped() < kSamples) {
      ring.drain_from_server_thread([&](const LiveSample& sample, std::span<const double> values) {
        EXPECT_EQ(sample.simulation_time, values[0]);
        received.push_back(values[0]);
      });
      if (received.size() + ring.dropped() >= kSamples) break;
    }
  });
  for (int k = 0; k < kSamples; ++k) {
    const std::array<double, 1> value{double(k)};
    ring.push_from_stepping_thread({double(k)}, value);
  }
  done = true;
  server.join();
  EXPECT_EQ(received.size() + ring.dropped(), std::size_t(kSamples));
  for (std::size_t k = 1; k < received.size(); ++k) ASSERT_LT(received[k - 1], received[k]);
}

// ---------------------------------------------------------------- the publisher

Simulation two_mass_switch(const std::string& end) {
  return Simulation::from_scenario(testing::scenario_path("two_mass_switch.yaml"),
                                   {{"time.end", end}}, {});
}

std::vector<std::size_t> signal_indices(const Simulation& simulation) {
  std::vector<std::size_t> indices;
  for (const std::string& name : evaluation_signal_names(simulation))
    indices.push_back(simulation.output_index(name));
  return indices;
}

TEST(LivePublisher, PublishesEveryCommunicationPointWithoutAllocating) {
  Simulation simulation = two_mass_switch("2");
  EXPECT_EQ(evaluation_signal_names(simulation), (std::vector<std::string>{"left.x", "left.v"}));
  LiveSampleRing ring(1024, 2);
  LiveCheckBoard no_checks(0);
  LivePublisher publisher(ring, signal_indices(simulation), no_checks);
  simulation.add_observer(publisher);
  simulation.step_until(to_ticks(0.01));  // the first step sizes the buffers
  std::vector<LiveSample> samples;
  ring.drain_from_server_thread(
      [&](const LiveSample& sample, std::span<const double>) { samples.push_back(sample); });
  const long before = testing::allocations();
  simulation.step_until(to_ticks(1.5));
  EXPECT_EQ(testing::allocations() - before, 0);
  std::vector<double> last_values;
  ring.drain_from_server_thread([&](const LiveSample& sample, std::span<const double> values) {
    samples.push_back(sample);
    last_values.assign(values.begin(), values.end());
  });
  // One sample per communication point (step 0.01 s), times exact to the step.
  ASSERT_EQ(samples.size(), 150u);
  for (std::size_t k = 0; k < samples.size(); ++k)
    EXPECT_NEAR(samples[k].simulation_time, 0.01 * double(k + 1), 1e-12) << k;
  EXPECT_EQ(last_values,
            (std::vector<double>{simulation.output("left.x"), simulation.output("left.v")}));
  EXPECT_EQ(samples.back().lateness, 0.0);  // no wall clock
  EXPECT_EQ(ring.dropped(), 0u);
}

TEST(LivePublisher, RefusesARingOfAnotherWidth) {
  LiveSampleRing ring(8, 3);
  LiveCheckBoard no_checks(0);
  EXPECT_THROW(LivePublisher(ring, {0, 1}, no_checks), std::invalid_argument);
}

// ---------------------------------------------------------------- clients

std::string http_get(unsigned short port, const std::string& target,
                     http::verb verb = http::verb::get, unsigned* status = nullptr) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  http::request<http::string_body> request{verb, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.prepare_payload();
  http::write(stream, request);
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  if (status != nullptr) *status = response.result_int();
  return response.body();
}

nlohmann::json status_of(unsigned short port) {
  return nlohmann::json::parse(http_get(port, "/status"));
}

class WebSocketClient {
 public:
  /// `receive_buffer`: the socket's SO_RCVBUF (0: the system's), small for a
  /// client meant to stall.
  explicit WebSocketClient(unsigned short port, int receive_buffer = 0) : stream_(io_) {
    tcp::socket& socket = stream_.next_layer();
    socket.open(tcp::v4());
    if (receive_buffer > 0)
      socket.set_option(asio::socket_base::receive_buffer_size(receive_buffer));
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    stream_.handshake("127.0.0.1", "/ws");
  }
  nlohmann::json next() {
    beast::flat_buffer buffer;
    stream_.read(buffer);
    return nlohmann::json::parse(beast::buffers_to_string(buffer.data()));
  }

 private:
  asio::io_context io_;
  websocket::stream<tcp::socket> stream_;
};

long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

TEST(LiveView, SteppingThreadAllocatesNothingWithAClientConnected) {
  Simulation simulation = two_mass_switch("3");
  LiveSampleRing ring(4096, 2);
  LiveCheckBoard no_checks(0);
  LivePublisher publisher(ring, signal_indices(simulation), no_checks);
  simulation.add_observer(publisher);
  LiveServer server(ring, {"two_mass_switch", {"left.x", "left.v"}, 0, 3}, {});
  WebSocketClient client(server.port());
  std::atomic<int> messages{0};
  std::thread reader([&] {
    while (messages.load() < 1000) {
      const nlohmann::json message = client.next();
      ++messages;
      if (message["status"]["state"] == "completed") break;
    }
  });
  simulation.step_until(to_ticks(0.01));
  const long before = testing::allocations_on_this_thread();
  // Slowly, so that the server drains and sends while the run goes.
  for (int k = 1; k <= 30; ++k) {
    simulation.step_until(to_ticks(0.1 * k));
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(testing::allocations_on_this_thread() - before, 0);
  server.set_state(LiveState::completed);
  reader.join();
  EXPECT_GT(messages.load(), 1);
  EXPECT_EQ(ring.dropped(), 0u);
}

// ---------------------------------------------------------------- couplet run --live

/// A 4 s wall-clock run of the two-mass oscillator (scenarios/two_mass_switch.yaml).
/// `checks`: the scenario's checks: section, if any.
fs::path wall_clock_scenario(const fs::path& directory, double end = 4,
                             const std::string& checks = "") {
  const fs::path path = directory / "live_wall.yaml";
  std::ofstream(path) << "name: live_wall\n"
                         "time: {start: 0, end: "
                      << end << "}\n"
                      << "slaves:\n"
                         "  left:\n"
                         "    model: translational.mass\n"
                         "    parameters: {m: 10, c: 1, d: 0.1, x0: 1, v0: 0}\n"
                         "  right:\n"
                         "    model: translational.coupled_mass\n"
                         "    parameters: {m: 1, c_wall: 1, d_wall: 0.1, c_coupling: 1, "
                         "d_coupling: 0.2, x0: 0, v0: 0,\n"
                         "                 switch_time: 100, c_wall_after: 4, anchor_after: 1}\n"
                         "connections:\n"
                         "  - {from: left.x, to: right.x}\n"
                         "  - {from: left.v, to: right.v}\n"
                         "  - {from: right.f, to: left.f}\n"
                         "algorithm: {type: jacobi, step: 0.01, input_order: 0}\n"
                         "clock: {type: wall, tolerance: 0.005}\n"
                         "evaluation:\n"
                         "  grid: 0.01\n"
                         "  signals: [left.x, left.v, right.f]\n"
                      << checks;
  return path;
}

/// left.x starts at 1 and falls below 0.99 within the first second; it stays
/// below 5 throughout.
const std::string kLiveChecks =
    "checks:\n"
    "  - {name: left_stays_up, signal: left.x, min: 0.99}\n"
    "  - {name: left_bounded, signal: left.x, max: 5}\n";

/// `couplet run --live 0` on `scenario`; the port read from its stderr.
class LiveRun {
 public:
  LiveRun(const fs::path& scenario, const fs::path& directory, std::vector<std::string> extra = {})
      : stderr_path_(directory / "stderr.txt"),
        process_(arguments(scenario, directory, std::move(extra)), stderr_path_.string()) {
    const std::regex url("live view at http://127\\.0\\.0\\.1:([0-9]+)/");
    for (int attempt = 0; attempt < 500 && port_ == 0; ++attempt) {
      std::smatch match;
      const std::string text = testing::read_file(stderr_path_);
      if (std::regex_search(text, match, url))
        port_ = static_cast<unsigned short>(std::stoi(match[1]));
      else
        std::this_thread::sleep_for(20ms);
    }
    if (port_ == 0)
      throw std::runtime_error("no live URL on stderr: " + testing::read_file(stderr_path_));
  }
  unsigned short port() const { return port_; }
  testing::ChildProcess& process() { return process_; }
  std::string errors() const { return testing::read_file(stderr_path_); }

 private:
  static std::vector<std::string> arguments(const fs::path& scenario, const fs::path& directory,
                                            std::vector<std::string> extra) {
    std::vector<std::string> words{
        COUPLET_BINARY, "run", scenario.string(), "-o", (directory / "out").string(), "--quiet",
        "--live",       "0"};
    words.insert(words.end(), extra.begin(), extra.end());
    return words;
  }
  fs::path stderr_path_;
  testing::ChildProcess process_;
  unsigned short port_ = 0;
};

TEST(LiveView, StatusTimeAdvancesDuringAWallClockRunAndEndsCompleted) {
  const fs::path directory = empty_directory("live-status");
  LiveRun run(wall_clock_scenario(directory), directory, {"--live-linger", "3"});
  std::this_thread::sleep_for(1s);
  const nlohmann::json early = status_of(run.port());
  std::this_thread::sleep_for(1s);
  const nlohmann::json later = status_of(run.port());
  EXPECT_EQ(early["scenario"], "live_wall");
  EXPECT_EQ(early["state"], "running");
  EXPECT_EQ(early["end_time"], 4.0);
  EXPECT_EQ(early["wall_clock"], true);
  EXPECT_GT(early["time"].get<double>(), 0.3);
  EXPECT_GT(later["time"].get<double>(),
            early["time"].get<double>() + 0.5);  // ~1 s per wall second
  EXPECT_NEAR(later["realtime_factor"].get<double>(), 1.0, 0.1);
  EXPECT_GT(later["wall_time"].get<double>(), early["wall_time"].get<double>());
  EXPECT_EQ(later["dropped_samples"], 0);
  EXPECT_EQ(later["checks"], nlohmann::json::array());  // the scenario has none
  // The run ends (4 s) and the page keeps being served for the linger.
  std::this_thread::sleep_for(2500ms);
  const nlohmann::json final_status = status_of(run.port());
  EXPECT_EQ(final_status["state"], "completed");
  EXPECT_NEAR(final_status["time"].get<double>(), 4.0, 1e-9);
  EXPECT_EQ(final_status["progress"], 1.0);
  // Read-only without --live-control.
  unsigned code = 0;
  http_get(run.port(), "/stop", http::verb::post, &code);
  EXPECT_EQ(code, 403u);
  http_get(run.port(), "/nothing", http::verb::get, &code);
  EXPECT_EQ(code, 404u);
  EXPECT_EQ(run.process().wait_exit(10s), 0) << run.errors();
}

TEST(LiveView, StatusShowsACheckFailingWhileTheRunGoesAndTheVerdictsAtItsEnd) {
  const fs::path directory = empty_directory("live-checks");
  LiveRun run(wall_clock_scenario(directory, 3, kLiveChecks), directory, {"--live-linger", "3"});
  std::this_thread::sleep_for(2s);
  const nlohmann::json running = status_of(run.port());
  ASSERT_EQ(running["state"], "running") << running;
  ASSERT_EQ(running["checks"].size(), 2u) << running;
  const nlohmann::json& up = running["checks"][0];
  EXPECT_EQ(up["name"], "left_stays_up");
  EXPECT_EQ(up["passed"], false);  // violated already: failed whatever comes
  const double violated_at = up["first_violation_time"].get<double>();
  EXPECT_GT(violated_at, 0.0);
  EXPECT_LT(violated_at, running["time"].get<double>());
  EXPECT_TRUE(running["checks"][1]["passed"].is_null());  // holding so far
  std::this_thread::sleep_for(2s);
  const nlohmann::json ended = status_of(run.port());
  EXPECT_EQ(ended["state"], "completed");
  const nlohmann::json summary =
      nlohmann::json::parse(testing::read_file(directory / "out" / "summary.json"));
  EXPECT_EQ(ended["checks"], summary["checks"]);  // the run's own verdicts
  EXPECT_EQ(ended["checks"][0]["first_violation_time"], violated_at);
  EXPECT_EQ(ended["checks"][1]["passed"], true);
  EXPECT_EQ(run.process().wait_exit(10s), 3) << run.errors();  // a check failed
}

TEST(LivePublisher, PublishesACheckViolationWithoutAllocating) {
  const fs::path directory = empty_directory("live-publisher-checks");
  Simulation simulation = Simulation::from_scenario(wall_clock_scenario(directory, 2, kLiveChecks),
                                                    {{"clock", "{type: virtual}"}}, {});
  ASSERT_EQ(simulation.check_names(), (std::vector<std::string>{"left_stays_up", "left_bounded"}));
  LiveSampleRing ring(1024, 3);
  LiveCheckBoard board(2);
  LivePublisher publisher(ring, signal_indices(simulation), board);
  simulation.add_observer(publisher);
  simulation.step_until(to_ticks(0.01));
  EXPECT_FALSE(board.first_violation(0));
  const long before = testing::allocations();
  simulation.step_until(to_ticks(2));
  EXPECT_EQ(testing::allocations() - before, 0);
  ASSERT_TRUE(board.first_violation(0));
  EXPECT_EQ(board.first_violation(0), simulation.check_first_violation(0));
  EXPECT_GT(*board.first_violation(0), 0.01);
  EXPECT_FALSE(board.first_violation(1));
  EXPECT_THROW(simulation.check_first_violation(2), ConfigurationError);
}

TEST(LiveView, FiveWebSocketClientsReceiveTheSamples) {
  const fs::path directory = empty_directory("live-clients");
  LiveRun run(wall_clock_scenario(directory, 3), directory, {"--live-linger", "2"});
  std::vector<std::thread> clients;
  std::array<double, 5> last_time{};
  std::array<std::size_t, 5> rows{};
  std::array<std::string, 5> final_state{};
  for (std::size_t c = 0; c < 5; ++c) {
    clients.emplace_back([&, c] {
      WebSocketClient client(run.port());
      for (;;) {
        const nlohmann::json message = client.next();
        for (const auto& row : message.value("rows", nlohmann::json::array())) {
          EXPECT_GT(row[0].get<double>(), last_time[c]);
          EXPECT_EQ(row.size(), 6u);  // time, wall time, lateness, three signals
          last_time[c] = row[0].get<double>();
          ++rows[c];
        }
        final_state[c] = message["status"]["state"].get<std::string>();
        if (final_state[c] != "running") break;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  for (std::size_t c = 0; c < 5; ++c) {
    EXPECT_EQ(final_state[c], "completed") << c;
    EXPECT_NEAR(last_time[c], 3.0, 1e-9) << c;
    EXPECT_GT(rows[c], 100u) << c;  // joined within the first second of 300 points
  }
  EXPECT_EQ(run.process().wait_exit(10s), 0) << run.errors();
}

TEST(LiveView, AClientThatStopsReadingLosesMessagesNotMemory) {
  // 64 signals at 10 kHz: messages of ~100 kB, which fill a stalled socket at once.
  constexpr std::size_t kSignals = 64;
  LiveSampleRing ring(4096, kSignals);
  LiveServerOptions options;
  options.client_queue_messages = 4;
  LiveServer server(ring, {"stalled", std::vector<std::string>(kSignals, "s"), 0, 100}, options);
  WebSocketClient stalled(server.port(), 4096);  // connected, then never read
  std::vector<double> values(kSignals, 0.125);
  long early_kib = 0;
  double slowest_push = 0;
  for (int tick = 0; tick < 40; ++tick) {  // 4 s
    for (int k = 0; k < 1000; ++k) {
      const double t = tick * 0.1 + k * 1e-4;
      const auto began = std::chrono::steady_clock::now();
      ring.push_from_stepping_thread({t, t, 0}, values);
      slowest_push =
          std::max(slowest_push,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
    }
    std::this_thread::sleep_for(100ms);
    if (tick == 15) early_kib = resident_kib(::getpid());
  }
  const long late_kib = resident_kib(::getpid());
  EXPECT_EQ(ring.dropped(), 0u);  // the server drained everything
  EXPECT_EQ(server.clients(), 1u);
  // Instrumented, the server builds far fewer messages in the 4 s (the socket
  // buffers take them all) and ASan's quarantine holds freed blocks, so
  // resident memory grows whatever the server does: the plain build checks these.
  if (!testing::kSanitized) {
    EXPECT_GT(server.client_messages_dropped(), 10u);
    EXPECT_LT(late_kib - early_kib, 8 * 1024) << early_kib << " KiB, then " << late_kib << " KiB";
  }
  EXPECT_LT(slowest_push, 0.05);  // never waited for the server (generous for a loaded machine)
}

TEST(LiveView, AStalledClientDoesNotSlowAWallClockRun) {
  const fs::path directory = empty_directory("live-stalled");
  LiveRun run(
      wall_clock_scenario(directory, 4), directory,
      {"--live-linger", "0", "--set", "algorithm.step=0.001", "--set", "evaluation.grid=0.001"});
  WebSocketClient stalled(run.port(), 4096);  // connected, then never read
  EXPECT_EQ(run.process().wait_exit(20s), 0) << run.errors();
  const nlohmann::json summary =
      nlohmann::json::parse(testing::read_file(directory / "out" / "summary.json"));
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["realtime"]["cycles"], 4000);
  // A stepping thread held up by the stalled client would not finish in
  // 20 s; the margin over 4 s is for a loaded CI machine (sanitizers, -j2).
  EXPECT_LT(summary["wall_time_s"].get<double>(), 6.0);
}

TEST(LiveView, StopButtonEndsTheRunLikeSigint) {
  const fs::path directory = empty_directory("live-stop");
  LiveRun run(wall_clock_scenario(directory, 30), directory,
              {"--live-control", "--live-linger", "0"});
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(status_of(run.port())["control"], true);
  unsigned code = 0;
  http_get(run.port(), "/stop", http::verb::post, &code);
  EXPECT_EQ(code, 202u);
  EXPECT_EQ(run.process().wait_exit(10s), 130) << run.errors();
  const nlohmann::json summary =
      nlohmann::json::parse(testing::read_file(directory / "out" / "summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  EXPECT_LT(summary["end_time"].get<double>(), 5.0);
}

TEST(LiveView, BadEndpointsAreRefusedNamingTheOption) {
  int exit_code = 0;
  const std::string output = testing::command_output(
      std::string(COUPLET_BINARY) + " run " + testing::scenario_path("two_mass_switch.yaml") +
          " -o " + testing::fresh_directory("live-bad").string() +
          " --quiet --live localhost:http 2>&1",
      exit_code);
  EXPECT_EQ(exit_code, 2) << output;
  EXPECT_NE(output.find("--live: expected PORT or ADDRESS:PORT"), std::string::npos) << output;
  EXPECT_EQ(parse_live_endpoint("8080").address, "127.0.0.1");
  EXPECT_EQ(parse_live_endpoint("0.0.0.0:0").address, "0.0.0.0");
  EXPECT_EQ(parse_live_endpoint("[::1]:9000").address, "::1");
  EXPECT_EQ(parse_live_endpoint("[::1]:9000").port, 9000);
  EXPECT_THROW(parse_live_endpoint("70000"), ConfigurationError);
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
}

// ---------------------------------------------------------------- couplet watch

/// `couplet watch LOG --live 0`; the port read from its stderr.
unsigned short watched_port(const fs::path& stderr_path) {
  const std::regex url("at http://127\\.0\\.0\\.1:([0-9]+)/");
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::smatch match;
    const std::string text = testing::read_file(stderr_path);
    if (std::regex_search(text, match, url))
      return static_cast<unsigned short>(std::stoi(match[1]));
    std::this_thread::sleep_for(20ms);
  }
  throw std::runtime_error("no live URL on stderr: " + testing::read_file(stderr_path));
}

TEST(LiveWatch, FollowsALogAsAWallClockRunWritesIt) {
  const fs::path directory = empty_directory("live-watch-growing");
  testing::ChildProcess run({COUPLET_BINARY, "run", wall_clock_scenario(directory, 4).string(),
                             "-o", (directory / "out").string(), "--quiet"});
  const fs::path log = directory / "out" / "run.log";
  for (int attempt = 0; attempt < 250 && !fs::exists(log); ++attempt)
    std::this_thread::sleep_for(20ms);
  const fs::path errors = directory / "watch-stderr.txt";
  testing::ChildProcess watch(
      {COUPLET_BINARY, "watch", log.string(), "--live", "0", "--live-linger", "3"},
      errors.string());
  const unsigned short port = watched_port(errors);
  std::this_thread::sleep_for(1500ms);
  const nlohmann::json early = status_of(port);
  std::this_thread::sleep_for(1s);
  const nlohmann::json later = status_of(port);
  EXPECT_EQ(early["scenario"], "live_wall");
  EXPECT_EQ(early["state"], "running") << early.dump();
  EXPECT_EQ(early["wall_clock"], true);
  EXPECT_GT(later["time"].get<double>(), early["time"].get<double>() + 0.5);
  EXPECT_EQ(run.wait_exit(10s), 0);
  std::this_thread::sleep_for(1s);
  const nlohmann::json final_status = status_of(port);
  EXPECT_EQ(final_status["state"], "completed");
  EXPECT_NEAR(final_status["time"].get<double>(), 4.0, 1e-9);
  // Every output of the log: left.x, left.v, right.f.
  EXPECT_EQ(final_status["signals"].size(), 3u) << final_status.dump();
  EXPECT_EQ(watch.wait_exit(10s), 0) << testing::read_file(errors);
}

TEST(LiveWatch, ShowsAFinishedLogWhole) {
  const fs::path directory = empty_directory("live-watch-finished");
  int exit_code = 0;
  testing::command_output(std::string(COUPLET_BINARY) + " run " +
                              testing::scenario_path("two_mass_switch.yaml") +
                              " --set time.end=5 --quiet -o " + (directory / "out").string(),
                          exit_code);
  ASSERT_EQ(exit_code, 0);
  const fs::path errors = directory / "watch-stderr.txt";
  testing::ChildProcess watch({COUPLET_BINARY, "watch", (directory / "out" / "run.log").string(),
                               "--live", "0", "--live-linger", "2"},
                              errors.string());
  const unsigned short port = watched_port(errors);
  std::this_thread::sleep_for(500ms);
  const nlohmann::json history = nlohmann::json::parse(http_get(port, "/history"));
  EXPECT_EQ(history["status"]["state"], "completed");
  EXPECT_EQ(history["status"]["scenario"], "two_mass_switch");
  EXPECT_EQ(history["status"]["wall_clock"], false);
  EXPECT_EQ(history["rows"].size(), 501u);  // the start, then step 0.01 s over 5 s
  EXPECT_NEAR(history["rows"].back()[0].get<double>(), 5.0, 1e-9);
  EXPECT_EQ(watch.wait_exit(10s), 0) << testing::read_file(errors);
}

TEST(LiveWatch, RefusesAFileThatIsNotARunLog) {
  const fs::path directory = empty_directory("live-watch-bad");
  std::ofstream(directory / "not.log") << "hello\n";
  int exit_code = 0;
  const std::string output = testing::command_output(
      std::string(COUPLET_BINARY) + " watch " + (directory / "not.log").string() + " --live 0",
      exit_code);
  EXPECT_EQ(exit_code, 1) << output;
  EXPECT_NE(output.find("not.log"), std::string::npos) << output;
}

// ---------------------------------------------------------------- the page

std::string attribute(const std::string& dom, const std::string& id, const std::string& name) {
  const std::size_t tag = dom.find("id=\"" + id + "\"");
  if (tag == std::string::npos) return "";
  const std::size_t begin = dom.rfind('<', tag);
  const std::size_t end = dom.find('>', tag);
  const std::string element = dom.substr(begin, end - begin);
  const std::smatch match = [&] {
    std::smatch m;
    std::regex_search(element, m, std::regex(name + "=\"([^\"]*)\""));
    return m;
  }();
  return match.empty() ? "" : match[1].str();
}

std::string page_dom(const fs::path& directory, unsigned short port) {
  const fs::path dom = directory / "dom.html";
  const std::string command =
      "timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu "
      "--disable-dev-shm-usage --user-data-dir='" +
      (directory / "profile").string() +
      "' --window-size=1200,1200 --virtual-time-budget=3000 --dump-dom "
      "http://127.0.0.1:" +
      std::to_string(port) + "/ >'" + dom.string() + "' 2>/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0);
  return testing::read_file(dom);
}

TEST(LiveView, ThePageShowsTheTimeAdvancingAndDrawsThePlotInHeadlessChromium) {
  if (!fs::exists("/usr/bin/chromium")) GTEST_SKIP() << "no /usr/bin/chromium";
  const fs::path directory = empty_directory("live-page");
  LiveRun run(wall_clock_scenario(directory, 12, kLiveChecks), directory, {"--live-linger", "0"});
  std::this_thread::sleep_for(1s);
  const std::string first = page_dom(directory, run.port());
  const std::string second = page_dom(directory, run.port());
  EXPECT_NE(first.find("<title>live_wall — couplet live</title>"), std::string::npos);
  for (const std::string* dom : {&first, &second}) {
    EXPECT_EQ(attribute(*dom, "live-status", "data-errors"), "") << *dom;
    EXPECT_EQ(attribute(*dom, "live-status", "data-state"), "running");
    const std::string pixels = attribute(*dom, "live-status", "data-drawn-pixels");
    ASSERT_FALSE(pixels.empty()) << *dom;
    EXPECT_GT(std::stol(pixels), 50);
  }
  const double first_time = std::stod(attribute(first, "live-status", "data-time"));
  const double second_time = std::stod(attribute(second, "live-status", "data-time"));
  EXPECT_GT(first_time, 0.5);
  EXPECT_GT(second_time, first_time);
  EXPECT_NE(second.find("id=\"health\""), std::string::npos);
  // The checks' table: the violated one failed, the other holding so far.
  EXPECT_NE(second.find("<tr class=\"check-failed\"><td>left_stays_up</td><td>failed</td>"),
            std::string::npos)
      << second;
  EXPECT_NE(second.find("<tr class=\"check-open\"><td>left_bounded</td><td>holding so far</td>"),
            std::string::npos);
  run.process().signal(SIGINT);
  EXPECT_EQ(run.process().wait_exit(10s), 130) << run.errors();
}

}  // namespace
}  // namespace couplet::tools
