#pragma once
// SSP packages as scenarios (docs/ssp.md): a zip with SystemStructure.ssd, the
// FMUs it names and its parameter files, after "System Structure and
// Parameterization", version 1.0, Modelica Association, 2019
// (ssp-standard.org). The package gives the structure — components, their
// parameters, connections, the default experiment; the couplet settings
// (algorithm, evaluation, reference, links, solvers) come from a small YAML
// beside it and from --set.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "models/fmi/fmu_archive.hpp"

namespace couplet::tools {

/// A package read into scenario keys.
struct SspScenario {
  /// name, time, slaves (fmu, fmu_kind, parameters), connections; then the
  /// settings file's keys.
  YAML::Node root;
  /// The unpacked package: the slaves' FMU paths point into it, so it must
  /// outlive the building of the system.
  std::shared_ptr<const models::fmi::Archive> package;
  /// SystemStructure::unit_conversions, for `couplet validate` to list.
  std::vector<std::string> unit_conversions;
  /// The settings file merged into `root` (its nodes carry its lines); empty
  /// when the package has none.
  std::string settings_path;
};

/// True for a path that names an SSP package (".ssp").
bool is_ssp_path(const std::string& path);

/// "DIR/system.couplet.yaml" for "DIR/system.ssp": the couplet settings of a package.
std::string ssp_settings_path(const std::string& ssp_path);

/// What SystemStructure.ssd makes: the scenario keys, and a line per
/// converter the connectors' units needed ("SystemStructure.ssd:12: Connection
/// 'left.x' -> 'right.x' ['m', 'mm']: converted, to = 1000 * from (both m)").
struct SystemStructure {
  YAML::Node root;
  std::vector<std::string> unit_conversions;
};

/// The scenario keys of an unpacked package: `root` holds SystemStructure.ssd
/// and the files it names; `package` names the package in messages. The
/// checks import_ssp describes, without the settings file.
SystemStructure read_system_structure(const std::string& package,
                                      const std::filesystem::path& root);

/// Unpacks and reads `ssp_path`, and merges the settings file beside it when
/// there is one. Throws ConfigurationError naming the package, the file inside
/// it with its line, and the element, for anything couplet does not support
/// (nested systems, non-FMU components, connections to the system's own
/// inputs, non-identity transformations, unit conversions, parameter mappings,
/// non-numeric parameters), and for settings that would redefine the structure.
SspScenario import_ssp(const std::string& ssp_path);

}  // namespace couplet::tools
