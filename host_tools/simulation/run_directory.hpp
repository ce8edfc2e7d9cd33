#pragma once
// A run's output directory (docs/cli.md "Output directory"): it only ever holds
// the files of one run. Before a run writes anything, the files a previous run
// or reference left there — and the report written from them — are deleted;
// summary.json and signals.csv are written under a temporary name and renamed,
// so a reader sees either no file or a whole one. Other files stay untouched.
// One run at a time: the directory is locked (flock on .couplet.lock) while a
// run uses it.
#include <array>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace couplet::tools {

/// What `couplet run`, `couplet reference` and `couplet report` write into a
/// run's directory.
inline constexpr std::array<const char*, 4> kRunOutputFiles = {"run.log", "summary.json",
                                                               "signals.csv", "report.html"};

/// The lock file in a run's directory: `flock`ed for the whole run, it holds
/// the process id of the run that owns the directory.
inline constexpr const char* kRunLockFile = ".couplet.lock";

/// A run's output directory, owned by this run while the object lives: a
/// second couplet run (or reference) given the same directory is refused by
/// name before it deletes anything, so two runs never mix their files.
class RunDirectory {
 public:
  /// Creates `directory` when missing, locks it, and deletes the
  /// kRunOutputFiles (and temporary files of an interrupted write) found in
  /// it. Throws ConfigurationError naming the directory (and the file, or the
  /// process that holds it) when it cannot.
  explicit RunDirectory(const std::string& directory);
  ~RunDirectory();
  RunDirectory(const RunDirectory&) = delete;
  RunDirectory& operator=(const RunDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int lock_descriptor_ = -1;
};

/// Writes `path` through `write` into a temporary file beside it, then renames
/// it over `path`. Throws std::runtime_error naming `path` when the file cannot
/// be created (before calling `write`) or writing fails; what `write` throws is
/// passed on. Either way no temporary file is left.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace couplet::tools
