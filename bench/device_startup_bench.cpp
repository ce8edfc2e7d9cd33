// Start-up of a target program to its first answered Hello: fork/exec, load,
// bind, the ready line, then a Hello answered by a Describe over UDP loopback.
// The SDK's example device (dc_motor_device) against couplet-target serving a
// built-in model. One iteration is one program started and stopped again.
//
//   build/bench/device_startup_bench [--starts=N] [Google Benchmark flags]
// N: the programs started per case (default 50).
#include <benchmark/benchmark.h>

#include <chrono>

#include "bench/iteration_flag.hpp"
#include "drivers/remote_slave.hpp"
#include "drivers/udp_transport.hpp"
#include "host_tools/process/target_process.hpp"

namespace couplet {
namespace {

using Clock = std::chrono::steady_clock;

void start_and_hello(benchmark::State& state, const std::string& program,
                     const std::vector<std::string>& arguments) {
  double ready_s = 0.0;
  double answered_s = 0.0;
  for (auto _ : state) {
    const auto began = Clock::now();
    std::shared_ptr<tools::TargetProcess> process = tools::TargetProcess::spawn(
        program, arguments, "bench", std::chrono::seconds(10));
    const auto ready = Clock::now();
    drivers::RemoteSlave slave("bench", drivers::UdpTransport::connect(process->address()), nullptr,
                               drivers::LinkPolicy{}, process);
    const auto answered = Clock::now();
    benchmark::DoNotOptimize(slave.description());
    ready_s += std::chrono::duration<double>(ready - began).count();
    answered_s += std::chrono::duration<double>(answered - began).count();
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["ready_ms"] = 1e3 * ready_s / runs;
  state.counters["first_answer_ms"] = 1e3 * answered_s / runs;
}

void BM_DeviceProgramStartup(benchmark::State& state) {
  start_and_hello(state, COUPLET_DC_MOTOR_DEVICE, {"--udp", "127.0.0.1:0", "--once"});
}

void BM_CoupletTargetStartup(benchmark::State& state) {
  start_and_hello(state, "", {"--model", "translational.mass", "--udp", "127.0.0.1:0", "--once"});
}

// Registered at run time: their fixed iteration count is the --starts flag.
void register_benchmarks(benchmark::IterationCount starts) {
  benchmark::RegisterBenchmark("BM_DeviceProgramStartup", BM_DeviceProgramStartup)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(starts);
  benchmark::RegisterBenchmark("BM_CoupletTargetStartup", BM_CoupletTargetStartup)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(starts);
}

}  // namespace
}  // namespace couplet

int main(int argc, char** argv) {
  couplet::register_benchmarks(couplet::bench::take_iteration_flag(argc, argv, "starts", 50));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
