#include "targets/build_directory.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "couplet/errors.hpp"

namespace couplet::targets {

namespace {

constexpr std::string_view kBuildDirectoryVariable = "COUPLET_BUILD_DIR";

std::string without_trailing_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

}  // namespace

BuildDirectory build_directory() {
  if (const char* configured = std::getenv(kBuildDirectoryVariable.data());
      configured != nullptr && *configured != '\0') {
    return {without_trailing_slash(configured), "the environment variable COUPLET_BUILD_DIR"};
  }
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    throw ConfigurationError(
        "${COUPLET_BUILD_DIR}: cannot read /proc/self/exe (" + error.message() +
        "); set the environment variable COUPLET_BUILD_DIR to the build directory");
  }
  return {self.parent_path().string(), "the folder of the running program " + self.string()};
}

ExpandedPath expand_path_variables(std::string_view text, const BuildDirectory& directory) {
  ExpandedPath expanded;
  std::size_t position = 0;
  while (position < text.size()) {
    const std::size_t start = text.find("${", position);
    if (start == std::string_view::npos) break;
    const std::size_t end = text.find('}', start + 2);
    if (end == std::string_view::npos) {
      throw ConfigurationError("'" + std::string(text) + "': '${' without its closing '}'");
    }
    const std::string_view name = text.substr(start + 2, end - start - 2);
    if (name != kBuildDirectoryVariable) {
      throw ConfigurationError("unknown variable ${" + std::string(name) + "} in '" +
                               std::string(text) + "' (a path may use ${COUPLET_BUILD_DIR} only)");
    }
    expanded.path.append(text.substr(position, start - position));
    expanded.path.append(directory.path);
    expanded.used_build_directory = true;
    position = end + 1;
  }
  expanded.path.append(text.substr(std::min(position, text.size())));
  return expanded;
}

}  // namespace couplet::targets
