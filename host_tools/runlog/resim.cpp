#include "host_tools/runlog/resim.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "core/exact_text.hpp"
#include "couplet/errors.hpp"
#include "host_tools/assembly/group_builder.hpp"
#include "host_tools/assembly/system_builder.hpp"
#include "host_tools/checks/check_evaluator.hpp"
#include "host_tools/checks/check_setup.hpp"
#include "host_tools/runlog/run_log_stream.hpp"
#include "host_tools/scenario/check_reader.hpp"
#include "host_tools/scenario/scenario.hpp"
#include "host_tools/scenario/scenario_text.hpp"
#include "host_tools/simulation/run_directory.hpp"

namespace couplet::tools {

namespace {

/// A member of a composite group is inside one slave of the log: "; 'body' ran
/// inside group 'damper': re-simulate the group", or "" when `name` is none.
std::string group_hint(const RunLog& log, const std::string& name) {
  const std::string group = group_listing(log.scenario_text, name);
  if (group.empty()) return "";
  return "; '" + name + "' ran inside the composite group '" + group + "': re-simulate the group";
}

std::size_t logged_slave_index(const RunLog& log, const std::string& name) {
  std::string names;
  for (std::size_t s = 0; s < log.slaves.size(); ++s) {
    if (log.slaves[s].name == name) return s;
    names += (names.empty() ? "" : ", ") + log.slaves[s].name;
  }
  throw ConfigurationError("run log '" + log.path + "' has no slave '" + name +
                           "' (its slaves: " + names + ")" + group_hint(log, name));
}

bool overrides_key(const ResimOptions& options, const std::string& key) {
  return std::any_of(options.overrides.begin(), options.overrides.end(),
                     [&](const auto& override) { return override.first == key; });
}

/// The logged scenario text made ready for the overrides: an override giving the
/// slave a model or an FMU replaces its source (a --set cannot delete the old
/// key, and a slave takes exactly one of model, fmu and device).
std::string text_for_overrides(const RunLog& log, const std::string& slave,
                               const ResimOptions& options) {
  const std::string what = "run log '" + log.path + "'";
  const std::string prefix = "slaves." + slave + ".";
  if (overrides_key(options, prefix + "model"))
    return without_slave_keys(log.scenario_text, what, slave, {"fmu", "fmu_kind", "device", "dcp"});
  if (overrides_key(options, prefix + "fmu"))
    return without_slave_keys(log.scenario_text, what, slave, {"model", "device", "dcp"});
  return without_slave_keys(log.scenario_text, what, slave, {});
}

/// The logged scenario with the overrides, every slave local: a slave that ran
/// behind a link is re-simulated here from its definition, as `couplet
/// reference` solves it.
Scenario resim_scenario(const RunLog& log, const std::string& slave, const ResimOptions& options) {
  Scenario scenario = parse_scenario(text_for_overrides(log, slave, options), log.scenario_source,
                                     options.overrides);
  // A DCP slave is reached over its link even here: it has no definition couplet could run.
  for (SlaveSpec& spec : scenario.slaves) {
    if (spec.dcp.empty()) spec.link.reset();
  }
  return scenario;
}

std::unique_ptr<Slave> build_resim_slave(const Scenario& scenario, const std::string& name) {
  const models::ModelCatalog catalog = models::ModelCatalog::builtin();
  const auto group = std::find_if(scenario.groups.begin(), scenario.groups.end(),
                                  [&](const GroupSpec& g) { return g.name == name; });
  if (group != scenario.groups.end()) return make_group_slave(scenario, *group, catalog);
  const auto spec = std::find_if(scenario.slaves.begin(), scenario.slaves.end(),
                                 [&](const SlaveSpec& s) { return s.name == name; });
  if (spec == scenario.slaves.end()) {
    throw ConfigurationError(
        scenario.source + ": slaves: the scenario with the overrides has no slave '" + name + "'");
  }
  if (!spec->device.empty()) {
    throw ConfigurationError(spec->where + ": slave '" + name + "' is device '" + spec->device +
                             "', whose behaviour lives in its own program: it cannot be "
                             "re-simulated without it; give the slave a model or an FMU "
                             "(--set slaves." +
                             name + ".model=NAME or --set slaves." + name + ".fmu=FILE)");
  }
  try {
    return make_slave_of(scenario, *spec, catalog);
  } catch (const ConfigurationError& error) {
    const std::string message = error.what();
    if (message.rfind(scenario.source, 0) == 0) throw;
    throw ConfigurationError(spec->where + ": " + message);
  }
}

/// Which recorded input feeds each input of the new slave, and which outputs
/// the two have in common, by name.
struct PortMatch {
  std::vector<std::size_t> input_source;           ///< per new input: the logged input
  std::vector<std::size_t> discrete_input_source;  ///< per new discrete input: the logged one
  struct Output {
    std::string name;
    std::size_t recorded;  ///< index among the logged slave's outputs
    std::size_t resimulated;
  };
  std::vector<Output> outputs;           ///< in the logged order
  std::vector<Output> discrete_outputs;  ///< likewise, among the discrete outputs
  std::vector<std::string> recorded_only;
  std::vector<std::string> new_only;
};

template <class Port>
std::optional<std::size_t> port_named(const std::vector<Port>& ports, const std::string& name) {
  for (std::size_t k = 0; k < ports.size(); ++k) {
    if (ports[k].name == name) return k;
  }
  return std::nullopt;
}

/// Per input of `resimulated` (Real or discrete, `inputs`), the recorded input
/// of that name; one the log holds no values for is refused.
template <class Port>
std::vector<std::size_t> input_sources(const std::string& slave, const std::vector<Port>& recorded,
                                       const std::vector<Port>& resimulated) {
  std::vector<std::size_t> sources;
  for (const Port& input : resimulated) {
    const auto source = port_named(recorded, input.name);
    if (!source) {
      throw ConfigurationError("slave '" + slave + "' as re-simulated has input '" + input.name +
                               "', which the recorded one did not have: the log holds no values "
                               "for it");
    }
    sources.push_back(*source);
  }
  return sources;
}

/// The outputs both have, by name, into `common`; the others into the lists.
template <class Port>
void match_outputs(const std::string& slave, const std::vector<Port>& recorded,
                   const std::vector<Port>& resimulated, std::vector<PortMatch::Output>& common,
                   PortMatch& match) {
  for (std::size_t k = 0; k < recorded.size(); ++k) {
    const std::string& name = recorded[k].name;
    if (const auto j = port_named(resimulated, name)) {
      common.push_back({name, k, *j});
    } else {
      match.recorded_only.push_back(slave + "." + name);
    }
  }
  for (const Port& output : resimulated) {
    if (!port_named(recorded, output.name)) match.new_only.push_back(slave + "." + output.name);
  }
}

PortMatch match_ports(const std::string& slave, const SlaveDescription& recorded,
                      const SlaveDescription& resimulated) {
  PortMatch match;
  match.input_source = input_sources(slave, recorded.inputs, resimulated.inputs);
  match.discrete_input_source =
      input_sources(slave, recorded.discrete_inputs, resimulated.discrete_inputs);
  match_outputs(slave, recorded.outputs, resimulated.outputs, match.outputs, match);
  match_outputs(slave, recorded.discrete_outputs, resimulated.discrete_outputs,
                match.discrete_outputs, match);
  return match;
}

/// The scenario's checks as a re-simulation of one slave applies them: those on
/// an output of that slave, evaluated on every row it produces; the others
/// (realtime and accuracy are about the whole run, a signal of another slave
/// has no new values) are listed as not applicable.
struct ResimChecks {
  std::vector<CheckTarget> targets;
  nlohmann::json not_applicable = nlohmann::json::array();
};

ResimChecks resim_checks(const Scenario& scenario, const std::string& slave,
                         const SlaveDescription& description) {
  ResimChecks checks;
  const std::string prefix = slave + ".";
  for (const CheckSpec& spec : scenario.checks) {
    const bool on_signal = spec.kind != CheckKind::realtime && spec.kind != CheckKind::accuracy;
    std::optional<std::size_t> output;
    bool discrete = false;
    if (on_signal && spec.signal.rfind(prefix, 0) == 0) {
      const std::string port = spec.signal.substr(prefix.size());
      output = port_named(description.outputs, port);
      if (!output) {
        output = port_named(description.discrete_outputs, port);
        discrete = output.has_value();
      }
    }
    if (!output) {
      const std::string reason =
          on_signal ? "its signal is not an output of the re-simulated slave '" + slave + "'"
                    : "checks of kind '" + std::string(check_kind_name(spec.kind)) +
                          "' are about the whole run";
      nlohmann::json entry = {{"name", spec.name},
                              {"kind", std::string(check_kind_name(spec.kind))}};
      if (!spec.signal.empty()) entry["signal"] = spec.signal;
      entry["reason"] = reason;
      checks.not_applicable.push_back(entry);
      continue;
    }
    CheckTarget target{spec, PortReference{0, *output}, discrete, spec.signal, {}};
    if (spec.kind == CheckKind::matches)
      target.trace = read_check_trace(spec, scenario.start, scenario.end);
    checks.targets.push_back(std::move(target));
  }
  return checks;
}

/// The directory holding the log keeps the run's own summary.json and
/// signals.csv: a re-simulation writing there would mix two kinds of files.
void refuse_log_directory(const RunLog& log, const std::string& output_directory) {
  namespace fs = std::filesystem;
  std::error_code log_error;
  std::error_code output_error;
  const fs::path log_directory =
      fs::weakly_canonical(fs::absolute(log.path).parent_path(), log_error);
  const fs::path output = fs::weakly_canonical(fs::absolute(output_directory), output_error);
  if (!log_error && !output_error && log_directory == output) {
    throw ConfigurationError("-o " + output_directory + ": the directory holds the run log '" +
                             log.path +
                             "' and that run's summary.json and signals.csv; write the "
                             "re-simulation elsewhere (default out/resim)");
  }
}

/// Drives the new slave with the recorded requests, read from the log as they
/// come, and writes per returned row of outputs the recorded and the new
/// values: nothing grows with the log's length.
class RequestPlayer {
 public:
  /// `checks` watches the new outputs (the system's slave 0 is `resimulated`);
  /// `log` holds the structure of the log to play.
  RequestPlayer(const RunLog& log, std::size_t slave, Slave& resimulated, PortMatch match,
                CheckEvaluator& checks)
      : slave_(slave),
        recorded_(log.slaves[slave].description),
        resimulated_(resimulated),
        description_(resimulated.description()),
        match_(std::move(match)),
        inputs_(description_.inputs.size()),
        discrete_inputs_(description_.discrete_inputs.size()),
        discrete_outputs_(description_.discrete_outputs.size()),
        recorded_discrete_outputs_(recorded_.discrete_outputs.size()),
        end_outputs_(
            static_cast<std::size_t>(description_.capabilities.output_derivative_order + 1) *
            description_.outputs.size()),
        max_difference_(match_.outputs.size() + match_.discrete_outputs.size(), 0.0),
        row_(row_width()),
        checks_(checks) {}

