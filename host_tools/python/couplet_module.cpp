// The Python module `couplet` (docs/python.md): runs, stepping, run logs and
// replay from Python, through the same code as the command line (the master's
// couplet::Simulation, include/couplet/simulation.hpp; run_log.hpp, replay.hpp),
// so a run from Python decides bit for bit as `couplet run` does. Tables come out as NumPy arrays; pandas is used only when
// a DataFrame is asked for.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "couplet/errors.hpp"
#include "couplet/simulation.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/cli/commands.hpp"
#include "host_tools/process/interrupt.hpp"
#include "host_tools/runlog/log_export.hpp"
#include "host_tools/runlog/logged_scenario.hpp"
#include "host_tools/runlog/replay.hpp"
#include "host_tools/runlog/run_log.hpp"
#include "host_tools/runlog/table_selection.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/simulation/link_report.hpp"
#include "host_tools/simulation/simulation_setup.hpp"
#include "runtime/decision_hash.hpp"

namespace py = pybind11;

namespace couplet::python {

namespace {

using tools::RunLog;

/// A log whose reading stopped at a cut or corrupted frame, read without
/// allow_damaged: the message is the reader's, naming the frame and its offset.
class DamagedRunLog : public tools::RunLogError {
 public:
  using tools::RunLogError::RunLogError;
};

/// `replay(..., verify=True)` of a log whose decisions were not all reproduced.
class ReplayMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- conversions ----

py::object json_to_python(const nlohmann::json& value) {
  return py::module_::import("json").attr("loads")(value.dump());
}

/// An override value as the text `--set key=value` would carry: strings as
/// they are (YAML), everything else as JSON, which YAML reads (numbers exactly:
/// Python's float repr round-trips).
std::string override_text(const py::handle& value) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

std::vector<std::pair<std::string, std::string>> override_list(const py::object& overrides) {
  std::vector<std::pair<std::string, std::string>> list;
  if (overrides.is_none()) return list;
  for (const auto& [key, value] : overrides.cast<py::dict>()) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error("overrides: keys must be strings (key.path)");
    list.emplace_back(key.cast<std::string>(), override_text(value));
  }
  return list;
}

template <typename T>
py::array_t<T> to_array(const std::vector<T>& values) {
  py::array_t<T> array(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), array.mutable_data());
  return array;
}

py::array_t<bool> to_bool_array(const std::vector<bool>& values) {
  py::array_t<bool> array(static_cast<py::ssize_t>(values.size()));
  bool* data = array.mutable_data();
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return array;
}

/// pandas, or an ImportError that says what needs it and how to get it.
py::module_ import_pandas(const char* what) {
  try {
    return py::module_::import("pandas");
  } catch (const py::error_already_set& error) {
    if (!error.matches(PyExc_ImportError)) throw;
    throw py::import_error(std::string(what) +
                           " needs pandas, which is not importable (Debian: apt-get install "
                           "python3-pandas); the NumPy arrays need nothing more");
  }
}

/// A DataFrame of `columns` (a dict of equally long arrays), in their order.
py::object data_frame(const py::dict& columns, const char* what) {
  return import_pandas(what).attr("DataFrame")(columns);
}

// ---- couplet.run ----

struct RunResult {
  py::object summary;
  py::array_t<double> time;
  py::dict signals;  ///< name → array, in signals.csv's column order
  std::string decision_hash;
  std::string output_dir;
  std::string status;

  py::object dataframe() const {
    py::dict columns;
    columns["time"] = time;
    for (const auto& [name, values] : signals) columns[name] = values;
    return data_frame(columns, "RunResult.dataframe()");
  }
};

/// A fresh directory under the system's temporary directory.
std::string temporary_run_directory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "couplet-run-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary directory for the run (" + pattern + ")");
  return pattern;
}

/// The signal handlers are process-wide: only one run at a time installs them
/// (a run in another thread meanwhile keeps Python's).
std::mutex interrupt_owner;

/// What a run leaves for Python: its summary and signals (those of
/// summary.json and signals.csv, taken from the Simulation rather than read
/// back), and the signal that interrupted it (0: none).
struct RunOutcome {
  nlohmann::json summary;
  tools::SignalColumns signals;
  int interrupted_by = 0;
};

