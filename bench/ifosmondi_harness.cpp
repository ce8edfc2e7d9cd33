// Reproduction of figure 8 of Éguillon, Lacabanne, Tromeur-Dervout, "IFOSMONDI
// co-simulation algorithm with Jacobian-free methods in PETSc" (ICCS 2020; DOI in
// docs/references.md) (issue 7; docs/iterative.md): the
// damper test case (scenarios/ifosmondi_damper.yaml) swept over D_D, i.e. over the
// spectral radius √(D_SD/D_D) of the fixed-point map, with ε = 1e-4, for the fixed
// point (classical IFOSMONDI) and IFOSMONDI-JFM with Newton–Krylov and Anderson
// (KINSOL) and NGMRES; iterations, integrations and NRMSE against the monolithic reference, for
// δt_ref = 0.01 (the paper's figure) and 0.1.
//   build/bench/ifosmondi_harness [--smoke] [scenario.yaml]
// --smoke: δt_ref = 0.1 and two D_D (4 and 0.25) only, a run of seconds for the
// smoke test (BenchSmoke.ifosmondi_harness).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "host_tools/cli/commands.hpp"

namespace {

using couplet::tools::Scenario;

struct Method {
  const char* label;
  const char* algorithm;  ///< the algorithm keys besides step and eps
};

const std::vector<Method> kMethods = {
    {"fixed point", "type: ifosmondi"},
    {"newton", "type: ifosmondi_jfm, solver: newton"},
    {"anderson", "type: ifosmondi_jfm, solver: anderson"},
    {"ngmres", "type: ifosmondi_jfm, solver: ngmres"},
};

const std::vector<double> kDampings = {4, 2, 1.5, 1, 0.64, 0.25, 0.04, 0.01};

struct Outcome {
  bool converged = false;
  double iterations = 0, integrations = 0, rejected = 0, nrmse = 0, wall = 0;
  std::string failure;
};

Outcome run_case(const std::string& path, const Method& method, double damping, double step) {
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "{" + std::string(...).
  std::string algorithm = "{";
  algorithm += method.algorithm;
  algorithm += ", step: " + std::to_string(step) + ", eps: 1.0e-4}";
  const std::vector<std::pair<std::string, std::string>> overrides = {
      {"algorithm", algorithm},
      {"slaves.plate.parameters.D_D", std::to_string(damping)},
  };
  const Scenario scenario = couplet::tools::load_scenario(path, overrides);
  const auto directory = std::filesystem::temp_directory_path() / "couplet-ifosmondi-harness";
  Outcome outcome;
  const auto began = std::chrono::steady_clock::now();
  try {
    const nlohmann::json summary = couplet::tools::run_scenario(scenario, {directory.string(), false});
    outcome.converged = true;
    outcome.iterations = summary["counters"]["iterations"].get<double>();
    outcome.integrations = summary["counters"]["integrations"].get<double>();
    outcome.rejected = summary["counters"]["rejected_steps"].get<double>();
    for (const auto& [signal, error] : summary["errors"].items()) {
      outcome.nrmse = std::max(outcome.nrmse, error["nrmse_pct"].get<double>());
    }
  } catch (const std::exception& error) {
    outcome.failure = error.what();
  }
  outcome.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return outcome;
}

/// The failure message without its '|' (markdown cell separators) and its tail.
std::string table_cell(const std::string& message) {
  std::string cell = message.substr(0, message.find(": residual"));
  std::replace(cell.begin(), cell.end(), '|', '/');
  return cell;
}

void sweep(const std::string& path, double step, const std::vector<double>& dampings) {
  std::printf("\n### δt_ref = %g s, ε = 1e-4 (D_D sweep; radius = √(1/D_D))\n\n", step);
  std::printf("| D_D | radius | method | iterations | integrations | rejected | max NRMSE %% | wall s |\n");
  std::printf("|---:|---:|---|---:|---:|---:|---:|---:|\n");
  double fixed_point_integrations = 0, anderson_integrations = 0, newton_integrations = 0;
  for (const double damping : dampings) {
    std::vector<Outcome> outcomes;
    for (const Method& method : kMethods) outcomes.push_back(run_case(path, method, damping, step));
    for (std::size_t m = 0; m < kMethods.size(); ++m) {
      const Outcome& outcome = outcomes[m];
      if (outcome.converged) {
        std::printf("| %g | %.3g | %s | %.0f | %.0f | %.0f | %.2e | %.2f |\n", damping, std::sqrt(1.0 / damping),
                    kMethods[m].label, outcome.iterations, outcome.integrations, outcome.rejected, outcome.nrmse,
                    outcome.wall);
      } else {
        std::printf("| %g | %.3g | %s | — | — | — | failed: %s | %.2f |\n", damping, std::sqrt(1.0 / damping),
                    kMethods[m].label, table_cell(outcome.failure).c_str(), outcome.wall);
      }
    }
    if (outcomes[0].converged) {  // the cases where the fixed point converges
      fixed_point_integrations += outcomes[0].integrations;
      newton_integrations += outcomes[1].integrations;
      anderson_integrations += outcomes[2].integrations;
    }
  }
  std::printf("\nSummed over the cases where the fixed point converges: fixed point %.0f, Newton %.0f, "
              "Anderson %.0f integrations.\n",
              fixed_point_integrations, newton_integrations, anderson_integrations);
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::string(argv[1]) == "--smoke";
  const int first_path_argument = smoke ? 2 : 1;
  const std::string default_path = std::string(COUPLET_SOURCE_DIR) + "/scenarios/ifosmondi_damper.yaml";
  const std::string path = argc > first_path_argument ? argv[first_path_argument] : default_path;
  std::printf("# IFOSMONDI damper sweep (IFOSMONDI-JFM paper, fig. 8): %s\n", path.c_str());
  if (smoke) {
    sweep(path, 0.1, {4, 0.25});
    return 0;
  }
  for (const double step : {0.01, 0.1}) sweep(path, step, kDampings);
  return 0;
}