  /// Plays every call on the slave that `stream` holds, writing the rows to
  /// `signals` (CSV, without its header); returns the error of the call that
  /// failed (naming it), or an empty string. Reads the log to its end either way.
  std::string play(RunLogStream& stream, std::ostream& signals) {
    signals_ = &signals;
    std::string failed;
    const LoggedCall* failing = nullptr;
    std::size_t request = 0;
    std::size_t recorded = 0;
    while (const LoggedCall* call = stream.next_call()) {
      if (call->slave != slave_) continue;
      ++recorded;
      if (failing != nullptr) continue;  // counted only
      request = recorded;
      try {
        play(*call);
      } catch (const std::exception& error) {
        failing = call;
        failed = describe(*call) + "): " + error.what();
      }
    }
    signals_ = nullptr;
    requests_ = request;
    requests_recorded_ = recorded;
    if (failing == nullptr) return "";
    return "request " + std::to_string(request) + " of " + std::to_string(recorded) + " (" + failed;
  }

  std::size_t requests_recorded() const { return requests_recorded_; }
  std::size_t requests() const { return requests_; }
  const PortMatch& match() const { return match_; }
  const std::vector<double>& max_difference() const { return max_difference_; }
  /// The rows written: per returned row of outputs, the time, then per
  /// compared output (the Real ones, then the discrete ones) the recorded and
  /// the new value.
  std::size_t rows() const { return rows_; }
  std::size_t row_width() const {
    return 1 + 2 * (match_.outputs.size() + match_.discrete_outputs.size());
  }
  /// The time the new slave's outputs are known up to.
  Time reached() const { return time_; }

