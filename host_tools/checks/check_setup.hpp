#pragma once
// A scenario's checks attached to a run (docs/scenarios.md#checks): their
// signals resolved against the built system and their traces read, before the
// first step; and their verdicts into summary.json and the terminal table.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "host_tools/checks/check_evaluator.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace couplet::tools {

/// The evaluator of `scenario.checks` on `system`. A signal that is not an
/// output of any slave, an accuracy signal outside evaluation.signals or a
/// `matches` file that cannot be read is a ConfigurationError naming the check
/// (file:line).
CheckEvaluator make_check_evaluator(const Scenario& scenario, const System& system);

/// What the run-level checks need, from a run's summary.json (`realtime`,
/// `errors`) and the time every slave reached.
RunFacts run_facts(const nlohmann::json& summary, Time reached);

/// summary.json `checks`: one object per verdict, in order (docs/cli.md).
nlohmann::json verdicts_json(const std::vector<CheckVerdict>& verdicts);

/// True when summary.json holds a check that did not pass.
bool checks_failed(const nlohmann::json& summary);

/// The terminal table of summary.json `checks` (empty without checks).
std::string checks_table(const nlohmann::json& summary);

}  // namespace couplet::tools