RunOutcome run_interruptibly(const tools::Scenario& scenario, tools::RunOptions options) {
  std::unique_lock owner(interrupt_owner, std::try_to_lock);
  std::optional<tools::InterruptGuard> interrupt;
  if (owner.owns_lock()) {
    interrupt.emplace();
    options.interrupt = &*interrupt;
  }
  Simulation simulation = tools::make_simulation(scenario, options);
  simulation.run();
  return {tools::summary_of(simulation), tools::signal_columns(simulation),
          interrupt ? interrupt->received() : 0};
}

/// An Integer signal as int64, a Boolean one as bool.
py::array discrete_array(const std::vector<std::int64_t>& values, bool boolean) {
  if (!boolean) return to_array(values);
  std::vector<bool> flags(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) flags[k] = values[k] != 0;
  return to_bool_array(flags);
}

py::dict signal_dict(const tools::SignalColumns& signals) {
  py::dict columns;
  for (const auto& [name, values] : signals.columns) columns[py::str(name)] = to_array(values);
  for (const auto& column : signals.discrete_columns)
    columns[py::str(column.name)] = discrete_array(column.values, column.boolean);
  return columns;
}

RunResult run(const std::filesystem::path& scenario_path, const py::object& overrides,
              const std::optional<std::filesystem::path>& output_dir, bool record_log,
              bool progress, bool compress_log) {
  const auto assignments = override_list(overrides);
  std::string directory;
  RunOutcome outcome;
  {
    const py::gil_scoped_release unlocked;
    const tools::Scenario scenario = tools::load_scenario(scenario_path.string(), assignments);
    // Made only for a scenario that loads: a refused one leaves nothing behind.
    directory = output_dir ? output_dir->string() : temporary_run_directory();
    tools::RunOptions options;
    options.output_directory = directory;
    options.show_progress = progress;
    options.record_log = record_log;
    options.compress_log = compress_log;
    outcome = run_interruptibly(scenario, options);
  }
  // Ctrl-C stopped the run at a macro step (its files are written): Python's
  // way to say so.
  if (outcome.interrupted_by != 0) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  RunResult result;
  result.summary = json_to_python(outcome.summary);
  result.time = to_array(outcome.signals.time);
  result.signals = signal_dict(outcome.signals);
  result.decision_hash = outcome.summary.value("decision_hash", "");
  result.output_dir = directory;
  result.status = outcome.summary.value("status", "");
  return result;
}

// ---- couplet.Simulation ----

/// couplet::Simulation for Python: stepped from Python, its outputs read
/// between steps. The GIL is released while it steps.
class PythonSimulation {
 public:
  PythonSimulation(const std::filesystem::path& scenario_path, const py::object& overrides,
                   const std::optional<std::filesystem::path>& output_dir, bool record_log,
                   bool compress_log)
      : simulation_(
            make(scenario_path, override_list(overrides), output_dir, record_log, compress_log)),
        discrete_names_(simulation_.discrete_output_names()) {}

  bool step_until(double t) {
    const py::gil_scoped_release unlocked;
    return simulation_.step_until_seconds(t);
  }
  bool run() {
    const py::gil_scoped_release unlocked;
    return simulation_.run();
  }
  void initialize() {
    const py::gil_scoped_release unlocked;
    simulation_.initialize();
  }

  /// sim["slave.port"]: a float, an int (Integer) or a bool (Boolean); an
  /// unknown name is a KeyError naming it.
  py::object item(const std::string& name) const {
    const auto discrete = std::find(discrete_names_.begin(), discrete_names_.end(), name);
    if (discrete != discrete_names_.end()) {
      const auto index = static_cast<std::size_t>(discrete - discrete_names_.begin());
      const std::int64_t value = simulation_.discrete_output(index);
      if (simulation_.discrete_output_is_boolean(index)) return py::bool_(value != 0);
      return py::int_(value);
    }
    std::size_t index = 0;
    try {
      index = simulation_.output_index(name);
    } catch (const ConfigurationError& error) {
      throw py::key_error(error.what());
    }
    return py::float_(simulation_.output(index));
  }

  const Simulation& simulation() const { return simulation_; }

  py::array_t<double> grid() const { return to_array(simulation_.grid_times()); }
  py::array_t<double> trace(const std::string& name) const {
    return to_array(simulation_.trace(name));
  }
  py::dict signals() const { return signal_dict(tools::signal_columns(simulation_)); }
  py::object dataframe() const {
    py::dict columns;
    columns["time"] = grid();
    for (const auto& [name, values] : signals()) columns[name] = values;
    return data_frame(columns, "Simulation.dataframe()");
  }

