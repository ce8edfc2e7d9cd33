// `couplet export` (issue 18, docs/run-log.md "Export and inspect"): one row
// per communication time, times strictly increasing, the outputs at each time
// those the run wrote to signals.csv there — for Jacobi, an iterative algorithm
// that rolls back (IFOSMONDI-JFM), variable steps (defect control) and
// asynchronous ones (F3ORNITS); --grid reproduces signals.csv; the MAT-file
// reads back bit for bit; bad paths give an error naming the file.
#include "host_tools/runlog/log_export.hpp"

#include <gtest/gtest.h>
#include <matio.h>
#include <sys/wait.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/runlog/log_export_mat.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/test_support.hpp"

namespace couplet::testing {
namespace {

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    const auto found = std::find(header.begin(), header.end(), name);
    return static_cast<std::size_t>(found - header.begin());
  }
};

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = line.find(',', begin);
    fields.push_back(line.substr(begin, comma - begin));
    if (comma == std::string::npos) return fields;
    begin = comma + 1;
  }
}

Csv parse_csv(const std::string& text) {
  Csv csv;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  csv.header = fields_of(line);
  while (std::getline(lines, line)) csv.rows.push_back(fields_of(line));
  return csv;
}

std::string log_path(const std::string& directory_name) {
  return (run_directory(directory_name) / "run.log").string();
}

Csv signals_of(const std::string& directory_name) {
  return parse_csv(read_file(run_directory(directory_name) / "signals.csv"));
}

std::vector<Time> grid_of(const tools::RunLog& log) {
  return tools::evaluation_grid(tools::parse_scenario(log.scenario_text, log.scenario_source));
}

void expect_times_strictly_increasing(const Csv& csv) {
  ASSERT_FALSE(csv.rows.empty());
  ASSERT_EQ(csv.header.front(), "time_s");
  for (std::size_t r = 1; r < csv.rows.size(); ++r) {
    ASSERT_LT(std::stod(csv.rows[r - 1][0]), std::stod(csv.rows[r][0]))
        << "rows " << r + 1 << " and " << r + 2;
  }
}

/// Every signals.csv column (not the references) at every time both files
/// hold, as text: exact_text in both, so equal text is equal bits. Returns the
/// number of shared times.
std::size_t expect_equal_at_shared_times(const Csv& exported, const Csv& signals) {
  std::map<std::string, const std::vector<std::string>*> by_time;
  for (const auto& row : exported.rows) by_time[row[0]] = &row;
  std::size_t shared = 0;
  for (const auto& signal_row : signals.rows) {
    const auto found = by_time.find(signal_row[0]);
    if (found == by_time.end()) continue;
    ++shared;
    for (std::size_t c = 1; c < signals.header.size(); ++c) {
      const std::string& name = signals.header[c];
      if (name.ends_with(":reference")) continue;
      const std::size_t column = exported.column(name);
      EXPECT_LT(column, exported.header.size()) << name << " exported";
      if (column >= exported.header.size()) continue;
      EXPECT_EQ((*found->second)[column], signal_row[c]) << name << " at t = " << signal_row[0];
    }
  }
  return shared;
}

/// The evaluation-grid export against signals.csv: the same times and the
/// same bits in every signal column.
void expect_grid_export_is_signals(const std::string& directory_name) {
  const tools::RunLog log = tools::read_run_log(log_path(directory_name));
  const Csv grid = parse_csv(tools::csv_text(tools::grid_table(log, grid_of(log))));
  const Csv signals = signals_of(directory_name);
  expect_times_strictly_increasing(grid);
  ASSERT_EQ(grid.rows.size(), signals.rows.size()) << directory_name;
  EXPECT_EQ(expect_equal_at_shared_times(grid, signals), signals.rows.size());
}

/// The grid rows of the log at `path` as CSV, streamed (stream_grid_rows).
std::string streamed_grid_csv(const std::string& path, std::size_t batch,
                              tools::StreamedExport& result) {
  tools::RunLogReading reading(path);
  reading.read_structure();
  const std::vector<Time> grid = grid_of(reading.log());
  std::ostringstream csv;
  tools::CsvSink sink(csv);
  result = tools::stream_grid_rows(reading, grid, sink, batch);
  return csv.str();
}

