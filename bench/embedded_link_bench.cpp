// The embedded core on the host (targets/embedded/, couplet-embedded-mass)
// against the Linux couplet-target, each serving the left mass of the two-mass
// switch over a pseudo-terminal (Jacobi, H = 10 ms, explicit Euler with 4
// substeps; the right mass local, CVODE). One iteration is one macro step: the
// round trips of the step over the pty plus the local work. A pty moves bytes
// at memory speed whatever the baud rate, so this measures the two programs'
// processing and the pty's latency; the time the bytes take on a real line is
// computed from the frame sizes (BM_LineTimePerMacroStep).
// BM_EmbeddedCoreOverPtySealed is the same exchange with a pre-shared key
// (`link: {key_file: ...}`, the core started with --key-file): every frame
// sealed, a SipHash-2-4-128 tag computed and checked on both sides; its
// difference to BM_EmbeddedCoreOverPty is what authentication costs per macro
// step, lost in the pty's spread on a loaded machine; BM_FrameCodecPerMacroStep
// shows it alone, in process (one side's encode and decode of both frames,
// plain and sealed). BM_LineTimePerMacroStep also counts the bytes of the
// sealed frames (24 more per frame).
//
//   build/bench/embedded_link_bench [--macro_steps=N] [Google Benchmark flags]
// N: the macro steps measured per pty case (default 10000), after a warm-up of
// 200 plans (the executor's advance() calls).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "bench/iteration_flag.hpp"
#include "bench/macro_step_run.hpp"
#include "host_tools/assembly/algorithm_factory.hpp"
#include "host_tools/assembly/system_builder.hpp"
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
  std::unique_ptr<Algorithm> algorithm = tools::make_algorithm(scenario.algorithm);
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

std::string embedded_left(const std::string& extra_link) {
  return "slaves.left={device: translational_mass, parameters: " + kParameters +
         ", substeps: 4}, link: {spawn: true, program: " COUPLET_EMBEDDED_MASS
         ", serial: {device: pty, baud: 921600}" +
         extra_link + "}}";
}

void BM_EmbeddedCoreOverPty(benchmark::State& state) {
  run_macro_steps(state, {embedded_left("")});
}