 private:
  static Simulation make(const std::filesystem::path& scenario_path,
                         const Simulation::Overrides& overrides,
                         const std::optional<std::filesystem::path>& output_dir, bool record_log,
                         bool compress_log) {
    const py::gil_scoped_release unlocked;
    SimulationOptions options;
    if (output_dir) options.output_directory = output_dir->string();
    options.record_log = record_log;
    options.compress_log = compress_log;
    return Simulation::from_scenario(scenario_path.string(), overrides, options);
  }

  Simulation simulation_;
  const std::vector<std::string> discrete_names_;  ///< in discrete_output_index() order
};

// ---- couplet.read_log ----

py::dict slave_entry(const RunLog& log, std::size_t s) {
  const tools::LoggedSlave& slave = log.slaves[s];
  std::vector<std::string> inputs;
  std::vector<std::string> input_units;
  for (std::size_t j = 0; j < slave.description.inputs.size(); ++j) {
    inputs.push_back(log.input_name(s, j));
    input_units.push_back(slave.description.inputs[j].unit);
  }
  std::vector<std::string> outputs;
  std::vector<std::string> output_units;
  for (std::size_t j = 0; j < slave.description.outputs.size(); ++j) {
    outputs.push_back(log.output_name(s, j));
    output_units.push_back(slave.description.outputs[j].unit);
  }
  const SlaveCapabilities& capabilities = slave.description.capabilities;
  py::dict entry;
  entry["name"] = slave.name;
  entry["link"] = slave.link.empty() ? py::object(py::none()) : py::object(py::str(slave.link));
  // The whole run's link counters, as summary.json's links.NAME (None: a local
  // slave, or a log cut before its end).
  entry["link_totals"] = slave.link_totals ? json_to_python(tools::link_counters_json(*slave.link_totals))
                                           : py::object(py::none());
  entry["inputs"] = inputs;
  entry["input_units"] = input_units;
  entry["outputs"] = outputs;
  entry["output_units"] = output_units;
  entry["output_derivative_order"] = capabilities.output_derivative_order;
  entry["max_input_degree"] = capabilities.max_input_degree;
  entry["can_rollback"] = capabilities.can_rollback;
  entry["intermediate_samples"] = capabilities.intermediate_samples;
  entry["can_linearize"] = capabilities.can_linearize;
  return entry;
}

py::list connection_list(const RunLog& log) {
  py::list connections;
  for (const Connection& connection : log.connections) {
    connections.append(
        py::make_tuple(log.output_name(connection.source.slave, connection.source.port),
                       log.input_name(connection.target.slave, connection.target.port)));
  }
  return connections;
}

/// Host-clock nanoseconds between request and result; NaN when not measured.
double round_trip_s(const tools::LoggedCall& call) {
  if (call.began_ns == 0 && call.ended_ns == 0) return kNaN;
  return static_cast<double>(call.ended_ns - call.began_ns) * 1e-9;
}

py::dict call_columns(const RunLog& log) {
  std::vector<std::uint64_t> plan;
  std::vector<std::int64_t> slave, kind, derivative_order;
  std::vector<double> start_s, end_s, round_trip;
  std::vector<std::uint64_t> began_ns, ended_ns;
  std::vector<std::uint32_t> retransmissions;
  std::vector<std::int64_t> input_lateness_ns;
  std::vector<bool> missed;
  for (const tools::LoggedCall& call : log.calls) {
    plan.push_back(call.plan);
    slave.push_back(static_cast<std::int64_t>(call.slave));
    kind.push_back(static_cast<std::int64_t>(call.kind));
    derivative_order.push_back(call.derivative_order);
    start_s.push_back(to_seconds(call.start));
    end_s.push_back(to_seconds(call.end));
    round_trip.push_back(round_trip_s(call));
    began_ns.push_back(call.began_ns);
    ended_ns.push_back(call.ended_ns);
    retransmissions.push_back(call.retransmissions);
    input_lateness_ns.push_back(call.input_lateness_ns);
    missed.push_back(call.missed);
  }
  py::dict columns;
  columns["plan"] = to_array(plan);
  columns["slave"] = to_array(slave);
  columns["kind"] = to_array(kind);
  columns["start_s"] = to_array(start_s);
  columns["end_s"] = to_array(end_s);
  columns["began_ns"] = to_array(began_ns);
  columns["ended_ns"] = to_array(ended_ns);
  columns["round_trip_s"] = to_array(round_trip);
  columns["retransmissions"] = to_array(retransmissions);
  columns["input_lateness_ns"] = to_array(input_lateness_ns);
  columns["missed"] = to_bool_array(missed);
  columns["derivative_order"] = to_array(derivative_order);
  return columns;
}

