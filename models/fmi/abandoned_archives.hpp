#pragma once
// Unpacked FMUs left behind by a process that died before its destructors ran
// (a crash, kill -9): each can hold up to 1 GiB in $TMPDIR. The unpacking
// process's id is part of the directory's name (couplet-fmu-<pid>-XXXXXX), so
// a later process can tell which directories belong to no living process.
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>

namespace couplet::models::fmi {

/// The prefix of an unpacked archive's directory: "couplet-fmu-<pid>-".
std::string unpacked_directory_prefix(pid_t pid);

/// Removes the directories under `parent` named couplet-fmu-<pid>-XXXXXX whose
/// process no longer exists and that belong to this user. A directory whose
/// process lives (or whose id was taken by another process) is kept: it is
/// better to leave one than to delete a running FMU. Never throws; returns how
/// many directories were removed.
std::size_t remove_abandoned_unpacked_archives(const std::filesystem::path& parent);

}  // namespace couplet::models::fmi
