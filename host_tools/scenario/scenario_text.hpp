#pragma once
// Edits and questions on a scenario's text that come before it is parsed: a run
// log keeps the scenario as text (docs/run-log.md), and `couplet resim` changes
// it before parse_scenario reads it.
#include <string>
#include <vector>

namespace couplet::tools {

/// The group of `scenario_text` that lists `slave` among its members; "" when
/// none does or the text does not read.
std::string group_listing(const std::string& scenario_text, const std::string& slave);

/// `scenario_text` without the `keys` of slaves.SLAVE, written anew. A text that
/// is no map comes back unchanged (parse_scenario says what is wrong with it);
/// one without such a slave, written anew. Throws ConfigurationError
/// "WHAT: its scenario text is not valid YAML: ..." for a text that does not read.
std::string without_slave_keys(const std::string& scenario_text, const std::string& what,
                               const std::string& slave, const std::vector<std::string>& keys);

}  // namespace couplet::tools
