#pragma once
// ${COUPLET_BUILD_DIR} in the file paths of scenarios and command lines: the build
// tree of the running program, so that a shipped scenario names a file the build
// makes (an FMU, a device program) wherever the build directory is and whatever
// the working directory (docs/scenarios.md, "File paths").
#include <string>
#include <string_view>

namespace couplet::targets {

/// Where ${COUPLET_BUILD_DIR} points, and why (for error messages).
struct BuildDirectory {
  std::string path;    ///< without a trailing slash
  std::string origin;  ///< "the environment variable COUPLET_BUILD_DIR" or "the folder of …"
};

/// The environment variable COUPLET_BUILD_DIR when set and not empty, else the
/// folder that holds the running executable (/proc/self/exe): couplet and
/// couplet-target live at the top of the build tree.
BuildDirectory build_directory();

/// A path with its variables expanded.
struct ExpandedPath {
  std::string path;
  bool used_build_directory = false;  ///< whether ${COUPLET_BUILD_DIR} occurred
};

/// Replaces every ${COUPLET_BUILD_DIR} in `text` by `directory.path`. Any other
/// ${NAME}, or a "${" without its "}", throws ConfigurationError naming it; the
/// caller prefixes where the text came from. A '$' not followed by '{' stays.
ExpandedPath expand_path_variables(std::string_view text, const BuildDirectory& directory);

}  // namespace couplet::targets
