#pragma once
// The evaluated signals of a run as `couplet compare` reads them: the columns of
// a run directory's signals.csv, or the same table rebuilt from a run log (the
// outputs on the logged scenario's evaluation grid, as signals.csv holds them).
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"

namespace couplet::tools {

struct SignalTable {
  std::string source;                        ///< the file it came from, for messages
  std::vector<std::string> names;            ///< the signal columns, without `time`
  std::vector<double> times;                 ///< seconds, one per row
  std::vector<std::vector<double>> columns;  ///< [signal][row]; NaN where a log holds no value

  /// The index of `name` in `names`, or names.size() when absent.
  std::size_t find(const std::string& name) const;
};

/// Reads a signals.csv from `rows` one row at a time, as parse_signals_csv()
/// does: `header_read` gets the signal columns' names (without `time`), then
/// `row_read` each row's values, time first. Throws as parse_signals_csv().
void read_signals_rows(std::istream& rows, const std::string& source,
                       const std::function<void(const std::vector<std::string>&)>& header_read,
                       const std::function<void(const std::vector<double>&)>& row_read);
/// Reads a signals.csv (`time` first, then one column per signal). Throws
/// ConfigurationError naming the file, and the line for a malformed row.
SignalTable read_signals_csv(const std::string& path);
/// The same from `rows`, named `source` in messages.
SignalTable parse_signals_csv(std::istream& rows, const std::string& source);

/// The outputs of the log `reading` reads on its scenario's evaluation grid
/// (grid_table), up to the time every slave reached; the log is streamed
/// (stream_grid_rows), its end record left in reading.log(). Throws RunLogError
/// naming the log when its scenario no longer gives a grid, or as
/// read_run_log() for a malformed record.
SignalTable signals_of_log(RunLogReading& reading);

}  // namespace couplet::tools