py::dict plan_columns(const RunLog& log) {
  std::vector<std::uint64_t> plan, macro_steps, wall_ns;
  std::vector<double> frontier_s;
  std::vector<std::int64_t> pacer_lateness_ns;
  for (const tools::LoggedPlan& logged : log.plans) {
    plan.push_back(logged.plan);
    macro_steps.push_back(logged.macro_steps);
    frontier_s.push_back(to_seconds(logged.frontier));
    pacer_lateness_ns.push_back(logged.pacer_lateness_ns);
    wall_ns.push_back(logged.wall_ns);
  }
  py::dict columns;
  columns["plan"] = to_array(plan);
  columns["macro_steps"] = to_array(macro_steps);
  columns["frontier_s"] = to_array(frontier_s);
  columns["pacer_lateness_ns"] = to_array(pacer_lateness_ns);
  columns["wall_ns"] = to_array(wall_ns);
  return columns;
}

/// Plans × internal quantities.
py::array_t<double> internal_matrix(const RunLog& log) {
  const std::size_t quantities = log.internal_quantities.size();
  py::array_t<double> matrix(
      {static_cast<py::ssize_t>(log.plans.size()), static_cast<py::ssize_t>(quantities)});
  double* data = matrix.mutable_data();
  for (const tools::LoggedPlan& plan : log.plans)
    data = std::copy(plan.internals.begin(), plan.internals.end(), data);
  return matrix;
}

py::object end_entry(const RunLog& log) {
  if (!log.end_record) return py::none();
  const tools::LoggedEnd& end = *log.end_record;
  py::dict entry;
  entry["completed"] = end.completed();
  entry["status"] = end.status;
  entry["message"] = end.message;
  entry["decision_hash"] = hash_text(end.decision_hash);
  entry["plans"] = end.plans;
  entry["macro_steps"] = end.macro_steps;
  entry["slave_steps"] = end.slave_steps;
  entry["rollbacks"] = end.rollbacks;
  entry["records_waited"] = end.records_waited;
  return entry;
}

/// A discrete column: int64 (Integer) or bool (Boolean) when every row holds
/// a value, else float with NaN where the log holds none (NumPy's integers
/// have no NaN).
py::array discrete_table_column(const tools::ExportTable& table, std::size_t column) {
  const auto& rows = table.discrete_rows;
  const bool complete = std::all_of(rows.begin(), rows.end(),
                                    [&](const auto& row) { return row[column].has_value(); });
  if (!complete) {
    std::vector<double> values;
    for (const auto& row : rows)
      values.push_back(row[column] ? static_cast<double>(*row[column]) : kNaN);
    return to_array(values);
  }
  std::vector<std::int64_t> values;
  for (const auto& row : rows) values.push_back(*row[column]);
  return discrete_array(values, table.discrete_types[column] == DiscreteType::boolean);
}

py::dict table_columns(const tools::ExportTable& table) {
  py::dict columns;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    std::vector<double> values;
    values.reserve(table.rows.size());
    for (const auto& row : table.rows) values.push_back(row[c].value_or(kNaN));
    columns[py::str(table.columns[c])] = to_array(values);
  }
  for (std::size_t c = 0; c < table.discrete_columns.size(); ++c)
    columns[py::str(table.discrete_columns[c])] = discrete_table_column(table, c);
  return columns;
}

/// A run log for Python: the RunLog itself (for the tables made on demand) and
/// its parts converted once.
class PythonRunLog {
 public:
  explicit PythonRunLog(RunLog log) : log_(std::move(log)) {}

  const RunLog& log() const { return log_; }

  py::list slaves() const {
    py::list list;
    for (std::size_t s = 0; s < log_.slaves.size(); ++s) list.append(slave_entry(log_, s));
    return list;
  }
  std::vector<std::string> slave_names() const {
    std::vector<std::string> names;
    for (const tools::LoggedSlave& slave : log_.slaves) names.push_back(slave.name);
    return names;
  }
  std::size_t slave_index(const std::string& name) const {
    for (std::size_t s = 0; s < log_.slaves.size(); ++s)
      if (log_.slaves[s].name == name) return s;
    throw py::key_error("run log '" + log_.path + "' has no slave '" + name + "'");
  }

