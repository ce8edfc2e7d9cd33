// Computation time of the co-simulated oscillator chain against the monolithic
// chain at equal accuracy: J. Kraft, B. Schweizer, "Reduction of Computation Time
// by Parallelization and Incorporating Co-Simulation Techniques" (§3.2, fig. 7,
// eq. 6). The procedure is stated in docs/results.md ("Kraft & Schweizer:
// computation time"):
//   1. reference: the n_K-body chain, monolithic, banded CVODE at rtol = atol = 1e-12;
//   2. co-simulation of the chain in n segments (sequential executor), explicit
//      (Jacobi, extrapolated inputs, k = 2, H = 5 µs) and semi-implicit (k = 2,
//      H = 5 µs and 20 µs), each segment CVODE at rtol = atol = TOL;
//   3. NRMSE of the coupling bodies' positions and velocities against the reference
//      (per variable: RMS error over the evaluation grid / range of the reference;
//      the largest over the variables);
//   4. the monolithic chain at rtol = atol = 1e-3 ... 1e-11: wall and CPU time and its
//      NRMSE on the same coupling bodies; T_mon(equal) = the time of the loosest
//      tolerance whose NRMSE is at most the co-simulation's.
// Timed: solve_monolithic (CVODE set-up, band probe, integration) against
// executor.initialize() + the stepping loop (slave set-up, integration); model
// construction is outside both. Also: where the co-simulation's time goes (each
// segment's step() calls timed), eq. 6 fitted, and the cost of restarting a
// single segment's CVODE at every macro step.
//   build-cc/bench/kraft_schweizer_speed_harness [--keep-history] [--perturbation DL]
//   [--threads N] [N_K [HORIZON [TOL [n ...]]]]
// --keep-history: the segments' CVODE continues its history across macro steps
// (solver history: keep) instead of restarting at each, also across the
// semi-implicit scheme's restores (one history per attempt).
// --perturbation DL: Δλ of the semi-implicit scheme's perturbed predictor, N
// (default 1).
// --threads N: the co-simulation runs on the thread-pool executor with N
// threads, and T_mon / T_cos wall is the end-to-end speed-up of the parallel
// run; only the explicit case is run (the semi-implicit cases, eq. 6 fits and
// the restart table are analyses of the sequential run). The CPU columns then
// count every thread, spinning included.
// defaults: 1024 bodies, 1e-3 s, TOL 1e-8, n = 1 2 4 8 16 32 64 (each must divide 64).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "couplet/slave.hpp"
#include "couplet/time.hpp"
#include "host_tools/generators/chain_convergence.hpp"
#include "models/catalog.hpp"
#include "models/chain_assembly.hpp"
#include "models/monolithic_reference.hpp"
#include "models/ode_slave.hpp"
#include "runtime/algorithms/jacobi.hpp"
#include "runtime/algorithms/semi_implicit.hpp"
#include "runtime/executor.hpp"
#include "runtime/thread_pool_dispatcher.hpp"

namespace {

using namespace couplet;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point began) {
  return std::chrono::duration<double>(Clock::now() - began).count();
}

/// CPU time of the process: both sides run on one thread, so this is robust
/// against other programs sharing the machine, where wall time is not.
double cpu_seconds_since(std::clock_t began) {
  return static_cast<double>(std::clock() - began) / CLOCKS_PER_SEC;
}

/// CPU time of the calling thread: a segment's steps, on whichever pool thread
/// takes them.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

/// CPU time of one thread_cpu_seconds() call (a system call, about 1 µs).
double clock_cost() {
  constexpr int kCalls = 200000;
  const double began = thread_cpu_seconds();
  double last = began;
  for (int i = 0; i < kCalls; ++i) last = thread_cpu_seconds();
  return (last - began) / kCalls;
}

