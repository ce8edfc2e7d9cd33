#pragma once
// A run's output directory (docs/cli.md "Output directory"): it only ever holds
// the files of one run. Before a run writes anything, the files a previous run
// or reference left there — and the report written from them — are deleted;
// summary.json and signals.csv are written under a temporary name and renamed,
// so a reader sees either no file or a whole one. Other files stay untouched.
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

/// Creates `directory` when missing and deletes the kRunOutputFiles (and
/// temporary files of an interrupted write) found in it. Throws
/// ConfigurationError naming the directory and the file when it cannot.
std::filesystem::path prepare_run_directory(const std::string& directory);

/// Writes `path` through `write` into a temporary file beside it, then renames
/// it over `path`. Throws std::runtime_error naming `path` when writing fails.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace couplet::tools