  /// The outputs every call on `slave` returned at its end (row 0 of its end
  /// outputs: values, not derivatives), with the call's index and end time.
  py::dict outputs(const std::string& name) const {
    const std::size_t s = slave_index(name);
    const std::size_t count = log_.slaves[s].description.outputs.size();
    std::vector<std::int64_t> call_index;
    std::vector<double> time;
    std::vector<std::vector<double>> values(count);
    for (std::size_t i = 0; i < log_.calls.size(); ++i) {
      const tools::LoggedCall& call = log_.calls[i];
      if (call.slave != s || call.end_outputs.size() < count || count == 0) continue;
      call_index.push_back(static_cast<std::int64_t>(i));
      time.push_back(to_seconds(call.end));
      for (std::size_t j = 0; j < count; ++j) values[j].push_back(call.end_outputs[j]);
    }
    py::dict columns;
    columns["call"] = to_array(call_index);
    columns["time"] = to_array(time);
    for (std::size_t j = 0; j < count; ++j)
      columns[py::str(log_.output_name(s, j))] = to_array(values[j]);
    return columns;
  }

  py::dict table(bool on_grid) const {
    if (!on_grid) return table_columns(tools::communication_table(log_));
    return table_columns(tools::grid_table(log_, tools::logged_evaluation_grid(log_)));
  }

  /// Calls with the slave and kind by name, for a DataFrame.
  py::dict named_call_columns() const {
    py::dict columns = call_columns(log_);
    py::list slave_names_column, kind_names;
    for (const tools::LoggedCall& call : log_.calls) {
      slave_names_column.append(log_.slaves[call.slave].name);
      kind_names.append(tools::call_kind_name(call.kind));
    }
    columns["slave"] = slave_names_column;
    columns["kind"] = kind_names;
    return columns;
  }

  py::dict plan_columns_with_internals() const {
    py::dict columns = plan_columns(log_);
    for (std::size_t q = 0; q < log_.internal_quantities.size(); ++q) {
      std::vector<double> values;
      for (const tools::LoggedPlan& plan : log_.plans) values.push_back(plan.internals[q]);
      columns[py::str(log_.internal_quantities[q])] = to_array(values);
    }
    return columns;
  }

  py::object dataframe(const std::string& what) const {
    if (what == "calls") return data_frame(named_call_columns(), "RunLog.dataframe('calls')");
    if (what == "plans")
      return data_frame(plan_columns_with_internals(), "RunLog.dataframe('plans')");
    if (what == "table") return data_frame(table(false), "RunLog.dataframe('table')");
    if (what == "grid") return data_frame(table(true), "RunLog.dataframe('grid')");
    throw py::value_error("RunLog.dataframe('" + what +
                          "'): expected 'table', 'grid', 'calls' or 'plans'");
  }

 private:
  RunLog log_;
};

PythonRunLog read_log(const std::filesystem::path& path, bool allow_damaged) {
  RunLog log;
  {
    const py::gil_scoped_release unlocked;
    log = tools::read_run_log(path.string());
  }
  if (log.damaged() && !allow_damaged) {
    throw DamagedRunLog("run log '" + path.string() + "': " + log.tail_problem +
                        " (read_log(..., allow_damaged=True) reads up to there)");
  }
  return PythonRunLog(std::move(log));
}

/// `RunLog.table()` streamed: the log is read record by record and only the
/// selected columns of the rows kept are held.
py::dict read_table(const std::filesystem::path& path, bool grid,
                    const std::optional<std::vector<std::string>>& columns,
                    std::optional<double> every, bool allow_damaged) {
  tools::TableCollector collected;
  tools::StreamedExport streamed;
  try {
    const py::gil_scoped_release unlocked;
    tools::TableSelection selection(collected, columns.value_or(std::vector<std::string>{}), every);
    tools::RunLogReading reading(path.string());
    if (grid) {
      reading.read_structure();
      const std::vector<Time> times = tools::logged_evaluation_grid(reading.log());
      streamed = tools::stream_grid_rows(reading, times, selection);
    } else {
      streamed = tools::stream_communication_rows(reading, selection);
    }
    selection.finish();
  } catch (const tools::UnknownColumnError& error) {
    throw py::key_error("run log '" + path.string() + "': " + error.what());
  }
  if (!streamed.tail_problem.empty() && !allow_damaged) {
    throw DamagedRunLog("run log '" + path.string() + "': " + streamed.tail_problem +
                        " (read_table(..., allow_damaged=True) reads up to there)");
  }
  return table_columns(collected.table);
}