/// What `couplet export` writes as it reads the log is the table of the log
/// read whole, byte for byte — the communication rows and the grid rows:
/// handed over after every record (so that every row goes out as soon as it is
/// settled, and what no row needs is let go at once), after every few, and in
/// the default batches.
void expect_streamed_export_is_whole(const std::string& directory_name) {
  const std::string path = log_path(directory_name);
  const tools::RunLog log = tools::read_run_log(path);
  const std::string whole = tools::export_csv(log);
  const std::string whole_grid = tools::csv_text(tools::grid_table(log, grid_of(log)));
  for (const std::size_t batch : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
    std::ostringstream streamed;
    const tools::StreamedExport result = tools::stream_communication_csv(path, streamed, batch);
    EXPECT_EQ(streamed.str(), whole) << directory_name << ", batch " << batch;
    EXPECT_EQ(result.rows + 1,
              static_cast<std::size_t>(std::count(whole.begin(), whole.end(), '\n')));
    EXPECT_TRUE(result.tail_problem.empty()) << result.tail_problem;
    tools::StreamedExport grid_result;
    EXPECT_EQ(streamed_grid_csv(path, batch, grid_result), whole_grid)
        << directory_name << ", grid rows, batch " << batch;
    EXPECT_EQ(grid_result.rows + 1,
              static_cast<std::size_t>(std::count(whole_grid.begin(), whole_grid.end(), '\n')));
  }
}

std::size_t count_calls(const tools::RunLog& log, tools::CallKind kind) {
  return static_cast<std::size_t>(std::count_if(
      log.calls.begin(), log.calls.end(), [&](const auto& call) { return call.kind == kind; }));
}

TEST(ExportRows, JacobiHasOneRowPerCommunicationTimeWithTheSignalsAtIt) {
  run("two_mass_switch.yaml", {"time.end=20"}, "export-jacobi");
  const std::string csv_path = (run_directory("export-jacobi") / "export.csv").string();
  int exit_code = -1;
  const std::string output = command_output(
      std::string(COUPLET_BINARY) + " export " + log_path("export-jacobi") + " --csv " + csv_path,
      exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  EXPECT_NE(output.find("2001 rows (communication times)"), std::string::npos) << output;
  const Csv exported = parse_csv(read_file(csv_path));
  expect_times_strictly_increasing(exported);
  ASSERT_EQ(exported.rows.size(), 2001U) << "t = 0, 0.01, ..., 20";
  const Csv signals = signals_of("export-jacobi");
  EXPECT_EQ(expect_equal_at_shared_times(exported, signals), signals.rows.size());
  // Each time's row comes from the refresh plan after its step plan.
  const std::size_t plan = exported.column("plan");
  EXPECT_EQ(exported.rows[0][plan], "0") << "the initialization";
  EXPECT_EQ(exported.rows[1][plan], "2");
  EXPECT_EQ(exported.rows[2000][plan], "4000");
  EXPECT_EQ(exported.rows[1][exported.column("step_s")], "0.01");
  EXPECT_EQ(exported.rows[2000][exported.column("macro_step")], "2000");
  expect_streamed_export_is_whole("export-jacobi");
}

// right.f feeds through: the refresh at each communication time re-evaluates it
// with the inputs at that time, and that value, not the step's, is the row's.
TEST(ExportRows, AnOutputEvaluationAtTheTimeSupersedesTheStep) {
  run("two_mass_switch.yaml", {"time.end=1"}, "export-refresh");
  const tools::RunLog log = tools::read_run_log(log_path("export-refresh"));
  const Csv exported = parse_csv(tools::export_csv(log));
  const auto right_step = std::find_if(log.calls.begin(), log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::step && call.slave == 1;
  });
  ASSERT_NE(right_step, log.calls.end());
  const auto refresh = std::find_if(right_step, log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::evaluate_outputs && call.slave == 1;
  });
  ASSERT_NE(refresh, log.calls.end());
  ASSERT_EQ(exported.rows[1][0], "0.01");
  const double row_value = std::stod(exported.rows[1][exported.column("right.f")]);
  EXPECT_EQ(row_value, refresh->end_outputs[0]);
  EXPECT_NE(row_value, right_step->end_outputs[0]) << "the test needs the two to differ";
}

