// The embedded core on the host (targets/embedded/, couplet-embedded-mass)
// against the Linux couplet-target, each serving the left mass of the two-mass
// switch over a pseudo-terminal (Jacobi, H = 10 ms, explicit Euler with 4
// substeps; the right mass local, CVODE). One iteration is one macro step: the
// round trips of the step over the pty plus the local work. A pty moves bytes
// at memory speed whatever the baud rate, so this measures the two programs'
// processing and the pty's latency; the time the bytes take on a real line is
// computed from the frame sizes (BM_LineTimePerMacroStep).
//
//   build/bench/embedded_link_bench [--macro_steps=N] [Google Benchmark flags]
// N: the macro steps measured per pty case (default 10000), after a warm-up of
// 200 plans (the executor's advance() calls).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>

#include "bench/iteration_flag.hpp"
#include "bench/macro_step_run.hpp"
#include "host_tools/algorithm_factory.hpp"
#include "host_tools/system_builder.hpp"
#include "protocol/cobs.hpp"
#include "protocol/codec.hpp"
#include "runtime/executor.hpp"

namespace couplet {
namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * static_cast<double>(values.size() - 1))];
}

constexpr int kWarmUpMacroSteps = 200;
constexpr double kMacroStep = 0.01;

void run_macro_steps(benchmark::State& state, const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides = {
      {"time.end", bench::horizon_for(kWarmUpMacroSteps + state.max_iterations, kMacroStep)},
      {"algorithm.step", std::to_string(kMacroStep)},
      {"reference", "none"}};
  for (const std::string& assignment : assignments) overrides.push_back(tools::parse_override(assignment));
  const tools::Scenario scenario =
      tools::load_scenario(std::string(COUPLET_SOURCE_DIR) + "/scenarios/two_mass_switch.yaml", overrides);
  System system = tools::build_system(scenario, models::ModelCatalog::builtin());
  std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario);
  Executor executor(system, *algorithm, to_ticks(scenario.start), to_ticks(scenario.end), {});
  executor.initialize();
  for (int warm_up = 0; warm_up < kWarmUpMacroSteps; ++warm_up) executor.advance();
  std::vector<double> microseconds;
  microseconds.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto began = Clock::now();
    if (!bench::advance_one_macro_step(executor, state)) return;
    microseconds.push_back(std::chrono::duration<double, std::micro>(Clock::now() - began).count());
  }
  state.counters["median_us"] = percentile(microseconds, 0.5);
  state.counters["p99_us"] = percentile(microseconds, 0.99);
}

const std::string kParameters = "{m: 10, c: 1, d: 0.1, x0: 1, v0: 0";

void BM_LinuxTargetOverPty(benchmark::State& state) {
  run_macro_steps(state, {"slaves.left.solver={type: euler, substeps: 4}",
                          "slaves.left.link={spawn: true, serial: {device: pty, baud: 921600}}"});
}

void BM_EmbeddedCoreOverPty(benchmark::State& state) {
  run_macro_steps(state, {"slaves.left={device: translational_mass, parameters: " + kParameters +
                          ", substeps: 4}, link: {spawn: true, program: " COUPLET_EMBEDDED_MASS
                          ", serial: {device: pty, baud: 921600}}}"});
}

/// Bytes on the line for one macro step of a slave with 2 inputs and 2 outputs
/// (inputs of degree 1, one output derivative): the step request and its
/// result, COBS-encoded between two delimiters; and their time on a UART at
/// 115200 and 921600 baud (8N1: 10 bits a byte).
void BM_LineTimePerMacroStep(benchmark::State& state) {
  auto request = std::make_unique<protocol::Envelope>();
  auto result = std::make_unique<protocol::Envelope>();
  std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
  std::size_t line_bytes = 0;
  for (auto _ : state) {
    *request = {};
    request->session = 0x1234'5678'9abc'def0ULL;
    request->sequence = 123456;
    request->which_body = couplet_wire_Envelope_step_request_tag;
    auto& step = request->body.step_request;
    step.start_ns = 12'340'000'000;
    step.end_ns = 12'350'000'000;
    step.inputs_count = 2;
    for (auto& input : std::span(step.inputs, 2)) {
      input.origin = 12.34;
      input.scale = 0.01;
      input.coefficients_count = 2;
      input.coefficients[0] = 0.123456789;
      input.coefficients[1] = -0.00123456789;
    }
    *result = {};
    result->session = request->session;
    result->sequence = request->sequence;
    result->which_body = couplet_wire_Envelope_step_result_tag;
    auto& answer = result->body.step_result;
    answer.time_ns = step.end_ns;
    answer.derivative_order = 1;
    answer.end_outputs_count = 4;
    for (double& value : std::span(answer.end_outputs, 4)) value = 0.987654321;
    answer.has_timing = true;
    answer.timing = {123'456'789'012'345, 123'456'789'112'345, 0};
    line_bytes = 0;
    for (const protocol::Envelope* message : {request.get(), result.get()}) {
      const std::size_t size = protocol::encode_frame(*message, frame).size;
      std::vector<std::uint8_t> encoded(protocol::cobs_encoded_capacity(size));
      line_bytes += *protocol::cobs_encode(std::span(frame).first(size), encoded) + 2;
    }
    benchmark::DoNotOptimize(line_bytes);
  }
  state.counters["line_bytes"] = static_cast<double>(line_bytes);
  state.counters["ms_at_115200"] = static_cast<double>(line_bytes) * 10.0 / 115200.0 * 1e3;
  state.counters["ms_at_921600"] = static_cast<double>(line_bytes) * 10.0 / 921600.0 * 1e3;
}

// Registered at run time: the pty cases' fixed iteration count is the
// --macro_steps flag.
void register_benchmarks(benchmark::IterationCount macro_steps) {
  benchmark::RegisterBenchmark("BM_LinuxTargetOverPty", BM_LinuxTargetOverPty)
      ->Iterations(macro_steps)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_EmbeddedCoreOverPty", BM_EmbeddedCoreOverPty)
      ->Iterations(macro_steps)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_LineTimePerMacroStep", BM_LineTimePerMacroStep)
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace couplet

int main(int argc, char** argv) {
  couplet::register_benchmarks(
      couplet::bench::take_iteration_flag(argc, argv, "macro_steps", 10000));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