// ---- couplet.replay ----

struct ReplayResult {
  bool identical = false;
  bool verified = false;  ///< identical and the log undamaged: what --verify accepts
  std::string verdict;
  std::string divergence;
  std::string note;
  std::string replayed_hash;
  std::optional<std::string> recorded_hash;
  std::uint64_t plans = 0;
  std::uint64_t macro_steps = 0;
  std::uint64_t calls = 0;
  bool damaged = false;
  std::string damage;
};

/// The verdict line of `couplet replay`, without its label.
std::string verdict_text(const tools::ReplayOutcome& outcome, const RunLog& log, bool corrupted) {
  if (!outcome.identical) return "diverged: " + outcome.divergence;
  if (corrupted) return "not verified: the log is damaged: " + log.tail_problem;
  return "every recorded decision reproduced bit for bit";
}

ReplayResult replay(const std::filesystem::path& path, bool verify) {
  ReplayResult result;
  {
    const py::gil_scoped_release unlocked;
    tools::RunLogStream stream(path.string());  // in memory independent of the log's length
    const tools::ReplayOutcome outcome = tools::replay_run_log(stream);
    const RunLog& log = stream.log();
    const bool corrupted = log.tail == protocol::LogReadStatus::corrupted ||
                           log.tail == protocol::LogReadStatus::malformed;
    result.identical = outcome.identical;
    result.verified = outcome.identical && !corrupted;
    result.verdict = verdict_text(outcome, log, corrupted);
    result.divergence = outcome.divergence;
    result.note = outcome.note;
    result.replayed_hash = hash_text(outcome.replayed_hash);
    if (outcome.hash_compared) result.recorded_hash = hash_text(log.end_record->decision_hash);
    result.plans = outcome.plans;
    result.macro_steps = outcome.macro_steps;
    result.calls = outcome.calls;
    result.damaged = log.damaged();
    result.damage = log.tail_problem;
  }
  if (verify && !result.verified)
    throw ReplayMismatch("replay of '" + path.string() + "': " + result.verdict);
  return result;
}

// ---- the module ----

void register_errors(py::module_& module) {
  py::register_exception<ConfigurationError>(module, "ConfigurationError", PyExc_ValueError);
  py::register_exception<SlaveError>(module, "RunError", PyExc_RuntimeError);
  const auto& log_error =
      py::register_exception<tools::RunLogError>(module, "RunLogError", PyExc_RuntimeError);
  // Registered after RunLogError: pybind11 tries the latest translator first.
  py::register_exception<DamagedRunLog>(module, "DamagedLogError", log_error);
  py::register_exception<ReplayMismatch>(module, "ReplayMismatch", PyExc_RuntimeError);
}

void define_run(py::module_& module) {
  py::class_<RunResult>(module, "RunResult", "What couplet.run() returns.")
      .def_readonly("summary", &RunResult::summary, "summary.json as a dict")
      .def_readonly("time", &RunResult::time, "signals.csv's time column (s)")
      .def_readonly("signals", &RunResult::signals, "signals.csv's columns: name → array")
      .def_readonly("decision_hash", &RunResult::decision_hash)
      .def_readonly("output_dir", &RunResult::output_dir)
      .def_readonly("status", &RunResult::status)
      .def("dataframe", &RunResult::dataframe, "time and the signals as a pandas DataFrame")
      .def("__repr__", [](const RunResult& result) {
        return "<couplet.RunResult " + result.status + " " + result.decision_hash + " in " +
               result.output_dir + ">";
      });
  module.def("run", &run, py::arg("scenario_path"), py::arg("overrides") = py::none(),
             py::arg("output_dir") = py::none(), py::arg("record_log") = true,
             py::arg("progress") = false, py::arg("compress_log") = false,
             "Runs a scenario as `couplet run` does (overrides: {'key.path': value} as --set) "
             "into output_dir (None: a fresh temporary directory); compress_log: run.log in "
             "zstd blocks, as `couplet run --compress-log`.");
}