// IFOSMONDI-JFM restores and re-steps every macro step until it converges: a
// time appears once, with the converged values (signals.csv's).
TEST(ExportRows, AnIterativeAlgorithmGivesTheAcceptedValuesOnce) {
  run("ifosmondi_damper.yaml", {"time.end=1"}, "export-ifosmondi");
  const tools::RunLog log = tools::read_run_log(log_path("export-ifosmondi"));
  ASSERT_GT(count_calls(log, tools::CallKind::restore_state), 100U) << "iterations roll back";
  const Csv exported = parse_csv(tools::export_csv(log));
  expect_times_strictly_increasing(exported);
  EXPECT_EQ(exported.rows.size(), 101U);
  const Csv signals = signals_of("export-ifosmondi");
  EXPECT_EQ(expect_equal_at_shared_times(exported, signals), signals.rows.size());
  const std::size_t converged = exported.column("converged");
  ASSERT_LT(converged, exported.header.size());
  for (std::size_t r = 1; r < exported.rows.size(); ++r)
    EXPECT_EQ(exported.rows[r][converged], "1") << "row " << r + 2 << ": the accepted iterate";
  expect_grid_export_is_signals("export-ifosmondi");
  expect_streamed_export_is_whole("export-ifosmondi");
}

// Defect control chooses every step: rows at its communication times, which
// mostly miss the evaluation grid.
TEST(ExportRows, AVariableStepAlgorithmGivesItsOwnTimes) {
  run("rotational_two_mass_defect_control.yaml", {}, "export-defect");
  const tools::RunLog log = tools::read_run_log(log_path("export-defect"));
  const Csv exported = parse_csv(tools::export_csv(log));
  expect_times_strictly_increasing(exported);
  std::set<Time> step_ends;
  for (const auto& call : log.calls) {
    if (call.kind == tools::CallKind::step) step_ends.insert(call.end);
  }
  EXPECT_EQ(exported.rows.size(), step_ends.size() + 1) << "the start, then every step end once";
  std::set<std::string> step_sizes;
  for (std::size_t r = 1; r < exported.rows.size(); ++r)
    step_sizes.insert(exported.rows[r][exported.column("step_s")]);
  EXPECT_GT(step_sizes.size(), 3U);
  EXPECT_GE(expect_equal_at_shared_times(exported, signals_of("export-defect")), 2U)
      << "the start and the end at least";
  expect_grid_export_is_signals("export-defect");
  expect_streamed_export_is_whole("export-defect");
}

// F3ORNITS steps each slave to its own end from a rendez-vous: every time some
// slave communicated is a row.
TEST(ExportRows, AnAsynchronousAlgorithmGivesEveryCommunicationTimeOnce) {
  run("two_mass_switch.yaml", {"time.end=20", "algorithm.type=f3ornits"}, "export-f3ornits");
  const tools::RunLog log = tools::read_run_log(log_path("export-f3ornits"));
  const Csv exported = parse_csv(tools::export_csv(log));
  expect_times_strictly_increasing(exported);
  const Csv signals = signals_of("export-f3ornits");
  EXPECT_GE(expect_equal_at_shared_times(exported, signals), 2U);
  expect_grid_export_is_signals("export-f3ornits");
  expect_streamed_export_is_whole("export-f3ornits");
}

TEST(ExportRows, TheGridOptionReproducesSignalsCsvOnTheCommandLine) {
  run("two_mass_switch.yaml", {"time.end=5", "evaluation.grid=0.005"}, "export-grid");
  const std::string csv_path = (run_directory("export-grid") / "grid.csv").string();
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " export " + log_path("export-grid") +
                         " --grid --csv " + csv_path,
                     exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  const Csv grid = parse_csv(read_file(csv_path));
  const Csv signals = signals_of("export-grid");
  ASSERT_EQ(grid.rows.size(), 1001U);
  ASSERT_EQ(signals.rows.size(), 1001U);
  EXPECT_EQ(expect_equal_at_shared_times(grid, signals), 1001U);
  EXPECT_EQ(parse_csv(tools::export_csv(tools::read_run_log(log_path("export-grid")))).rows.size(),
            501U)
      << "without --grid: the communication times";
}

