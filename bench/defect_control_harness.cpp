// Reproduction harness for Glumac & Kovačić, Defect Analysis §4 (issue 3;
// docs/references.md): the
// defect-controlled Jacobi on the rotational two-mass oscillator, horizon 1 s
// unless --end says otherwise.
// Prints three Markdown tables:
//   1. fixed step H = 10^-3 … 10^0 (0.2-decade grid), m = n ∈ {0, 1, 2}: output and
//      connection defects and the error against the monolithic reference, with the
//      least-squares convergence slopes over H ∈ [10^-2, 10^-1];
//   2. variable step, tol = 10^-3 … 10^0 (0.2-decade grid), H₁ = 10^-4: whole-run
//      defects, error, number of steps, min/mean/max step;
//   3. the fewest fixed steps that reach each variable-step run's error, and the
//      ratio to the variable-step run's steps.
// Every figure is the largest over the two outputs (defects: over the two outputs
// or the two connections; error: RMSE of omega2tau.tau and tau2omega.omega on the
// 0.01 s evaluation grid).
//
// Usage: defect_control_harness [--solvers exact,euler,cvode] [--tables 1,2,3] [--end SECONDS]
// (--end changes the horizon from the paper's 1 s; the oscillator's own is 50 s.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host_tools/cli/commands.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace {

using couplet::tools::load_scenario;
using couplet::tools::parse_override;
using couplet::tools::run_scenario;

const std::string kScenario = std::string(COUPLET_SOURCE_DIR) + "/scenarios/rotational_two_mass_defect_control.yaml";

struct Result {
  double output_defect = 0.0;
  double connection_defect = 0.0;
  double error = 0.0;
  int steps = 0;
  double min_step = 0.0, mean_step = 0.0, max_step = 0.0;
};

double largest(const nlohmann::json& values, const char* key = nullptr) {
  double value = 0.0;
  for (const auto& [name, entry] : values.items()) value = std::max(value, key ? entry.at(key).get<double>() : entry.get<double>());
  return value;
}

double horizon = 1.0;  // seconds; --end

Result run(const std::string& algorithm, const std::string& solver) {
  char end[64];
  std::snprintf(end, sizeof end, "time.end=%.17g", horizon);
  std::vector<std::pair<std::string, std::string>> overrides{
      parse_override(end), parse_override("algorithm=" + algorithm), parse_override("slaves.tau2omega.solver.type=" + solver),
      parse_override("slaves.omega2tau.solver.type=" + solver)};
  const auto scenario = load_scenario(kScenario, overrides);
  const auto directory = std::filesystem::temp_directory_path() / "couplet-defect-control-harness";
  const nlohmann::json summary = run_scenario(scenario, {directory.string(), false});
  Result result;
  result.output_defect = largest(summary.at("defects").at("output"));
  result.connection_defect = largest(summary.at("defects").at("connection"));
  result.error = largest(summary.at("errors"), "rmse");
  result.steps = summary.at("macro_steps").get<int>();
  const nlohmann::json& counters = summary.at("counters");
  result.min_step = counters.at("min_step_s").get<double>();
  result.mean_step = counters.at("mean_step_s").get<double>();
  result.max_step = counters.at("max_step_s").get<double>();
  return result;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

Result fixed(double step, int order, const std::string& solver) {
  return run("{type: defect_control, step: " + number(step) + ", input_order: " + std::to_string(order) + "}", solver);
}

Result variable(double tolerance, int order, const std::string& solver) {
  return run("{type: defect_control, tol: " + number(tolerance) + ", initial_step: 1.0e-4, input_order: " +
                 std::to_string(order) + "}",
             solver);
}

/// 10^-3, 10^-2.8, ..., 10^0 (the paper's grid).
std::vector<double> paper_grid() {
  std::vector<double> grid;
  for (int i = 0; i <= 15; ++i) grid.push_back(std::pow(10.0, -3.0 + 0.2 * i));
  return grid;
}

double slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mean_x = 0.0, mean_y = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mean_x += std::log(x[i]);
    mean_y += std::log(y[i]);
  }
  mean_x /= static_cast<double>(x.size());
  mean_y /= static_cast<double>(x.size());
  double covariance = 0.0, variance = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    covariance += (std::log(x[i]) - mean_x) * (std::log(y[i]) - mean_y);
    variance += std::pow(std::log(x[i]) - mean_x, 2);
  }
  return covariance / variance;
}