void define_simulation(py::module_& module) {
  py::class_<PythonSimulation>(module, "Simulation",
                               "A co-simulation stepped from Python (docs/python.md).")
      .def(py::init<const std::filesystem::path&, const py::object&,
                    const std::optional<std::filesystem::path>&, bool, bool>(),
           py::arg("scenario_path"), py::arg("overrides") = py::none(),
           py::arg("output_dir") = py::none(), py::arg("record_log") = false,
           py::arg("compress_log") = false,
           "Loads a scenario as `couplet run` does (overrides: {'key.path': value} as --set); "
           "output_dir: where signals.csv and summary.json (and run.log with record_log=True, "
           "compressed with compress_log=True) go at the end (None: no files).")
      .def("initialize", &PythonSimulation::initialize,
           "Sets up the slaves and starts the algorithm (the first step_until does it).")
      .def("step_until", &PythonSimulation::step_until, py::arg("t"),
           "Carries out whole macro steps until the time reaches t (s): a t inside a step "
           "ends at the step's end. Returns finished.")
      .def("run", &PythonSimulation::run, "Steps to the scenario's end. Returns finished.")
      .def_property_readonly(
          "time", [](const PythonSimulation& self) { return self.simulation().time_seconds(); },
          "the master's time (s)")
      .def_property_readonly(
          "start",
          [](const PythonSimulation& self) { return to_seconds(self.simulation().start_time()); })
      .def_property_readonly(
          "end",
          [](const PythonSimulation& self) { return to_seconds(self.simulation().end_time()); })
      .def_property_readonly(
          "finished", [](const PythonSimulation& self) { return self.simulation().finished(); })
      .def("__getitem__", &PythonSimulation::item, py::arg("name"),
           "the latest value of output 'slave.port': float, int (Integer) or bool (Boolean); "
           "KeyError naming an unknown one")
      .def_property_readonly(
          "output_names",
          [](const PythonSimulation& self) { return self.simulation().output_names(); },
          "the Real outputs, 'slave.port'")
      .def_property_readonly(
          "discrete_output_names",
          [](const PythonSimulation& self) { return self.simulation().discrete_output_names(); },
          "the Integer and Boolean outputs, 'slave.port'")
      .def_property_readonly(
          "decision_hash",
          [](const PythonSimulation& self) { return self.simulation().decision_hash(); })
      .def_property_readonly(
          "summary",
          [](const PythonSimulation& self) {
            return json_to_python(tools::summary_of(self.simulation()));
          },
          "summary.json's content as a dict (status 'running' before the end)")
      .def_property_readonly("grid", &PythonSimulation::grid,
                             "the evaluation grid's times reached so far (s)")
      .def("trace", &PythonSimulation::trace, py::arg("name"),
           "one output's values on the grid reached so far")
      .def_property_readonly("signals", &PythonSimulation::signals,
                             "the scenario's signals on the grid so far: name → array, as "
                             "signals.csv's columns (float; int64 for Integer, bool for "
                             "Boolean signals)")
      .def("dataframe", &PythonSimulation::dataframe,
           "the grid so far and the signals as a pandas DataFrame")
      .def("__repr__", [](const PythonSimulation& self) {
        const Simulation& simulation = self.simulation();
        return "<couplet.Simulation " + simulation.scenario_name() + " at t = " +
               seconds_text(simulation.time()) + " s" +
               (simulation.finished() ? ", finished" : "") + ">";
      });
}