// A slave without intermediate samples leaves no grid samples in the log:
// --grid interpolates its communication points as couplet run did.
TEST(ExportRows, TheGridOptionInterpolatesASlaveWithoutSamples) {
  const nlohmann::json summary = run("two_mass_switch.yaml",
                                     {"time.end=2", "evaluation.grid=0.0025",
                                      "slaves.left.capabilities.intermediate_samples=false"},
                                     "export-interpolated");
  ASSERT_EQ(summary["evaluation"]["interpolated_slaves"], nlohmann::json::array({"left"}));
  const tools::RunLog log = tools::read_run_log(log_path("export-interpolated"));
  const auto sampled_step = std::find_if(log.calls.begin(), log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::step && call.slave == 0 && !call.sample_times.empty();
  });
  EXPECT_EQ(sampled_step, log.calls.end()) << "left's steps hold no samples";
  expect_grid_export_is_signals("export-interpolated");
  EXPECT_EQ(signals_of("export-interpolated").rows.size(), 801U);
  expect_streamed_export_is_whole("export-interpolated");
}

// Steps of 2 s on a 1 ms grid: each step's samples go on in CALL_STEP_SAMPLES
// records after its call. Streamed, a step is taken only once all its samples
// are read, whatever the batch.
TEST(ExportRows, TheGridRowsOfStepsWhoseSamplesGoOnInFurtherRecords) {
  run("two_mass_switch.yaml", {"time.end=6", "algorithm.step=2", "evaluation.grid=0.001"},
      "export-long-steps");
  const tools::RunLog log = tools::read_run_log(log_path("export-long-steps"));
  const auto step = std::find_if(log.calls.begin(), log.calls.end(), [](const auto& call) {
    return call.kind == tools::CallKind::step;
  });
  ASSERT_NE(step, log.calls.end());
  ASSERT_EQ(step->sample_times.size(), 2000U) << "the continuation records joined to the call";
  expect_grid_export_is_signals("export-long-steps");
  expect_streamed_export_is_whole("export-long-steps");
}

// right is behind a link and feeds through: its outputs in a row are the
// refresh's, its link timing that of the step that ended at the row's time.
TEST(ExportRows, ALinkedSlavesTimingIsThatOfItsStepAtTheRowsTime) {
  run("two_mass_switch.yaml",
      {"time.end=0.2", "slaves.right.link={spawn: true, udp: \"127.0.0.1:0\"}"}, "export-link");
  const tools::RunLog log = tools::read_run_log(log_path("export-link"));
  const Csv exported = parse_csv(tools::export_csv(log));
  ASSERT_EQ(exported.rows.size(), 21U);
  const std::size_t round_trip = exported.column("right:round_trip_us");
  const std::size_t missed = exported.column("right:missed");
  ASSERT_LT(missed, exported.header.size()) << "the link columns";
  EXPECT_EQ(exported.column("left:round_trip_us"), exported.header.size()) << "left is local";
  EXPECT_EQ(exported.rows[0][round_trip], "") << "the start: no step";
  std::map<Time, const tools::LoggedCall*> right_steps;
  for (const tools::LoggedCall& call : log.calls) {
    if (call.kind == tools::CallKind::step && call.slave == 1) right_steps[call.end] = &call;
  }
  for (std::size_t r = 1; r < exported.rows.size(); ++r) {
    const tools::LoggedCall* step = right_steps.at(to_ticks(std::stod(exported.rows[r][0])));
    EXPECT_EQ(std::stod(exported.rows[r][round_trip]),
              static_cast<double>(step->ended_ns - step->began_ns) * 1e-3)
        << "row " << r + 2;
    EXPECT_EQ(exported.rows[r][missed], "0");
  }
  expect_streamed_export_is_whole("export-link");
}

/// A log of one slave with one output, built here: its calls are the test.
tools::RunLog one_slave_log(std::vector<tools::LoggedCall> calls) {
  tools::RunLog log;
  log.path = "hand-built.log";
  log.start = 0;
  log.end = to_ticks(1.0);
  tools::LoggedSlave slave;
  slave.name = "s";
  slave.description.outputs.push_back({.name = "y"});
  log.slaves.push_back(slave);
  log.calls = std::move(calls);
  for (tools::LoggedCall& call : log.calls) call.slave = 0;
  return log;
}

tools::LoggedCall step_call(std::uint64_t plan, double from, double to, double value) {
  tools::LoggedCall call;
  call.plan = plan;
  call.kind = tools::CallKind::step;
  call.start = to_ticks(from);
  call.end = to_ticks(to);
  call.end_outputs = {value};
  return call;
}

tools::LoggedCall bare_call(std::uint64_t plan, tools::CallKind kind, double output = 0.0) {
  tools::LoggedCall call;
  call.plan = plan;
  call.kind = kind;
  if (kind == tools::CallKind::evaluate_outputs) call.end_outputs = {output};
  return call;
}