/// Forwards to a slave and adds the CPU time of its steps to `step_seconds`:
/// the part of the co-simulation that the subsystems' integration costs. Each
/// segment has its own counters: pool threads step segments concurrently.
class TimedSlave final : public Slave {
 public:
  TimedSlave(std::unique_ptr<Slave> inner, double& step_seconds, std::uint64_t& steps)
      : inner_(std::move(inner)), step_seconds_(step_seconds), steps_(steps) {}
  const SlaveDescription& description() const override { return inner_->description(); }
  void setup(Time start) override { inner_->setup(start); }
  void evaluate_outputs(std::span<const Polynomial> inputs, std::span<double> outputs) override {
    inner_->evaluate_outputs(inputs, outputs);
  }
  void step(const StepRequest& request, const OutputBuffers& result) override {
    const double began = thread_cpu_seconds();
    inner_->step(request, result);
    step_seconds_ += thread_cpu_seconds() - began;
    ++steps_;
  }
  void announce_step(const StepRequest& request) override { inner_->announce_step(request); }
  void announce_outputs(std::span<const Polynomial> inputs) override {
    inner_->announce_outputs(inputs);
  }
  void save_state() override { inner_->save_state(); }
  void restore_state() override { inner_->restore_state(); }
  void linearize(std::span<const Polynomial> inputs, std::span<double> linearization) override {
    inner_->linearize(inputs, linearization);
  }

 private:
  std::unique_ptr<Slave> inner_;
  double& step_seconds_;
  std::uint64_t& steps_;
};

struct Setup {
  int bodies = 1024;
  double horizon = 1e-3;
  double tolerance = 1e-8;
  double grid_step = 2e-5;      ///< evaluation grid of the NRMSE (a multiple of every H)
  int reference_segments = 64;  ///< the reference's cut: every n divides it
  bool keep_history = false;    ///< the segments' CVODE: history keep instead of restart
  std::size_t threads = 0;      ///< > 0: the thread-pool executor with this many threads
  double perturbation = 1.0;    ///< Δλ of the semi-implicit scheme, N
};

/// Positions and velocities of bodies on the evaluation grid, in a fixed order
/// of (body, x|v): [variable][grid point].
using Trajectories = std::vector<std::vector<double>>;

/// The coupling bodies of the chain cut into n equal segments: B and B + 1 for
/// every cut after body B.
std::vector<int> coupling_bodies(int bodies, int n) {
  std::vector<int> result;
  for (int p = 1; p < n; ++p) {
    result.push_back(p * bodies / n);
    result.push_back(p * bodies / n + 1);
  }
  return result;
}

std::size_t output_index(const models::ModelDescription& description, const std::string& name) {
  for (std::size_t o = 0; o < description.outputs.size(); ++o) {
    if (description.outputs[o].name == name) return o;
  }
  throw std::logic_error("chain.segment has no output " + name);
}

/// A monolithic solution of the chain cut into `Setup::reference_segments`
/// (the cut only names the bodies; the assembled ODE is the whole chain).
struct Monolithic {
  models::ChainAssembly chain;
  models::MonolithicSolution solution;
  double seconds = 0.0;
  double cpu_seconds = 0.0;
};

Monolithic solve_chain(const Setup& setup, const models::ModelCatalog& catalog,
                       const std::vector<double>& grid, double tolerance) {
  const std::vector<int> sizes = models::split_chain(setup.bodies, setup.reference_segments);
  Monolithic result{models::assemble_chain(catalog, sizes), {}, 0.0, 0.0};
  const models::MonolithicSettings settings{.relative_tolerance = tolerance,
                                            .absolute_tolerance = tolerance,
                                            .linear_solver = models::MonolithicLinearSolver::band};
  const auto began = Clock::now();
  const std::clock_t cpu_began = std::clock();
  result.solution = models::solve_monolithic(result.chain.subsystems, result.chain.connections, 0.0,
                                             setup.horizon, grid, settings);
  result.seconds = seconds_since(began);
  result.cpu_seconds = cpu_seconds_since(cpu_began);
  return result;
}

/// x and v of `bodies` from a monolithic solution (its segments of equal length).
Trajectories monolithic_trajectories(const Setup& setup, const Monolithic& mono,
                                     const std::vector<int>& bodies) {
  const int length = setup.bodies / setup.reference_segments;
  Trajectories result;
  for (const int body : bodies) {
    const bool last = body % length == 0;
    const auto segment = static_cast<std::size_t>(last ? body / length - 1 : body / length);
    const std::size_t subsystem = mono.chain.segment_index[segment];
    const models::ModelDescription& description =
        mono.chain.subsystems[subsystem].model->description();
    const std::size_t outputs = description.outputs.size();
    for (const char* variable : {"x", "v"}) {
      const std::size_t o =
          output_index(description, std::string(variable) + (last ? "_last" : "_first"));
      std::vector<double> values;
      for (std::size_t k = 0; k < mono.solution.times.size(); ++k)
        values.push_back(mono.solution.outputs[subsystem][k * outputs + o]);
      result.push_back(std::move(values));
    }
  }
  return result;
}

