// Round trip per macro step over UDP loopback (docs/links.md): the two-mass
// switch (Jacobi, H = 10 ms, CVODE or explicit Euler) with both slaves on
// spawned couplet-target processes, against the same run with local slaves.
// One benchmark iteration is one macro step: the feedthrough refresh of the
// right slave (one round trip), then both steps announced together (split
// phase) and collected. The critical path is therefore two round trips: the
// remote benchmarks measure a raw UDP loopback round trip (blocking sockets,
// an echo thread, frames of a step request's size) just before, and report
// the macro step's median as a ratio to twice its median.
// Counters: median and p99 of the macro-step time, macro steps per second,
// the master's decision time (Algorithm::plan_next + accept) as a fraction of
// the macro-step time, and rtt_us / ratio_to_2rtt. No evaluation grid: link
// and solver cost only.
//
//   build/bench/link_round_trip_bench [--macro_steps=N] [--busy_poll_us=W] [Google Benchmark flags]
// N: the macro steps measured per case (default 20000), after a warm-up of 200
// plans (the executor's advance() calls). Each remote case runs without busy
// polling (busy_poll_us:0) and with a window of W µs (default 50).
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <thread>

#include "bench/iteration_flag.hpp"
#include "bench/macro_step_run.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "protocol/codec.hpp"
#include "protocol/frame_key.hpp"
#include "runtime/executor.hpp"

namespace couplet {
namespace {

using Clock = std::chrono::steady_clock;

/// Forwards to an algorithm and accumulates the time spent deciding.
class TimedAlgorithm final : public Algorithm {
 public:
  explicit TimedAlgorithm(std::unique_ptr<Algorithm> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  AlgorithmRequirements requirements() const override { return inner_->requirements(); }
  void start(const RunSetup& setup, std::span<StepSlot> slots) override { inner_->start(setup, slots); }
  bool plan_next(std::span<StepSlot> slots, Plan& plan) override {
    const auto began = Clock::now();
    const bool more = inner_->plan_next(slots, plan);
    deciding_ += Clock::now() - began;
    return more;
  }
  void accept(std::span<const StepSlot> slots, const Plan& plan) override {
    const auto began = Clock::now();
    inner_->accept(slots, plan);
    deciding_ += Clock::now() - began;
  }
  Clock::duration deciding() const { return deciding_; }
  void reset() { deciding_ = {}; }

 private:
  std::unique_ptr<Algorithm> inner_;
  Clock::duration deciding_{};
};

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  return values[index];
}

/// Median round trip (µs) of `count` frames of `bytes` over UDP loopback to an
/// echo thread, both sides blocking in recv: the floor any link protocol pays.
double udp_loopback_round_trip_us(int count, std::size_t bytes) {
  const int echo = ::socket(AF_INET, SOCK_DGRAM, 0);
  const int client = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(echo, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(echo, reinterpret_cast<sockaddr*>(&address), &length);
  ::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address);
  std::thread echoing([echo, count] {
    std::array<std::uint8_t, 2048> frame{};
    sockaddr_in from{};
    for (int k = 0; k < count; ++k) {
      socklen_t from_length = sizeof from;
      const ssize_t size = ::recvfrom(echo, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&from), &from_length);
      if (size > 0) ::sendto(echo, frame.data(), static_cast<std::size_t>(size), 0, reinterpret_cast<sockaddr*>(&from), from_length);
    }
  });
  std::vector<std::uint8_t> frame(bytes, 0x5A);
  std::vector<double> microseconds;
  microseconds.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    const auto sent = Clock::now();
    ::send(client, frame.data(), frame.size(), 0);
    ::recv(client, frame.data(), frame.size(), 0);
    microseconds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
  }
  echoing.join();
  ::close(echo);
  ::close(client);
  return percentile(microseconds, 0.5);
}

// A step request of the two-mass switch at order 0 is about 150 bytes on the wire.
constexpr std::size_t kStepRequestBytes = 150;
constexpr int kWarmUpMacroSteps = 200;
constexpr double kMacroStep = 0.01;

