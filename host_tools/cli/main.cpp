// couplet — command-line front end (docs/cli.md).
// Exit codes: 0 success, 1 the run failed (slave or solver failure), 2 bad
// configuration or usage, 128 + the signal for a run interrupted by SIGINT (130)
// or SIGTERM (143). Errors are one line on stderr.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "couplet/errors.hpp"
#include "host_tools/checks/check_setup.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/cli/key_value_assignment.hpp"
#include "host_tools/cli/log_commands.hpp"
#include "host_tools/generators/chain_generator.hpp"
#include "host_tools/live/live_watch.hpp"
#include "host_tools/mpi/mpi_session.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/runlog/resim.hpp"
#include "host_tools/runlog/run_compare.hpp"
#include "host_tools/testbench/test_command.hpp"
#include "protocol/frame_key.hpp"

// The project's version (CMakeLists.txt project(VERSION)), given by the build.
#ifndef COUPLET_VERSION
#error "COUPLET_VERSION (the project version) comes from CMakeLists.txt"
#endif

namespace {

constexpr int kExitRunFailed = 1;
constexpr int kExitConfiguration = 2;
constexpr int kExitChecksFailed = 3;  // the run completed or was stopped, and a check failed

/// A usage error as one line (CLI11 prints two); --help and --version exit 0.
int exit_for_parse_error(const CLI::App& app, const CLI::ParseError& error) {
  if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
  std::cerr << "couplet: usage error: " << error.what() << " (see couplet --help)\n";
  return kExitConfiguration;
}

/// What a run interrupted by a signal leaves: the summary on stdout, the reason
/// on stderr, the exit status a shell expects of the signal.
int report_interruption(const nlohmann::json& summary, const std::string& output_directory,
                        int signal_number) {
  std::cerr << "couplet: " << summary.value("interrupted_by", "a signal")
            << " received: run stopped at t = " << summary.value("end_time", 0.0)
            << " s; results up to there in " << output_directory << "/\n";
  return couplet::tools::exit_status_for_signal(signal_number);
}

std::vector<std::pair<std::string, std::string>> parse_overrides(
    const std::vector<std::string>& assignments) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& assignment : assignments)
    overrides.push_back(couplet::tools::parse_override(assignment));
  return overrides;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace couplet::tools;
  CLI::App app{"couplet — co-simulation with hardware in the loop"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("couplet ") + COUPLET_VERSION);

  std::string scenario_path;
  std::string output_directory = "out";
  std::vector<std::string> assignments;

  CLI::App* run =
      app.add_subcommand("run", "co-simulate a scenario; writes summary.json and signals.csv");
  run->add_option("scenario", scenario_path,
                  "scenario file (YAML), or an SSP package (.ssp) with its PACKAGE.couplet.yaml")
      ->required();
  run->add_option("-o,--output", output_directory, "output directory")->capture_default_str();
  run->add_option("--set", assignments, "override a scenario key: key.path=value (repeatable)")
      ->check(key_value_assignment());

  CLI::App* reference =
      app.add_subcommand("reference", "solve the scenario monolithically (reference)");
  reference
      ->add_option("scenario", scenario_path,
                   "scenario file (YAML), or an SSP package (.ssp) with its PACKAGE.couplet.yaml")
      ->required();
  reference->add_option("-o,--output", output_directory, "output directory")->capture_default_str();
  reference
      ->add_option("--set", assignments, "override a scenario key: key.path=value (repeatable)")
      ->check(key_value_assignment());

  CLI::App* validate = app.add_subcommand("validate", "check a scenario without running it");
  validate
      ->add_option("scenario", scenario_path,
                   "scenario file (YAML), or an SSP package (.ssp) with its PACKAGE.couplet.yaml")
      ->required();
  validate->add_option("--set", assignments, "override a scenario key: key.path=value (repeatable)")
      ->check(key_value_assignment());

  CLI::App* models = app.add_subcommand(
      "models",
      "list the built-in models, or an FMU's or a DCP slave's variables and capabilities");
  std::vector<std::string> fmu_paths;
  models->add_option("file", fmu_paths,
                     "FMU files (.fmu) or DCP slave descriptions (.dcpx) to describe instead of "
                     "the built-in models");

  bool no_log = false;
  run->add_flag("--no-log", no_log, "do not write run.log");
  bool compress_log = false;
  run->add_flag(
         "--compress-log", compress_log,
         "write run.log compressed (zstd blocks, 2-3x smaller; every couplet reader reads it)")
      ->excludes("--no-log");
  bool quiet = false;
  run->add_flag("-q,--quiet", quiet, "no progress line on stderr");
  double progress_interval = 5.0;
  run->add_option("--progress-interval", progress_interval,
                  "seconds between progress lines when stderr is not a terminal")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  LiveViewOptions live;
  CLI::Option* live_option = run->add_option(
      "--live", live.endpoint,
      "serve the run on a web page at [ADDR:]PORT (127.0.0.1 unless ADDR; port 0: any "
      "free one; docs/live.md)");
  run->add_flag("--live-control", live.control,
                "the live page gets a Stop button (POST /stop), like Ctrl-C")
      ->needs(live_option);
  run->add_option("--live-linger", live.linger_s,
                  "seconds the live page stays served after the run ends")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0))
      ->needs(live_option);

  std::string log_path;
  bool verify = false;
  CLI::App* replay =
      app.add_subcommand("replay", "re-run the master on a run log's recorded slave results");
  replay->add_option("log", log_path, "run log (DIR/run.log)")->required();
  replay->add_flag("--verify", verify, "exit 1 unless every decision is reproduced bit for bit");

  ExportOptions export_options;
  CLI::App* export_command = app.add_subcommand(
      "export",
      "write a run log as a table, one row per communication time (outputs at that time, the "
      "plan that made the row, internals, link timing), as CSV or a MAT-file");
  export_command->add_option("log", log_path, "run log (DIR/run.log)")->required();
  export_command->add_option("--csv", export_options.csv_path,
                             "CSV file to write (default: standard output, unless --mat)");
  export_command->add_option(
      "--mat", export_options.mat_path,
      "MAT-file (v5) to write: one variable per column, names made MATLAB-valid");
  export_command->add_flag("--grid", export_options.grid,
                           "one row per evaluation-grid time instead, the outputs as signals.csv "
                           "holds them (time and outputs only)");

  CLI::App* inspect = app.add_subcommand("inspect", "print a readable summary of a run log");
  inspect->add_option("log", log_path, "run log (DIR/run.log)")->required();

  std::string report_path;  // empty: report.html in the run's directory
  CLI::App* watch = app.add_subcommand("watch",
                                       "serve the live page of a run log, one still being written "
                                       "(followed as it grows) or finished");
  watch->add_option("log", log_path, "run log (DIR/run.log)")->required();
  LiveViewOptions watch_live{"0"};
  watch
      ->add_option("--live", watch_live.endpoint,
                   "[ADDR:]PORT to serve at (127.0.0.1 unless ADDR; 0: any free port)")
      ->capture_default_str();
  watch
      ->add_option("--live-linger", watch_live.linger_s,
                   "seconds the page stays served after the log's end")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));

  std::vector<std::string> report_runs;
  CLI::App* report = app.add_subcommand(
      "report", "write a self-contained HTML report of a run, or of several runs overlaid");
  report
      ->add_option("logs", report_runs,
                   "run log, or the run's output directory; several are overlaid on one page")
      ->required()
      ->expected(1, -1);
  report->add_option("-o,--output", report_path,
                     "HTML file to write (default: report.html beside the log; of several runs, "
                     "in the current directory)");

  std::string resim_slave;
  ResimOptions resim_options;
  CLI::App* resim = app.add_subcommand(
      "resim",
      "re-simulate one slave of a run log, open loop, driven by the requests recorded for it");
  resim->add_option("log", log_path, "run log (DIR/run.log)")->required();
  resim->add_option("slave", resim_slave, "the slave to re-simulate")->required();
  resim->add_option(
      "--set", assignments,
      "override a key of the logged scenario: key.path=value (repeatable); "
      "slaves.NAME.model or slaves.NAME.fmu replaces the slave's model, FMU or device");
  resim->add_option("-o,--output", resim_options.output_directory, "output directory")
      ->capture_default_str();

  std::string compare_a;
  std::string compare_b;
  CompareOptions compare_options;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "compare two runs signal by signal and decision by decision; exit 3 beyond tolerance");
  compare->add_option("a", compare_a, "first run: a run directory or a run log")->required();
  compare->add_option("b", compare_b, "second run (the reference of --relative)")->required();
  compare->add_option("--tolerance", compare_options.tolerance, "absolute tolerance ABS")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare
      ->add_option("--relative", compare_options.relative,
                   "relative tolerance REL: |a - b| <= ABS + REL |b|")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  compare
      ->add_option("--signals", compare_options.signals, "compare only these signals (S1,S2,...)")
      ->delimiter(',');

  TestOptions test_options;
  CLI::App* test =
      app.add_subcommand("test",
                         "run test scenarios (checks:, cases:) as a test suite, each run a "
                         "child process; exit 3 when a check fails");
  test->add_option(
          "paths", test_options.paths,
          "scenario files, or directories searched for *.yaml and *.ssp that declare checks:")
      ->required();
  test->add_option("--junit", test_options.junit_path,
                   "write the results as JUnit XML to this file");
  test->add_option("--jobs", test_options.jobs, "runs at a time (default: the number of cores)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1024}));
  test->add_option("-o,--output", test_options.output_directory,
                   "directory of the runs: DIR/<scenario>[/<case>]")
      ->capture_default_str();
  test->add_option("--live", test_options.live_endpoint,
                   "[ADDR:]PORT: each run serves its live page, run k at PORT+k (0: any free "
                   "port each; docs/live.md)");

  CLI::App* generate = app.add_subcommand("generate", "write a scenario from a template");
  generate->require_subcommand(1);
  ChainScenarioOptions chain_options;
  std::string generated_path;
  std::string chain_reference = "monolithic";
  CLI::App* chain = generate->add_subcommand(
      "chain", "the Kraft-Schweizer oscillator chain cut into subsystems (docs/chain.md)");
  chain->add_option("--bodies", chain_options.bodies, "n_K, bodies of the chain")->required();
  chain->add_option("--subsystems", chain_options.subsystems, "n, segments (1 to n_K)")->required();
  chain->add_option("--end", chain_options.end, "horizon in seconds")->capture_default_str();
  chain->add_option("--step", chain_options.step, "macro step H in seconds")->capture_default_str();
  chain
      ->add_option("--scheme", chain_options.scheme,
                   "jacobi (Taylor inputs), explicit "
                   "(extrapolated inputs) or semi-implicit")
      ->capture_default_str();
  chain->add_option("--order", chain_options.order, "input order k")->capture_default_str();
  chain->add_option("--tolerance", chain_options.tolerance, "CVODE rtol = atol of each segment")
      ->capture_default_str();
  chain->add_option("--threads", chain_options.threads, "thread-pool executor with N threads");
  chain
      ->add_option("--perturbation", chain_options.perturbation,
                   "semi-implicit: the coupling-force perturbation in newtons")
      ->capture_default_str();
  chain->add_option("--grid", chain_options.grid,
                    "evaluation grid in seconds (default: end / 100)");
  chain->add_option("--reference", chain_reference, "monolithic or none")->capture_default_str();
  chain
      ->add_option("--solver-history", chain_options.solver_history,
                   "CVODE at each macro step: restart, or keep its history (docs/models.md)")
      ->capture_default_str();
  chain->add_option("-o,--output", generated_path,
                    "scenario file to write (default: standard output)");

  std::string key_path;
  CLI::App* keygen = app.add_subcommand(
      "keygen", "write a new random key for authenticated links (docs/links.md)");
  keygen->add_option("FILE", key_path, "the key file to create (mode 0600; must not exist)")
      ->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return exit_for_parse_error(app, error);
  }

  // Under mpirun, `couplet run` is one rank of a distributed run (docs/mpi.md):
  // MPI lives as long as this scope; rank 0 alone prints (the others run the
  // same master and would print the same).
  std::optional<MpiSession> mpi;
  bool prints = true;
  try {
    if (run->parsed() && launched_by_mpirun()) {
      mpi.emplace();
      prints = mpi->rank() == 0;
    }
    if (models->parsed()) {
      if (fmu_paths.empty()) std::cout << describe_models(couplet::models::ModelCatalog::builtin());
      for (const std::string& path : fmu_paths) std::cout << describe_slave_file(path);
      return 0;
    }
    if (keygen->parsed()) {
      couplet::protocol::write_new_frame_key(key_path);
      std::cout << key_path << ": a new 128-bit key; give the target --key-file " << key_path
                << " and its link key_file: " << key_path << "\n";
      return 0;
    }
    if (generate->parsed()) {
      if (chain_reference != "monolithic" && chain_reference != "none") {
        throw couplet::ConfigurationError(
            "generate chain: --reference must be monolithic or none, got '" + chain_reference +
            "'");
      }
      chain_options.reference = chain_reference == "monolithic";
      const std::string yaml = chain_scenario_yaml(chain_options);
      if (generated_path.empty()) {
        std::cout << yaml;
        return 0;
      }
      std::ofstream file(generated_path);
      file << yaml;
      file.close();
      if (!file)
        throw couplet::ConfigurationError("generate chain: cannot write '" + generated_path + "'");
      return 0;
    }
    if (replay->parsed()) return replay_log_command(log_path, verify);
    if (export_command->parsed()) return export_log_command(log_path, export_options);
    if (inspect->parsed()) return inspect_log_command(log_path);
    if (report->parsed()) {
      return report_runs.size() == 1 ? report_log_command(report_runs.front(), report_path)
                                     : report_overlay_command(report_runs, report_path);
    }
    if (watch->parsed()) {
      const InterruptGuard interrupt;
      return watch_log_command(log_path, watch_live, interrupt);
    }
    if (resim->parsed()) {
      resim_options.overrides = parse_overrides(assignments);
      return resim_command(log_path, resim_slave, resim_options);
    }
    if (compare->parsed()) return compare_command(compare_a, compare_b, compare_options);
    if (test->parsed()) return test_command(test_options);
    const Scenario scenario = load_scenario(scenario_path, parse_overrides(assignments));
    if (validate->parsed()) {
      for (const std::string& note : validate_scenario(scenario)) std::cout << note << "\n";
      std::cout << scenario_path << ": valid\n";
      return 0;
    }
    if (reference->parsed()) {
      const auto summary = reference_scenario(scenario, output_directory);
      std::cout << summary_table(summary) << "  written to " << output_directory << "/\n";
      return 0;
    }
    // Under mpirun, SIGINT/SIGTERM keep their default action: mpirun forwards
    // them to every rank, which could not agree on where to stop.
    std::optional<InterruptGuard> interrupt;
    if (!mpi) interrupt.emplace();
    const bool terminal = isatty(STDERR_FILENO) != 0;
    const auto interval = std::chrono::milliseconds(std::llround(progress_interval * 1000));
    RunOptions options{output_directory,
                       !quiet,
                       !no_log,
                       interrupt ? &*interrupt : nullptr,
                       terminal,
                       interval,
                       mpi ? &*mpi : nullptr,
                       true,
                       live_option->count() > 0 ? &live : nullptr};
    options.compress_log = compress_log;
    const auto summary = run_scenario(scenario, options);
    if (!prints) return 0;
    std::cout << summary_table(summary) << "  written to " << output_directory << "/\n";
    if (const int signal_number = interrupt ? interrupt->received() : 0;
        signal_number != 0 && summary.value("status", "") == "interrupted")
      return report_interruption(summary, output_directory, signal_number);
    if (couplet::tools::checks_failed(summary)) {
      std::cerr << "couplet: checks failed"
                << (summary.contains("stopped_by")
                        ? "; run stopped by " + summary["stopped_by"].get<std::string>()
                        : std::string())
                << " (summary.json checks)\n";
      return kExitChecksFailed;
    }
    return 0;
  } catch (const couplet::ConfigurationError& error) {
    if (prints) std::cerr << "couplet: configuration error: " << error.what() << "\n";
    return kExitConfiguration;
  } catch (const couplet::SlaveError& error) {
    if (prints) std::cerr << "couplet: run failed: " << error.what() << "\n";
    return kExitRunFailed;
  } catch (const std::exception& error) {
    if (prints) std::cerr << "couplet: error: " << error.what() << "\n";
    return kExitRunFailed;
  }
}