// A step rejected and retried shorter after a rollback: its end is no row;
// rows are the accepted times with the accepted values.
TEST(ExportRows, ARolledBackStepLeavesNoRow) {
  using tools::CallKind;
  const tools::RunLog log = one_slave_log(
      {bare_call(0, CallKind::setup), bare_call(0, CallKind::evaluate_outputs, 1.0),
       bare_call(0, CallKind::save_state), step_call(0, 0.0, 1.0, 9.0),  // rejected
       bare_call(1, CallKind::restore_state), step_call(1, 0.0, 0.4, 2.0),
       bare_call(2, CallKind::save_state), step_call(2, 0.4, 0.8, 3.0),
       bare_call(3, CallKind::restore_state), step_call(3, 0.4, 0.8, 4.0)});  // re-stepped
  const Csv exported = parse_csv(tools::export_csv(log));
  ASSERT_EQ(exported.rows.size(), 3U) << tools::export_csv(log);
  const std::size_t y = exported.column("s.y");
  const std::size_t plan = exported.column("plan");
  EXPECT_EQ(exported.rows[0][0], "0");
  EXPECT_EQ(exported.rows[0][y], "1");
  EXPECT_EQ(exported.rows[0][plan], "0") << "the initialization";
  EXPECT_EQ(exported.rows[1][0], "0.40000000000000002");
  EXPECT_EQ(exported.rows[1][y], "2");
  EXPECT_EQ(exported.rows[1][plan], "2");
  EXPECT_EQ(exported.rows[1][exported.column("step_s")], "0.40000000000000002");
  EXPECT_EQ(exported.rows[2][y], "4") << "the last attempt is the accepted one";
  EXPECT_EQ(exported.rows[2][plan], "4");
  EXPECT_EQ(exported.rows[2][exported.column("macro_step")], "") << "no plan records: empty";
}

TEST(ExportMat, NamesAreMatlabValidAndUnique) {
  const std::string long_name(100, 'a');
  const std::vector<std::string> names = tools::matlab_names(
      {"time_s", "left.x", "order:right.f", "1st", "left_x", "column_names", "", long_name});
  EXPECT_EQ(names,
            (std::vector<std::string>{"time_s", "left_x", "order_right_f", "x1st", "left_x_2",
                                      "column_names_2", "x", std::string(63, 'a')}));
}

struct MatCloser {
  void operator()(mat_t* file) const { Mat_Close(file); }
};
struct MatFreer {
  void operator()(matvar_t* variable) const { Mat_VarFree(variable); }
};

std::vector<std::string> read_text_cells(mat_t* file, const char* name) {
  const std::unique_ptr<matvar_t, MatFreer> cells(Mat_VarRead(file, name));
  EXPECT_TRUE(cells && cells->class_type == MAT_C_CELL) << name;
  if (!cells || cells->class_type != MAT_C_CELL) return {};
  std::vector<std::string> texts;
  for (std::size_t k = 0; k < cells->dims[1]; ++k) {
    const matvar_t* text = Mat_VarGetCell(cells.get(), static_cast<int>(k));
    texts.emplace_back(static_cast<const char*>(text->data), text->dims[1]);
  }
  return texts;
}