 private:
  void play(const LoggedCall& call) {
    switch (call.kind) {
      case CallKind::setup:
        resimulated_.setup(call.start);
        time_ = call.start;
        checks_.slave_set_up(0, call.start);
        return;
      case CallKind::evaluate_outputs:
        resimulated_.evaluate_outputs(inputs_of(call), end_outputs_);
        checks_.outputs_evaluated(0, inputs_, end_outputs_);
        add_row(time_, std::span(call.end_outputs).first(recorded_.outputs.size()), end_outputs_);
        return;
      case CallKind::step:
        step(call);
        return;
      case CallKind::save_state:
        resimulated_.save_state();
        saved_time_ = time_;
        checks_.state_saved(0);
        return;
      case CallKind::restore_state:
        resimulated_.restore_state();
        time_ = saved_time_;
        checks_.state_restored(0);
        return;
      case CallKind::linearize:
        linearization_.resize(LinearizationLayout::of(description_).size());
        resimulated_.linearize(inputs_of(call), linearization_);
        return;
      case CallKind::discrete_outputs:
        // After setup: the values held until the first step ends.
        resimulated_.evaluate_discrete_outputs(discrete_outputs_);
        checks_.discrete_outputs_evaluated(0, discrete_outputs_);
        take_recorded_discrete_outputs(call);
        return;
    }
  }