void define_read_log(py::module_& module) {
  py::class_<PythonRunLog>(module, "RunLog", "A run log read by couplet.read_log().")
      .def_property_readonly("path", [](const PythonRunLog& self) { return self.log().path; })
      .def_property_readonly("scenario_source",
                             [](const PythonRunLog& self) { return self.log().scenario_source; })
      .def_property_readonly("scenario_text",
                             [](const PythonRunLog& self) { return self.log().scenario_text; })
      .def_property_readonly("algorithm",
                             [](const PythonRunLog& self) { return self.log().algorithm; })
      .def_property_readonly("start",
                             [](const PythonRunLog& self) { return to_seconds(self.log().start); })
      .def_property_readonly("end",
                             [](const PythonRunLog& self) { return to_seconds(self.log().end); })
      .def_property_readonly(
          "wall_clock_start_ns",
          [](const PythonRunLog& self) { return self.log().wall_clock_start_ns; })
      .def_property_readonly("slaves", &PythonRunLog::slaves)
      .def_property_readonly("slave_names", &PythonRunLog::slave_names)
      .def_property_readonly("connections",
                             [](const PythonRunLog& self) { return connection_list(self.log()); })
      .def_property_readonly(
          "call_kinds",
          [](const PythonRunLog&) {
            std::vector<std::string> names;
            for (std::size_t k = 0; k < tools::kCallKinds; ++k)
              names.emplace_back(tools::call_kind_name(static_cast<tools::CallKind>(k)));
            return names;
          })
      .def_property_readonly("calls",
                             [](const PythonRunLog& self) { return call_columns(self.log()); })
      .def_property_readonly("plans",
                             [](const PythonRunLog& self) { return plan_columns(self.log()); })
      .def_property_readonly(
          "internal_quantities",
          [](const PythonRunLog& self) { return self.log().internal_quantities; })
      .def_property_readonly("internals",
                             [](const PythonRunLog& self) { return internal_matrix(self.log()); })
      .def_property_readonly("end_record",
                             [](const PythonRunLog& self) { return end_entry(self.log()); })
      .def_property_readonly("decision_hash",
                             [](const PythonRunLog& self) -> py::object {
                               if (!self.log().end_record) return py::none();
                               return py::str(hash_text(self.log().end_record->decision_hash));
                             })
      .def_property_readonly("frames", [](const PythonRunLog& self) { return self.log().frames; })
      .def_property_readonly("cut", [](const PythonRunLog& self) { return self.log().cut(); })
      .def_property_readonly("damaged",
                             [](const PythonRunLog& self) { return self.log().damaged(); })
      .def_property_readonly("damage",
                             [](const PythonRunLog& self) { return self.log().tail_problem; })
      .def("outputs", &PythonRunLog::outputs, py::arg("slave"),
           "the outputs each call on the slave returned at its end, with 'call' and 'time'")
      .def("table", &PythonRunLog::table, py::arg("grid") = false,
           "couplet export's rows as columns (grid=True: --grid)")
      .def("dataframe", &PythonRunLog::dataframe, py::arg("what") = "table",
           "'table', 'grid', 'calls' or 'plans' as a pandas DataFrame")
      .def("__repr__", [](const PythonRunLog& self) {
        return "<couplet.RunLog '" + self.log().path + "' " + self.log().algorithm + ", " +
               std::to_string(self.log().plans.size()) + " plans, " +
               std::to_string(self.log().calls.size()) + " calls>";
      });
  module.def("read_log", &read_log, py::arg("path"), py::arg("allow_damaged") = false,
             "Reads a run log whole. A cut or corrupted frame raises DamagedLogError naming it, "
             "unless allow_damaged=True (then what came before it is returned).");
  module.def("read_table", &read_table, py::arg("path"), py::kw_only(), py::arg("grid") = false,
             py::arg("columns") = py::none(), py::arg("every") = py::none(),
             py::arg("allow_damaged") = false,
             "RunLog.table() of a log of any length, streamed: only `columns` (and the time) "
             "are kept, and with `every` (s) one row per interval and the last.");
}

void define_replay(py::module_& module) {
  py::class_<ReplayResult>(module, "ReplayResult", "What couplet.replay() returns.")
      .def_readonly("identical", &ReplayResult::identical)
      .def_readonly("verified", &ReplayResult::verified)
      .def_readonly("verdict", &ReplayResult::verdict)
      .def_readonly("divergence", &ReplayResult::divergence)
      .def_readonly("note", &ReplayResult::note)
      .def_readonly("replayed_hash", &ReplayResult::replayed_hash)
      .def_readonly("recorded_hash", &ReplayResult::recorded_hash)
      .def_readonly("plans", &ReplayResult::plans)
      .def_readonly("macro_steps", &ReplayResult::macro_steps)
      .def_readonly("calls", &ReplayResult::calls)
      .def_readonly("damaged", &ReplayResult::damaged)
      .def_readonly("damage", &ReplayResult::damage)
      .def("__repr__", [](const ReplayResult& result) {
        return "<couplet.ReplayResult " + result.verdict + ">";
      });
  module.def(
      "replay", &replay, py::arg("path"), py::arg("verify") = true,
      "Replays a run log as `couplet replay --verify` does; verify=True raises ReplayMismatch "
      "unless every decision was reproduced.");
}

}  // namespace

}  // namespace couplet::python

PYBIND11_MODULE(couplet, module) {
  module.doc() = "couplet co-simulation runs, stepping, run logs and replay (docs/python.md)";
  couplet::python::register_errors(module);
  couplet::python::define_run(module);
  couplet::python::define_simulation(module);
  couplet::python::define_read_log(module);
  couplet::python::define_replay(module);
}