// The MAT-file, read back with matio's own reader: the CSV's columns, each a
// double vector with the CSV's values bit for bit (NaN where the CSV is empty).
TEST(ExportMat, ReadsBackBitForBitAsTheCsv) {
  run("ifosmondi_damper.yaml", {"time.end=0.5"}, "export-mat");
  const std::string csv_path = (run_directory("export-mat") / "export.csv").string();
  const std::string mat_path = (run_directory("export-mat") / "export.mat").string();
  int exit_code = -1;
  const std::string output =
      command_output(std::string(COUPLET_BINARY) + " export " + log_path("export-mat") + " --csv " +
                         csv_path + " --mat " + mat_path,
                     exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  const Csv csv = parse_csv(read_file(csv_path));
  ASSERT_EQ(csv.rows.size(), 51U);

  const std::unique_ptr<mat_t, MatCloser> file(Mat_Open(mat_path.c_str(), MAT_ACC_RDONLY));
  ASSERT_TRUE(file) << mat_path;
  EXPECT_EQ(Mat_GetVersion(file.get()), MAT_FT_MAT5);
  EXPECT_EQ(read_text_cells(file.get(), "column_names"), csv.header);
  const std::vector<std::string> variables = read_text_cells(file.get(), "variable_names");
  ASSERT_EQ(variables, tools::matlab_names(csv.header));
  std::size_t empty_cells = 0;
  for (std::size_t c = 0; c < variables.size(); ++c) {
    const std::unique_ptr<matvar_t, MatFreer> variable(
        Mat_VarRead(file.get(), variables[c].c_str()));
    ASSERT_TRUE(variable) << variables[c];
    ASSERT_EQ(variable->class_type, MAT_C_DOUBLE) << variables[c];
    ASSERT_EQ(variable->dims[0], csv.rows.size()) << variables[c];
    ASSERT_EQ(variable->dims[1], 1U) << variables[c];
    const auto* values = static_cast<const double*>(variable->data);
    for (std::size_t r = 0; r < csv.rows.size(); ++r) {
      const std::string& text = csv.rows[r][c];
      if (text.empty()) {
        ++empty_cells;
        EXPECT_TRUE(std::isnan(values[r])) << variables[c] << " row " << r;
        continue;
      }
      EXPECT_EQ(std::bit_cast<std::uint64_t>(values[r]),
                std::bit_cast<std::uint64_t>(std::strtod(text.c_str(), nullptr)))
          << variables[c] << " row " << r << ": " << text;
    }
  }
  EXPECT_GT(empty_cells, 0U) << "the start row has no plan record: NaN in the MAT-file";
}

TEST(ExportErrors, AMissingLogIsNamed) {
  int exit_code = -1;
  const std::string missing = (fresh_directory("export-missing") / "run.log").string();
  const std::string output = command_output(
      std::string(COUPLET_BINARY) + " export " + missing + " --csv /dev/null", exit_code);
  EXPECT_NE(exit_code, 0);
  EXPECT_NE(output.find(missing), std::string::npos) << output;
}

TEST(ExportErrors, AnUnwritableOutputIsNamed) {
  run("two_mass_switch.yaml", {"time.end=0.1"}, "export-unwritable");
  const std::string unwritable =
      (run_directory("export-unwritable") / "no-such-dir" / "x").string();
  for (const char* option : {" --csv ", " --mat "}) {
    int exit_code = -1;
    const std::string output =
        command_output(std::string(COUPLET_BINARY) + " export " + log_path("export-unwritable") +
                           option + unwritable + "." + (option[3] == 'c' ? "csv" : "mat"),
                       exit_code);
    EXPECT_EQ(exit_code, 1) << option << output;
    EXPECT_NE(output.find("cannot write '" + unwritable), std::string::npos) << output;
  }
}

// A log cut anywhere exports what it holds, times still strictly increasing.
TEST(ExportRows, ACutLogExportsWhatItHolds) {
  run("ifosmondi_damper.yaml", {"time.end=0.2"}, "export-cut");
  const std::string whole = read_file(log_path("export-cut"));
  const std::string cut_path = (run_directory("export-cut") / "cut.log").string();
  for (const std::size_t length : {whole.size() / 3, whole.size() / 2, whole.size() - 7}) {
    {
      std::ofstream cut(cut_path, std::ios::binary);
      cut.write(whole.data(), static_cast<std::streamsize>(length));
    }
    const tools::RunLog log = tools::read_run_log(cut_path);
    ASSERT_TRUE(log.cut());
    const Csv exported = parse_csv(tools::export_csv(log));
    expect_times_strictly_increasing(exported);
    const Csv grid = parse_csv(tools::csv_text(tools::grid_table(log, grid_of(log))));
    EXPECT_LE(grid.rows.size(), 21U);
    // Streamed, the same rows: those a rollback still could have undone included.
    for (const std::size_t batch : {std::size_t{1}, std::size_t{4096}}) {
      std::ostringstream streamed;
      const tools::StreamedExport result =
          tools::stream_communication_csv(cut_path, streamed, batch);
      EXPECT_EQ(streamed.str(), tools::export_csv(log)) << length << " bytes, batch " << batch;
      EXPECT_EQ(result.tail, log.tail);
      tools::StreamedExport grid_result;
      EXPECT_EQ(streamed_grid_csv(cut_path, batch, grid_result),
                tools::csv_text(tools::grid_table(log, grid_of(log))))
          << length << " bytes, grid rows, batch " << batch;
      EXPECT_EQ(grid_result.tail, log.tail);
    }
  }
}

}  // namespace
}  // namespace couplet::testing