  void step(const LoggedCall& call) {
    const std::size_t outputs = description_.outputs.size();
    samples_.resize(call.sample_times.size() * outputs);
    const StepRequest request{call.start, call.end, inputs_of(call), call.sample_times,
                              discrete_inputs_of(call)};
    // Inside the step the discrete outputs hold their values from its start;
    // its end (a sample there too) shows the new ones.
    const std::vector<std::int64_t> held = discrete_outputs_;
    const std::vector<std::int64_t> recorded_held = recorded_discrete_outputs_;
    const OutputBuffers result{end_outputs_, samples_, discrete_outputs_};
    resimulated_.step(request, result);
    checks_.slave_stepped(0, request, result, LinkStepReport{});
    const std::vector<std::int64_t> stepped = discrete_outputs_;
    take_recorded_discrete_outputs(call);
    const std::vector<std::int64_t> recorded_stepped = recorded_discrete_outputs_;
    const std::size_t recorded_outputs = recorded_.outputs.size();
    for (std::size_t k = 0; k < call.sample_times.size(); ++k) {
      const bool at_end = call.sample_times[k] == call.end;
      discrete_outputs_ = at_end ? stepped : held;
      recorded_discrete_outputs_ = at_end ? recorded_stepped : recorded_held;
      add_row(call.sample_times[k],
              std::span(call.samples).subspan(k * recorded_outputs, recorded_outputs),
              std::span<const double>(samples_).subspan(k * outputs, outputs));
    }
    discrete_outputs_ = stepped;
    recorded_discrete_outputs_ = recorded_stepped;
    add_row(call.end, std::span(call.end_outputs).first(recorded_outputs), end_outputs_);
    time_ = call.end;
  }

  /// The discrete outputs the log holds for `call` (after setup, or at a step's end).
  void take_recorded_discrete_outputs(const LoggedCall& call) {
    std::copy_n(call.discrete_outputs.begin(),
                std::min(call.discrete_outputs.size(), recorded_discrete_outputs_.size()),
                recorded_discrete_outputs_.begin());
  }

  std::span<const Polynomial> inputs_of(const LoggedCall& call) {
    for (std::size_t j = 0; j < inputs_.size(); ++j)
      inputs_[j] = call.inputs[match_.input_source[j]];
    return inputs_;
  }

