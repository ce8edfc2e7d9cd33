#pragma once
// The `algorithm` section of a scenario, and of each group, as typed values: one
// alternative per master (docs/algorithms.md, docs/iterative.md). The scenario
// readers fill them (parse_scenario); the assembly builds the algorithm from them
// (host_tools/assembly/algorithm_factory.hpp). Neither the algorithms nor their
// factory see the scenario's YAML.
#include <string>
#include <variant>

#include "runtime/algorithms/defect_controlled_jacobi.hpp"
#include "runtime/algorithms/f3ornits.hpp"
#include "runtime/algorithms/fixed_step.hpp"
#include "runtime/algorithms/ifosmondi_algorithm.hpp"
#include "runtime/algorithms/ifosmondi_jfm.hpp"
#include "runtime/algorithms/missiles.hpp"
#include "runtime/algorithms/ngmres.hpp"
#include "runtime/algorithms/semi_implicit.hpp"

namespace couplet::tools {

/// `type: jacobi` and `type: gauss_seidel`: the fixed-step masters, which share
/// their settings and differ in the order of their calls.
struct JacobiSettings {
  FixedStepSettings fixed_step;
};
struct GaussSeidelSettings {
  FixedStepSettings fixed_step;
};
/// `type: ifosmondi`: the plain fixed point.
struct PlainIfosmondiSettings {
  IfosmondiSettings coupling;
};
/// `type: ifosmondi_jfm, solver: ngmres`.
struct IfosmondiNgmresSettings {
  IfosmondiSettings coupling;
  NgmresSettings ngmres;
};

/// The iterative masters: those that can also solve a group.
using IterativeChoice =
    std::variant<PlainIfosmondiSettings, IfosmondiJfmSettings, IfosmondiNgmresSettings>;

/// A group's `algorithm` (groups.NAME.algorithm).
struct GroupAlgorithmSettings {
  IterativeChoice choice;
  /// Put before the message of a ConfigurationError the algorithm's
  /// constructor throws: "file:line: groups.NAME.algorithm: ".
  std::string where;
};

/// The scenario's `algorithm`.
struct AlgorithmSettings {
  std::variant<JacobiSettings, GaussSeidelSettings, DefectControlSettings, F3ornitsSettings,
               PlainIfosmondiSettings, IfosmondiJfmSettings, IfosmondiNgmresSettings,
               MissilesSettings, SemiImplicitSettings>
      choice;
  /// Put before the message of a ConfigurationError the algorithm's
  /// constructor throws: the file and line of the section, where the reader
  /// gives them (defect_control, f3ornits, the IFOSMONDI family); else empty.
  std::string where;
  /// The longest macro step the algorithm may take, seconds, at most the
  /// horizon: what sizes the least run log (host_tools/scenario/scenario_limits.hpp).
  double longest_step = 0.0;
};

}  // namespace couplet::tools
