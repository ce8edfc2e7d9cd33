#pragma once
// `couplet export RUN.log` (docs/run-log.md "Export and inspect"): the run log
// as a table, written as CSV (here) or as a MAT-file (log_export_mat.hpp).
//
// Communication rows (the default): one row per communication time, times
// strictly increasing; each slave's outputs in a row are the values it returned
// at that time, the last accepted ones (a step undone by a rollback counts no
// more, an output evaluation at the time after the step supersedes it); the
// plan columns are those of the plan that made the row's last call.
//
// Grid rows (--grid): one row per evaluation-grid time with the outputs as
// `couplet run` sampled them into signals.csv.
//
// Integer and Boolean outputs are columns of their own after the Real ones,
// exact 64-bit integers (Boolean 0 or 1), as signals.csv has them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "host_tools/runlog/run_log.hpp"
#include "protocol/run_log_frame.hpp"

namespace couplet::tools {

/// A table of numbers with named columns; an absent cell is a value the log
/// does not hold (an empty CSV field, NaN in a MAT-file).
struct ExportTable {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<double>>> rows;  ///< each columns.size() cells
  /// The Integer and Boolean columns, after the Real ones: their names, types
  /// and, per row of `rows`, their cells.
  std::vector<std::string> discrete_columns;
  std::vector<DiscreteType> discrete_types;
  std::vector<std::vector<std::optional<std::int64_t>>> discrete_rows;
};

/// One row per communication time: `time_s`, `plan`, `macro_step`, `step_s`,
/// every slave's Real outputs, the algorithm's internal quantities, per slave
/// behind a link its step's timing, `pacer_lateness_us`; then every slave's
/// discrete outputs as the slave held them there.
ExportTable communication_table(const RunLog& log);

/// One row per time of `grid` (the logged scenario's evaluation grid,
/// increasing) up to the time every slave reached: `time_s` and every slave
/// output as signals.csv holds it — the start time's initial outputs, later the
/// sample of the last accepted step over the time (slaves with intermediate
/// samples) or the linear interpolation of that step's communication points
/// (slaves without); a discrete output holds its value from before the step
/// up to the step's end, where it takes the step's. Throws RunLogError naming the log when a step
/// of a slave with intermediate samples holds no sample at a grid time it covers.
ExportTable grid_table(const RunLog& log, std::span<const Time> grid);

/// The columns of communication_table(log), without rows.
ExportTable communication_header(const RunLog& log);

/// The table as CSV: a header line, then one line per row, values exact
/// (exact_text; discrete ones as integers), absent cells empty.
std::string csv_text(const ExportTable& table);
/// Its header line, and one row.
void write_csv_header(std::ostream& csv, const ExportTable& table);
void write_csv_row(std::ostream& csv, std::span<const std::optional<double>> row,
                   std::span<const std::optional<std::int64_t>> discrete_row);

/// What a streamed export handed over, and how reading the log ended.
struct StreamedExport {
  std::size_t rows = 0;
  protocol::LogReadStatus tail = protocol::LogReadStatus::end;
  std::string tail_problem;  ///< why reading stopped early; empty when it read to the end
};

/// Takes a table as it is streamed: its columns once, then its rows in order.
class TableSink {
 public:
  virtual ~TableSink() = default;
  /// The columns, without rows; before the first row.
  virtual void header(const ExportTable& columns) = 0;
  virtual void row(std::span<const std::optional<double>> row,
                   std::span<const std::optional<std::int64_t>> discrete) = 0;
};

/// Keeps the table streamed to it (the table, not the log, in memory).
class TableCollector final : public TableSink {
 public:
  void header(const ExportTable& columns) override;
  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>> discrete) override;
  ExportTable table;
};

/// Some columns of a table, by index (the Real ones, then the discrete ones):
/// the header they make, and each row cut to them — for the sinks that pass a
/// table on with fewer columns.
class ColumnSubset {
 public:
  ColumnSubset() = default;
  ColumnSubset(std::vector<std::size_t> real, std::vector<std::size_t> discrete);
  /// `table`'s columns cut to the subset, the first kept one renamed `first`
  /// when it is not empty.
  ExportTable header_of(const ExportTable& table, const std::string& first = "") const;
  /// Passes `row` cut to the subset on to `sink`.
  void pass(TableSink& sink, std::span<const std::optional<double>> row,
            std::span<const std::optional<std::int64_t>> discrete);

 private:
  std::vector<std::size_t> real_;
  std::vector<std::size_t> discrete_;
  std::vector<std::optional<double>> row_;  ///< the row passed on, reused
  std::vector<std::optional<std::int64_t>> discrete_row_;
};

/// Writes a table as CSV (csv_text()) as its rows come.
class CsvSink final : public TableSink {
 public:
  explicit CsvSink(std::ostream& csv) : csv_(csv) {}
  void header(const ExportTable& columns) override { write_csv_header(csv_, columns); }
  void row(std::span<const std::optional<double>> row,
           std::span<const std::optional<std::int64_t>> discrete) override {
    write_csv_row(csv_, row, discrete);
  }

 private:
  std::ostream& csv_;
};

/// communication_table() of the log `reading` reads, handed to `sink` as the
/// log is read: a row goes out once no later record can change it, and the
/// calls and plan records no row to come needs are let go, so that the memory
/// taken does not grow with the log's length (only with how far back a rollback
/// may reach). `batch`: records read between hand-overs, and calls or plan
/// records let go at a time. Throws RunLogError as read_run_log().
StreamedExport stream_communication_rows(RunLogReading& reading, TableSink& sink,
                                         std::size_t batch = 4096);

/// grid_table() of the log `reading` reads (its structure read: the grid comes
/// from its scenario), handed to `sink` as the log is read: a grid row goes out
/// once every slave has passed its time for good, so that only the rows between
/// the slowest and the furthest slave are held.
StreamedExport stream_grid_rows(RunLogReading& reading, std::span<const Time> grid, TableSink& sink,
                                std::size_t batch = 4096);

/// Takes each plan record as a streamed export reads it.
using PlanRecords = std::function<void(const LoggedPlan&)>;

/// The communication rows of a log that is still being written (couplet watch),
/// followed as it grows in the memory of stream_communication_rows().
class CommunicationRowsFollower {
 public:
  /// Opens `path` and reads its structure. Throws RunLogError as RunLogReading
  /// does, also for a log whose structure is not written yet.
  explicit CommunicationRowsFollower(const std::string& path);
  ~CommunicationRowsFollower();
  CommunicationRowsFollower(const CommunicationRowsFollower&) = delete;
  CommunicationRowsFollower& operator=(const CommunicationRowsFollower&) = delete;

  /// The log's structure; its end record once read.
  const RunLog& log() const;

  /// Reads what the log holds now: its plan records go to `plans` as read, and
  /// the rows no later record can change to `rows` (the header first, once).
  /// Returns false while the log is still being written (no end record yet, a
  /// last frame still being written): call again later. Once the log has
  /// ended — its end record, or damage — every row left goes to `rows` and it
  /// returns true. Throws RunLogError for a record that breaks the format.
  bool follow(TableSink& rows, const PlanRecords& plans);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// csv_text(communication_table(read_run_log(path))) written to `csv` as the log
/// is read (stream_communication_rows).
StreamedExport stream_communication_csv(const std::string& path, std::ostream& csv,
                                        std::size_t batch = 4096);

/// csv_text(communication_table(log)).
std::string export_csv(const RunLog& log);

}  // namespace couplet::tools
