// Reproduction of the MISSILES paper's test cases (Éguillon, Lacabanne,
// Tromeur-Dervout, J. Comput. Appl. Math. 424 (2023) 115013,
// doi:10.1016/j.cam.2022.115013; docs/missiles.md): the linear mechanical case
// (table 3) and Lotka–Volterra (§4.2, table 6, figure 11), NI Jacobi against
// MISSILES against IFOSMONDI-JFM converged tightly, at equal macro steps. Prints
// markdown tables: error against the monolithic reference and wall time, all
// measured in this one run so that the time ratios compare.
//   build/bench/missiles_harness [--smoke]
// --smoke: the coarsest macro step of each table only (two in the convergence
// table) and IFOSMONDI-JFM at ε 1e-2 only, a run of seconds for the smoke test
// (BenchSmoke.missiles_harness).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "host_tools/cli/commands.hpp"

namespace {

struct Method {
  const char* label;
  const char* keys;  ///< the algorithm keys besides the step
};

// The paper's tables 4 and 6 compare IFOSMONDI-JFM at ε = 1e-2 and 1e-5.
const std::vector<Method> kMethods = {
    {"NI Jacobi", "type: jacobi, input_order: 0"},
    {"MISSILES", "type: missiles"},
    {"IFOSMONDI-JFM ε 1e-2", "type: ifosmondi_jfm, solver: newton, eps: 1.0e-2"},
    {"IFOSMONDI-JFM ε 1e-5", "type: ifosmondi_jfm, solver: newton, eps: 1.0e-5"},
    {"IFOSMONDI-JFM ε 1e-10", "type: ifosmondi_jfm, solver: newton, eps: 1.0e-10"},
};

struct Outcome {
  double rmse = 0, nrmse = 0, wall = 0;
  std::filesystem::path directory;
  std::string failure;
};

bool smoke = false;  // --smoke

/// The macro steps of a table: all of them, or the first `smoke_count` with --smoke.
std::vector<double> steps_of(std::vector<double> steps, std::size_t smoke_count = 1) {
  if (smoke) steps.resize(std::min(steps.size(), smoke_count));
  return steps;
}

/// The methods compared: all, or the first three (up to IFOSMONDI-JFM ε 1e-2) with --smoke.
std::span<const Method> methods() {
  return std::span(kMethods).first(smoke ? 3 : kMethods.size());
}

std::string source_path(const char* name) { return std::string(COUPLET_SOURCE_DIR) + "/scenarios/" + name; }

Outcome run_case(const char* scenario, const Method& method, double step, const std::string& signal,
                 std::vector<std::pair<std::string, std::string>> overrides = {}) {
  char step_text[32];
  std::snprintf(step_text, sizeof step_text, "%g", step);
  std::string algorithm = "{";
  algorithm += method.keys;
  algorithm += ", step: ";
  algorithm += step_text;
  algorithm += "}";
  overrides.emplace_back("algorithm", algorithm);
  Outcome outcome;
  outcome.directory = std::filesystem::temp_directory_path() / "couplet-missiles-harness";
  const auto began = std::chrono::steady_clock::now();
  try {
    const auto loaded = couplet::tools::load_scenario(source_path(scenario), overrides);
    const nlohmann::json summary = couplet::tools::run_scenario(loaded, {outcome.directory.string(), false});
    outcome.rmse = summary["errors"][signal]["rmse"].get<double>();
    outcome.nrmse = summary["errors"][signal]["nrmse_pct"].get<double>();
  } catch (const std::exception& error) {
    outcome.failure = error.what();
  }
  outcome.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return outcome;
}

void print_row(double step, const Method& method, const Outcome& outcome, const char* extra = "") {
  if (!outcome.failure.empty()) {
    std::printf("| %g | %s | failed: %s | | |%s\n", step, method.label, outcome.failure.c_str(), extra);
    return;
  }
  std::printf("| %g | %s | %.3e | %.3e | %.3f |%s\n", step, method.label, outcome.rmse, outcome.nrmse,
              outcome.wall, extra);
}

void linear_case() {
  std::printf("\n### Linear mechanical case (table 3), signal left.x, slaves on CVODE (rtol 1e-9)\n\n");
  std::printf("| δt s | method | RMSE m | NRMSE %% | wall s |\n|---:|---|---:|---:|---:|\n");
  for (const double step : steps_of({1e-2, 1e-3, 1e-4})) {
    for (const Method& method : methods())
      print_row(step, method, run_case("missiles_linear.yaml", method, step, "left.x"));
  }
  std::printf("\n### MISSILES convergence in δt, slaves integrated exactly (solver: exact)\n\n");
  std::printf("| δt s | RMSE of left.x m | observed order |\n|---:|---:|---:|\n");
  const std::vector<std::pair<std::string, std::string>> exact = {
      {"slaves.left.solver", "{type: exact}"}, {"slaves.right.solver", "{type: exact}"}};
  double previous = 0.0;
  for (const double step : steps_of({8e-3, 4e-3, 2e-3, 1e-3, 5e-4}, 2)) {
    const Outcome outcome = run_case("missiles_linear.yaml", kMethods[1], step, "left.x", exact);
    if (previous > 0.0) {
      std::printf("| %g | %.3e | %.2f |\n", step, outcome.rmse, std::log2(previous / outcome.rmse));
    } else {
      std::printf("| %g | %.3e | |\n", step, outcome.rmse);
    }
    previous = outcome.rmse;
  }
}

// The first integral of Lotka–Volterra, V = δx − γ ln x + βy − α ln y, with the
// scenario's parameters: its drift over the run measures how far the orbit left
// the exact closed cycle (figure 11).
double invariant_drift(const std::filesystem::path& signals) {
  constexpr double alpha = 1.5, beta = 1.0, gamma = 3.0, delta = 1.0;
  std::ifstream file(signals);
  std::string line;
  std::getline(file, line);  // time,prey.prey,predator.predator,...
  double first = 0.0, last = 0.0;
  bool have_first = false;
  while (std::getline(file, line)) {
    std::stringstream row(line);
    std::string cell;
    double values[3];
    for (double& value : values) {
      std::getline(row, cell, ',');
      value = std::stod(cell);
    }
    const double prey = values[1], predator = values[2];
    const double invariant = delta * prey - gamma * std::log(prey) + beta * predator - alpha * std::log(predator);
    if (!have_first) first = invariant, have_first = true;
    last = invariant;
  }
  return std::abs(last - first) / std::abs(first);
}

void lotka_volterra() {
  std::printf("\n### Lotka–Volterra (§4.2, table 6), signal prey.prey, 10 s, slaves on CVODE (rtol 1e-12)\n\n");
  std::printf("| δt s | method | RMSE | NRMSE %% | wall s | invariant drift |\n|---:|---|---:|---:|---:|---:|\n");
  for (const double step : steps_of({1e-2, 1e-3, 1e-4})) {
    for (const Method& method : methods()) {
      const Outcome outcome = run_case("missiles_lotka_volterra.yaml", method, step, "prey.prey");
      char drift[48] = "";
      if (outcome.failure.empty())
        std::snprintf(drift, sizeof drift, " %.2e |", invariant_drift(outcome.directory / "signals.csv"));
      print_row(step, method, outcome, drift);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    if (std::string(argv[k]) != "--smoke") {
      std::fprintf(stderr, "usage: %s [--smoke]\n", argv[0]);
      return 2;
    }
    smoke = true;
  }
  linear_case();
  lotka_volterra();
  return 0;
}