  std::span<const std::int64_t> discrete_inputs_of(const LoggedCall& call) {
    for (std::size_t j = 0; j < discrete_inputs_.size(); ++j) {
      const std::size_t source = match_.discrete_input_source[j];
      discrete_inputs_[j] = source < call.discrete_inputs.size() ? call.discrete_inputs[source] : 0;
    }
    return discrete_inputs_;
  }

  /// One row: the Real outputs given, the discrete ones as held now.
  void add_row(Time time, std::span<const double> recorded, std::span<const double> resimulated) {
    std::size_t cell = 0;
    row_[cell++] = to_seconds(time);
    std::size_t column = 0;
    const auto compare = [&](double before, double now) {
      row_[cell++] = before;
      row_[cell++] = now;
      // NaN on either side is a difference too (std::max would drop it).
      const double difference = std::fabs(now - before);
      if (std::isnan(difference) || difference > max_difference_[column])
        max_difference_[column] = difference;
      ++column;
    };
    for (const PortMatch::Output& output : match_.outputs)
      compare(recorded[output.recorded], resimulated[output.resimulated]);
    for (const PortMatch::Output& output : match_.discrete_outputs) {
      compare(static_cast<double>(recorded_discrete_outputs_[output.recorded]),
              static_cast<double>(discrete_outputs_[output.resimulated]));
    }
    for (std::size_t k = 0; k < row_.size(); ++k)
      *signals_ << (k == 0 ? "" : ",") << exact_text(row_[k]);
    *signals_ << '\n';
    ++rows_;
  }

  std::string describe(const LoggedCall& call) const {
    if (call.kind == CallKind::step) {
      return "step from t = " + seconds_text(call.start) + " s to t = " + seconds_text(call.end) +
             " s";
    }
    const Time at = call.kind == CallKind::setup ? call.start : time_;
    return std::string(call_kind_name(call.kind)) + " at t = " + seconds_text(at) + " s";
  }

