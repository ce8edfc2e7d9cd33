#include "models/fmi/abandoned_archives.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace couplet::models::fmi {

namespace {

constexpr std::string_view kPrefix = "couplet-fmu-";
constexpr std::size_t kRandomSuffixLength = 6;  // mkdtemp's XXXXXX

/// The process id in "couplet-fmu-<pid>-XXXXXX"; nothing for any other name
/// (the pid-less names of earlier versions included: their owner is unknown).
std::optional<pid_t> owner_of(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  const std::size_t dash = name.find('-');
  if (dash == std::string_view::npos || dash == 0 || name.size() - dash - 1 != kRandomSuffixLength)
    return std::nullopt;
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + dash, pid);
  if (error != std::errc() || end != name.data() + dash || pid <= 0) return std::nullopt;
  return pid;
}

bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0 || errno != ESRCH;
}

bool owned_by_this_user(const std::filesystem::path& directory) {
  struct stat status {};
  return ::lstat(directory.c_str(), &status) == 0 && S_ISDIR(status.st_mode) &&
         status.st_uid == ::geteuid();
}

}  // namespace

std::string unpacked_directory_prefix(pid_t pid) {
  return std::string(kPrefix) + std::to_string(pid) + "-";
}

std::size_t remove_abandoned_unpacked_archives(const std::filesystem::path& parent) {
  std::size_t removed = 0;
  std::error_code error;
  std::filesystem::directory_iterator entries(parent, error);
  for (const auto end = std::filesystem::directory_iterator(); !error && entries != end;
       entries.increment(error)) {
    const std::filesystem::path directory = entries->path();
    const std::optional<pid_t> owner = owner_of(directory.filename().string());
    if (!owner || process_exists(*owner) || !owned_by_this_user(directory)) continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(directory, ignored) > 0 && !ignored) ++removed;
  }
  return removed;
}

}  // namespace couplet::models::fmi
