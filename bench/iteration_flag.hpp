// Command-line flags of the benchmark programs that Google Benchmark does not
// know (it refuses them): a text flag (command_startup_bench --baseline), and
// the fixed iteration count of the benchmarks that register Iterations(n)
// (each iteration is an expensive, whole operation: a macro step over a link,
// a program start-up), so that their smoke test (BenchSmoke.*,
// bench/CMakeLists.txt) can run a few iterations where a measurement runs
// thousands. Google Benchmark 1.7 has no such flag of its own
// (--benchmark_min_time does not apply to a fixed count).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace couplet::bench {

/// Takes every `--<name>=VALUE` out of the command line (Google Benchmark
/// refuses flags it does not know) and returns the last VALUE, or nothing.
inline std::optional<std::string> take_flag(int& argc, char** argv, std::string_view name) {
  const std::string flag = "--" + std::string(name) + "=";
  std::optional<std::string> value;
  int kept = 1;
  for (int k = 1; k < argc; ++k) {
    const std::string_view argument = argv[k];
    if (argument.substr(0, flag.size()) == flag) {
      value = std::string(argument.substr(flag.size()));
    } else {
      argv[kept++] = argv[k];
    }
  }
  argc = kept;
  return value;
}

/// Takes `--<name>=N` out of the command line and returns N, or `fallback`
/// without the flag. Exits with status 2 on a value that is not a whole number
/// of at least 1.
inline benchmark::IterationCount take_iteration_flag(int& argc, char** argv, std::string_view name,
                                                     benchmark::IterationCount fallback) {
  const std::optional<std::string> value = take_flag(argc, argv, name);
  if (!value) return fallback;
  char* parsed_end = nullptr;
  const benchmark::IterationCount count = std::strtoll(value->c_str(), &parsed_end, 10);
  if (value->empty() || *parsed_end != '\0' || count < 1) {
    std::fprintf(stderr, "%s: --%s: '%s' is not a whole number of at least 1\n", argv[0],
                 std::string(name).c_str(), value->c_str());
    std::exit(2);
  }
  return count;
}

}  // namespace couplet::bench