/// Per variable: RMS of the error over the grid / range of the reference; the
/// largest over the variables.
double nrmse(const Trajectories& solution, const Trajectories& reference) {
  double largest = 0.0;
  for (std::size_t variable = 0; variable < reference.size(); ++variable) {
    const auto& ref = reference[variable];
    double sum = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
      const double e = solution[variable][k] - ref[k];
      sum += e * e;
    }
    const auto [low, high] = std::minmax_element(ref.begin(), ref.end());
    largest = std::max(largest, std::sqrt(sum / static_cast<double>(ref.size())) / (*high - *low));
  }
  return largest;
}

enum class Scheme { explicit_jacobi, semi_implicit };

struct CosimRun {
  double seconds = 0.0;           ///< initialize() + stepping loop
  double cpu_seconds = 0.0;       ///< the same, CPU time
  double step_seconds = 0.0;      ///< Σ segment step() calls, CPU time
  double largest_segment = 0.0;   ///< the slowest segment's step() calls, CPU time
  double nrmse = 0.0;             ///< 0 where there is no coupling body (n = 1)
  std::uint64_t timed_steps = 0;  ///< segment step() calls, two thread_cpu_seconds() each
};

CosimRun cosimulate(const Setup& setup, const models::ModelCatalog& catalog, int n, Scheme scheme,
                    double step, const Trajectories& reference) {
  const int length = setup.bodies / n;
  models::SolverSettings solver;
  solver.relative_tolerance = setup.tolerance;
  solver.absolute_tolerance = setup.tolerance;
  if (setup.keep_history) solver.history = models::CvodeHistory::keep;
  std::vector<double> segment_seconds(static_cast<std::size_t>(n), 0.0);
  std::vector<std::uint64_t> segment_steps(static_cast<std::size_t>(n), 0);
  System system;
  const auto segment = [](int p) { return "seg" + std::to_string(p + 1); };
  for (int p = 0; p < n; ++p) {
    const models::ParameterValues parameters = {{"bodies", length},
                                                {"first_body", 1 + p * length},
                                                {"chain_bodies", setup.bodies},
                                                {"wall_left", p == 0 ? 1.0 : 0.0},
                                                {"wall_right", p == n - 1 ? 1.0 : 0.0}};
    system.add_slave(
        segment(p),
        std::make_unique<TimedSlave>(
            models::make_ode_slave(segment(p), catalog.create("chain.segment", parameters), solver),
            segment_seconds[static_cast<std::size_t>(p)],
            segment_steps[static_cast<std::size_t>(p)]));
  }
  tools::add_chain_couplings(system, n, catalog, solver);
  std::unique_ptr<Algorithm> algorithm;
  if (scheme == Scheme::semi_implicit) {
    algorithm = std::make_unique<SemiImplicit>(
        SemiImplicitSettings{step_to_ticks(step), 2, setup.perturbation, {}});
  } else {
    algorithm = std::make_unique<Jacobi>(
        FixedStepSettings{step_to_ticks(step), 2, InputMode::extrapolated, {}});
  }
  std::vector<Time> grid;
  const Time spacing = step_to_ticks(setup.grid_step);
  const Time end = to_ticks(setup.horizon);
  for (Time t = spacing; t <= end; t += spacing) grid.push_back(t);
  Executor executor(system, *algorithm, 0, end, grid);
  std::optional<ThreadPoolDispatcher> pool;
  if (setup.threads > 0) executor.set_dispatcher(&pool.emplace(setup.threads));
  const auto began = Clock::now();
  const std::clock_t cpu_began = std::clock();
  executor.initialize();
  while (executor.advance()) {
  }
  CosimRun run;
  run.seconds = seconds_since(began);
  run.cpu_seconds = cpu_seconds_since(cpu_began);
  for (const double s : segment_seconds) {
    run.step_seconds += s;
    run.largest_segment = std::max(run.largest_segment, s);
  }
  for (const std::uint64_t steps : segment_steps) run.timed_steps += steps;
  if (n > 1) {
    Trajectories solution;
    for (const int body : coupling_bodies(setup.bodies, n)) {
      const bool last = body % length == 0;
      const auto slave = static_cast<std::size_t>(last ? body / length - 1 : body / length);
      const auto& description = system.description(slave);
      for (const char* variable : {"x", "v"}) {
        const std::string name = std::string(variable) + (last ? "_last" : "_first");
        std::size_t o = description.outputs.size();
        for (std::size_t i = 0; i < description.outputs.size(); ++i) {
          if (description.outputs[i].name == name) o = i;
        }
        if (o == description.outputs.size()) throw std::logic_error("no output " + name);
        std::vector<double> values;
        for (std::size_t k = 0; k < grid.size(); ++k)
          values.push_back(executor.trace().values[slave][k * description.outputs.size() + o]);
        solution.push_back(std::move(values));
      }
    }
    run.nrmse = nrmse(solution, reference);
  }
  return run;
}

