// Fuzz target: the scenario loader — YAML text to a typed Scenario
// (tools::parse_scenario, which `couplet validate FILE` reaches through
// load_scenario), then the checks `couplet validate` runs before a first step
// (tools::validate_scenario: the system built, the algorithm made, the initial
// outputs evaluated). The contract: bad input is a ConfigurationError naming
// the key (a model that fails while being set up is a SlaveError, a failed
// run); any other exception, a crash, undefined behaviour, or memory or time
// without bound (libFuzzer's -rss_limit_mb and -timeout) is a finding.
//
// Scenarios whose slaves sit behind links or load FMUs are parsed but not
// validated: validating would spawn target programs or open files named by
// the input.
#include <algorithm>
#include <string>

#include "couplet/errors.hpp"
#include "fuzz_input.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/scenario/scenario.hpp"

namespace {

bool stays_in_process(const couplet::tools::Scenario& scenario) {
  return std::all_of(scenario.slaves.begin(), scenario.slaves.end(), [](const couplet::tools::SlaveSpec& slave) {
    return !slave.link && slave.fmu.empty() && slave.device.empty();
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const couplet::tools::Scenario scenario = couplet::tools::parse_scenario(text, "fuzz.yaml");
    if (stays_in_process(scenario)) couplet::tools::validate_scenario(scenario);
  } catch (const couplet::ConfigurationError& error) {
    couplet::fuzz::require(*error.what() != '\0', "a configuration error without a message");
  } catch (const couplet::SlaveError&) {
  }
  return 0;
}