/// A key file for the run: 32 hexadecimal digits, readable by its owner only
/// (mkstemp creates it 0600), removed at the end.
class TemporaryKeyFile {
 public:
  TemporaryKeyFile() {
    char path[] = "/tmp/couplet_bench_key_XXXXXX";
    const int descriptor = mkstemp(path);
    if (descriptor < 0) throw std::runtime_error("cannot create a key file in /tmp");
    static const char key[] = "3c910e5a77d24b18a609f36e2dc48550\n";
    const bool written =
        write(descriptor, key, sizeof key - 1) == static_cast<ssize_t>(sizeof key - 1);
    close(descriptor);
    path_ = path;
    if (!written) throw std::runtime_error("cannot write the key file " + path_);
  }
  ~TemporaryKeyFile() { std::remove(path_.c_str()); }
  TemporaryKeyFile(const TemporaryKeyFile&) = delete;
  TemporaryKeyFile& operator=(const TemporaryKeyFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void BM_EmbeddedCoreOverPtySealed(benchmark::State& state) {
  const TemporaryKeyFile key;
  run_macro_steps(state, {embedded_left(", key_file: " + key.path())});
}

const protocol::FrameKey kBenchKey{0x3c, 0x91, 0x0e, 0x5a, 0x77, 0xd2, 0x4b, 0x18,
                                   0xa6, 0x09, 0xf3, 0x6e, 0x2d, 0xc4, 0x85, 0x50};
constexpr std::uint64_t kBenchNonce = 0x0123'4567'89ab'cdefULL;

/// One macro step's messages of a slave with 2 inputs and 2 outputs (inputs
/// of degree 1, one output derivative): the step request and its result.
void make_step_messages(protocol::Envelope& request, protocol::Envelope& result) {
  request = {};
  request.session = 0x1234'5678'9abc'def0ULL;
  request.sequence = 123456;
  request.which_body = couplet_wire_Envelope_step_request_tag;
  auto& step = request.body.step_request;
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
  result = {};
  result.session = request.session;
  result.sequence = request.sequence;
  result.which_body = couplet_wire_Envelope_step_result_tag;
  auto& answer = result.body.step_result;
  answer.time_ns = step.end_ns;
  answer.derivative_order = 1;
  answer.end_outputs_count = 4;
  for (double& value : std::span(answer.end_outputs, 4)) value = 0.987654321;
  answer.has_timing = true;
  answer.timing = {123'456'789'012'345, 123'456'789'112'345, 0};
}

/// Bytes on the line for one macro step (make_step_messages), COBS-encoded
/// between two delimiters, plain and sealed; and their time on a UART at
/// 115200 and 921600 baud (8N1: 10 bits a byte).
void BM_LineTimePerMacroStep(benchmark::State& state) {
  auto request = std::make_unique<protocol::Envelope>();
  auto result = std::make_unique<protocol::Envelope>();
  std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
  const protocol::FrameCodec sealing(kBenchKey);
  std::size_t line_bytes = 0;
  std::size_t sealed_bytes = 0;
  for (auto _ : state) {
    make_step_messages(*request, *result);
    line_bytes = 0;
    sealed_bytes = 0;
    for (const protocol::Envelope* message : {request.get(), result.get()}) {
      const std::size_t size = protocol::encode_frame(*message, frame).size;
      std::vector<std::uint8_t> encoded(protocol::cobs_encoded_capacity(size));
      line_bytes += *protocol::cobs_encode(std::span(frame).first(size), encoded) + 2;
      const std::size_t sealed_size = sealing.encode(*message, kBenchNonce, frame).size;
      encoded.resize(protocol::cobs_encoded_capacity(sealed_size));
      sealed_bytes += *protocol::cobs_encode(std::span(frame).first(sealed_size), encoded) + 2;
    }
    benchmark::DoNotOptimize(line_bytes);
    benchmark::DoNotOptimize(sealed_bytes);
  }
  state.counters["line_bytes"] = static_cast<double>(line_bytes);
  state.counters["ms_at_115200"] = static_cast<double>(line_bytes) * 10.0 / 115200.0 * 1e3;
  state.counters["ms_at_921600"] = static_cast<double>(line_bytes) * 10.0 / 921600.0 * 1e3;
  state.counters["sealed_line_bytes"] = static_cast<double>(sealed_bytes);
  state.counters["sealed_ms_at_115200"] = static_cast<double>(sealed_bytes) * 10.0 / 115200.0 * 1e3;
  state.counters["sealed_ms_at_921600"] = static_cast<double>(sealed_bytes) * 10.0 / 921600.0 * 1e3;
}

/// One side's frame work per macro step, in process (no pty, no scheduler):
/// the step request and its result each encoded and decoded, plain (arg 0)
/// or sealed (arg 1: a SipHash-2-4-128 tag computed and checked per frame).
/// The difference is what the MAC costs per macro step; the pty cases above
/// carry it too, but their spread (tens of microseconds) hides it.
void BM_FrameCodecPerMacroStep(benchmark::State& state) {
  const bool sealed = state.range(0) != 0;
  const protocol::FrameCodec codec =
      sealed ? protocol::FrameCodec(kBenchKey) : protocol::FrameCodec();
  auto request = std::make_unique<protocol::Envelope>();
  auto result = std::make_unique<protocol::Envelope>();
  auto decoded = std::make_unique<protocol::Envelope>();
  std::vector<std::uint8_t> frame(protocol::kMaxFrameBytes);
  make_step_messages(*request, *result);
  std::size_t bytes = 0;
  for (auto _ : state) {
    bytes = 0;
    for (const protocol::Envelope* message : {request.get(), result.get()}) {
      const protocol::EncodeResult encoded = codec.encode(*message, kBenchNonce, frame);
      std::uint64_t nonce = 0;
      const protocol::DecodeResult outcome =
          codec.decode(std::span<const std::uint8_t>(frame).first(encoded.size), *decoded, nonce);
      if (encoded.size == 0 || outcome.error != protocol::FrameError::none) {
        state.SkipWithError("a frame did not round-trip");
        return;
      }
      bytes += encoded.size;
      benchmark::DoNotOptimize(nonce);
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.SetLabel(sealed ? "sealed" : "plain");
  state.counters["frame_bytes"] = static_cast<double>(bytes);
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
  benchmark::RegisterBenchmark("BM_EmbeddedCoreOverPtySealed", BM_EmbeddedCoreOverPtySealed)
      ->Iterations(macro_steps)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_LineTimePerMacroStep", BM_LineTimePerMacroStep)
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_FrameCodecPerMacroStep", BM_FrameCodecPerMacroStep)
      ->Arg(0)
      ->Arg(1)
      ->Unit(benchmark::kNanosecond);
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
