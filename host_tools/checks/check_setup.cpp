#include "host_tools/checks/check_setup.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <optional>
#include <sstream>

#include "couplet/errors.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"

namespace couplet::tools {

namespace {

/// The Real output (`discrete` false) or the Integer/Boolean one `written` names.
std::optional<PortReference> find_output(const Scenario& scenario, const System& system,
                                         const std::string& written, bool discrete) {
  const std::string name =
      outer_name(scenario, written);  // a group member's: "group.member.output"
  const std::size_t dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::optional<std::size_t> slave = system.find_slave(name.substr(0, dot));
  if (!slave) return std::nullopt;
  const SlaveDescription& description = system.description(*slave);
  const auto find = [&](const auto& ports) -> std::optional<PortReference> {
    for (std::size_t j = 0; j < ports.size(); ++j) {
      if (ports[j].name == name.substr(dot + 1)) return PortReference{*slave, j};
    }
    return std::nullopt;
  };
  return discrete ? find(description.discrete_outputs) : find(description.outputs);
}

CheckTarget resolve(const Scenario& scenario, const System& system, const CheckSpec& spec,
                    const std::vector<PortReference>& evaluated) {
  CheckTarget target{spec, {}, false, "", {}};
  if (spec.kind == CheckKind::realtime) return target;
  const std::string key = spec.kind == CheckKind::accuracy ? "accuracy.signal" : "signal";
  if (const auto discrete = find_output(scenario, system, spec.signal, true)) {
    if (spec.kind == CheckKind::accuracy) {
      throw ConfigurationError(spec.where + ": " + key + ": '" + spec.signal +
                               "' is an Integer or Boolean output, which has no error against "
                               "the reference: accuracy checks a Real one");
    }
    target.signal = *discrete;
    target.discrete = true;
    target.output_name = system.discrete_output_name(*discrete);
  } else if (const auto output = find_output(scenario, system, spec.signal, false)) {
    target.signal = *output;
    target.output_name = system.output_name(*output);
    if (spec.kind == CheckKind::accuracy &&
        std::find(evaluated.begin(), evaluated.end(), *output) == evaluated.end()) {
      throw ConfigurationError(spec.where + ": " + key + ": '" + spec.signal +
                               "' is not among evaluation.signals, so it has no error against "
                               "the reference (add it there)");
    }
  } else {
    throw ConfigurationError(spec.where + ": " + key + ": '" + spec.signal +
                             "' is not an output of any slave (write slave.output)");
  }
  if (spec.kind == CheckKind::matches)
    target.trace = read_check_trace(spec, scenario.start, scenario.end);
  return target;
}

}  // namespace

CheckEvaluator make_check_evaluator(const Scenario& scenario, const System& system) {
  const std::vector<PortReference> evaluated = resolve_signals(scenario, system);
  std::vector<CheckTarget> targets;
  targets.reserve(scenario.checks.size());
  for (const CheckSpec& spec : scenario.checks)
    targets.push_back(resolve(scenario, system, spec, evaluated));
  return CheckEvaluator(std::move(targets), system);
}

RunFacts run_facts(const nlohmann::json& summary, Time reached) {
  RunFacts facts;
  facts.reached = reached;
  if (summary.contains("realtime")) {
    const nlohmann::json& realtime = summary["realtime"];
    facts.overruns = realtime.value("overruns", std::uint64_t{0});
    facts.p99_lateness = realtime["lateness_us"].value("p99", 0.0) * 1e-6;
  }
  if (summary.contains("errors")) {
    for (const auto& [name, error] : summary["errors"].items())
      facts.nrmse_pct[name] = error.value("nrmse_pct", 0.0);
  }
  return facts;
}

nlohmann::json verdicts_json(const std::vector<CheckVerdict>& verdicts) {
  nlohmann::json checks = nlohmann::json::array();
  const auto number_or_null = [](const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  for (const CheckVerdict& verdict : verdicts) {
    nlohmann::json check;
    check["name"] = verdict.name;
    check["kind"] = std::string(check_kind_name(verdict.kind));
    if (!verdict.signal.empty()) check["signal"] = verdict.signal;
    check["passed"] = verdict.passed;
    check["first_violation_time"] = number_or_null(verdict.first_violation_time);
    check["worst_value"] = number_or_null(verdict.worst_value);
    check["message"] = verdict.message;
    checks.push_back(check);
  }
  return checks;
}

bool checks_failed(const nlohmann::json& summary) {
  if (!summary.contains("checks")) return false;
  return std::any_of(summary["checks"].begin(), summary["checks"].end(),
                     [](const nlohmann::json& check) { return !check.value("passed", false); });
}

std::string checks_table(const nlohmann::json& summary) {
  if (!summary.contains("checks") || summary["checks"].empty()) return "";
  std::ostringstream text;
  const auto number = [](const nlohmann::json& value, const char* unit) {
    if (!value.is_number()) return std::string("-");
    char cell[40];
    std::snprintf(cell, sizeof cell, "%.6g%s", value.get<double>(), unit);
    return std::string(cell);
  };
  std::size_t passed = 0;
  text << "  checks:\n";
  text << "    " << std::left << std::setw(24) << "name" << std::setw(6) << "" << std::setw(18)
       << "first violation"
       << "worst value\n";
  for (const nlohmann::json& check : summary["checks"]) {
    const bool ok = check.value("passed", false);
    passed += ok ? 1 : 0;
    text << "    " << std::left << std::setw(24) << check.value("name", "") << std::setw(6)
         << (ok ? "PASS" : "FAIL") << std::setw(18) << number(check["first_violation_time"], " s")
         << number(check["worst_value"], "") << "\n";
    if (!ok) text << "      " << check.value("message", "") << "\n";
  }
  text << "    " << passed << " of " << summary["checks"].size() << " passed\n";
  return text.str();
}

}  // namespace couplet::tools
