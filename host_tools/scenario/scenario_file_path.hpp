#pragma once
// The file paths a scenario names (a slave's `fmu:`, a link's `program:`):
// ${COUPLET_BUILD_DIR} expanded (targets/build_directory.hpp) and a relative path
// taken from the scenario file's folder, so that a scenario and its files move
// together and a shipped scenario finds what the build made wherever the build
// directory is (docs/scenarios.md, "File paths").
#include <string>

namespace couplet::tools {

/// `text` as the scenario wrote it; `scenario_file` the file it came from;
/// `where` the "FILE:LINE: KEY" prefix of error messages (locate()). Throws
/// ConfigurationError naming an unknown ${…}. Does not look at the file: a run
/// log's scenario is parsed again for replay and export, where the files of the
/// run need not exist any more.
std::string resolve_scenario_file(const std::string& text, const std::string& scenario_file,
                                  const std::string& where);

/// Throws ConfigurationError "WHERE: no such file PATH" when `path` does not
/// exist, saying where ${COUPLET_BUILD_DIR} points when the path lies under it.
/// Called where the file is opened (an FMU) or started (a device program).
void require_existing_file(const std::string& path, const std::string& where);

}  // namespace couplet::tools