const std::vector<double> kSweep = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11};

/// Eq. 6, T ≈ A/n^P + C, fitted to measured times: for each C on a grid in
/// [0, min T), least squares of log(T − C) = log A − P log n; the C with the
/// smallest error in log T. Printed with A / (factor · T_mon): eq. 6 has
/// A = factor · T_mon (factor 1 explicit, 2 semi-implicit).
void fit_eq6(const std::vector<int>& ns, const std::vector<double>& times, double t_mon,
             double factor, const char* label) {
  double best_error = INFINITY, best_a = 0.0, best_p = 0.0, best_c = 0.0;
  const double smallest = *std::min_element(times.begin(), times.end());
  const auto count = static_cast<double>(ns.size());
  for (int i = 0; i < 1000; ++i) {
    const double c = smallest * i / 1000.0;
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    for (std::size_t j = 0; j < ns.size(); ++j) {
      const double x = std::log(static_cast<double>(ns[j]));
      const double y = std::log(times[j] - c);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double slope = (count * sxy - sx * sy) / (count * sxx - sx * sx);
    const double a = std::exp((sy - slope * sx) / count);
    double error = 0.0;
    for (std::size_t j = 0; j < ns.size(); ++j) {
      const double model = a / std::pow(ns[j], -slope) + c;
      error += std::pow(std::log(model / times[j]), 2);
    }
    if (error < best_error) {
      best_error = error;
      best_a = a;
      best_p = -slope;
      best_c = c;
    }
  }
  std::printf(
      "eq. 6 fit, %s: T ≈ A/n^P + C with A = %.3f s (= %.1f × %g·T_mon), P = %.2f, C = %.3f s "
      "(rms log error %.2f)\n",
      label, best_a, best_a / (factor * t_mon), factor, best_p, best_c,
      std::sqrt(best_error / count));
}

}  // namespace