void run_macro_steps(benchmark::State& state, const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides = {
      {"time.end", bench::horizon_for(kWarmUpMacroSteps + state.max_iterations, kMacroStep)},
      {"algorithm.step", std::to_string(kMacroStep)}};
  for (const std::string& assignment : assignments) overrides.push_back(tools::parse_override(assignment));
  const tools::Scenario scenario =
      tools::load_scenario(std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  TimedAlgorithm algorithm(tools::make_algorithm(scenario.algorithm));
  Executor executor(system, algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
  executor.initialize();
  for (int warm_up = 0; warm_up < kWarmUpMacroSteps; ++warm_up) executor.advance();
  algorithm.reset();

  const bool remote = std::any_of(assignments.begin(), assignments.end(),
                                  [](const std::string& a) { return a.find(".link=") != std::string::npos; });
  const double round_trip = remote ? udp_loopback_round_trip_us(5000, kStepRequestBytes) : 0.0;

  std::vector<double> microseconds;
  microseconds.reserve(static_cast<std::size_t>(state.max_iterations));
  const auto began = Clock::now();
  for (auto _ : state) {
    const auto step_began = Clock::now();
    if (!bench::advance_one_macro_step(executor, state)) return;
    microseconds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - step_began).count());
  }
  const double total = std::chrono::duration<double>(Clock::now() - began).count();
  state.counters["median_us"] = percentile(microseconds, 0.5);
  state.counters["p99_us"] = percentile(microseconds, 0.99);
  state.counters["macro_steps_per_s"] = static_cast<double>(microseconds.size()) / total;
  state.counters["decision_fraction"] = std::chrono::duration<double>(algorithm.deciding()).count() / total;
  if (remote) {
    state.counters["rtt_us"] = round_trip;
    state.counters["ratio_to_2rtt"] = percentile(microseconds, 0.5) / (2.0 * round_trip);
  }
}

// The remote cases run twice: busy_poll_us:0 sleeps in ppoll at once, the
// other asks the socket again for that many microseconds first (link.busy_poll,
// on the master and both targets).
std::vector<std::string> remote_slaves(const benchmark::State& state,
                                       const std::string& key_file = {}) {
  const std::string busy_poll = std::to_string(static_cast<double>(state.range(0)) * 1e-6);
  const std::string key = key_file.empty() ? std::string() : ", key_file: " + key_file;
  const auto link = [&](const char* slave) {
    return std::string("slaves.") + slave +
           ".link={spawn: true, udp: \"127.0.0.1:0\", busy_poll: " + busy_poll + key + "}";
  };
  return {link("left"), link("right")};
}

/// A fresh key file for the sealed cases, removed at exit.
const std::string& bench_key_file() {
  static const struct KeyFile {
    std::string path = (std::filesystem::temp_directory_path() /
                        ("couplet-bench-" + std::to_string(::getpid()) + ".key"))
                           .string();
    KeyFile() { protocol::write_new_frame_key(path); }
    ~KeyFile() { std::filesystem::remove(path); }
  } key_file;
  return key_file.path;
}

std::vector<std::string> with(std::vector<std::string> assignments,
                              std::initializer_list<std::string> more) {
  assignments.insert(assignments.end(), more);
  return assignments;
}

