#include "host_tools/scenario/scenario_file_path.hpp"

#include <filesystem>
#include <system_error>

#include "couplet/errors.hpp"
#include "targets/build_directory.hpp"

namespace couplet::tools {

std::string resolve_scenario_file(const std::string& text, const std::string& scenario_file,
                                  const std::string& where) {
  std::string expanded;
  try {
    // The build directory is read only when the path asks for it: a scenario
    // without the variable does not depend on /proc or the environment.
    expanded = text.find("${") == std::string::npos
                   ? text
                   : targets::expand_path_variables(text, targets::build_directory()).path;
  } catch (const ConfigurationError& error) {
    throw ConfigurationError(where + ": " + error.what());
  }
  const std::filesystem::path file = expanded;
  return (file.is_absolute() ? file : std::filesystem::path(scenario_file).parent_path() / file)
      .lexically_normal()
      .string();
}

void require_existing_file(const std::string& path, const std::string& where) {
  std::error_code error;
  if (std::filesystem::exists(path, error)) return;
  std::string message = where + ": no such file " + path;
  try {
    const targets::BuildDirectory directory = targets::build_directory();
    if (path.starts_with(directory.path + "/")) {
      message += " (${COUPLET_BUILD_DIR} is " + directory.path + ", " + directory.origin +
                 "; build the file there, or set COUPLET_BUILD_DIR to the build directory that "
                 "has it)";
    }
  } catch (const ConfigurationError&) {
    // No build directory to point to: the path alone says it.
  }
  throw ConfigurationError(message);
}

}  // namespace couplet::tools
