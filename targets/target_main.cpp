// couplet-target — serves a built-in model or an FMU over UDP or serial.
//
//   couplet-target (--model NAME | --fmu FILE [--fmu-kind cs|me]) [--param k=v]...
//                  (--udp HOST:PORT | --serial DEVICE [--baud N])
//                  [--realtime] [--once] [--session-timeout S] [--cpu N] [--priority P]
//
// Built on the device SDK's serving path (targets/target_program.hpp): the same
// command line, transports, sessions and real-time loop as a user's device
// program; only the source of the slave differs.
#include <CLI/CLI.hpp>
#include <iostream>

#include "models/catalog.hpp"
#include "models/slave_source.hpp"
#include "targets/build_directory.hpp"
#include "targets/target_program.hpp"

int main(int argc, char** argv) {
  using namespace couplet;
  CLI::App app{"couplet-target — serves a built-in model or an FMU over a link"};
  std::string model;
  std::string fmu;
  std::string fmu_kind = "auto";
  auto* model_option =
      app.add_option("--model", model, "built-in model to serve (see `couplet models`)");
  auto* fmu_option = app.add_option("--fmu", fmu, "FMI 2.0 or 3.0 FMU to serve (docs/fmi.md)");
  model_option->excludes(fmu_option);
  app.add_option("--fmu-kind", fmu_kind,
                 "interface of the FMU: cs, me, se (FMI 3.0 scheduled execution), or auto (me "
                 "when offered, else cs, else se)")
      ->check(CLI::IsMember({"auto", "cs", "me", "se"}))
      ->capture_default_str();
  targets::TargetProgramSettings settings;
  targets::add_target_options(app, settings);
  if (const auto exit_code = targets::parse_command_line(app, argc, argv)) return *exit_code;
  if (model.empty() == fmu.empty()) {
    std::cerr << "couplet-target: give exactly one of --model NAME or --fmu FILE\n";
    return 2;
  }
  const auto open_source = [&]() -> std::shared_ptr<const models::SlaveSource> {
    if (!fmu.empty()) {
      const models::FmuKind kind = fmu_kind == "cs"   ? models::FmuKind::co_simulation
                                   : fmu_kind == "me" ? models::FmuKind::model_exchange
                                   : fmu_kind == "se" ? models::FmuKind::scheduled_execution
                                                      : models::FmuKind::automatic;
      // A quoted '${COUPLET_BUILD_DIR}/…' means the build tree of this program.
      const std::string file = targets::expand_path_variables(fmu, targets::build_directory()).path;
      return models::fmu_source(file, kind);
    }
    return models::catalog_source(models::ModelCatalog::builtin(), model);
  };
  return targets::run_target_program("couplet-target", settings, open_source);
}
