#include "host_tools/scenario/ifosmondi_reader.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "couplet/errors.hpp"
#include "host_tools/scenario/stimulus_breakpoints.hpp"
#include "runtime/algorithms/ifosmondi.hpp"

namespace couplet::tools {
namespace {

constexpr double kDefaultMinStep = 1e-6;  // s

class Reader {
 public:
  Reader(const YAML::Node& node, const std::string& source, const std::string& path)
      : node_(node), source_(source), path_(path) {}

  std::string key_path(const char* key) const { return path_ + "." + key; }

  [[noreturn]] void bad(const char* key, const std::string& why) const {
    throw ConfigurationError(locate(source_, node_[key], key_path(key)) + ": " + why);
  }

  double number(const char* key, const NumberRange& range) const {
    return bounded_number(node_[key], source_, key_path(key), range);
  }

  /// In [1e-15, 1): tolerances and relative errors.
  double fraction(const char* key) const {
    const double value = number(key, ranges::relative_tolerance());
    if (!(value < 1.0)) bad(key, "must be below 1");
    return value;
  }

  int whole(const char* key, int minimum, double maximum) const {
    return static_cast<int>(number(key, ranges::count(minimum, maximum)));
  }

  std::string text(const char* key) const {
    return require_string(node_[key], source_, key_path(key));
  }

  bool flag(const char* key) const {
    try {
      return node_[key].as<bool>();
    } catch (const YAML::Exception&) {
      bad(key, "expected true or false");
    }
  }

 private:
  const YAML::Node& node_;
  const std::string& source_;
  const std::string& path_;
};

IfosmondiSettings parse_coupling(const YAML::Node& node, const Reader& read,
                                 const Scenario& scenario, const std::string& path) {
  IfosmondiSettings settings;
  if (!is_given(node, "step")) {
    throw ConfigurationError(
        locate(scenario.source, node, path + ".step") +
        ": missing (δt_ref in seconds: the first and largest macro step, eq. 28)");
  }
  const double step = read.number("step", ranges::step(scenario.horizon()));
  check_macro_steps(node["step"], scenario, path + ".step", step);
  settings.reference_step = step_to_ticks(step);
  settings.min_step = step_to_ticks(std::min(kDefaultMinStep, step));
  if (is_given(node, "min_step")) {
    const double min_step = read.number("min_step", ranges::step(scenario.horizon()));
    if (min_step > step) read.bad("min_step", "must not exceed step (δt_ref)");
    settings.min_step = step_to_ticks(min_step);
  }
  if (is_given(node, "eps"))
    settings.absolute_tolerance = settings.relative_tolerance = read.fraction("eps");
  if (is_given(node, "eps_abs")) settings.absolute_tolerance = read.fraction("eps_abs");
  if (is_given(node, "eps_rel")) settings.relative_tolerance = read.fraction("eps_rel");
  if (is_given(node, "max_iterations"))
    settings.max_iterations = read.whole("max_iterations", 1, 1e6);
  // The steps land on the stimuli's breakpoints (docs/iterative.md).
  settings.landing_times = stimulus_breakpoints(scenario);
  return settings;
}

const std::vector<std::string> kKinsolKeys = {"krylov_tolerance", "krylov_dimension",
                                              "anderson_depth", "residual_relative_error"};
const std::vector<std::string> kNgmresKeys = {"ngmres_window", "line_search"};

/// "newton" when absent.
std::string solver_name(const YAML::Node& node, const Reader& read) {
  return is_given(node, "solver") ? read.text("solver") : "newton";
}

/// A key of the other solver family given (not null) is a mistake.
void refuse_keys(const YAML::Node& node, const Reader& read, const std::vector<std::string>& keys,
                 const std::string& why) {
  for (const std::string& key : keys) {
    if (is_given(node, key.c_str())) read.bad(key.c_str(), why + " (set it to null)");
  }
}

NgmresSettings parse_ngmres(const YAML::Node& node, const Reader& read) {
  NgmresSettings settings;
  if (is_given(node, "ngmres_window"))
    settings.window = read.whole("ngmres_window", 1, kMaxNgmresWindow);
  if (is_given(node, "line_search")) settings.line_search = read.flag("line_search");
  return settings;
}

KinsolSettings parse_kinsol(const YAML::Node& node, const Reader& read) {
  KinsolSettings settings;
  if (is_given(node, "solver")) {
    const std::string solver = read.text("solver");
    if (solver == "newton")
      settings.method = KinsolMethod::newton;
    else if (solver == "anderson")
      settings.method = KinsolMethod::anderson;
    else if (solver == "fixed_point")
      settings.method = KinsolMethod::fixed_point;
    else
      read.bad("solver", "unknown solver '" + solver + "' (newton, anderson, ngmres, fixed_point)");
  }
  if (is_given(node, "krylov_tolerance"))
    settings.krylov_tolerance = read.fraction("krylov_tolerance");
  if (is_given(node, "krylov_dimension"))
    settings.krylov_dimension = read.whole("krylov_dimension", 1, 1000);
  if (is_given(node, "anderson_depth"))
    settings.anderson_depth = read.whole("anderson_depth", 1, 1000);
  if (is_given(node, "residual_relative_error")) {
    settings.residual_relative_error = read.fraction("residual_relative_error");
  }
  return settings;
}

}  // namespace

bool is_ifosmondi_type(const std::string& type) {
  return type == "ifosmondi" || type == "ifosmondi_jfm";
}

IterativeChoice parse_ifosmondi(const YAML::Node& node, const Scenario& scenario,
                                const std::string& path) {
  const std::string& source = scenario.source;
  const std::string type = require_string(node["type"], source, path + ".type");
  std::vector<std::string> allowed = {"type",    "step",    "min_step",       "eps",
                                      "eps_abs", "eps_rel", "max_iterations", "solver"};
  allowed.insert(allowed.end(), kKinsolKeys.begin(), kKinsolKeys.end());
  allowed.insert(allowed.end(), kNgmresKeys.begin(), kNgmresKeys.end());
  // A solver key with type ifosmondi is a mistake, unless given as null (switching a
  // scenario with --set algorithm.type=ifosmondi --set algorithm.solver=null).
  std::vector<std::string> solver_keys = {"solver"};
  solver_keys.insert(solver_keys.end(), kKinsolKeys.begin(), kKinsolKeys.end());
  solver_keys.insert(solver_keys.end(), kNgmresKeys.begin(), kNgmresKeys.end());
  for (const std::string& key : solver_keys) {
    if (type == "ifosmondi" && is_given(node, key.c_str())) {
      throw ConfigurationError(
          locate(source, node[key], path + "." + key) +
          ": only for type ifosmondi_jfm (ifosmondi is the plain fixed point; set it to null)");
    }
  }
  check_keys(node, source, path, allowed);
  const Reader read(node, source, path);
  IfosmondiSettings coupling = parse_coupling(node, read, scenario, path);
  if (type == "ifosmondi") {
    // Without max_iterations the budget follows the measured contraction (ifosmondi.hpp).
    if (!is_given(node, "max_iterations")) coupling.iteration_cap = kFixedPointIterationCap;
    return PlainIfosmondiSettings{coupling};
  }
  if (solver_name(node, read) == "ngmres") {
    refuse_keys(node, read, kKinsolKeys, "a KINSOL setting, which solver ngmres does not use");
    return IfosmondiNgmresSettings{coupling, parse_ngmres(node, read)};
  }
  refuse_keys(node, read, kNgmresKeys, "only for solver ngmres");
  return IfosmondiJfmSettings{coupling, parse_kinsol(node, read)};
}

}  // namespace couplet::tools
