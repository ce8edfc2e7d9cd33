// Fuzz target: the run-log reader (host_tools/runlog/run_log.hpp) and the two tools
// that only read what it returns (inspect, export: communication and grid
// rows). The input is written to a file and read as a run log, as `couplet
// inspect` and `couplet export` do; at every "COUPSEG" after its start it is
// split into a further segment file (run.2.log, ...), so that the segment
// headers and frames that go on across files are fuzzed too. It is also read
// as a log still being written (couplet watch): its first half, then all of it
// after the reader resumes.
// The reader's contract: a log that cannot be read at all is a
// std::runtime_error naming the file; later damage only shortens the log.
// Anything else escaping (another exception, a crash, undefined behaviour) is a
// finding.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/log_inspect.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "protocol/run_log_frame.hpp"

namespace {

/// The file the inputs are written to: one per process (libFuzzer's -fork and
/// -jobs run several), removed at exit.
class ScratchFile {
 public:
  ScratchFile() {
    std::string pattern = "/tmp/couplet-fuzz-run-log-XXXXXX";
    const int descriptor = ::mkstemp(pattern.data());
    couplet::fuzz::require(descriptor >= 0, "cannot create a scratch file in /tmp");
    ::close(descriptor);
    path_ = pattern;
  }
  ~ScratchFile() {
    std::remove(path_.c_str());
    for (std::uint32_t number = 2; number <= kMaxSegments; ++number)
      std::remove(couplet::protocol::log_segment_path(path_, number).c_str());
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  /// Writes the input as the log's first file and its further segments; removes
  /// the segments an earlier input had beyond this one's.
  const std::string& write(const std::uint8_t* data, std::size_t size) const {
    constexpr std::string_view kMarker = "COUPSEG";
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::size_t begin = 0;
    std::uint32_t number = 1;
    while (begin < size || number == 1) {
      std::size_t end = number < kMaxSegments ? input.find(kMarker, begin + 1) : input.npos;
      if (end == input.npos) end = size;
      write_file(number == 1 ? path_ : couplet::protocol::log_segment_path(path_, number),
                 input.substr(begin, end - begin));
      begin = end;
      ++number;
    }
    for (; number <= kMaxSegments; ++number)
      std::remove(couplet::protocol::log_segment_path(path_, number).c_str());
    return path_;
  }

 private:
  static constexpr std::uint32_t kMaxSegments = 8;

  static void write_file(const std::string& path, std::string_view bytes) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    couplet::fuzz::require(file != nullptr, "cannot open the scratch file");
    const bool complete =
        bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    couplet::fuzz::require(std::fclose(file) == 0 && complete, "cannot write the scratch file");
  }

  std::string path_;
};

/// An evaluation grid over the log's span, 16 intervals (the reader
/// guarantees start < end within ±2^61 ns: no overflow).
std::vector<couplet::Time> grid_over(const couplet::tools::RunLog& log) {
  std::vector<couplet::Time> grid;
  for (couplet::Time k = 0; k <= 16; ++k)
    grid.push_back(log.start + (log.end - log.start) / 16 * k);
  return grid;
}

}  // namespace

/// Takes rows and plan records and keeps nothing.
class Discard final : public couplet::tools::TableSink {
 public:
  void header(const couplet::tools::ExportTable&) override {}
  void row(std::span<const std::optional<double>>,
           std::span<const std::optional<std::int64_t>>) override {}
};

/// The input read as `couplet watch` reads a log still being written: its
/// first half, then, resumed, all of it.
void follow_as_written(const ScratchFile& scratch, const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch.write(data, size / 2);
  try {
    couplet::tools::CommunicationRowsFollower follower(path);
    Discard rows;
    const couplet::tools::PlanRecords plans = [](const couplet::tools::LoggedPlan&) {};
    if (follower.follow(rows, plans)) return;
    scratch.write(data, size);
    static_cast<void>(follower.follow(rows, plans));
  } catch (const std::runtime_error& error) {
    couplet::fuzz::require(std::string(error.what()).find(path) != std::string::npos,
                           "a run-log error that does not name the file (followed)");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile scratch;
  follow_as_written(scratch, data, size);
  const std::string& path = scratch.write(data, size);
  try {
    const couplet::tools::RunLog log = couplet::tools::read_run_log(path);
    static_cast<void>(couplet::tools::inspect_text(log));
    static_cast<void>(couplet::tools::export_csv(log));
    static_cast<void>(couplet::tools::csv_text(couplet::tools::grid_table(log, grid_over(log))));
  } catch (const std::runtime_error& error) {
    couplet::fuzz::require(std::string(error.what()).find(path) != std::string::npos,
                           "a run-log error that does not name the file");
  }
  return 0;
}