  std::size_t slave_;
  const SlaveDescription& recorded_;
  Slave& resimulated_;
  const SlaveDescription description_;
  const PortMatch match_;
  std::vector<Polynomial> inputs_;
  std::vector<std::int64_t> discrete_inputs_;
  std::vector<std::int64_t> discrete_outputs_;           ///< the new slave's, held now
  std::vector<std::int64_t> recorded_discrete_outputs_;  ///< the log's, held now
  std::vector<double> end_outputs_;
  std::vector<double> samples_;
  std::vector<double> linearization_;
  std::vector<double> max_difference_;
  std::vector<double> row_;          ///< the row being written
  std::ostream* signals_ = nullptr;  ///< where rows go while playing
  std::size_t rows_ = 0;
  Time time_ = 0;
  Time saved_time_ = 0;
  std::size_t requests_ = 0;
  std::size_t requests_recorded_ = 0;
  CheckEvaluator& checks_;
};

/// signals.csv's header: per compared output, the recorded and the new values.
void write_signals_header(std::ostream& file, const std::string& slave,
                          const RequestPlayer& player) {
  file << "time";
  for (const auto* outputs : {&player.match().outputs, &player.match().discrete_outputs}) {
    for (const PortMatch::Output& output : *outputs) {
      const std::string name = slave + "." + output.name;
      file << ',' << name << ":recorded," << name;
    }
  }
  file << '\n';
}

nlohmann::json summary_of(const RunLog& log, const std::string& slave, const ResimOptions& options,
                          const RequestPlayer& player, const std::string& error,
                          const CheckEvaluator& evaluator, const ResimChecks& checks) {
  nlohmann::json summary;
  summary["slave"] = slave;
  summary["log"] = log.path;
  if (const std::string& link = log.slaves[logged_slave_index(log, slave)].link; !link.empty())
    summary["recorded_link"] = link;
  summary["overrides"] = nlohmann::json::array();
  for (const auto& [key, value] : options.overrides)
    summary["overrides"].push_back(key + "=" + value);
  summary["requests"] = player.requests();
  summary["requests_recorded"] = player.requests_recorded();
  summary["rows"] = player.rows();
  nlohmann::json differences = nlohmann::json::object();
  std::size_t column = 0;
  for (const auto* outputs : {&player.match().outputs, &player.match().discrete_outputs}) {
    for (const PortMatch::Output& output : *outputs)
      differences[slave + "." + output.name] = player.max_difference()[column++];
  }
  summary["max_difference"] = differences;
  if (!player.match().recorded_only.empty())
    summary["recorded_only"] = player.match().recorded_only;
  if (!player.match().new_only.empty()) summary["new_only"] = player.match().new_only;
  if (log.damaged() || log.cut())
    summary["log_cut"] = log.damaged() ? log.tail_problem : "no end record";
  if (!evaluator.empty() || !checks.not_applicable.empty()) {
    RunFacts facts;
    facts.reached = player.reached();
    summary["checks"] = verdicts_json(evaluator.verdicts(facts));
    summary["checks_not_applicable"] = checks.not_applicable;
  }
  summary["status"] = error.empty() ? "completed" : "failed";
  if (!error.empty()) summary["error"] = error;
  return summary;
}

bool corrupted(const RunLog& log) {
  return log.tail == protocol::LogReadStatus::corrupted ||
         log.tail == protocol::LogReadStatus::malformed;
}

}  // namespace

nlohmann::json resimulate_slave(RunLogStream& stream, const std::string& slave,
                                const ResimOptions& options) {
  const RunLog& log = stream.log();
  const std::size_t index = logged_slave_index(log, slave);
  refuse_log_directory(log, options.output_directory);
  const Scenario scenario = resim_scenario(log, slave, options);
  System system;  // the new slave alone: what the checks resolve against
  system.add_slave(slave, build_resim_slave(scenario, slave));
  Slave& resimulated = system.slave(0);
  ResimChecks checks = resim_checks(scenario, slave, resimulated.description());
  CheckEvaluator evaluator(std::move(checks.targets), system);
  RequestPlayer player(log, index, resimulated,
                       match_ports(slave, log.slaves[index].description, resimulated.description()),
                       evaluator);
  std::filesystem::create_directories(options.output_directory);
  const std::filesystem::path directory(options.output_directory);
  // The rows go to the file as the log is played: a log of any length.
  std::string error;
  write_file_atomically(directory / "signals.csv", [&](std::ostream& file) {
    write_signals_header(file, slave, player);
    error = player.play(stream, file);
  });
  const nlohmann::json summary = summary_of(log, slave, options, player, error, evaluator, checks);
  write_file_atomically(directory / "summary.json",
                        [&](std::ostream& file) { file << summary.dump(2) << '\n'; });
  return summary;
}

nlohmann::json resimulate_slave(const RunLog& log, const std::string& slave,
                                const ResimOptions& options) {
  RunLogStream stream(log);
  return resimulate_slave(stream, slave, options);
}

int resim_command(const std::string& log_path, const std::string& slave,
                  const ResimOptions& options) {
  std::optional<RunLogStream> stream;
  nlohmann::json summary;
  try {
    stream.emplace(log_path);  // streamed: the requests are read as they are played
    summary = resimulate_slave(*stream, slave, options);
  } catch (const RunLogError& error) {
    std::cerr << "couplet: error: " << error.what() << "\n";
    return 2;
  }
  const RunLog& log = stream->log();
  if (log.damaged())
    std::cerr << "couplet: warning: " << log_path << ": " << log.tail_problem
              << "; read up to there\n";
  std::cout << "resim of slave '" << slave << "' from " << log_path << ": " << summary["requests"]
            << " requests, " << summary["rows"] << " rows\n";
  for (const auto& [output, difference] : summary["max_difference"].items())
    std::cout << "  " << output << "  max difference " << difference.dump() << "\n";
  std::cout << checks_table(summary);
  if (summary.contains("checks_not_applicable")) {
    for (const nlohmann::json& check : summary["checks_not_applicable"])
      std::cout << "    " << check["name"].get<std::string>() << ": not applicable ("
                << check["reason"].get<std::string>() << ")\n";
  }
  std::cout << "  written to " << options.output_directory << "/\n";
  if (summary["status"] == "failed") {
    std::cerr << "couplet: resim failed: " << summary["error"].get<std::string>() << "\n";
    return 1;
  }
  if (corrupted(log)) return 1;
  return checks_failed(summary) ? 3 : 0;
}

}  // namespace couplet::tools