int main(int argc, char** argv) {
  Setup setup;
  std::vector<char*> arguments(argv + 1, argv + argc);
  for (;;) {
    if (!arguments.empty() && std::string(arguments.front()) == "--keep-history") {
      setup.keep_history = true;
      arguments.erase(arguments.begin());
    } else if (arguments.size() >= 2 && std::string(arguments.front()) == "--perturbation") {
      setup.perturbation = std::atof(arguments[1]);
      arguments.erase(arguments.begin(), arguments.begin() + 2);
    } else if (arguments.size() >= 2 && std::string(arguments.front()) == "--threads") {
      setup.threads = static_cast<std::size_t>(std::max(1, std::atoi(arguments[1])));
      arguments.erase(arguments.begin(), arguments.begin() + 2);
    } else {
      break;
    }
  }
  if (arguments.size() > 0) setup.bodies = std::atoi(arguments[0]);
  if (arguments.size() > 1) setup.horizon = std::atof(arguments[1]);
  if (arguments.size() > 2) setup.tolerance = std::atof(arguments[2]);
  std::vector<int> ns;
  for (std::size_t a = 3; a < arguments.size(); ++a) ns.push_back(std::atoi(arguments[a]));
  if (ns.empty()) ns = {1, 2, 4, 8, 16, 32, 64};
  for (const int n : ns) {
    if (n < 1 || setup.reference_segments % n != 0 ||
        setup.bodies % setup.reference_segments != 0) {
      std::fprintf(stderr, "n = %d: every n must divide %d, which must divide n_K = %d\n", n,
                   setup.reference_segments, setup.bodies);
      return 2;
    }
  }
  try {
    const models::ModelCatalog catalog = models::ModelCatalog::builtin();
    std::vector<double> grid;
    const int points = static_cast<int>(std::lround(setup.horizon / setup.grid_step));
    for (int k = 1; k <= points; ++k) grid.push_back(k * setup.grid_step);

    const double timer_cost = clock_cost();
    std::printf(
        "n_K = %d, horizon %g s, segment CVODE rtol = atol = %g, history %s, semi-implicit Δλ %g "
        "N, NRMSE grid %g s, one thread CPU clock %.2f µs CPU, executor %s\n\n",
        setup.bodies, setup.horizon, setup.tolerance, setup.keep_history ? "keep" : "restart",
        setup.perturbation, setup.grid_step, timer_cost * 1e6,
        setup.threads > 0 ? ("threads: " + std::to_string(setup.threads)).c_str() : "sequential");
    const Monolithic reference = solve_chain(setup, catalog, grid, 1e-12);
    std::printf(
        "reference (banded CVODE, rtol = atol = 1e-12): %.2f s wall, %.2f s CPU, band (%zu, "
        "%zu)\n\n",
        reference.seconds, reference.cpu_seconds, reference.solution.linear_algebra.lower_bandwidth,
        reference.solution.linear_algebra.upper_bandwidth);
    std::fflush(stdout);

    std::vector<Monolithic> sweep;
    for (const double tolerance : kSweep)
      sweep.push_back(solve_chain(setup, catalog, grid, tolerance));

    std::printf("### Monolithic banded CVODE, tolerance sweep\n\n");
    std::printf(
        "| rtol = atol | T_mon wall s | T_mon CPU s | NRMSE (coupling bodies of n = %d) |\n"
        "|---:|---:|---:|---:|\n",
        std::max(2, *std::max_element(ns.begin(), ns.end())));
    const std::vector<int> widest =
        coupling_bodies(setup.bodies, std::max(2, *std::max_element(ns.begin(), ns.end())));
    const Trajectories widest_reference = monolithic_trajectories(setup, reference, widest);
    for (std::size_t i = 0; i < kSweep.size(); ++i) {
      std::printf("| %g | %.3f | %.3f | %.3e |\n", kSweep[i], sweep[i].seconds,
                  sweep[i].cpu_seconds,
                  nrmse(monolithic_trajectories(setup, sweep[i], widest), widest_reference));
    }
    std::printf("\n");
    std::fflush(stdout);

    struct Case {
      const char* name;
      Scheme scheme;
      double step;
      double factor;  ///< eq. 6: 1 explicit, 2 semi-implicit
    };
    // T_cos CPU of the explicit case per n, against which the others are compared.
    std::vector<std::pair<int, double>> explicit_cpu;
    std::vector<Case> cases = {
        {"explicit k = 2, H = 5 µs", Scheme::explicit_jacobi, 5e-6, 1.0},
        {"semi-implicit k = 2, H = 5 µs", Scheme::semi_implicit, 5e-6, 2.0},
        {"semi-implicit k = 2, H = 20 µs", Scheme::semi_implicit, 2e-5, 2.0}};
    if (setup.threads > 0) cases.resize(1);
    for (const Case& c : cases) {
      std::printf("### %s\n\n", c.name);
      std::printf(
          "| n | T_cos wall s | T_cos CPU s | Σ segment steps | slowest segment | timer calls | "
          "master + couplings | critical path | NRMSE | monolithic rtol | T_mon wall s | T_mon CPU "
          "s | T_mon / T_cos "
          "wall | CPU | T_mon / critical path |\n");
      std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      std::vector<int> fit_n;
      std::vector<double> fit_sequential, fit_critical, fit_segment;
      for (const int n : ns) {
        if (n == 1 && c.scheme == Scheme::semi_implicit) continue;  // no interface to solve
        const std::vector<int> bodies = coupling_bodies(setup.bodies, n);
        const Trajectories ref = monolithic_trajectories(setup, reference, bodies);
        CosimRun run;
        try {
          run = cosimulate(setup, catalog, n, c.scheme, c.step, ref);
        } catch (const std::exception& error) {
          std::printf("| %d | failed: %s | | | | | | | | | | | | | |\n", n, error.what());
          std::fflush(stdout);
          continue;
        }
        // The timing itself (two std::clock() per segment step) is in T_cos;
        // taken out of the master's share, which it would otherwise inflate.
        const double timers = 2.0 * static_cast<double>(run.timed_steps) * timer_cost;
        const double master = std::max(0.0, run.cpu_seconds - run.step_seconds - timers);
        const double critical = run.largest_segment + master;
        fit_n.push_back(n);
        if (c.scheme == Scheme::explicit_jacobi) explicit_cpu.emplace_back(n, run.cpu_seconds);
        fit_sequential.push_back(run.cpu_seconds);
        fit_critical.push_back(critical);
        fit_segment.push_back(run.largest_segment);
        std::printf("| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |", n, run.seconds,
                    run.cpu_seconds, run.step_seconds, run.largest_segment, timers, master,
                    critical);
        if (n == 1) {
          std::printf(" — | — | — | — | — | — | — |\n");
          std::fflush(stdout);
          continue;
        }
        // The loosest tolerance of the sweep whose NRMSE is at most the
        // co-simulation's; the 1e-12 reference where none is.
        const Monolithic* chosen = &reference;
        std::string tolerance = "1e-12 (none looser)";
        for (std::size_t i = 0; i < kSweep.size(); ++i) {
          if (nrmse(monolithic_trajectories(setup, sweep[i], bodies), ref) <= run.nrmse) {
            chosen = &sweep[i];
            char text[32];
            std::snprintf(text, sizeof text, "%g", kSweep[i]);
            tolerance = text;
            break;
          }
        }
        std::printf(" %.3e | %s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", run.nrmse,
                    tolerance.c_str(), chosen->seconds, chosen->cpu_seconds,
                    chosen->seconds / run.seconds, chosen->cpu_seconds / run.cpu_seconds,
                    chosen->cpu_seconds / critical);
        std::fflush(stdout);
      }
      if (c.scheme != Scheme::explicit_jacobi) {
        std::printf("\nT_cos CPU against the explicit scheme (H = 5 µs) at the same n:");
        for (std::size_t i = 0; i < fit_n.size(); ++i) {
          for (const auto& [explicit_n, seconds] : explicit_cpu) {
            if (explicit_n == fit_n[i])
              std::printf(" n = %d: %.2f×", fit_n[i], fit_sequential[i] / seconds);
          }
        }
        std::printf("\n");
      }
      if (fit_n.size() >= 2) {
        // T_mon of eq. 6: the monolithic run at the segments' own tolerance.
        std::size_t at_tolerance = 0;
        for (std::size_t i = 0; i < kSweep.size(); ++i) {
          if (std::abs(std::log10(kSweep[i] / setup.tolerance)) < 0.01) at_tolerance = i;
        }
        const double t_mon = sweep[at_tolerance].cpu_seconds;
        std::printf("\nT_mon (rtol %g) = %.3f s CPU\n", kSweep[at_tolerance], t_mon);
        fit_eq6(fit_n, fit_sequential, t_mon, c.factor, "sequential CPU time");
        fit_eq6(fit_n, fit_critical, t_mon, c.factor, "critical path (one core per segment)");
        fit_eq6(fit_n, fit_segment, t_mon, c.factor, "slowest segment's steps");
      }
      std::printf("\n");
    }
    if (setup.threads > 0) return 0;
    // Where the time goes at n = 1: the same model, tolerance and thread as the
    // monolithic run; the only difference is that the segment's CVODE stops and
    // restarts (CVodeReInit, BDF order 1) at every macro step.
    std::printf("### One segment (n = 1, explicit k = 2): cost of restarting every macro step\n\n");
    std::printf("| H s | macro steps | T CPU s | monolithic CPU s (rtol %g) | ratio |\n",
                setup.tolerance);
    std::printf("|---:|---:|---:|---:|---:|\n");
    std::size_t at_tolerance = 0;
    for (std::size_t i = 0; i < kSweep.size(); ++i) {
      if (std::abs(std::log10(kSweep[i] / setup.tolerance)) < 0.01) at_tolerance = i;
    }
    for (const double step : {5e-6, 2e-5, 1e-4, setup.horizon}) {
      const CosimRun run = cosimulate(setup, catalog, 1, Scheme::explicit_jacobi, step, {});
      std::printf("| %g | %ld | %.3f | %.3f | %.1f |\n", step, std::lround(setup.horizon / step),
                  run.cpu_seconds, sweep[at_tolerance].cpu_seconds,
                  run.cpu_seconds / sweep[at_tolerance].cpu_seconds);
      std::fflush(stdout);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "kraft_schweizer_speed_harness: %s\n", error.what());
    return 1;
  }
  return 0;
}