void BM_LocalSlaves(benchmark::State& state) { run_macro_steps(state, {}); }
void BM_TwoRemoteSlavesUdp(benchmark::State& state) {
  run_macro_steps(state, remote_slaves(state));
}
// Every frame sealed (a nonce and a SipHash-2-4-128 tag, docs/links.md
// "Authenticated links"): the cost of authentication per macro step.
void BM_TwoRemoteSlavesUdpSealed(benchmark::State& state) {
  run_macro_steps(state, remote_slaves(state, bench_key_file()));
}
void BM_TwoRemoteEulerSlavesUdp(benchmark::State& state) {
  run_macro_steps(state, with(remote_slaves(state), {"slaves.left.solver={type: euler}",
                                                     "slaves.right.solver={type: euler}"}));
}
void BM_TwoRemoteSlavesUdpTaylor(benchmark::State& state) {
  run_macro_steps(state, with(remote_slaves(state), {"algorithm.input_order=1"}));
}
void BM_TwoRemoteSlavesUdpDefectControl(benchmark::State& state) {
  run_macro_steps(state, with(remote_slaves(state),
                              {"algorithm={type: defect_control, step: 0.01, input_order: 1}"}));
}

// Encoding and decoding one step request of the two-mass switch (order 1, one
// sample), plain and sealed: what the tag costs per frame, without the link.
void BM_StepRequestFrame(benchmark::State& state) {
  const bool sealed = state.range(0) != 0;
  protocol::FrameKey key{};
  key[0] = 1;
  const protocol::FrameCodec codec = sealed ? protocol::FrameCodec(key) : protocol::FrameCodec();
  auto request = std::make_unique<protocol::Envelope>();
  request->session = 0x0123'4567'89AB'CDEFULL;
  request->sequence = 4711;
  request->which_body = couplet_wire_Envelope_step_request_tag;
  auto& step = request->body.step_request;
  step.start_ns = 1'000'000'000;
  step.end_ns = 1'010'000'000;
  step.inputs_count = 2;
  for (auto& input : std::span(step.inputs).first(2)) {
    input.origin = 1.0;
    input.scale = 0.01;
    input.coefficients_count = 2;
    input.coefficients[0] = 0.123456789;
    input.coefficients[1] = -0.00123456789;
  }
  step.sample_times_ns_count = 1;
  step.sample_times_ns[0] = 1'005'000'000;
  auto decoded = std::make_unique<protocol::Envelope>();
  std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = codec.encode(*request, 99, frame).size;
    std::uint64_t nonce = 0;
    if (!codec.decode(std::span(frame).first(bytes), *decoded, nonce))
      state.SkipWithError("does not decode");
    benchmark::DoNotOptimize(decoded->sequence);
  }
  state.counters["frame_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_StepRequestFrame)->ArgName("sealed")->Arg(0)->Arg(1);

// Registered at run time: their fixed iteration count is the --macro_steps flag.
void register_benchmarks(benchmark::IterationCount macro_steps, std::int64_t busy_poll_us) {
  const std::pair<const char*, void (*)(benchmark::State&)> cases[] = {
      {"BM_LocalSlaves", BM_LocalSlaves},
      {"BM_TwoRemoteSlavesUdp", BM_TwoRemoteSlavesUdp},
      {"BM_TwoRemoteSlavesUdpSealed", BM_TwoRemoteSlavesUdpSealed},
      {"BM_TwoRemoteEulerSlavesUdp", BM_TwoRemoteEulerSlavesUdp},
      {"BM_TwoRemoteSlavesUdpTaylor", BM_TwoRemoteSlavesUdpTaylor},
      {"BM_TwoRemoteSlavesUdpDefectControl", BM_TwoRemoteSlavesUdpDefectControl},
  };
  for (const auto& [name, function] : cases) {
    auto* benchmark = benchmark::RegisterBenchmark(name, function)
                          ->Iterations(macro_steps)
                          ->Unit(benchmark::kMicrosecond);
    if (function != BM_LocalSlaves) benchmark->ArgName("busy_poll_us")->Arg(0)->Arg(busy_poll_us);
  }
}

}  // namespace
}  // namespace couplet

int main(int argc, char** argv) {
  const auto macro_steps = couplet::bench::take_iteration_flag(argc, argv, "macro_steps", 20000);
  const auto busy_poll_us = couplet::bench::take_iteration_flag(argc, argv, "busy_poll_us", 50);
  couplet::register_benchmarks(macro_steps, busy_poll_us);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