void table_fixed_step(const std::vector<std::string>& solvers) {
  std::printf("\n### Table 1: fixed step, m = n\n\n");
  std::printf("| solver | n | H [s] | steps | output defect | connection defect | error (RMSE) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::vector<std::string> slopes;
  for (const std::string& solver : solvers) {
    for (int order = 0; order <= 2; ++order) {
      std::vector<double> fit_steps, output, connection, error;
      for (const double step : paper_grid()) {
        const Result result = fixed(step, order, solver);
        std::printf("| %s | %d | %.4g | %d | %.3e | %.3e | %.3e |\n", solver.c_str(), order, step, result.steps,
                    result.output_defect, result.connection_defect, result.error);
        if (step > 0.0099 && step < 0.101) {
          fit_steps.push_back(step);
          output.push_back(result.output_defect);
          connection.push_back(result.connection_defect);
          error.push_back(result.error);
        }
      }
      char line[160];
      std::snprintf(line, sizeof line, "| %s | %d | %.2f | %.2f | %.2f |", solver.c_str(), order,
                    slope(fit_steps, output), slope(fit_steps, connection), slope(fit_steps, error));
      slopes.push_back(line);
    }
  }
  std::printf("\nConvergence slopes (least squares of log value on log H, H = 10^-2 … 10^-1):\n\n");
  std::printf("| solver | n | output defect | connection defect | error |\n|---|---|---|---|---|\n");
  for (const std::string& line : slopes) std::printf("%s\n", line.c_str());
}

struct VariableRun {
  std::string solver;
  int order = 0;
  double tolerance = 0.0;
  Result result;
};

std::vector<VariableRun> table_variable_step(const std::vector<std::string>& solvers) {
  std::printf("\n### Table 2: variable step, H1 = 1e-4, m = n\n\n");
  std::printf("| solver | n | tol | output defect | connection defect | error (RMSE) | steps | min step [s] | mean step [s] | max step [s] |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<VariableRun> runs;
  for (const std::string& solver : solvers) {
    for (int order = 0; order <= 2; ++order) {
      for (const double tolerance : paper_grid()) {
        const Result result = variable(tolerance, order, solver);
        std::printf("| %s | %d | %.4g | %.3e | %.3e | %.3e | %d | %.3g | %.3g | %.3g |\n", solver.c_str(), order,
                    tolerance, result.output_defect, result.connection_defect, result.error, result.steps,
                    result.min_step, result.mean_step, result.max_step);
        runs.push_back({solver, order, tolerance, result});
      }
    }
  }
  return runs;
}

/// The fewest fixed steps N (H = horizon/N) whose error is at most `target`: doubling,
/// then bisection (the error is taken to decrease with N, as table 1 shows).
int fixed_steps_reaching(double target, int order, const std::string& solver) {
  const auto reaches = [&](int steps) { return fixed(horizon / steps, order, solver).error <= target; };
  int high = 1;
  while (!reaches(high)) {
    if (high > (1 << 20)) return -1;
    high *= 2;
  }
  int low = high / 2;  // does not reach (or 0)
  while (high - low > 1) {
    const int middle = low + (high - low) / 2;
    if (reaches(middle)) high = middle;
    else low = middle;
  }
  return high;
}

void table_step_savings(const std::vector<VariableRun>& runs) {
  std::printf("\n### Table 3: fixed steps needed for the variable-step run's error\n\n");
  std::printf("| solver | n | tol | variable: error | variable: steps | fixed: steps | fixed / variable |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const VariableRun& run : runs) {
    const int steps = fixed_steps_reaching(run.result.error, run.order, run.solver);
    std::printf("| %s | %d | %.4g | %.3e | %d | %d | %.2f |\n", run.solver.c_str(), run.order, run.tolerance,
                run.result.error, run.result.steps, steps, static_cast<double>(steps) / run.result.steps);
  }
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  return parts;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> solvers{"exact", "euler"};
  std::vector<std::string> tables{"1", "2", "3"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--solvers") solvers = split(argv[i + 1]);
    else if (option == "--tables") tables = split(argv[i + 1]);
    else if (option == "--end") horizon = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--solvers exact,euler,cvode] [--tables 1,2,3] [--end SECONDS]\n", argv[0]);
      return 2;
    }
  }
  const auto wanted = [&](const char* table) { return std::find(tables.begin(), tables.end(), table) != tables.end(); };
  std::printf("# Defect-controlled Jacobi, rotational two-mass oscillator, horizon %g s\n\n", horizon);
  std::printf("scenario: %s\nmachine: %u hardware threads, %s\n", kScenario.c_str(),
              std::thread::hardware_concurrency(), cpu_model().c_str());
  if (wanted("1")) table_fixed_step(solvers);
  if (wanted("2") || wanted("3")) {
    const std::vector<VariableRun> runs = table_variable_step(solvers);
    if (wanted("3")) table_step_savings(runs);
  }
  return 0;
}
